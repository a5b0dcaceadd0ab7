"""The resource model kustomize transformers work on, and field-spec traversal."""
import re

from .errors import PostRenderError
from ..regexcache import regex

# Kinds kustomize's built-in OpenAPI schema knows as cluster-scoped; any other kind
# (including every custom resource) is treated as namespaced, as kustomize does.
CLUSTER_SCOPED = frozenset("""
APIService CertificateSigningRequest ClusterRole ClusterRoleBinding ComponentStatus
CSIDriver CSINode CustomResourceDefinition FlowSchema IngressClass MutatingWebhookConfiguration
Namespace Node PersistentVolume PodSecurityPolicy PriorityClass PriorityLevelConfiguration
RuntimeClass SelfSubjectAccessReview SelfSubjectRulesReview StorageClass SubjectAccessReview
TokenReview ValidatingAdmissionPolicy ValidatingAdmissionPolicyBinding
ValidatingWebhookConfiguration VolumeAttachment MutatingAdmissionPolicy
MutatingAdmissionPolicyBinding StorageVersionMigration VolumeAttributesClass
""".split())


# Helm 4 records each document's template here while post-renderers run.
FILENAME_ANNOTATION = "postrenderer.helm.sh/postrender-filename"


def expand_lists(objs):
    """kustomize flattens every ``*List`` object with ``items`` into its items; they keep
    the list's template annotation so they go back to the same file."""
    out = []
    for obj in objs:
        items = obj.get("items")
        if str(obj.get("kind") or "").endswith("List") and isinstance(items, list):
            source = ((obj.get("metadata") or {}).get("annotations") or {}).get(FILENAME_ANNOTATION)
            for item in items:
                if not isinstance(item, dict):
                    raise PostRenderError("%s: an item is not a mapping" % obj.get("kind"))
                if source:
                    meta = item["metadata"] = dict(item.get("metadata") or {})
                    meta["annotations"] = dict(meta.get("annotations") or {}, **{FILENAME_ANNOTATION: source})
                out.append(item)
        else:
            out.append(obj)
    return out


def split_api_version(api_version):
    """``apps/v1`` → (``apps``, ``v1``); ``v1`` → (``""``, ``v1``)."""
    api_version = api_version or ""
    if "/" in api_version:
        group, version = api_version.split("/", 1)
        return group, version
    return "", api_version


class Res:
    """One object plus the bookkeeping kustomize keeps beside it (previous names, options)."""

    __slots__ = ("obj", "prev_names", "orig_ns", "needs_hash", "behavior", "generated")

    def __init__(self, obj, needs_hash=False, behavior="", generated=False):
        if not isinstance(obj, dict):
            raise PostRenderError("resource is not a mapping: %r" % (obj,))
        self.obj = obj
        self.prev_names = [self.name]
        self.orig_ns = self.namespace
        self.needs_hash = needs_hash
        self.behavior = behavior
        self.generated = generated

    @property
    def meta(self):
        meta = self.obj.get("metadata")
        if not isinstance(meta, dict):
            meta = self.obj["metadata"] = {}
        return meta

    @property
    def kind(self):
        return self.obj.get("kind") or ""

    @property
    def group(self):
        return split_api_version(self.obj.get("apiVersion"))[0]

    @property
    def version(self):
        return split_api_version(self.obj.get("apiVersion"))[1]

    @property
    def name(self):
        return (self.obj.get("metadata") or {}).get("name") or ""

    def set_name(self, name):
        self.meta["name"] = name
        if name not in self.prev_names:
            self.prev_names.append(name)

    @property
    def namespace(self):
        return (self.obj.get("metadata") or {}).get("namespace") or ""

    @property
    def cluster_scoped(self):
        return self.kind in CLUSTER_SCOPED

    def labels(self):
        return (self.obj.get("metadata") or {}).get("labels") or {}

    def annotations(self):
        return (self.obj.get("metadata") or {}).get("annotations") or {}

    def ident(self):
        return "%s %s/%s" % (self.kind, self.namespace or "-", self.name)


def ns_equal(a, b):
    """kustomize's IsNsEquals: the empty namespace and ``default`` are the same."""
    return (a or "default") == (b or "default")


