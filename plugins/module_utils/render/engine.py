"""Helm 4's ``engine.Render``: parse every template of a chart tree into one namespace, run them.

Follows ``pkg/engine/engine.go``: template names are ``<chart full path>/<file>``; files are
parsed deepest-path first and, at equal depth, in reverse byte order (so the last parsed
``define`` - the shallowest, alphabetically first - wins); every non-partial file is executed
in that same order with its chart's shared top-level object, which templates may mutate
(``set $ "Values" ...``) for the files that run after them.
"""
import contextlib
import gc
import posixpath
import re
import sys
import _thread
import threading

from ..chart.values import Values
from ..funcs.helm import (
    HELM_FUNCS, REMOVED_SPRIG, WARN_END, WARN_START, include_func, tpl_func,
)
from ..funcs.sprig import SPRIG_FUNCS
from ..gotemplate import ExecError, ParseError, TemplateSet
from ..govalue.signature import go_signature
from ..govalue.values import Int64
from ..errors import HelmlessError
from ..gcpolicy import after_render
from ..regexcache import regex

NO_VALUE = "<no value>"
_WARN = regex(re.escape(WARN_START) + r"(.*)" + re.escape(WARN_END), re.S)


class RenderError(HelmlessError):
    """A chart failed to render; the message names file, line and column as Helm 4 does.

    ``kind`` says which stage failed: ``render`` (templates, manifests), ``values`` (values or
    schema validation) or ``chart`` (the chart itself).
    """

    def __init__(self, message, kind="render"):
        super(RenderError, self).__init__(message)
        self.kind = kind


class Renderable(object):
    """One template file: its source, its chart's top-level object, its ``Template.BasePath``."""

    __slots__ = ("text", "vals", "base_path")

    def __init__(self, text, vals, base_path):
        self.text = text
        self.vals = vals
        self.base_path = base_path


def _decode(data):
    if isinstance(data, str):
        return data
    return data.decode("utf-8", "surrogateescape")


def collect_templates(chart, top):
    """Helm's ``allTemplates``: ``{template name: Renderable}`` for the chart and its subcharts.

    ``top`` is the chart's top-level object as ``chart.values.to_render_values`` builds it:
    one object per chart (under ``Subcharts``), shared by all that chart's templates.
    """
    templates = {}
    _collect(chart, top, templates)
    return templates


def _collect(chart, scope, templates):
    for child in chart.dependencies:
        _collect(child, scope["Subcharts"][child.name], templates)
    full_path = chart.chart_full_path()
    base_path = full_path + "/templates"
    library = chart.is_library()
    for name, data in chart.templates:
        if library and not posixpath.basename(name).startswith("_"):
            continue
        templates[full_path + "/" + name] = Renderable(_decode(data), scope, base_path)


def sort_templates(names):
    """Helm's ``sortTemplates``: deepest path first, then reverse byte order."""
    return sorted(names, key=lambda n: (n.count("/"), n.encode("utf-8", "surrogateescape")),
                  reverse=True)


def base_funcs():
    """Sprig, minus what Helm removes, then Helm's own functions."""
    funcs = dict(SPRIG_FUNCS)
    for name in REMOVED_SPRIG:
        funcs.pop(name, None)
    funcs.update(HELM_FUNCS)
    return funcs


