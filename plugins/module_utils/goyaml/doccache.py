"""Parsed YAML documents kept by their text, in the process and on disk.

A release task parses every rendered document (to sort and plan it) and the deployed revision's
manifest, and a chart renders mostly the same documents every task: CRDs of thousands of lines above
all (three quarters of a cached argo-cd render was parsing its rendered YAML). An entry is the
marshal form of what a reader (``goyaml.load``, the planner's) returned, keyed by the reader, the text
and a hash of this package's source and the reader's module;
documents whose value marshal cannot store exactly (a type of the value model) and documents that fail
to parse are never kept, and documents under ``DISK_MIN_BYTES`` stay in the process only: they parse
faster than an entry is written (a test Pod named by randAlphaNum would be written on every task).
See diskcache for the guarantees (atomic writes, corrupt or foreign entries ignored,
``HELMLESS_CACHE=off``).
"""
import marshal

from ..diskcache import Store, digest, enabled

MAX_BYTES = 128 * 1024 * 1024
_MEMO_MAX = 4096
DISK_MIN_BYTES = 1024
_MODULES = ("__init__", "dump", "emitter", "errors", "gojson", "gotoml", "loader", "resolve", "doccache")
_state = {"memo": {}}


def _version(reader_module):
    """Hash of this package's source and of the reader's module, once per process and reader."""
    versions = _state.setdefault("versions", {})
    if reader_module not in versions:
        from ..codecache import source_digest  # lazy: importing codecache installs its zip finder; modules opt in
        package = __name__.rsplit(".", 1)[0]
        modules = [package + ("" if m == "__init__" else "." + m) for m in _MODULES]
        versions[reader_module] = source_digest(modules + [reader_module])
    return versions[reader_module]


def _store():
    if "store" not in _state:
        _state["store"] = Store("documents", MAX_BYTES) if enabled() else None
    return _state["store"]


def cached(load, text):
    """``load(text)`` (goyaml.load), from the memo or the disk cache when this text was parsed before.

    Every call returns a new value: callers may change what they get. Entries of different ``load``
    functions never mix."""
    memo = _state["memo"]
    reader = "%s.%s" % (load.__module__, load.__qualname__)
    payload = memo.get((reader, text))
    store = _store() if len(text) >= DISK_MIN_BYTES else None
    key = None
    if payload is None and store is not None:
        key = digest("documents", _version(load.__module__), str(marshal.version), reader, text)
        payload = store.get(key)
    if payload is not None:
        try:
            value = marshal.loads(payload)
        except (EOFError, ValueError, TypeError):  # a damaged or foreign entry is a miss
            payload = None
        else:
            memo[reader, text] = payload
            return value
    value = load(text)
    try:
        payload = marshal.dumps(value)
    except ValueError:  # not plain data: parsed every time
        return value
    if len(memo) >= _MEMO_MAX:
        memo.clear()
    memo[reader, text] = payload
    if store is not None:
        store.put(key or digest("documents", _version(load.__module__), str(marshal.version), reader, text), payload)
    return value
