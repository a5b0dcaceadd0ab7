"""What a chart's templates rendered to, kept on disk: a chart rendered again with the same inputs skips
executing them.

A playbook rerun renders every release with the inputs of its last run, each task in a fresh process. The
parse cache spares lexing and parsing, but running every template for the first time in a process still
costs about twice a warm render. What ``Engine.render`` returns is decided by the chart as loaded and
processed (metadata, values.yaml, templates, files, schema, lock, subcharts), the user's values, the release
options, the capabilities and the code that renders, unless a template consulted something else: the random
and clock functions (``nondeterministic.RANDOM``, ``CLOCK``), the local time zone or DNS
(``nondeterministic.OUTSIDE``), or the cluster (a ``lookup`` bound to a client). The key digests all of the
former; a render that did any of the latter is not kept, nor one whose inputs hold a type this module does
not know (``_canonical``). Entries are diskcache entries (atomic, bounded, damaged or foreign ones ignored,
off with ``HELMLESS_CACHE=off``); one holds the output of every template, in Engine.render's order.
"""
import marshal
import sys

from ..diskcache import Store, digest, enabled

MAX_BYTES = 128 * 1024 * 1024
_ROOT_NAME = __name__.rsplit(".", 2)[0]
# The packages above render in the layer table of docs/dev/ARCHITECTURE.md: render cannot import them
# (tests/unit/test_architecture.py), so none of their code decides what a render outputs, and their files
# (a third of module_utils) are not walked for the key. A test holds this to the table.
ABOVE_RENDER = ("kube", "release", "plan", "actions", "ansible")
_PLAIN = (str, int, float, bool, type(None), bytes)
_state = {}


class _Uncacheable(Exception):
    """An input this module cannot digest faithfully."""


def _store():
    if "store" not in _state:
        _state["store"] = Store("rendered", MAX_BYTES) if enabled() else None
    return _state["store"]


def _code_digest():
    """Every module_utils source render may run: the engine, the value model, the functions, chart processing
    (all but ABOVE_RENDER)."""
    if "code" not in _state:
        from ..codecache import tree_digest  # lazy: importing codecache installs its zip finder
        _state["code"] = tree_digest(sys.modules[_ROOT_NAME], ABOVE_RENDER)
    return _state["code"]


def _canonical(value, out):
    """Append an unambiguous text of ``value`` to ``out``: each container's type, length and key order, and
    the repr of every scalar (which tells 1, 1.0, True, '1' and b'1' apart, and holds no NUL: the pieces
    can be joined by one)."""
    kind = type(value)
    if kind in _PLAIN:
        out.append(repr(value))
    elif kind is dict:
        out.append("{%d" % len(value))
        for key, item in value.items():
            _canonical(key, out)
            _canonical(item, out)
    elif kind is list or kind is tuple:
        out.append("%s%d" % (kind.__name__, len(value)))
        for item in value:
            _canonical(item, out)
    else:
        raise _Uncacheable(kind.__name__)


def _chart(chart, parts):
    """The parts of ``chart``'s digest: its parsed forms canonically, its files' bytes as they are."""
    out = []
    for part in (chart.metadata, chart.values, chart.lock, chart.empty_annotations, chart.schema):
        _canonical(part, out)
    parts.append("\0".join(out))
    for files in (chart.templates, chart.files):
        parts.append("files%d" % len(files))
        for name, data in files:
            if not isinstance(name, str) or not isinstance(data, (bytes, str)):
                raise _Uncacheable(type(data).__name__)
            parts += [name, type(data).__name__, data]
    parts.append("dependencies%d" % len(chart.dependencies))
    for dep in chart.dependencies:
        _chart(dep, parts)


class Entry:
    """The stored output for one render's inputs; ``lookup`` is the caller's, wrapped to notice a call."""

    def __init__(self, chart, config, options, kube_version, api_versions, lookup):
        self.looked_up = False
        self.lookup = None if lookup is None else self._noting(lookup)
        self.key = None
        store = _store()
        code = _code_digest() if store is not None else None
        if code is None:
            return
        parts = ["rendered", code, sys.version, "template" if lookup is None else "cluster"]
        out = []
        try:
            _chart(chart, parts)
            for part in (config, options.to_map(), kube_version, list(api_versions or ())):
                _canonical(part, out)
        except _Uncacheable:
            return
        parts.append("\0".join(out))
        self.key = digest(*parts)

    def _noting(self, lookup):
        def noted(*args):
            self.looked_up = True
            return lookup(*args)
        return noted

    def get(self):
        """``{template name: output}`` rendered before from these inputs, or None."""
        payload = _store().get(self.key) if self.key is not None else None
        if payload is None:
            return None
        try:
            items = marshal.loads(payload)
        except (EOFError, ValueError, TypeError):  # a damaged or foreign entry is a miss
            return None
        if not isinstance(items, list) or not all(
                isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str) and isinstance(item[1], str)
                for item in items):
            return None
        rendered = dict(items)
        return rendered if len(rendered) == len(items) else None

    def put(self, rendered, tracker):
        """Keep ``rendered`` unless the render consulted randomness, the clock, the zone, DNS or the cluster."""
        if self.key is None or tracker.consulted or self.looked_up:
            return
        _store().put(self.key, marshal.dumps(list(rendered.items())))