class Engine(object):
    """One render: a template set with include/tpl/lookup bound to it.

    ``lookup`` is ``callable(api_version, kind, namespace, name) -> dict``; without one,
    lookup returns an empty map as in ``helm template``. ``tracker`` (nondeterministic.Tracker)
    records the random and clock functions the templates call.
    """

    def __init__(self, lookup=None, funcs=None, tracker=None):
        self.funcs = dict(funcs if funcs is not None else base_funcs())
        if lookup is not None:
            self.funcs["lookup"] = _lookup_func(lookup)
        self.tracker = tracker
        if tracker is not None:
            self.funcs = tracker.funcs(self.funcs)

    def _template_set(self):
        counters = {}
        tset = TemplateSet(dict(self.funcs), missingkey="zero")

        def bound(target):
            return {"include": include_func(target, counters),
                    "tpl": tpl_func(target, counters, bound)}
        tset.add_funcs(bound(tset))
        return tset

    def render(self, chart, top):
        """Render every template of ``chart``: ``{template name: output}`` (partials omitted)."""
        with paused_gc():
            return _deep(self.render_templates, collect_templates(chart, top))

    def render_templates(self, templates):
        if self.tracker is None:
            return self._render_templates(templates)
        with self.tracker:
            return self._render_templates(templates)

    def _render_templates(self, templates):
        tset = self._template_set()
        order = sort_templates(templates)
        items = [(name, templates[name].text) for name in order]
        keep = tset.preload(items)
        for name, text in items:
            try:
                tset.parse(name, text, disk=False)
            except ParseError as exc:
                raise RenderError(format_parse_error(name, exc))
        keep()
        rendered = {}
        for name in order:
            if posixpath.basename(name).startswith("_"):
                continue
            item = templates[name]
            item.vals["Template"] = _template_object(name, item.base_path)
            try:
                out = tset.execute(name, item.vals)
            except RecursionError:
                raise RenderError("rendering template failed: runtime: goroutine stack exceeds "
                                  "1000000000-byte limit")
            except HelmlessError as exc:  # a template error, or a Go panic outside a function call
                raise RenderError(format_exec_error(name, exc))
            rendered[name] = out.replace(NO_VALUE, "")
        tset.write_pack()
        return rendered


# Helm bounds include recursion at 1000 levels; each level is many Python frames, so renders run with a
# matching recursion limit, on a thread with a large stack where the stack decides how deep they reach.
_STACK_BYTES = 512 * 1024 * 1024
_RECURSION_LIMIT = 200000
_deep_lock = threading.Lock()


_deep_state = {"active": 0, "saved": None}


# CPython 3.12 and 3.13 keep Python frames on the heap and bound C recursion by a fixed count
# (Py_C_RECURSION_LIMIT), whatever the stack: there a render reaches the same depth on the main thread as
# on a big-stack thread (the same outputs and errors for recursive includes and deep values, checked on
# both), provided the main stack may grow to the 8 MiB that count is sized for. Starting the thread was
# half a millisecond of every render, a twentieth of a small chart's.
_SAME_DEPTH_ON_MAIN = sys.implementation.name == "cpython" and sys.version_info[:2] in ((3, 12), (3, 13))
_MAIN_STACK_BYTES = 8 * 1024 * 1024


def _main_stack_suffices():
    if "main_stack" not in _deep_state:
        try:
            import resource
            soft = resource.getrlimit(resource.RLIMIT_STACK)[0]
            _deep_state["main_stack"] = soft == resource.RLIM_INFINITY or soft >= _MAIN_STACK_BYTES
        except (ImportError, OSError, ValueError):
            _deep_state["main_stack"] = False
    return _deep_state["main_stack"]


def _deep(fn, *args):
    """Run ``fn(*args)`` with a high recursion limit, on a big-stack thread unless this thread reaches as
    deep (_SAME_DEPTH_ON_MAIN), then restore the limit."""
    with _high_limit():
        if _SAME_DEPTH_ON_MAIN and threading.current_thread() is threading.main_thread() and _main_stack_suffices():
            return fn(*args)
        outcome = {}
        done = _thread.allocate_lock()
        done.acquire()

        def target():
            try:
                outcome["value"] = fn(*args)
            except BaseException as exc:  # re-raised in the caller's thread
                outcome["error"] = exc
            finally:
                done.release()
        # A bare thread and a lock, not threading.Thread, whose start waits for the new thread to report in:
        # a quarter of a millisecond of every render on CPython 3.11, of a small chart's ten.
        with _deep_lock:  # the stack size applies to threads started while it is set
            old_stack = threading.stack_size(_STACK_BYTES)
            try:
                _thread.start_new_thread(target, ())
            finally:
                threading.stack_size(old_stack)
        done.acquire()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


@contextlib.contextmanager
def _high_limit():
    """The high recursion limit while any render runs (the first to start raises it, the last to end restores it)."""
    with _deep_lock:
        if _deep_state["active"] == 0:
            _deep_state["saved"] = sys.getrecursionlimit()
            sys.setrecursionlimit(max(_RECURSION_LIMIT, _deep_state["saved"]))
        _deep_state["active"] += 1
    try:
        yield
    finally:
        with _deep_lock:
            _deep_state["active"] -= 1
            if _deep_state["active"] == 0:
                sys.setrecursionlimit(_deep_state["saved"])


