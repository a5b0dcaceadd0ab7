"""A small REST client: plain JSON over keep-alive HTTP (kube/http.py), so any kind (custom resources included) takes one path.

Every request is counted, so callers can prove a no-op run made no write. Transient failures are retried
only where a retry cannot do harm: what the server certainly did not process (a refused connection, for
up to ``down_for`` seconds while an API server restarts; 429, or a 5xx carrying Retry-After, as client-go
retries them) is resent whatever the method; an uncertain outcome (a reset after the request went out, a
5xx without Retry-After) is resent only where repeating changes nothing (GET, PUT, DELETE, merge and
apply patches). A create whose outcome is unknown is resent, and an AlreadyExists answer then is taken
as success only when the object is the one we sent (``_created_by_us``). A 401 for an exec-plugin token
runs the plugin again and resends once.
"""
import json
import threading
import time
from urllib.parse import quote, urlencode

from .discovery import Discovery
from .errors import ApiError, KubeError, ResponseLost, Unreachable
from .http import Unsent

PATCH_TYPES = {
    "strategic": "application/strategic-merge-patch+json",
    "merge": "application/merge-patch+json",
    "json": "application/json-patch+json",
    "apply": "application/apply-patch+yaml",
}
WRITE_METHODS = ("POST", "PUT", "PATCH", "DELETE")
_RETRY_STATUS = (429, 500, 502, 503, 504)
_UNCERTAIN_STATUS = (500, 502, 503, 504)  # without Retry-After: the server may have applied the request
_IDEMPOTENT = ("GET", "HEAD", "PUT", "DELETE")
_IDEMPOTENT_PATCHES = (PATCH_TYPES["strategic"], PATCH_TYPES["merge"], PATCH_TYPES["apply"])
MAX_RETRY_AFTER = 30


def _unserved(exc):
    """A 404 for the path itself (its group, version or resource not served), not for a named object: the
    answer is no API Status, or one without the object's name."""
    if exc.status != 404:
        return False
    try:
        return not ((json.loads(exc.body).get("details") or {}).get("name"))
    except (ValueError, AttributeError):
        return True


def _retry_after(resp):
    value = (resp.headers.get("Retry-After") or "").strip()
    return min(int(value), MAX_RETRY_AFTER) if value.isdigit() else None


