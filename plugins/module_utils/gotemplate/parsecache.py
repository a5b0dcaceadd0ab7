"""Compiled templates kept on disk, so a chart seen before skips lexing, parsing and compiling in a fresh process.

Every Ansible task is a new process, so the in-memory parse cache of template.py starts empty each
time. An entry here is one template file as codegen compiled it: the code object of its module,
the names, variable counts and emptiness of its trees, each body's expression recipe and the node
table (both still marshal data inside the entry, read only when a body first runs or an error
needs a node), and the identifiers the parser looked up as functions. It is keyed by the template's
name and text, the parser's break/continue switches, the interpreter's bytecode version and
``ENGINE``: a hash of this package's source and the value model's, so any change to the template
engine invalidates every entry.

The entry is one ``marshal`` payload, which loads code objects and plain values at C speed: a warm
fresh process then runs the module code, with no parse tree to decode and nothing to compile. The
text itself is not stored: the caller has it, and it is part of the key. An entry of another shape
is a miss. See diskcache for the guarantees (atomic writes, corrupt or foreign entries ignored,
``HELMLESS_CACHE=off``, an unwritable directory bypassed).
"""
import marshal
import sys
from importlib.util import MAGIC_NUMBER
from types import CodeType

from ..diskcache import Store, digest, enabled
from . import codegen

MAX_BYTES = 256 * 1024 * 1024
# Every module of this package and of the value model it parses literals with (strconv, unquote): the
# stored code calls their functions and their code generated it.
ENGINE_MODULES = {
    "gotemplate": ("__init__", "builtins", "calls", "codegen", "errors", "exec", "lexer", "nodes", "parsecache",
                   "parser", "template"),
    "govalue": ("__init__", "cast", "fmt", "gopath", "re2", "reflect", "signature", "strconv", "unquote", "values"),
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
    return digest("templates", engine_digest(), str(marshal.version), MAGIC_NUMBER, name, text, repr(flags))


def load(name, text, flags, funcs):
    """``(trees, idents)`` compiled from ``text`` before, or None; only when every ident is in ``funcs``."""
    store = _store()
    if store is None:
        return None
    payload = store.get(key(name, text, flags))
    if payload is None:
        return None
    try:
        idents, meta, code, recipes, flat = marshal.loads(payload)
        idents = frozenset(idents)
        if not idents.issubset(funcs) or code.__class__ is not CodeType:
            return None
        trees = codegen.restore(name, text, meta, code, recipes, flat)
    except (EOFError, ValueError, TypeError, IndexError, KeyError, NameError, StopIteration):  # another shape: a miss
        return None
    return trees, idents


def save(name, text, flags, idents, compiled):
    """Keep ``compiled`` (codegen.compile_file's result) for the next process that parses the same text."""
    store = _store()
    if store is not None:
        meta, code, recipes, table = compiled
        recipes = tuple(marshal.dumps(r) if r else None for r in recipes)
        store.put(key(name, text, flags), marshal.dumps((tuple(sorted(idents)), meta, code, recipes,
                                                         marshal.dumps(codegen.flatten(table)))))
