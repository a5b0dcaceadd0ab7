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

from ..diskcache import MARSHAL_KEY, Store, digest, dumps, enabled

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


def _reader(load):
    return "%s.%s" % (load.__module__, load.__qualname__)


def cached(load, text, disk=False):
    """``load(text)`` (goyaml.load), from the memo or the disk cache when this text was parsed before.

    Every call returns a new value: callers may change what they get. Entries of different ``load``
    functions never mix. ``disk``: keep the document on disk whatever its size (a chart's Chart.yaml and
    values.yaml: small, never random, and otherwise the only YAML a no-op task parses)."""
    return _lookup(load, _reader(load), text, _store() if disk or len(text) >= DISK_MIN_BYTES else None)[0]


def _lookup(load, reader, text, store):
    """``(value, payload)`` from the memo, ``store`` (None: the process only) or parsing; the payload (marshal
    bytes) is None for a value marshal cannot keep."""
    memo = _state["memo"]
    payload = memo.get((reader, text))
    key = None
    if payload is None and store is not None:
        key = digest("documents", _version(load.__module__), *MARSHAL_KEY, reader, text)
        payload = store.get(key)
    if payload is not None:
        try:
            value = marshal.loads(payload)
        except (EOFError, ValueError, TypeError):  # a damaged or foreign entry is a miss
            payload = None
        else:
            _remember((reader, text), payload)
            return value, payload
    value = load(text)
    try:
        payload = dumps(value)
    except ValueError:  # not plain data: parsed every time
        return value, None
    _remember((reader, text), payload)
    if store is not None:
        store.put(key or digest("documents", _version(load.__module__), *MARSHAL_KEY, reader, text), payload)
    return value, payload


def _remember(key, payload):
    memo = _state["memo"]
    if len(memo) >= _MEMO_MAX:
        memo.clear()
    memo[key] = payload


def cached_all(load, texts, groups=None, layout=None):
    """``cached(load, text)`` for each of ``texts`` in order (a generator), the whole list kept as one entry too.

    A manifest is hundreds of small documents, each under ``DISK_MIN_BYTES`` and so parsed by every process,
    and reading hundreds of entries costs more than one: a fresh process that parsed these same texts before
    reads one entry and parses nothing. Values come one at a time, so a parse error is raised at its own
    document, after the caller handled the ones before it; an entry is written only once every document
    parsed into a value marshal keeps.

    ``groups`` (the lengths of consecutive runs of ``texts``: a render's files) keeps the list as runs instead,
    in one entry named by ``layout`` (the files' names; default ``groups`` itself): a render whose new values
    change some files, not all, reads it, parses only the runs it lacks and writes it anew. One file per
    render, not one per rendered file (creating files was half the cache's cost of a cold render)."""
    texts = list(texts)
    if groups is None and len(texts) < 2:
        for text in texts:
            yield cached(load, text)
        return
    reader = _reader(load)
    version = _version(load.__module__)
    if groups is not None:
        yield from _cached_runs(load, reader, version, texts, groups, layout)
        return
    key = digest("manifest", version, *MARSHAL_KEY, reader, *texts)
    store = _store() if sum(map(len, texts)) >= DISK_MIN_BYTES else None
    found = _bundled(key, store, len(texts))
    if found is not None:
        for text, (payload, value) in zip(texts, found):
            _remember((reader, text), payload)
            yield value
        return
    payloads = []
    for position, text in enumerate(texts):
        value, payload = _lookup(load, reader, text, _store() if len(text) >= DISK_MIN_BYTES else None)
        payloads.append(payload)
        if position == len(texts) - 1 and None not in payloads:  # before the last yield: callers
            _keep(key, dumps(tuple(payloads)), store)  # may stop at the last one
        yield value


def _cached_runs(load, reader, version, texts, groups, layout):
    """cached_all with ``groups``: the runs of the last list of this ``layout``, as one entry."""
    store = _store()
    pack_key = digest("runs", version, *MARSHAL_KEY, reader, *(layout if layout is not None else [repr(groups)]))
    packed = _state["memo"].get(pack_key)
    if packed is None and store is not None:
        packed = store.get(pack_key)
    packed = _unpack(packed)
    kept, fresh = {}, False
    runs = list(_runs(texts, groups))
    for number, run in enumerate(runs):
        run_key = digest("manifest", version, *MARSHAL_KEY, reader, *run)
        found = _unbundle(packed.get(run_key), len(run))
        payloads = []
        for position, text in enumerate(run):
            if found is not None:
                payload, value = found[position]
                _remember((reader, text), payload)
            else:
                value, payload = _lookup(load, reader, text, None)  # the runs entry keeps it
            payloads.append(payload)
            if position == len(run) - 1:  # before the run's last yield: callers may stop at the last one
                if None not in payloads and kept is not None:
                    kept[run_key] = packed[run_key] if found is not None else dumps(tuple(payloads))
                    fresh = fresh or found is None
                else:
                    kept = None  # a value marshal cannot keep: the runs are parsed every time
                if number == len(runs) - 1 and kept is not None and (fresh or len(kept) != len(packed)):
                    _keep(pack_key, dumps(kept), store)
            yield value


def _unpack(payload):
    """``{run key: bundle}`` of a runs entry; empty when it is missing or damaged."""
    if payload is None:
        return {}
    try:
        packed = marshal.loads(payload)
    except (EOFError, ValueError, TypeError):
        return {}
    return packed if isinstance(packed, dict) else {}  # its bundles are checked as they are read


def _runs(texts, groups):
    start = 0
    for size in groups:
        if size:
            yield texts[start:start + size]
            start += size


def _bundled(key, store, count):
    """``[(payload, value)]`` kept under ``key`` (memo, then ``store``), or None."""
    bundle = _state["memo"].get(key)
    if bundle is None and store is not None:
        bundle = store.get(key)
    found = _unbundle(bundle, count)
    if found is not None:
        _remember(key, bundle)
    return found


def _keep(key, payload, store):
    _remember(key, payload)
    if store is not None:
        store.put(key, payload)


def _unbundle(bundle, count):
    """``[(payload, value)]`` of the documents in ``bundle``; None when it is missing, damaged or not ``count``
    documents."""
    if bundle is None:
        return None
    try:
        payloads = marshal.loads(bundle)
        if not isinstance(payloads, tuple) or len(payloads) != count:
            return None
        return [(payload, marshal.loads(payload)) for payload in payloads]
    except (EOFError, ValueError, TypeError):
        return None
