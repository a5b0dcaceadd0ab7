"""Values: Helm 4's coalescing (pkg/chart/common/util/coalesce.go) and the render context.

``coalesce_values`` mutates nothing it was given: user values are deep-copied first and
chart defaults are copied before they are merged, as Helm does.  Warnings Helm logs
(``warning: cannot overwrite table with non table ...``) are appended to the
``warnings`` list the caller passes, never printed.
"""


from ..govalue.fmt import format_value
from ..goyaml import YAMLError, load_values, merge_maps, to_yaml
from ..govalue.values import go_type_name
from .capabilities import Capabilities, HelmVersion, KubeVersion, VersionSet, parse_kube_version
from .errors import ValuesError
from . import strvals
from .files import Files
from .schema import validate_values

__all__ = ["Values", "coalesce_values", "merge_values", "coalesce_tables", "merge_tables",
           "to_render_values", "ReleaseOptions", "Capabilities", "KubeVersion", "VersionSet",
           "HelmVersion", "parse_kube_version", "chart_scope", "chart_scopes", "GLOBAL_KEY"]

GLOBAL_KEY = "global"


class Values(dict):
    """``common.Values``: a map whose methods (``AsMap``, ``YAML``, ``Table``, ``PathValue``) win over keys."""

    GO_TYPE = "common.Values"
    GO_METHODS = ("AsMap", "YAML", "Table", "PathValue")

    def go_method(self, name):
        if name in self.GO_METHODS:
            return getattr(self, name)
        return None

    def AsMap(self):
        return self

    def YAML(self):
        text = to_yaml(dict(self))
        return text if text.endswith("\n") else text + "\n"

    def Table(self, name):
        """The nested table at dotted ``name``; ``ValuesError`` (``"x" is not a table``) when absent."""
        table = self
        for key in name.split("."):
            value = table.get(key) if isinstance(table, dict) else None
            if not isinstance(value, dict):
                raise ValuesError('"%s" is not a table' % key)
            table = value
        return table if isinstance(table, Values) else Values(table)

    def PathValue(self, path):
        """The non-table value at dotted ``path``; ``ValuesError`` (``"x" is not a value``) otherwise."""
        if path == "":
            raise ValuesError("YAML path cannot be empty")
        parts = path.split(".")
        key = parts[-1]
        table = self
        if len(parts) > 1:
            try:
                table = self.Table(".".join(parts[:-1]))
            except ValuesError:
                raise ValuesError('"%s" is not a value' % key)
        if key in table and not isinstance(table[key], dict):
            return table[key]
        raise ValuesError('"%s" is not a value' % key)


def copy_values(value):
    """Deep copy of a values tree (dicts and lists; scalars are immutable), much faster than deepcopy."""
    if isinstance(value, dict):
        return {k: copy_values(v) if isinstance(v, (dict, list)) else v for k, v in value.items()}
    if isinstance(value, list):
        return [copy_values(v) if isinstance(v, (dict, list)) else v for v in value]
    return value


def _concat(prefix, key):
    return key if prefix == "" else prefix + "." + key


def _istable(value):
    return isinstance(value, dict)


def _go_t(value):
    """Go's ``%t`` on a non-bool: ``%!t(type=value)``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "%!t(<nil>)"
    if isinstance(value, list):
        return "[" + " ".join(_go_t(item) for item in value) + "]"
    if isinstance(value, dict):
        return "map[" + " ".join("%s:%s" % (key, _go_t(value[key])) for key in sorted(value)) + "]"
    return "%%!t(%s=%s)" % (go_type_name(value), format_value(value))


def coalesce_values(chart, values=None, warnings=None):
    """Helm's ``CoalesceValues``: user ``values`` over chart defaults, recursively into subcharts.

    A user ``None`` deletes the default key; globals flow down; returns a :class:`Values`.
    """
    return _run(chart, values, warnings, False)


def merge_values(chart, values=None, warnings=None):
    """Helm's ``MergeValues``: like :func:`coalesce_values` but ``None`` values are kept."""
    return _run(chart, values, warnings, True)


def _run(chart, values, warnings, merge):
    dest = copy_values(dict(values)) if values else {}
    warn = warnings.append if warnings is not None else (lambda _msg: None)
    return Values(_coalesce(warn, chart, dest, "", merge))


def _coalesce(warn, chart, dest, prefix, merge):
    _coalesce_chart_values(warn, chart, dest, prefix, merge)
    return _coalesce_deps(warn, chart, dest, prefix, merge)


