"""On-disk cache for discovery and OpenAPI documents, shared by runs on the same controller."""
import hashlib
import json
import os
import tempfile


def default_cache_dir():
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "helmless.core")


class DiskCache:
    """JSON blobs under a directory, written atomically; any IO problem just means a cache miss."""

    def __init__(self, directory):
        self.directory = directory or default_cache_dir()

    def _path(self, *key):
        digest = hashlib.sha256("\0".join(key).encode()).hexdigest()[:32]
        return os.path.join(self.directory, key[0].split(":")[0], digest + ".json")

    def load(self, *key):
        try:
            with open(self._path(*key), encoding="utf-8") as handle:
                return json.load(handle)
        except (OSError, ValueError):
            return None

    def store(self, value, *key):
        path = self._path(*key)
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(value, handle)
            os.replace(tmp, path)
        except OSError:
            pass
