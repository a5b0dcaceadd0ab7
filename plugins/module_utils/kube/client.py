"""A small REST client: plain JSON over urllib3, so any kind (custom resources included) takes one path.
 Every request is counted, so callers can
prove a no-op run made no write, and transient failures (429, 5xx, connection resets) are retried with
backoff as client-go does.
"""
import json
import threading
import time
from urllib.parse import quote, urlencode

from .discovery import Discovery
from .errors import ApiError, KubeError, Unreachable

PATCH_TYPES = {
    "strategic": "application/strategic-merge-patch+json",
    "merge": "application/merge-patch+json",
    "json": "application/json-patch+json",
    "apply": "application/apply-patch+yaml",
}
WRITE_METHODS = ("POST", "PUT", "PATCH", "DELETE")
_RETRY_STATUS = (429, 500, 502, 503, 504)


class KubeClient:
    """JSON requests to one cluster, with discovery, retries and request accounting."""

    def __init__(self, connection, field_manager="helm", cache_dir=None, retries=5, timeout=60):
        self.connection = connection
        self.host = connection.host
        self.field_manager = field_manager
        self.retries = retries
        self.timeout = timeout
        self._pool = connection.pool()
        self._lock = threading.Lock()
        self.requests = []  # (method, path, dry_run)
        self.discovery = Discovery(self, cache_dir)

    # ---- accounting -------------------------------------------------------------------------
    def count(self, writes_only=False, include_dry_run=True):
        return sum(1 for method, _path, dry in self.requests
                   if (not writes_only or method in WRITE_METHODS) and (include_dry_run or not dry))

    # ---- raw requests -----------------------------------------------------------------------
    def _headers(self, content_type=None, accept="application/json"):
        headers = {"Accept": accept, "User-Agent": "helmless.core"}
        auth = self.connection.authorization()
        if auth:
            headers["Authorization"] = auth
        if content_type:
            headers["Content-Type"] = content_type
        return headers

    def request(self, method, path, query=None, body=None, content_type=None, accept="application/json",
                dry_run=False, raw=False, retries=None):
        """Send one request; return decoded JSON (or text when ``raw``). Raises ApiError on failure.

        ``retries`` overrides the client's retry count (0 for reads whose failure is expected and final).
        """
        retries = self.retries if retries is None else retries
        query = [(k, v) for k, v in (query or []) if v is not None]
        if dry_run:
            query.append(("dryRun", "All"))
        url = self.host + path + ("?" + urlencode(query) if query else "")
        data = None
        if body is not None:
            data = body if isinstance(body, (str, bytes)) else json.dumps(body)
            content_type = content_type or "application/json"
        attempt = 0
        while True:
            with self._lock:
                self.requests.append((method, path, dry_run))
            try:
                resp = self._pool.request(
                    method, url, body=data, headers=self._headers(content_type, accept),
                    timeout=self.timeout, preload_content=True, retries=False)
            except Exception as exc:  # urllib3 connection/timeouts: retry, then report plainly
                if attempt < retries:
                    attempt += 1
                    time.sleep(min(0.1 * 2 ** attempt, 3))
                    continue
                raise Unreachable("cannot reach the Kubernetes API at %s: %s" % (self.host, exc)) from exc
            if resp.status in _RETRY_STATUS and attempt < retries:
                attempt += 1
                delay = resp.headers.get("Retry-After")
                time.sleep(min(float(delay) if delay and delay.isdigit() else 0.1 * 2 ** attempt, 5))
                continue
            text = resp.data.decode("utf-8", "replace")
            if resp.status >= 400:
                raise ApiError(resp.status, method, path, text)
            if raw:
                return text
            return json.loads(text) if text else {}

    # ---- object paths -----------------------------------------------------------------------
    def resource_path(self, api_version, kind, namespace=None, name=None, subresource=None):
        info = self.discovery.resource(api_version, kind)
        base = "/api/" + api_version if "/" not in api_version else "/apis/" + api_version
        path = base
        if info["namespaced"]:
            if not namespace:
                raise KubeError("%s %s needs a namespace" % (kind, name or ""))
            path += "/namespaces/" + quote(namespace, safe="")
        path += "/" + info["name"]
        if name:
            path += "/" + quote(name, safe="")
        if subresource:
            path += "/" + subresource
        return path

    def is_namespaced(self, api_version, kind):
        return self.discovery.resource(api_version, kind)["namespaced"]

    # ---- verbs ------------------------------------------------------------------------------
    def get(self, api_version, kind, name, namespace=None):
        """The live object, or None when it does not exist."""
        try:
            return self.request("GET", self.resource_path(api_version, kind, namespace, name))
        except ApiError as exc:
            if exc.not_found:
                return None
            raise

    def list(self, api_version, kind, namespace=None, label_selector=None):
        path = self.resource_path(api_version, kind, namespace)
        return self.request("GET", path, query=[("labelSelector", label_selector)]).get("items") or []

    def create(self, obj, namespace=None, dry_run=False):
        ns = obj.get("metadata", {}).get("namespace") or namespace
        path = self.resource_path(obj["apiVersion"], obj["kind"], ns)
        return self.request("POST", path, query=[("fieldManager", self.field_manager)], body=obj,
                            dry_run=dry_run)

    def replace(self, obj, namespace=None, dry_run=False):
        meta = obj["metadata"]
        path = self.resource_path(obj["apiVersion"], obj["kind"], meta.get("namespace") or namespace,
                                  meta["name"])
        return self.request("PUT", path, query=[("fieldManager", self.field_manager)], body=obj,
                            dry_run=dry_run)

    def patch(self, api_version, kind, name, namespace, patch, patch_type="strategic", dry_run=False,
              force=False):
        path = self.resource_path(api_version, kind, namespace, name)
        query = [("fieldManager", self.field_manager)]
        body = patch
        if patch_type == "apply":
            query.append(("force", "true" if force else "false"))
            body = json.dumps(patch)
        return self.request("PATCH", path, query=query, body=body, content_type=PATCH_TYPES[patch_type],
                            dry_run=dry_run)

    def delete(self, api_version, kind, name, namespace=None, propagation="Background", dry_run=False):
        """Delete; returns False when the object was already gone."""
        path = self.resource_path(api_version, kind, namespace, name)
        body = {"kind": "DeleteOptions", "apiVersion": "v1", "propagationPolicy": propagation}
        try:
            self.request("DELETE", path, body=body, dry_run=dry_run)
            return True
        except ApiError as exc:
            if exc.not_found:
                return False
            raise

    def server_version(self):
        return self.discovery.version()