def _coalesce_deps(warn, chart, dest, prefix, merge):
    for sub in chart.dependencies:
        name = sub.name
        if name not in dest:
            dest[name] = {}
        elif not _istable(dest[name]):
            raise ValuesError("type mismatch on %s: %s" % (name, _go_t(dest[name])))
        table = dest[name]
        sub_prefix = _concat(prefix, chart.name)
        _coalesce_globals(warn, table, dest, sub_prefix)
        dest[name] = _coalesce(warn, sub, table, sub_prefix, merge)
    return dest


def _coalesce_globals(warn, dest, src, prefix):
    """Copy the parent's ``global`` table into the subchart's (the parent wins)."""
    if GLOBAL_KEY not in dest:
        dg = {}
    else:
        dg = dest[GLOBAL_KEY]
        if not _istable(dg):
            warn("warning: skipping globals because destination %s is not a table." % GLOBAL_KEY)
            return
    if GLOBAL_KEY not in src:
        sg = {}
    else:
        sg = src[GLOBAL_KEY]
        if not _istable(sg):
            warn("warning: skipping globals because source %s is not a table." % GLOBAL_KEY)
            return
    for key, val in list(sg.items()):
        if _istable(val):
            copied = dict(val)
            if key not in dg:
                dg[key] = copied
            elif not _istable(dg[key]):
                warn('Conflict: cannot merge map onto non-map for "%s". Skipping.' % key)
            else:
                _coalesce_tables(warn, copied, dg[key], _concat(prefix, key), True)
                dg[key] = copied
        elif key in dg and _istable(dg[key]):
            warn("key %s is table. Skipping" % key)
        else:
            dg[key] = val
    dest[GLOBAL_KEY] = dg


def _coalesce_chart_values(warn, chart, values, prefix, merge):
    sub_prefix = _concat(prefix, chart.name)
    defaults = copy_values(chart.values) if chart.values else {}
    dep_names = set(dep.name for dep in chart.dependencies)
    for key, val in defaults.items():
        if key in values:
            value = values[key]
            if value is None and not merge:
                del values[key]
            elif _istable(value):
                if not _istable(val):
                    if val is not None:
                        warn("warning: skipped value for %s.%s: Not a table." % (sub_prefix, key))
                else:
                    child_merge = True if key in dep_names else merge
                    if not child_merge:
                        _clean_nils(val)
                    _coalesce_tables(warn, value, val, _concat(sub_prefix, key), child_merge)
        else:
            # Helm 4.2 (helm#31979) drops chart-default nulls when coalescing, root chart included.
            if not merge:
                if val is None:
                    continue
                if _istable(val):
                    _clean_nils(val)
            values[key] = val


def _clean_nils(table):
    for key in list(table):
        val = table[key]
        if val is None:
            del table[key]
        elif _istable(val):
            _clean_nils(val)


def coalesce_tables(dst, src, warnings=None):
    """Helm's ``CoalesceTables``: merge ``src`` into ``dst`` (``dst`` wins); returns ``dst``."""
    warn = warnings.append if warnings is not None else (lambda _msg: None)
    return _coalesce_tables(warn, dst, src, "", False)


def merge_tables(dst, src, warnings=None):
    """Helm's ``MergeTables``: like :func:`coalesce_tables` but keeps ``None`` values."""
    warn = warnings.append if warnings is not None else (lambda _msg: None)
    return _coalesce_tables(warn, dst, src, "", True)


def _coalesce_tables(warn, dst, src, prefix, merge):
    if src is None:
        return dst
    if dst is None:
        return src
    src_non_nil = set(key for key, val in src.items() if val is not None)
    for key, val in list(dst.items()):
        if val is None:
            src[key] = None
    for key, val in list(src.items()):
        fullkey = _concat(prefix, key)
        present = key in dst
        dv = dst.get(key)
        if present and not merge and dv is None and key in src_non_nil:
            del dst[key]
        elif not present:
            dst[key] = val
        elif _istable(val):
            if _istable(dv):
                _coalesce_tables(warn, dv, val, fullkey, merge)
            else:
                warn("warning: cannot overwrite table with non table for %s (%s)" % (fullkey, format_value(val)))
        elif _istable(dv) and val is not None:
            warn("warning: destination for %s is a table. Ignoring non-table value (%s)" % (fullkey, format_value(val)))
    return dst


class ReleaseOptions(object):
    """What ``.Release`` reports (Helm's ``ReleaseOptions``)."""

    def __init__(self, name, namespace="default", revision=1, is_install=True, is_upgrade=False):
        self.name = name
        self.namespace = namespace
        self.revision = int(revision)
        self.is_install = bool(is_install)
        self.is_upgrade = bool(is_upgrade)

    def to_map(self):
        return {"Name": self.name, "Namespace": self.namespace, "IsUpgrade": self.is_upgrade,
                "IsInstall": self.is_install, "Revision": self.revision, "Service": "Helm"}