_gc_state = {"paused": 0, "enabled": False}


@contextlib.contextmanager
def paused_gc():
    """Automatic garbage collection off for the length of a render (nestable, thread-safe).

    A render allocates many long-lived objects (parse trees, closures, values) and little
    cyclic garbage; the generation-2 passes over them were half the CPU time of a cold
    kube-prometheus-stack render. On leaving, the render's survivors are moved out of the
    youngest generation without a pass over them (that first pass took a third of a cached
    kube-prometheus-stack render): see gcpolicy.after_render.
    """
    with _deep_lock:
        if _gc_state["paused"] == 0:
            _gc_state["enabled"] = gc.isenabled()
            gc.disable()
        _gc_state["paused"] += 1
    try:
        yield
    finally:
        with _deep_lock:
            _gc_state["paused"] -= 1
            if _gc_state["paused"] == 0:
                after_render()
                if _gc_state["enabled"]:
                    gc.enable()


def _lookup_func(lookup):
    @go_signature("string", "string", "string", "string")
    def lookup_(api_version, kind, namespace, name):
        return _unstructured(lookup(api_version, kind, namespace, name))
    return lookup_


def _unstructured(value):
    """An API object as client-go's unstructured decoding gives it: integers are int64."""
    if isinstance(value, dict):
        return {k: _unstructured(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_unstructured(v) for v in value]
    if isinstance(value, int) and value.__class__ is not bool:
        return Int64(value)
    return value


def _template_object(name, base_path):
    return Values({"Name": name, "BasePath": base_path})


def format_parse_error(filename, exc):
    """Helm's ``cleanupParseError``: ``parse error at (<file>:<line>): <last message part>``."""
    tokens = str(exc).split(": ")
    if len(tokens) == 1:
        return "parse error in (%s): %s" % (filename, exc)
    return "parse error at (%s): %s" % (tokens[1], tokens[-1])


_FUNC_ERROR = regex(r"error calling [^:]+: ", re.S)


def _error_chain_texts(exc):
    """The texts of Go's error chain for ``exc`` (outermost first), as errors.Unwrap walks it.

    A failed function call is ``error calling f: %w`` in Go, so the function's own error is a
    link of its own; when it is not a template error, Helm 4 gives up reformatting.
    """
    texts = []
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        texts.append(str(exc))
        cause = getattr(exc, "cause", None)
        if cause is None:
            message = getattr(exc, "message", "") or ""
            match = _FUNC_ERROR.match(message)
            if match:
                texts.append(message[match.end():])
        exc = cause
    return texts


def _parse_exec_message(text):
    """Helm 4's ``parseTemplateExecErrorString``: (location, function, message) or None."""
    prefix = "template: "
    if not text.startswith(prefix):
        return None
    rest = text[len(prefix):]
    if rest.startswith("no template "):
        return ("", "", text)
    name, sep, after = rest.partition(': executing "')
    if sep:
        func, sep, rest2 = after.partition('" at <')
        if not sep:
            return None
        loc, sep, msg = rest2.partition(">: ")
        if not sep:
            return None
        cut = msg.find(" template:")
        if cut >= 0:
            msg = msg[:cut]
        return (name, 'executing "%s" at <%s>:' % (func, loc), msg)
    i = rest.rfind(": ")
    if i < 0:
        return None
    return (rest[:i], "", rest[i + 2:])


def _traceable_str(location, function, message):
    out = ""
    if location:
        out += location + "\n  "
    if function:
        out += function + "\n    "
    if message:
        out += message + "\n"
    return out


def format_exec_error(filename, exc):
    """Helm 4's ``reformatExecErrorMsg`` over our exec errors."""
    text = str(exc)
    if not isinstance(exc, ExecError):
        return "rendering template failed: %s" % text if not text.startswith("template: ") else text
    tokens = text.split(": ", 2)
    if len(tokens) != 3:
        return "render error in (%s): %s" % (filename, text)
    match = _WARN.search(tokens[2])
    if match:
        return "execution error at (%s): %s" % (tokens[1], match.group(1))
    locations = []
    for link in _error_chain_texts(exc):
        parsed = _parse_exec_message(link)
        if parsed is None:
            return text
        if not locations or locations[-1] != parsed:
            locations.append(parsed)
    return "".join(_traceable_str(*loc) for loc in locations).strip()
