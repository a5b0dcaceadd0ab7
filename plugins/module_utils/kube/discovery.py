"""API discovery (which kinds exist, their plural names and scope), cached on disk per cluster+version.

Uses aggregated discovery (two requests for the whole cluster) and keeps the answer on disk keyed by
server URL and gitVersion for up to 6 hours (kubectl's TTL), so a run that renders nothing (uninstall,
rollback, status) needs only ``GET /version``; a render's Capabilities are discovered anew, as Helm's. An unknown kind refreshes once
(a CRD may just have been installed) before failing with Helm's message, and so does a kind the cache
maps to a path the server no longer serves (``KubeClient._on_kind``).
"""
from .cache import DISCOVERY_TTL, DiskCache
from .errors import ApiError, KubeError

_AGGREGATED = ("application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
               "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json")


class Discovery:
    def __init__(self, client, cache_dir=None):
        self.client = client
        self.cache = DiskCache(cache_dir)
        self._version = None
        self._resources = None  # {"group/version": {Kind: {"name": plural, "namespaced": bool}}}
        self._fresh = False

    def version(self):
        if self._version is None:
            self._version = self.client.request("GET", "/version")
        return self._version

    def _key(self):
        return ("discovery", self.client.host, self.version().get("gitVersion", ""))

    def _load(self, refresh=False):
        if self._resources is not None and not refresh:
            return self._resources
        cached = None if refresh else self.cache.load(*self._key(), ttl=DISCOVERY_TTL)
        if cached is None:
            cached = self._discover()
            self.cache.store(cached, *self._key())
            self._fresh = True
        self._resources = cached
        return cached

    def _discover(self):
        out = {}
        for root in ("/api", "/apis"):
            doc = self.client.request("GET", root, accept=_AGGREGATED)
            if doc.get("kind") == "APIGroupDiscoveryList":
                for group in doc.get("items") or []:
                    gname = group.get("metadata", {}).get("name", "")
                    for ver in group.get("versions") or []:
                        gv = ver["version"] if not gname else gname + "/" + ver["version"]
                        kinds = out.setdefault(gv, {})
                        for res in ver.get("resources") or []:
                            kind = (res.get("responseKind") or {}).get("kind")
                            if kind:
                                kinds[kind] = {"name": res["resource"], "namespaced": res.get("scope") == "Namespaced"}
            else:
                self._discover_legacy(root, doc, out)
        return out

    def _discover_legacy(self, root, doc, out):
        if root == "/api":
            gvs = doc.get("versions") or []
        else:
            gvs = [v["groupVersion"] for g in doc.get("groups") or [] for v in g.get("versions") or []]
        for gv in gvs:
            base = "/api/" + gv if root == "/api" else "/apis/" + gv
            try:
                listing = self.client.request("GET", base)
            except ApiError:
                continue
            kinds = out.setdefault(gv, {})
            for res in listing.get("resources") or []:
                if "/" not in res["name"]:
                    kinds[res["kind"]] = {"name": res["name"], "namespaced": bool(res.get("namespaced"))}

    def resource(self, api_version, kind):
        found = self._load().get(api_version, {}).get(kind)
        if found is None and not self._fresh:
            found = self._load(refresh=True).get(api_version, {}).get(kind)
        if found is None:
            raise KubeError('resource mapping not found for kind "%s" in version "%s": no matches for kind '
                            '"%s" in version "%s"; ensure CRDs are installed first'
                            % (kind, api_version, kind, api_version))
        return found

    def has(self, api_version, kind):
        try:
            self.resource(api_version, kind)
            return True
        except KubeError:
            return False

    def invalidate(self):
        """Forget the cached answer (after CRDs were created)."""
        self._resources = None
        self._fresh = False
        self._load(refresh=True)

    def refresh_cached(self):
        """Discover again when the kinds came from the disk cache (the server just refused a path they
        mapped); False when this process already discovered them."""
        if self._fresh:
            return False
        self.invalidate()
        return True

    def api_versions(self):
        """``group/version`` and ``group/version/Kind`` strings, as Helm's Capabilities.APIVersions: discovered
        by this run, never from the disk cache (Helm invalidates its cache before it reads them, so a CRD
        created since, as prometheus-operator's, is what ``.Capabilities.APIVersions.Has`` sees)."""
        if not self._fresh:
            self.invalidate()
        out = []
        for gv, kinds in sorted(self._load().items()):
            out.append(gv)
            out.extend(gv + "/" + kind for kind in sorted(kinds))
        return out
