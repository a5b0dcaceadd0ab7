"""Manifests as objects: split, parse, identify (group/kind/namespace/name), order and mark as Helm's."""
import re

from .. import goyaml
from ..errors import HelmlessError
from ..goyaml import YAMLError
from ..goyaml.doccache import cached, cached_all
from ..regexcache import regex

INSTALL_ORDER = (
    "PriorityClass", "Namespace", "NetworkPolicy", "ResourceQuota", "LimitRange", "PodSecurityPolicy",
    "PodDisruptionBudget", "ServiceAccount", "Secret", "SecretList", "ConfigMap", "StorageClass",
    "PersistentVolume", "PersistentVolumeClaim", "CustomResourceDefinition", "ClusterRole", "ClusterRoleList",
    "ClusterRoleBinding", "ClusterRoleBindingList", "Role", "RoleList", "RoleBinding", "RoleBindingList",
    "Service", "DaemonSet", "Pod", "ReplicationController", "ReplicaSet", "Deployment",
    "HorizontalPodAutoscaler", "StatefulSet", "Job", "CronJob", "IngressClass", "Ingress", "APIService",
    "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration",
)
UNINSTALL_ORDER = (
    "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration", "APIService", "Ingress", "IngressClass",
    "Service", "CronJob", "Job", "StatefulSet", "HorizontalPodAutoscaler", "Deployment", "ReplicaSet",
    "ReplicationController", "Pod", "DaemonSet", "RoleBindingList", "RoleBinding", "RoleList", "Role",
    "ClusterRoleBindingList", "ClusterRoleBinding", "ClusterRoleList", "ClusterRole", "CustomResourceDefinition",
    "PersistentVolumeClaim", "PersistentVolume", "StorageClass", "ConfigMap", "SecretList", "Secret",
    "ServiceAccount", "PodDisruptionBudget", "PodSecurityPolicy", "LimitRange", "ResourceQuota", "NetworkPolicy",
    "Namespace", "PriorityClass",
)
MANAGED_BY = "app.kubernetes.io/managed-by"
RELEASE_NAME = "meta.helm.sh/release-name"
RELEASE_NAMESPACE = "meta.helm.sh/release-namespace"
RESOURCE_POLICY = "helm.sh/resource-policy"


def load_yaml(text):
    """One YAML document as Kubernetes reads a manifest: sigs.k8s.io/yaml (go-yaml v2 typing, ``=`` and
    ``y`` as Go reads them, timestamps as strings), with whole numbers as JSON integers the way
    ``YAMLToJSON`` writes them (``replicas: 2`` is sent as ``2``, not ``2.0``)."""
    return _json_numbers(goyaml.load(text))


def _json_numbers(value):
    if isinstance(value, float):
        return int(value) if value.is_integer() and abs(value) < 1e21 else value
    if isinstance(value, dict):
        return {k: _json_numbers(v) if isinstance(v, (dict, list, float)) else v for k, v in value.items()}
    if isinstance(value, list):
        return [_json_numbers(v) if isinstance(v, (dict, list, float)) else v for v in value]
    return value


_SPLIT = regex(r"(?m)^---[ \t]*(?:#.*)?$")
_SOURCE = regex(r"^# Source: (.*)$", re.M)


class ManifestError(HelmlessError, ValueError):
    """A manifest document that is not a Kubernetes object."""


class Resource:
    """One object of a manifest: its parsed body, where it came from, and its identity. ``listed_as`` is the
    kind of the list document that held it (Helm orders the document, not its items), else None."""

    __slots__ = ("obj", "source", "listed_as")

    def __init__(self, obj, source="", listed_as=None):
        self.obj = obj
        self.source = source
        self.listed_as = listed_as

    @property
    def api_version(self):
        return self.obj.get("apiVersion", "")

    @property
    def kind(self):
        return self.obj.get("kind", "")

    @property
    def name(self):
        return (self.obj.get("metadata") or {}).get("name", "")

    @property
    def namespace(self):
        return (self.obj.get("metadata") or {}).get("namespace") or ""

    @property
    def group(self):
        return self.api_version.rpartition("/")[0]

    def key(self, default_namespace=""):
        """Identity as Helm matches objects: group, kind, namespace, name (not the version)."""
        return (self.group, self.kind, self.namespace or default_namespace, self.name)

    def label(self):
        return "%s/%s" % (self.kind, self.name) if not self.namespace else "%s/%s/%s" % (
            self.kind, self.namespace, self.name)

    def annotations(self):
        return (self.obj.get("metadata") or {}).get("annotations") or {}


