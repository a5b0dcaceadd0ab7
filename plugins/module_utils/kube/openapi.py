"""Strategic-merge metadata (patch merge keys and strategies) read from the cluster's OpenAPI v3.

The group-version documents are content addressed (``?hash=``), so each is fetched once per
controller and then read from disk. Only built-in kinds (schemas named ``io.k8s.*``) take strategic
merge patches; custom resources get JSON merge patches, as in Helm.
"""
from .cache import DISCOVERY_TTL, DiskCache
from .errors import ApiError


class PatchMeta:
    """Where we are in an object's schema while walking it for patch computation."""

    __slots__ = ("_spec", "_schema", "merge_key", "strategy", "_children")

    def __init__(self, spec, schema, merge_key=None, strategy=""):
        self._spec = spec
        self._schema = schema or {}
        self.merge_key = merge_key
        self.strategy = strategy or ""
        self._children = {}  # a kind's root is shared by all its objects: each field resolves once per task

    def _resolve(self, schema):
        seen = 0
        while schema and seen < 20:
            seen += 1
            if "$ref" in schema:
                schema = self._spec.get(schema["$ref"].rsplit("/", 1)[-1], {})
            elif schema.get("allOf") and len(schema["allOf"]) == 1 and "properties" not in schema:
                merged = dict(schema)
                merged.pop("allOf")
                sub = self._resolve(schema["allOf"][0])
                for key, value in sub.items():
                    merged.setdefault(key, value)
                schema = merged
            else:
                break
        return schema or {}

    def field(self, name):
        child = self._children.get(name)
        if child is None:
            child = self._children[name] = self._field(name)
        return child

    def _field(self, name):
        schema = self._resolve(self._schema)
        prop = (schema.get("properties") or {}).get(name)
        if prop is None:
            extra = schema.get("additionalProperties")
            return PatchMeta(self._spec, extra if isinstance(extra, dict) else {})
        strategy = prop.get("x-kubernetes-patch-strategy", "")
        key = prop.get("x-kubernetes-patch-merge-key")
        if not strategy and not key:
            inner = self._resolve(prop)
            strategy = inner.get("x-kubernetes-patch-strategy", "")
            key = inner.get("x-kubernetes-patch-merge-key")
        return PatchMeta(self._spec, prop, key, strategy)

    def items(self):
        child = self._children.get(None)  # no field is named None: the key of the items' schema
        if child is None:
            child = self._children[None] = PatchMeta(self._spec, self._resolve(self._schema).get("items") or {})
        return child

    @property
    def merges(self):
        return "merge" in self.strategy.split(",")

    @property
    def retain_keys(self):
        return "retainKeys" in self.strategy.split(",")


class OpenAPI:
    """Lazily loads the v3 document of a group-version and finds a kind's schema in it."""

    def __init__(self, client, cache_dir=None):
        self.client = client
        self.cache = DiskCache(cache_dir)
        self._index = None
        self._docs = {}
        self._kinds = {}

    def _paths(self):
        if self._index is None:
            key = ("openapi-index", self.client.host, self.client.discovery.version().get("gitVersion", ""))
            self._index = self.cache.load(*key, ttl=DISCOVERY_TTL)
            if self._index is None:
                self._index = self.client.request("GET", "/openapi/v3").get("paths") or {}
                self.cache.store(self._index, *key)
        return self._index

    def _schemas(self, api_version):
        path = "api/" + api_version if "/" not in api_version else "apis/" + api_version
        if path in self._docs:
            return self._docs[path]
        entry = self._paths().get(path)
        schemas = {}
        if entry:
            url = entry.get("serverRelativeURL") or "/openapi/v3/" + path
            schemas = self.cache.load("openapi", self.client.host, url)
            if schemas is None:
                try:
                    path_only, query = url.partition("?")[::2]
                    doc = self.client.request("GET", path_only, query=[tuple(q.split("=", 1)) for q in query.split("&") if "=" in q])
                except ApiError:
                    doc = {}
                schemas = (doc.get("components") or {}).get("schemas") or {}
                self.cache.store(schemas, "openapi", self.client.host, url)
        self._docs[path] = schemas
        return schemas

    def patch_meta(self, api_version, kind):
        """PatchMeta for the kind when it takes strategic merge patches, else None (use merge patch)."""
        if (api_version, kind) not in self._kinds:  # one schema scan per kind, not per object
            self._kinds[(api_version, kind)] = self._find(api_version, kind)
        return self._kinds[(api_version, kind)]

    def _find(self, api_version, kind):
        group, version = api_version.rpartition("/")[::2]
        schemas = self._schemas(api_version)
        for name, schema in schemas.items():
            for gvk in schema.get("x-kubernetes-group-version-kind") or []:
                if gvk.get("kind") == kind and gvk.get("version") == version and gvk.get("group", "") == group:
                    return PatchMeta(schemas, schema) if name.startswith("io.k8s.") else None
        return None