def to_render_values(chart, values=None, options=None, capabilities=None, warnings=None, validate=True):
    """The top-level template object of ``chart`` (Helm's ``ToRenderValues`` plus the engine's scopes).

    Returns ``{Chart, Capabilities, Release, Values, Files, Subcharts}``; ``Subcharts``
    maps each subchart name to its own object of the same shape (whose ``Values`` is
    the parent's ``Values.<name>`` table, shared, not copied).  The render engine adds
    ``Template``.  ``values`` are the user values (already merged from -f/--set);
    schema validation runs unless ``validate`` is false.
    """
    options = options or ReleaseOptions("release-name")
    caps = capabilities or Capabilities()
    coalesced = coalesce_values(chart, values, warnings)
    if validate:
        validate_values(chart, coalesced)
    release = options.to_map()
    return chart_scope(chart, coalesced, release, caps)


def chart_scope(chart, values, release, caps):
    """The top-level object of ``chart``'s templates, and (under ``Subcharts``) its subcharts'.

    As Helm's ``recAllTpls``: each chart's ``Values`` is ``Values.Table(<name>)`` of its
    parent's, and the parent's map is left as it is (see :func:`_subchart_values`).
    """
    subcharts = {}
    # Helm executes every template with a common.Values as dot (it shows in type errors).
    scope = Values({
        "Chart": chart.template_chart(),
        "Files": Files.from_chart(chart),
        "Release": release,
        "Capabilities": caps,
        "Values": values,
        "Subcharts": subcharts,
    })
    for dep in chart.dependencies:
        subcharts[dep.name] = chart_scope(dep, _subchart_values(values, dep.name), release, caps)
    return scope


def _subchart_values(parent_values, name):
    """``Values.Table(name)``: the subchart's table as a ``Values``.

    In Go the table stays a plain map inside the parent and only the subchart sees it as
    ``common.Values``; Python cannot give one dict two types, so the subchart gets a shallow
    copy (nested maps shared) and the parent keeps (or gets back) a plain dict, which type
    switches such as Sprig's ``dig`` rely on.
    """
    table = parent_values.get(name) if isinstance(parent_values, dict) else None
    if not isinstance(table, dict):
        return Values()
    # Exact type: a Values (or other dict subclass) table goes back to the parent as a plain dict.
    if type(table) is not dict:  # pylint: disable=unidiomatic-typecheck
        table = dict(table)
        parent_values[name] = table
    return Values(table)


def chart_scopes(chart, top):
    """Pairs ``(chart, scope)`` for ``chart`` and every subchart, parents first."""
    out = [(chart, top)]
    for dep in chart.dependencies:
        out.extend(chart_scopes(dep, top["Subcharts"][dep.name]))
    return out


def user_values(values_files=(), set_json=(), set_values=(), set_string=(), set_file=(), set_literal=(),
                base_dir=None):
    """Helm CLI's ``MergeValues``: ``-f`` files, then ``--set-json``, ``--set``, ``--set-string``,
    ``--set-file``, ``--set-literal``, each applied over the result so far.

    A ``values_files`` item is a path (read like ``-f``) or an already-parsed dict.
    Errors name the option or file as Helm's do (``failed parsing --set data: ...``).
    """
    base = {}
    for item in values_files:
        if isinstance(item, dict):
            current = item
        else:
            try:
                with open(item, "rb") as handle:
                    data = handle.read()
            except OSError as exc:
                raise ValuesError("open %s: %s" % (item, (exc.strerror or str(exc)).lower()))
            try:
                current = load_values(data) or {}
            except YAMLError as exc:
                raise ValuesError("failed to parse %s: %s" % (item, exc))
        base = merge_maps(base, current)
    steps = ((set_json, strvals.parse_set_json_cli, "--set-json data"), (set_values, strvals.parse_set, "--set data"),
             (set_string, strvals.parse_set_string, "--set-string data"),
             (set_file, lambda text, dest: strvals.parse_set_file(text, dest, base_dir), "--set-file data"),
             (set_literal, strvals.parse_set_literal, "--set-literal data"))
    for expressions, parse, what in steps:
        for expression in expressions:
            try:
                parse(expression, base)
            except ValuesError as exc:
                if parse is not strvals.parse_set_json_cli:
                    raise ValuesError("failed parsing %s: %s" % (what, exc))
                if str(exc).startswith("failed parsing --set-json data JSON: "):
                    raise
                raise ValuesError("failed parsing --set-json data %s" % expression)  # Helm drops the reason
    return base