# --- field specs -----------------------------------------------------------------------------

def fs(path, kind="", group=None, version=None, create=False):
    """A kustomize FieldSpec; group/version None means "any"."""
    return {"path": path, "kind": kind, "group": group, "version": version, "create": create}


def gvk_matches(spec, res):
    if spec.get("kind") and spec["kind"] != res.kind:
        return False
    if spec.get("group") is not None and spec["group"] != res.group:
        return False
    if spec.get("version") is not None and spec["version"] != res.version:
        return False
    return True


def split_path(path):
    """kustomize field paths: ``/``-separated, ``\\/`` escapes a slash, ``[]`` marks a list."""
    parts = re.split(r"(?<!\\)/", path)
    return [p.replace("\\/", "/") for p in parts]


def visit(node, parts, fn, create=False, create_leaf=None):
    """Call ``fn(parent, key)`` for every field the path reaches; lists are walked through.

    With ``create`` missing maps along the path are made; ``create_leaf`` makes the final
    field (a factory for its value), as kustomize's CreateIfNotPresent does.
    """
    if isinstance(node, list):
        for item in node:
            visit(item, parts, fn, create, create_leaf)
        return
    if not isinstance(node, dict) or not parts:
        return
    key = parts[0]
    is_list = key.endswith("[]")
    if is_list:
        key = key[:-2]
    if len(parts) == 1:
        if key not in node or node[key] is None:
            if create and create_leaf is not None:
                node[key] = create_leaf()
            else:
                return
        fn(node, key)
        return
    child = node.get(key)
    if child is None:
        if is_list and create and key in node:
            # kyaml turns a null list into an empty one but does not add a missing one.
            node[key] = []
            return
        if not create or is_list:
            return
        child = node[key] = {}
    visit(child, parts[1:], fn, create, create_leaf)


def apply_fieldspecs(resources, specs, fn, create_leaf=None):
    """Run ``fn(res, parent, key)`` on every field the matching specs reach, once per field."""
    for res in resources:
        seen = set()
        for spec in specs:
            if not gvk_matches(spec, res):
                continue

            def once(parent, key, res=res):
                mark = (id(parent), key)
                if mark not in seen:
                    seen.add(mark)
                    fn(res, parent, key)
            visit(res.obj, split_path(spec["path"]), once,
                  create=spec.get("create", False), create_leaf=create_leaf)


# --- selectors -------------------------------------------------------------------------------

_REQ = regex(r"""\s*(!?)\s*([A-Za-z0-9_./-]+)\s*(?:(==|=|!=)\s*([A-Za-z0-9_.-]*)|\s+(in|notin)\s*\(([^)]*)\))?\s*$""")


def _split_selector(text):
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur)
    return parts


def selector_matches(selector, labels):
    """Kubernetes label-selector syntax: ``a=b``, ``a!=b``, ``a in (x,y)``, ``!a``, ``a``."""
    for part in _split_selector(selector or ""):
        m = _REQ.match(part)
        if not m:
            raise PostRenderError("invalid selector %r" % selector)
        neg, key, op, val, setop, setvals = m.groups()
        if neg:
            if key in labels:
                return False
        elif op in ("=", "=="):
            if labels.get(key) != val:
                return False
        elif op == "!=":
            if labels.get(key) == val:
                return False
        elif setop:
            values = {v.strip() for v in setvals.split(",")}
            if setop == "in" and labels.get(key) not in values:
                return False
            if setop == "notin" and key in labels and labels[key] in values:
                return False
        elif key not in labels:
            return False
    return True


def _full(pattern, value):
    try:
        return re.fullmatch(pattern, value) is not None
    except re.error:
        return pattern == value


def target_matches(target, res):
    """kustomize patch targets: every id field is an anchored regular expression."""
    if not target:
        return True
    for key, have in (("group", res.group), ("version", res.version), ("kind", res.kind),
                      ("name", res.name), ("namespace", res.namespace)):
        if target.get(key) and not _full(str(target[key]), have):
            return False
    if target.get("labelSelector") and not selector_matches(target["labelSelector"], res.labels()):
        return False
    if target.get("annotationSelector") and not selector_matches(
            target["annotationSelector"], res.annotations()):
        return False
    return True