def split_manifest(text):
    """Documents of a multi-document manifest with their ``# Source:`` (empty docs dropped)."""
    docs = []
    for chunk in _SPLIT.split(text or ""):
        if not chunk.strip():
            continue
        match = _SOURCE.search(chunk)
        docs.append((chunk, match.group(1).strip() if match else ""))
    return docs


def documents(text):
    """``(source, parsed document)`` for each document of manifest ``text``, lazily, through the document cache
    (a no-op parses the previous revision's manifest and the new one: mostly the same documents, all of them
    when nothing changed). A document that is not YAML raises ManifestError naming its source."""
    for source, _chunk, obj in documents_with_text(text):
        yield source, obj


def documents_with_text(text):
    """``(source, document text, parsed document)`` for each document, as documents()."""
    docs = split_manifest(text)
    position = 0
    try:
        for obj in cached_all(load_yaml, [chunk for chunk, _source in docs]):
            yield docs[position][1], docs[position][0], obj
            position += 1
    except YAMLError as exc:
        raise ManifestError("%s: %s" % (docs[position][1] or "manifest", exc.go_message)) from exc


def load_document(text):
    """One document through the document cache; ManifestError when it is not YAML."""
    try:
        return cached(load_yaml, text)
    except YAMLError as exc:
        raise ManifestError("manifest: %s" % exc.go_message) from exc


def parse_manifest(text):
    """Manifest text → [Resource]; non-object documents (comments only) are skipped. A list document (one
    with ``items``, such as ``kind: List``) is its items, as Helm's resource builder flattens it: each is
    installed, owned, upgraded and deleted as an object of its own, while the manifest keeps the list."""
    out = []
    for source, obj in documents(text):
        if obj is None:
            continue
        for item, listed_as in _items(obj, source, None):
            if not (item.get("metadata") or {}).get("name"):
                raise ManifestError("%s: %s has no metadata.name" % (source or "manifest", item.get("kind")))
            out.append(Resource(item, source, listed_as))
    return out


def _items(obj, source, listed_as):
    if not isinstance(obj, dict) or not obj.get("kind") or not obj.get("apiVersion"):
        raise ManifestError("%s: object has no kind or apiVersion" % (source or "manifest"))
    if not isinstance(obj.get("items"), list):  # what Kubernetes' decoder takes for a list
        return [(obj, listed_as)]
    return [pair for item in obj["items"] for pair in _items(item, source, listed_as or obj["kind"])]


def _order_index(order, kind):
    try:
        return (order.index(kind), "")
    except ValueError:
        return (len(order), kind)


def sort_resources(resources, order=INSTALL_ORDER):
    """Stable sort by kind in Helm's install (or uninstall) order; unknown kinds last, alphabetically; the
    items of a list document where the list's kind goes."""
    return sorted(resources, key=lambda r: _order_index(order, r.listed_as or r.kind))


def with_ownership(obj, release, namespace):
    """A copy of ``obj`` with Helm's ownership label and annotations."""
    out = dict(obj)
    meta = dict(out.get("metadata") or {})
    labels = dict(meta.get("labels") or {})
    labels[MANAGED_BY] = "Helm"
    annotations = dict(meta.get("annotations") or {})
    annotations[RELEASE_NAME] = release
    annotations[RELEASE_NAMESPACE] = namespace
    meta["labels"] = labels
    meta["annotations"] = annotations
    out["metadata"] = meta
    return out


def ownership_problem(live, release, namespace):
    """Why ``live`` may not be adopted by this release (Helm's wording), or None when it is ours."""
    meta = live.get("metadata") or {}
    labels = meta.get("labels") or {}
    annotations = meta.get("annotations") or {}
    errs = []
    if MANAGED_BY not in labels:
        errs.append('label validation error: missing key "%s": must be set to "Helm"' % MANAGED_BY)
    elif labels[MANAGED_BY] != "Helm":
        errs.append('label validation error: key "%s" must equal "Helm": current value is "%s"'
                    % (MANAGED_BY, labels[MANAGED_BY]))
    for key, want in ((RELEASE_NAME, release), (RELEASE_NAMESPACE, namespace)):
        if key not in annotations:
            errs.append('annotation validation error: missing key "%s": must be set to "%s"' % (key, want))
        elif annotations[key] != want:
            errs.append('annotation validation error: key "%s" must equal "%s": current value is "%s"'
                        % (key, want, annotations[key]))
    return "; ".join(errs) or None


def keeps_resource(obj):
    """``helm.sh/resource-policy: keep`` (trimmed, case-insensitive) on this object."""
    value = ((obj.get("metadata") or {}).get("annotations") or {}).get(RESOURCE_POLICY)
    return isinstance(value, str) and value.strip().lower() == "keep"
