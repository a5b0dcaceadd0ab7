"""Helm charts in OCI registries (``oci://host/path/chart[:tag|@digest]``), pulled as Helm's registry
client does: tags listed and matched against ``chart_version`` (``+`` is stored as ``_``), the manifest's
chart layer (``application/vnd.cncf.helm.chart.content.v1.tar+gzip``) fetched and checked against its
digest. Anonymous, Basic and Bearer-token (``WWW-Authenticate``) registries are supported; without
credentials in the task, those of a registry login (``helm registry login``, the registry_auth module)
are used, as Helm does.
"""
import hashlib
import json
import re
import urllib.parse

from ..semver import SemverError, Version, check, compare, parse_constraints
from .errors import RepoError
from .fetch import Access, request
from .logins import stored_credentials
from ..regexcache import regex

MANIFEST = "application/vnd.oci.image.manifest.v1+json"
PROV_LAYER = "application/vnd.cncf.helm.chart.provenance.v1.prov"
CHART_LAYERS = ("application/vnd.cncf.helm.chart.content.v1.tar+gzip", "application/tar+gzip")
_DIGEST = regex(r"^sha256:[0-9a-f]{64}$")


def parse_reference(ref):
    """``oci://host/path/name[:tag][@digest]`` → (host, repository path, tag, digest)."""
    rest = ref[len("oci://"):]
    if "/" not in rest:
        raise RepoError("invalid OCI reference %s: expected oci://host/path/chart" % ref)
    host, path = rest.split("/", 1)
    digest = tag = ""
    if "@" in path:
        path, digest = path.split("@", 1)
        if not _DIGEST.match(digest):
            raise RepoError("invalid OCI reference %s: unsupported digest %s" % (ref, digest))
    last = path.rsplit("/", 1)[-1]
    if ":" in last:
        path, tag = path.rsplit(":", 1)
    if not path or not host:
        raise RepoError("invalid OCI reference %s" % ref)
    return host, path, tag, digest


class Registry(object):
    """One registry host: HTTP(S) calls with Helm's token dance on 401."""

    def __init__(self, host, access, plain_http=False):
        self.base = ("http" if plain_http else "https") + "://" + host
        username, password = access.username, access.password
        if not (username or password):
            username, password = stored_credentials(host) or ("", "")
        self.access = Access(self.base, username, password, True, access.insecure_skip_tls_verify,
                             access.ca_file, access.cert_file, access.key_file)
        self.token = None

    def get(self, path, accept=None, scope=""):
        return self.find(path, accept, scope, missing_ok=False)

    def find(self, path, accept=None, scope="", missing_ok=True):
        """``(body, headers)`` of ``path``; ``(None, None)`` when the registry has no such thing (404)."""
        url = self.base + path
        headers = {"Accept": accept} if accept else {}
        if self.token:
            headers["Authorization"] = "Bearer " + self.token
        status, body, reply = request(url, self.access if not self.token else Access(), headers)
        if status.startswith("401 ") and not self.token:
            challenge = reply.get("WWW-Authenticate", "")
            if challenge.lower().startswith("bearer "):
                self.token = self._token(challenge, scope)
                headers["Authorization"] = "Bearer " + self.token
                status, body, reply = request(url, Access(), headers)
        if missing_ok and status.startswith("404 "):
            return None, None
        if not status.startswith("200 "):
            raise RepoError("failed to fetch %s : %s" % (url, status))
        return body, reply

    def _token(self, challenge, scope):
        params = dict(re.findall(r'(\w+)="([^"]*)"', challenge))
        if not params.get("realm"):
            raise RepoError("registry %s: bearer challenge without realm" % self.base)
        query = {k: v for k, v in (("service", params.get("service")), ("scope", scope or params.get("scope"))) if v}
        url = params["realm"] + ("?" + urllib.parse.urlencode(query) if query else "")
        status, body = request(url, Access(url, self.access.username, self.access.password, False,
                                           self.access.insecure_skip_tls_verify, self.access.ca_file,
                                           self.access.cert_file, self.access.key_file))[:2]
        if not status.startswith("200 "):
            raise RepoError("registry %s: token request to %s failed: %s" % (self.base, params["realm"], status))
        try:
            doc = json.loads(body)
        except ValueError:
            raise RepoError("registry %s: token response is not JSON" % self.base)
        token = doc.get("token") or doc.get("access_token")
        if not token:
            raise RepoError("registry %s: token response has no token" % self.base)
        return token


