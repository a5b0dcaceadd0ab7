"""Regexes compiled once per controller instead of once per task, and only when first used.

Python compiles a pattern in pure Python (``re._parser``, ``re._compiler``) into SRE code, a list of
ints that ``_sre.compile`` turns into a pattern object at C speed. Every task is a fresh process, and a
pattern with wide Unicode classes costs milliseconds to compile: an RE2 class such as ``[^\\\\]``
translated for Python, or the YAML emitter's printable checks, about 8 ms each. So the compiler's output
is kept on disk: one table per interpreter (keyed by its version and SRE magic) of every pattern compiled
before, read on the first compile of a process; a process that compiled new patterns merges them into
the table as it exits, with every ``LazyRegex`` its modules declared that the table lacks, so the engine's
own patterns compile once per controller even where the first tasks never used them. ``regex`` is
``re.compile`` wherever that cannot apply: the cache off or unreadable, an entry ``_sre`` refuses, an
interpreter without ``re._compiler`` (before 3.11).
"""
import atexit
import marshal
import re
import sys

from .diskcache import Store, digest, enabled

try:
    import _sre
    from re import _compiler, _parser
except ImportError:  # before Python 3.11, or not CPython: re.compile only
    _sre = None

MAX_BYTES = 4 * 1024 * 1024
# Bounds the table a long series of templates with patterns of their own (regexMatch on values) could grow.
MAX_ENTRIES = 2048
_state = {}  # "table": {(pattern, flags): arguments of _sre.compile}; "new": those this process added
_LAZY = []  # (pattern, flags) of every LazyRegex made in this process


def regex(pattern, flags=0):
    """``re.compile(pattern, flags)``, from the controller's table of compiled patterns when it holds it."""
    memo = _state.get("memo")
    if memo is None:
        memo = _state["memo"] = {}
    key = (pattern, flags)
    found = memo.get(key)
    if found is None:
        if len(memo) >= MAX_ENTRIES:  # as re's own cache: a process compiling patterns without end stays bounded
            memo.clear()
        found = memo[key] = _compile(pattern, flags)
    return found


class LazyRegex(object):
    """``regex(pattern, flags)`` on first attribute access, then the compiled pattern's attributes.

    For module-level patterns most tasks never use: even from the table, each costs a lookup and an
    ``_sre.compile``."""

    def __init__(self, pattern, flags=0):
        self._source = (pattern, flags)
        _LAZY.append((pattern, int(flags)))  # as the table keys it (marshal stores no RegexFlag)

    def __getattr__(self, name):  # only for what is not set yet: compile once, then keep ``match`` at hand
        compiled = self.__dict__.get("_compiled")
        if compiled is None:
            compiled = self._compiled = regex(*self._source)
            self.match = compiled.match
        return getattr(compiled, name)


def _compile(pattern, flags):
    if _sre is None or not isinstance(pattern, (str, bytes)) or not isinstance(flags, int) or not enabled():
        return re.compile(pattern, flags)
    table = _table()
    key = (pattern, int(flags))
    args = table.get(key)
    if args is not None:
        try:
            return _sre.compile(pattern, *args)
        except (TypeError, ValueError, RuntimeError, OverflowError):  # SRE validates its code: a bad entry
            table.pop(key, None)
    args = _arguments(pattern, int(flags))
    if args is None:
        return re.compile(pattern, flags)
    table[key] = args
    _save_at_exit()[key] = args
    return _sre.compile(pattern, *args)


def _arguments(pattern, flags):
    """What re._compiler.compile passes to ``_sre.compile`` after the pattern, or None where re must decide
    (an invalid pattern raises re.error from re.compile itself; DEBUG prints)."""
    if flags & re.DEBUG:
        return None
    try:
        parsed = _parser.parse(pattern, flags)
        code = _compiler._code(parsed, flags)
    except (re.error, RecursionError, OverflowError, ValueError, TypeError):
        return None
    groupindex = dict(parsed.state.groupdict)
    indexgroup = [None] * parsed.state.groups
    for name, index in groupindex.items():
        indexgroup[index] = name
    # The compiler's opcodes are int subclasses (named constants), which marshal cannot store.
    return (int(flags | parsed.state.flags), [int(op) for op in code], parsed.state.groups - 1, groupindex,
            tuple(indexgroup))


def _store():
    if "store" not in _state:
        _state["store"] = Store("regexes", MAX_BYTES)
        _state["key"] = digest("regexes", sys.version, str(_sre.MAGIC), str(_sre.CODESIZE), str(sys.maxunicode),
                               str(marshal.version))
    return _state["store"]


def _read():
    payload = _store().get(_state["key"])
    if payload is None:
        return {}
    try:
        table = marshal.loads(payload)
    except (EOFError, ValueError, TypeError):
        return {}
    return table if isinstance(table, dict) else {}


def _table():
    if "table" not in _state:
        table = _state["table"] = _read()
        if any(key not in table for key in _LAZY):
            _save_at_exit()
    return _state["table"]


def _save_at_exit():
    """The patterns this process adds to the table, merged into it by ``save`` as the process exits."""
    if "new" not in _state:
        _state["new"] = {}
        atexit.register(save)
    return _state["new"]


def save():
    """Merge the patterns this process compiled, and the lazy ones the table lacks, into the table on disk
    (the newest table, another process may have written since); over MAX_ENTRIES, the table restarts from
    this process's patterns."""
    new = _state.pop("new", None) or {}
    if _sre is None or not enabled():
        return
    known = _state.get("table", {})
    for key in _LAZY:
        if key not in known and key not in new:
            args = _arguments(*key)
            if args is not None:
                new[key] = args
    if not new:
        return
    table = _read()
    table.update(new)
    if len(table) > MAX_ENTRIES:
        table = new
    try:
        payload = marshal.dumps(table)
    except ValueError:
        return
    _store().put(_state["key"], payload)
