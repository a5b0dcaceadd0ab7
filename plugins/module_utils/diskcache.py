"""Persistent caches shared by every task on a controller: content-addressed, versioned, bounded.

Ansible runs each task in a fresh process, so anything learned once (compiled module code, parsed
templates, API discovery) is lost unless it is on disk. Each cache is a flat directory of entries
named by the hex SHA-256 of everything the value depends on (the key); an entry is a header —
format version, the key itself, a CRC-32 of the payload — followed by the payload, so a truncated,
corrupt or foreign file (a key that does not match its name) reads as a miss and is rewritten.

Writes go to a unique temporary file renamed over the entry: forks writing the same entry at once
all succeed and leave one whole entry. Every failure to read or write (no home directory, a
read-only or full disk) is a silent miss. ``HELMLESS_CACHE=off`` disables every cache;
``HELMLESS_CACHE_DIR`` moves them (default ``$XDG_CACHE_HOME/helmless.core``). A process prunes a
cache back under its size bound (oldest entries first) on its first write, unless another process did
so within the last ``PRUNE_INTERVAL`` seconds (the mtime of a ``<kind>.pruned`` stamp next to it): listing a
cache of thousands of entries would otherwise be paid by every task that writes one, and a chart that
renders random names writes on every task.

Imports stay minimal: this module loads before the rest of module_utils (see codecache).
"""
import hashlib
import marshal
import os
import struct
import time
import zlib

FORMAT = 1
_MAGIC = b"HLMC"
_HEADER = struct.Struct(">4sH32sI")  # magic, format, key digest, crc32 of the payload
_STALE_TMP_SECONDS = 3600
PRUNE_INTERVAL = 60
# marshal's format for the values the caches keep (parse trees, documents): format 2 writes no back-references,
# whose tracking (format 3 on) made marshalling a chart's trees half as slow again (bitnami-postgresql 3.1 against
# 1.9 ms) and reading documents twice as slow (kube-prometheus-stack's 263: 3.4 against 1.7 ms), for values that
# barely share objects. MARSHAL_KEY names it, and the interpreter's marshal version, in the keys of those values.
MARSHAL_FORMAT = 2
MARSHAL_KEY = (str(marshal.version), str(MARSHAL_FORMAT))


def dumps(value):
    """``value`` in marshal's MARSHAL_FORMAT."""
    return marshal.dumps(value, MARSHAL_FORMAT)


def enabled():
    return os.environ.get("HELMLESS_CACHE", "on").strip().lower() not in ("off", "0", "false", "no", "disabled")


def cache_root():
    explicit = os.environ.get("HELMLESS_CACHE_DIR")
    if explicit:
        return explicit
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "helmless.core")


def digest(*parts):
    """Hex SHA-256 over ``parts`` (str or bytes), each length-prefixed so no two part lists collide."""
    h = hashlib.sha256()
    for part in parts:
        data = part.encode("utf-8", "surrogateescape") if isinstance(part, str) else bytes(part)
        h.update(struct.pack(">Q", len(data)))
        h.update(data)
    return h.hexdigest()


class Store:
    """One cache (``kind``) under the cache root, bounded to ``max_bytes``."""

    def __init__(self, kind, max_bytes, directory=None):
        self.kind = kind
        self.max_bytes = max_bytes
        self.directory = os.path.join(directory or cache_root(), kind)
        self._pruned = False

    def _path(self, key):
        return os.path.join(self.directory, key)

    def get(self, key):
        """The payload stored under hex ``key``, or None (missing, disabled, corrupt or foreign)."""
        if not enabled():
            return None
        try:
            with open(self._path(key), "rb") as handle:
                data = handle.read()
        except (OSError, ValueError):
            return None
        if len(data) < _HEADER.size:
            return None
        magic, fmt, stored_key, crc = _HEADER.unpack_from(data)
        payload = data[_HEADER.size:]
        if magic != _MAGIC or fmt != FORMAT or stored_key != bytes.fromhex(key) or zlib.crc32(payload) != crc:
            return None
        return payload

    def put(self, key, payload):
        """Store ``payload`` under hex ``key``; returns whether it was written (never raises OSError)."""
        if not enabled():
            return False
        path = self._path(key)
        tmp = "%s.%d.%s.tmp" % (path, os.getpid(), os.urandom(4).hex())
        created = False
        try:
            try:  # the directory is there but for a cache's first write: not asked for every write
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            except FileNotFoundError:
                created = not os.path.isdir(self.directory)
                os.makedirs(self.directory, exist_ok=True)
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            try:
                with os.fdopen(fd, "wb") as handle:
                    handle.write(_HEADER.pack(_MAGIC, FORMAT, bytes.fromhex(key), zlib.crc32(payload)))
                    handle.write(payload)
                os.replace(tmp, path)
            except BaseException:  # any failure, even an interrupt: no half-written temp file left, then re-raised
                _unlink(tmp)
                raise
        except OSError:
            return False
        if not self._pruned:
            self._pruned = True
            if self._prune_due() and not created:  # a cache this write created has nothing else to list
                self.prune()
        return True

    def _prune_due(self):
        """Whether no process pruned this cache within PRUNE_INTERVAL; if so, the stamp is renewed now."""
        stamp = self.directory + ".pruned"
        try:
            if time.time() - os.stat(stamp).st_mtime < PRUNE_INTERVAL:
                return False
        except OSError:
            pass
        try:
            with open(stamp, "ab"):
                pass
            os.utime(stamp)
        except OSError:
            pass
        return True

    def prune(self, max_bytes=None):
        """Delete the oldest entries until the cache holds at most 3/4 of its bound, and stale temp files."""
        limit = self.max_bytes if max_bytes is None else max_bytes
        entries, total, now = [], 0, time.time()
        try:
            with os.scandir(self.directory) as listing:
                for entry in listing:
                    try:
                        stat = entry.stat()
                    except OSError:
                        continue
                    if entry.name.endswith(".tmp"):
                        if now - stat.st_mtime > _STALE_TMP_SECONDS:
                            _unlink(entry.path)
                        continue
                    entries.append((stat.st_mtime, stat.st_size, entry.path))
                    total += stat.st_size
        except OSError:
            return
        if total <= limit:
            return
        for _mtime, size, path in sorted(entries):
            if total <= limit * 3 // 4:
                break
            _unlink(path)
            total -= size


def _unlink(path):
    try:
        os.unlink(path)
    except OSError:
        pass
