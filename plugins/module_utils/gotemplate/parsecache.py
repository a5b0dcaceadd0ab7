"""Parsed templates kept on disk, so a chart seen before skips lexing and parsing in a fresh process.

Every Ansible task is a new process, so the in-memory parse cache of template.py starts empty each
time. An entry here is the parser's output for one template file — its trees, pickled before they
are ever compiled or run, and the identifiers it looked up as functions — keyed by the template's
name and text, the parser's break/continue switches and ``ENGINE``: a hash of this package's source and
the value model's, so any change to the template engine invalidates every entry. See diskcache for the guarantees
(atomic writes, corrupt or foreign entries ignored, ``HELMLESS_CACHE=off``).
"""
import pickle
import sys

from ..diskcache import Store, digest, enabled

MAX_BYTES = 256 * 1024 * 1024
# Every module of this package and of the value model it parses literals with (strconv, unquote): the
# parse trees are instances of their classes and their code built them.
ENGINE_MODULES = {
    "gotemplate": ("__init__", "builtins", "calls", "errors", "exec", "lexer", "nodes", "parsecache", "parser",
                   "template"),
    "govalue": ("__init__", "cast", "fmt", "re2", "reflect", "signature", "strconv", "unquote", "values"),
}
_state = {}


def _source_digest(name):
    from ..codecache import SOURCE_DIGESTS  # lazy: importing codecache installs its zip finder; modules opt in
    known = SOURCE_DIGESTS.get(name)
    if known:
        return known
    module = sys.modules.get(name)
    if module is None:
        __import__(name)
        module = sys.modules[name]
    return digest(module.__loader__.get_data(module.__file__))


def engine_digest():
    """Hash of the template engine's source (every module of ENGINE_MODULES), computed once per process."""
    if "engine" not in _state:
        root = __name__.rsplit(".", 2)[0]
        _state["engine"] = digest(*(_source_digest(root + "." + package + ("" if m == "__init__" else "." + m))
                                    for package, modules in ENGINE_MODULES.items() for m in modules))
    return _state["engine"]


def _store():
    if "store" not in _state:
        _state["store"] = Store("templates", MAX_BYTES) if enabled() else None
    return _state["store"]


def key(name, text, flags):
    return digest("templates", engine_digest(), name, text, repr(flags))


def load(name, text, flags, funcs):
    """``(trees, idents)`` parsed from ``text`` before, or None; only when every ident is in ``funcs``."""
    store = _store()
    if store is None:
        return None
    payload = store.get(key(name, text, flags))
    if payload is None:
        return None
    try:
        trees, idents = pickle.loads(payload)
    except Exception:  # noqa: BLE001 - a damaged entry is a miss, whatever unpickling raised
        return None
    if not isinstance(trees, dict) or not isinstance(idents, frozenset) or not idents.issubset(funcs):
        return None
    return trees, idents


def save(name, text, flags, trees, idents):
    """Keep ``trees`` (not yet compiled) for the next process that parses the same text."""
    store = _store()
    if store is not None:
        store.put(key(name, text, flags), pickle.dumps((trees, frozenset(idents)), pickle.HIGHEST_PROTOCOL))