class KubeClient:
    """JSON requests to one cluster, with discovery, retries and request accounting."""

    def __init__(self, connection, field_manager="helm", cache_dir=None, retries=5, timeout=60, down_for=90):
        self.connection = connection
        self.host = connection.host
        self.field_manager = field_manager
        self.retries = retries
        self.down_for = down_for  # seconds a refused connection is retried (an API server restarting)
        self.timeout = timeout
        self._pool = connection.pool()
        self._lock = threading.Lock()
        self.requests = []  # (method, path, dry_run)
        self.retried = []  # (method, path, why): every request that was sent again
        self.discovery = Discovery(self, cache_dir)

    # ---- accounting -------------------------------------------------------------------------
    def count(self, writes_only=False, include_dry_run=True):
        return sum(1 for method, _path, dry in self.requests
                   if (not writes_only or method in WRITE_METHODS) and (include_dry_run or not dry))

    # ---- raw requests -----------------------------------------------------------------------
    def _headers(self, content_type=None, accept="application/json"):
        headers = {"Accept": accept, "User-Agent": "helmless.core"}
        headers.update(self.connection.impersonation_headers())
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
        target = path + ("?" + urlencode(query) if query else "")
        data = None
        if body is not None:
            data = body if isinstance(body, (str, bytes)) else json.dumps(body)
            content_type = content_type or "application/json"
        idempotent = method in _IDEMPOTENT or (method == "PATCH" and content_type in _IDEMPOTENT_PATCHES)
        attempt, refreshed, started = 0, False, time.monotonic()
        while True:
            with self._lock:
                self.requests.append((method, path, dry_run))
            headers = self._headers(content_type, accept)
            # Failures: connection, TLS, timeouts, an answer that is not HTTP (kube/http.ProtocolError), and
            # (ValueError) a header kube/http refuses, as a token with a newline; each is retried where safe,
            # then reported plainly.
            try:
                resp = self._pool.request(method, target, body=data, headers=headers, timeout=self.timeout)
            except (OSError, ValueError) as exc:
                unsent = isinstance(exc, Unsent)
                restarting = unsent and time.monotonic() - started < self.down_for
                if (attempt < retries and (unsent or idempotent)) or restarting:
                    attempt += 1
                    self._again(method, path, "connection refused" if unsent else "connection lost", attempt)
                    continue
                if not unsent and not idempotent:
                    raise ResponseLost("%s %s: the connection was lost after the request was sent (%s); "
                                       "not resent blindly, as it may have been applied" % (method, path, exc)) from exc
                raise Unreachable("cannot reach the Kubernetes API at %s (%s %s): %s"
                                  % (self.host, method, path, exc)) from exc
            if resp.status == 401 and not refreshed and self.connection.refresh(headers.get("Authorization")):
                refreshed = True  # an expired exec-plugin token: the plugin gave a new one, resend once
                self._again(method, path, "HTTP 401, credentials refreshed", 0, 0)
                continue
            if resp.status in _RETRY_STATUS and attempt < retries:
                delay = _retry_after(resp)
                if resp.status == 429 or delay is not None or idempotent:
                    attempt += 1
                    self._again(method, path, "HTTP %d" % resp.status, attempt, delay)
                    continue
            text = resp.data.decode("utf-8", "replace")
            if resp.status >= 400:
                raise ApiError(resp.status, method, path, text)
            if raw:
                return text
            return json.loads(text) if text else {}

    def _again(self, method, path, why, attempt, delay=None):
        """Record a resend and back off (Retry-After when the server gave one, else exponential)."""
        with self._lock:
            self.retried.append((method, path, why))
        time.sleep(delay if delay is not None else min(0.1 * 2 ** attempt, 3))

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

    def _on_kind(self, send, api_version, kind, namespace=None, name=None, subresource=None):
        """``send(path)`` on the kind's path. When the server does not serve that path and the kind's mapping
        came from the disk cache (its CRD deleted or changed since, or another control plane now at the same
        address), discovery is refreshed once and the request sent again on the new path, or the kind is
        unknown, as with a fresh discovery."""
        try:
            return send(self.resource_path(api_version, kind, namespace, name, subresource))
        except ApiError as exc:
            if not (_unserved(exc) and self.discovery.refresh_cached()):
                raise
        return send(self.resource_path(api_version, kind, namespace, name, subresource))

    def is_namespaced(self, api_version, kind):
        return self.discovery.resource(api_version, kind)["namespaced"]

    # ---- verbs ------------------------------------------------------------------------------
    def get(self, api_version, kind, name, namespace=None):
        """The live object, or None when it does not exist."""
        try:
            return self._on_kind(lambda path: self.request("GET", path), api_version, kind, namespace, name)
        except ApiError as exc:
            if exc.not_found:
                return None
            raise

    def list(self, api_version, kind, namespace=None, label_selector=None):
        return self._on_kind(lambda path: self.request("GET", path, query=[("labelSelector", label_selector)]),
                             api_version, kind, namespace).get("items") or []

    def events(self, api_version, kind, name, namespace, resource_version, seconds=1):
        """The watch events (ADDED, MODIFIED, DELETED) of one object since ``resource_version``, as the
        server sends them in ``seconds``, after which it ends the watch: what happened between two reads,
        which a read cannot show. Empty when the server no longer keeps events that old (410)."""
        query = [("watch", "1"), ("fieldSelector", "metadata.name=" + name),
                 ("resourceVersion", resource_version), ("timeoutSeconds", str(seconds))]
        try:
            text = self._on_kind(lambda path: self.request("GET", path, query=query, raw=True),
                                 api_version, kind, namespace)
        except ApiError as exc:
            if exc.status == 410:
                return []
            raise
        events = (json.loads(line) for line in text.splitlines() if line.strip())
        return [e for e in events if e.get("type") in ("ADDED", "MODIFIED", "DELETED")]

    def list_named(self, api_version, kind, namespace, names):
        """``{name: live object}`` for those of ``names`` that exist, by one LIST of the namespace, or None
        when one page of at most ``max(4 * len(names), 100)`` objects does not hold the namespace's whole
        list (a GET each is then cheaper) or listing is not allowed (403, 405)."""
        limit = max(4 * len(names), 100)
        try:
            answer = self._on_kind(lambda path: self.request("GET", path, query=[("limit", str(limit))]),
                                   api_version, kind, namespace)
        except ApiError as exc:
            if exc.status in (403, 405):
                return None
            raise
        if (answer.get("metadata") or {}).get("continue"):
            return None
        found = {}
        for item in answer.get("items") or ():
            name = (item.get("metadata") or {}).get("name")
            if name in names:
                found[name] = dict({"kind": kind, "apiVersion": api_version}, **item)  # list items omit both
        return found

    def create(self, obj, namespace=None, dry_run=False):
        ns = obj.get("metadata", {}).get("namespace") or namespace
        return self._on_kind(lambda path: self._create(path, obj, ns, dry_run), obj["apiVersion"], obj["kind"], ns)

    def _create(self, path, obj, ns, dry_run):
        query = [("fieldManager", self.field_manager)]
        uncertain = False
        for attempt in range(self.retries + 1):
            try:
                return self.request("POST", path, query=query, body=obj, dry_run=dry_run)
            except (ResponseLost, ApiError) as exc:
                if isinstance(exc, ApiError) and uncertain and exc.already_exists:
                    live = self._created_by_us(exc, obj, ns)
                    if live is not None:
                        return live
                lost = isinstance(exc, ResponseLost) or exc.status in _UNCERTAIN_STATUS
                if not lost or attempt == self.retries:
                    raise
                uncertain = True
                self._again("POST", path, "outcome unknown: %s" % exc, attempt + 1)
        raise AssertionError("unreachable")

    def _created_by_us(self, exc, obj, namespace):
        """After a create whose outcome was unknown, the object our first attempt made, else None.

        It must carry our field manager and what we sent (data, labels, a Lease's holder), so an object
        someone else created meanwhile is never taken for ours.
        """
        meta = obj.get("metadata") or {}
        if not exc.already_exists or not meta.get("name"):
            return None
        live = self.get(obj["apiVersion"], obj["kind"], meta["name"], namespace) or {}
        live_meta = live.get("metadata") or {}
        if not any(f.get("manager") == self.field_manager for f in live_meta.get("managedFields") or []):
            return None
        if any((live_meta.get("labels") or {}).get(k) != v for k, v in (meta.get("labels") or {}).items()):
            return None
        if live.get("data") != obj.get("data") or (live.get("spec") or {}).get("holderIdentity") != (
                obj.get("spec") or {}).get("holderIdentity"):
            return None
        return live

    def replace(self, obj, namespace=None, dry_run=False):
        meta = obj["metadata"]
        return self._on_kind(lambda path: self.request("PUT", path, query=[("fieldManager", self.field_manager)],
                                                       body=obj, dry_run=dry_run),
                             obj["apiVersion"], obj["kind"], meta.get("namespace") or namespace, meta["name"])

    def patch(self, api_version, kind, name, namespace, patch, patch_type="strategic", dry_run=False,
              force=False):
        query = [("fieldManager", self.field_manager)]
        body = patch
        if patch_type == "apply":  # as Helm 4 applies: unknown or duplicate fields are errors
            query += [("force", "true" if force else "false"), ("fieldValidation", "Strict")]
            body = json.dumps(patch)
        return self._on_kind(lambda path: self.request("PATCH", path, query=query, body=body,
                                                       content_type=PATCH_TYPES[patch_type], dry_run=dry_run),
                             api_version, kind, namespace, name)

    def delete(self, api_version, kind, name, namespace=None, propagation="Background", dry_run=False):
        """Delete; returns False when the object was already gone."""
        body = {"kind": "DeleteOptions", "apiVersion": "v1", "propagationPolicy": propagation}
        try:
            self._on_kind(lambda path: self.request("DELETE", path, body=body, dry_run=dry_run),
                          api_version, kind, namespace, name)
            return True
        except ApiError as exc:
            if exc.not_found:
                return False
            raise

    def server_version(self):
        return self.discovery.version()
