"""On-disk cache for discovery and OpenAPI documents, shared by runs on the same controller.

Entries live in the ``kube`` store of diskcache (atomic, bounded, versioned, ``HELMLESS_CACHE=off``).
Documents that can change without a new key (discovery, the OpenAPI index) are read with a TTL, as
kubectl's discovery cache (6 hours); content-addressed ones (OpenAPI ``?hash=`` URLs) never expire.
"""
import json
import time

from ..diskcache import Store, digest

MAX_BYTES = 128 * 1024 * 1024
DISCOVERY_TTL = 6 * 3600


class DiskCache:
    """JSON documents keyed by a tuple of strings; any problem just means a cache miss."""

    def __init__(self, directory=None):
        self._store = Store("kube", MAX_BYTES, directory)

    def load(self, *key, ttl=None):
        payload = self._store.get(digest("kube", *key))
        if payload is None:
            return None
        try:
            entry = json.loads(payload)
        except ValueError:
            return None
        if not isinstance(entry, dict) or "value" not in entry:
            return None
        if ttl is not None and not 0 <= time.time() - entry.get("stored", 0) <= ttl:
            return None
        return entry["value"]

    def store(self, value, *key):
        self._store.put(digest("kube", *key), json.dumps({"stored": time.time(), "value": value}).encode())