def _semver_tags(tags):
    """Tags that are versions (``_`` read as ``+``), newest first, as Helm's registry client lists them."""
    versions = []
    for tag in tags:
        name = tag.replace("_", "+")
        try:
            versions.append((Version.parse(name), name))
        except SemverError:
            continue
    versions.sort(key=lambda item: _Key(item[0]), reverse=True)
    return versions


def _pick_tag(tags, version, ref):
    """Helm's GetTagMatchingVersionOrConstraint over semver tags sorted newest first."""
    versions = _semver_tags(tags)
    if version:
        for name in [pair[1] for pair in versions]:
            if name == version:
                return name
    try:
        constraint = parse_constraints(version or "*")
    except SemverError as exc:
        raise RepoError("invalid chart_version %s: %s" % (version, exc))
    for parsed, name in versions:
        if check(constraint, parsed):
            return name
    raise RepoError("could not locate a version matching provided version string %s in %s" % (version or "*", ref))


class _Key(object):
    def __init__(self, version):
        self.version = version

    def __lt__(self, other):
        return compare(self.version, other.version) < 0


def _tags(registry, host, path):
    body = registry.get("/v2/%s/tags/list" % path, "application/json", "repository:%s:pull" % path)[0]
    try:
        return json.loads(body).get("tags") or []
    except ValueError:
        raise RepoError("registry %s: tag list of %s is not JSON" % (host, path))


def tag_versions(ref, access, plain_http=False):
    """The versions a registry holds for ``oci://host/path/chart``, newest first."""
    host, path = parse_reference(ref)[:2]
    return [pair[1] for pair in _semver_tags(_tags(Registry(host, access, plain_http), host, path))]


def pull(ref, version, access, plain_http=False, cosign_key=None):
    """The chart archive bytes, its sha256 (the layer digest, verified by the caller), the version, what
    Helm's registry client prints for the pull (``Pulled: <ref>`` and the manifest's ``Digest:``), and a
    function returning the chart's provenance layer (``.prov``), fetched only when called. With
    ``cosign_key`` (repo.cosign.PublicKey), the manifest pulled must carry a cosign signature by it."""
    host, path, tag, digest = parse_reference(ref)
    registry = Registry(host, access, plain_http)
    scope = "repository:%s:pull" % path
    if digest:
        wanted = digest
    else:
        if tag and version and tag.replace("_", "+") != version:
            raise RepoError("chart reference and version mismatch: %s is not %s" % (tag, version))
        if not tag:
            tag = _pick_tag(_tags(registry, host, path), version, ref)
        wanted = tag.replace("+", "_")
    body = registry.get("/v2/%s/manifests/%s" % (path, wanted), MANIFEST, scope)[0]
    try:
        manifest = json.loads(body)
    except ValueError:
        raise RepoError("registry %s: manifest of %s:%s is not JSON" % (host, path, wanted))
    shown = ":" + tag if tag else "@" + digest
    if cosign_key is not None:
        from .cosign import verify  # lazy: only a task that verifies signatures needs it
        verify(registry, path, "sha256:" + hashlib.sha256(body).hexdigest(), cosign_key,
               "oci://%s/%s%s" % (host, path, shown))
    layers = [layer for layer in manifest.get("layers") or [] if layer.get("mediaType") in CHART_LAYERS]
    if len(layers) != 1:
        raise RepoError("%s:%s is not a Helm chart (expected one layer of type %s)" % (ref, wanted, CHART_LAYERS[0]))
    layer_digest = layers[0].get("digest", "")
    if not _DIGEST.match(layer_digest):
        raise RepoError("%s: unsupported layer digest %s" % (ref, layer_digest))
    data = registry.get("/v2/%s/blobs/%s" % (path, layer_digest), None, scope)[0]
    printed = "Pulled: %s/%s%s\nDigest: sha256:%s\n" % (host, path, shown, hashlib.sha256(body).hexdigest())
    provs = [layer.get("digest", "") for layer in manifest.get("layers") or [] if layer.get("mediaType") == PROV_LAYER]

    def provenance():
        if not provs or not _DIGEST.match(provs[0]):
            raise RepoError('failed to fetch provenance "%s:%s": the manifest has no %s layer' % (ref, wanted,
                                                                                                  PROV_LAYER))
        blob = registry.get("/v2/%s/blobs/%s" % (path, provs[0]), None, scope)[0]
        if "sha256:" + hashlib.sha256(blob).hexdigest() != provs[0]:
            raise RepoError("%s: provenance layer does not match its digest %s" % (ref, provs[0]))
        return blob
    return data, layer_digest[len("sha256:"):], tag.replace("_", "+") if tag else None, printed, provenance
