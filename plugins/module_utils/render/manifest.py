"""Helm's releaseutil: split rendered files into documents, pick out hooks, sort by kind.

Mirrors Helm 4's ``pkg/release/v1/util`` (``manifest.go``, ``manifest_sorter.go``,
``kind_sorter.go``) and the manifest assembly of ``pkg/action/action.go renderResources``,
so the manifest we store is byte-for-byte what Helm stores and ``helm template`` prints.
"""
import posixpath
import re

from ..chart.metadata import scalar_to_string
from ..errors import HelmlessError
from ..goyaml import load
from ..goyaml.doccache import cached, cached_all
from ..regexcache import regex

SOURCE_HEADER = "---\n# Source: %s\n%s\n"

# Go's regexp ``\s`` is [\t\n\f\r ]: no \v, unlike Python's.
# strings.TrimLeftFunc(s, unicode.IsSpace) / strings.TrimSpace
_UNICODE_SPACE = "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007" \
    "\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"

HOOK_ANNOTATION = "helm.sh/hook"
HOOK_WEIGHT_ANNOTATION = "helm.sh/hook-weight"
HOOK_DELETE_ANNOTATION = "helm.sh/hook-delete-policy"
HOOK_OUTPUT_LOG_ANNOTATION = "helm.sh/hook-output-log-policy"

HOOK_EVENTS = {
    "pre-install": "pre-install",
    "post-install": "post-install",
    "pre-delete": "pre-delete",
    "post-delete": "post-delete",
    "pre-upgrade": "pre-upgrade",
    "post-upgrade": "post-upgrade",
    "pre-rollback": "pre-rollback",
    "post-rollback": "post-rollback",
    "test": "test",
    "test-success": "test",
}

INSTALL_ORDER = (
    "PriorityClass", "Namespace", "NetworkPolicy", "ResourceQuota", "LimitRange",
    "PodSecurityPolicy", "PodDisruptionBudget", "ServiceAccount", "Secret", "SecretList",
    "ConfigMap", "StorageClass", "PersistentVolume", "PersistentVolumeClaim",
    "CustomResourceDefinition", "ClusterRole", "ClusterRoleList", "ClusterRoleBinding",
    "ClusterRoleBindingList", "Role", "RoleList", "RoleBinding", "RoleBindingList", "Service",
    "DaemonSet", "Pod", "ReplicationController", "ReplicaSet", "Deployment",
    "HorizontalPodAutoscaler", "StatefulSet", "Job", "CronJob", "IngressClass", "Ingress",
    "APIService", "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration",
)

UNINSTALL_ORDER = (
    "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration", "APIService", "Ingress",
    "IngressClass", "Service", "CronJob", "Job", "StatefulSet", "HorizontalPodAutoscaler",
    "Deployment", "ReplicaSet", "ReplicationController", "Pod", "DaemonSet", "RoleBindingList",
    "RoleBinding", "RoleList", "Role", "ClusterRoleBindingList", "ClusterRoleBinding",
    "ClusterRoleList", "ClusterRole", "CustomResourceDefinition", "PersistentVolumeClaim",
    "PersistentVolume", "StorageClass", "ConfigMap", "SecretList", "Secret", "ServiceAccount",
    "PodDisruptionBudget", "PodSecurityPolicy", "LimitRange", "ResourceQuota", "NetworkPolicy",
    "Namespace", "PriorityClass",
)


class RenderManifestError(HelmlessError):
    """A rendered document is not valid YAML (Helm's ``YAML parse error on <path>: ...``)."""


class Head(object):
    """The ``SimpleHead`` of a document: apiVersion, kind, metadata name and annotations."""

    __slots__ = ("version", "kind", "name", "annotations", "has_metadata")

    def __init__(self, version="", kind="", name="", annotations=None, has_metadata=False):
        self.version = version
        self.kind = kind
        self.name = name
        self.annotations = annotations
        self.has_metadata = has_metadata


class Manifest(object):
    """One non-hook document: the template path it came from, its text, its head, the object."""

    __slots__ = ("name", "content", "head", "obj")

    def __init__(self, name, content, head, obj=None):
        self.name = name
        self.content = content
        self.head = head
        self.obj = obj

    def __repr__(self):
        return "Manifest(%r, kind=%r)" % (self.name, self.head.kind)


class Hook(object):
    """A hook document as Helm records it in ``release.hooks``."""

    __slots__ = ("name", "kind", "path", "manifest", "events", "weight", "delete_policies",
                 "output_log_policies")

    def __init__(self, name, kind, path, manifest, events, weight, delete_policies=None,
                 output_log_policies=None):
        self.name = name
        self.kind = kind
        self.path = path
        self.manifest = manifest
        self.events = events
        self.weight = weight
        self.delete_policies = delete_policies or []
        self.output_log_policies = output_log_policies or []

    def to_dict(self):
        """Field names as in Helm's release JSON (``last_run`` is filled by the executor)."""
        out = {"name": self.name, "kind": self.kind, "path": self.path,
               "manifest": self.manifest, "events": list(self.events),
               "last_run": {"started_at": "", "completed_at": "", "phase": ""},
               "weight": self.weight}
        if self.delete_policies:
            out["delete_policies"] = list(self.delete_policies)
        if self.output_log_policies:
            out["output_log_policies"] = list(self.output_log_policies)
        return out

    def __repr__(self):
        return "Hook(%r, %r, events=%r, weight=%r)" % (self.kind, self.name, self.events, self.weight)


# Helm 4.3's releaseutil separator: `---` at the start of a line, then spaces/tabs. The whitespace before it
# stays with the previous document (4.2 and 3.x ate it), so a blank line before `---` reaches the manifest.
_SEPARATOR = regex(r"^---[ \t]*", re.M)


def split_manifests(big_file):
    """Helm 4.3's SplitManifests: documents in file order (left-trimmed, trailing space kept)."""
    docs = []
    for doc in _SEPARATOR.split(big_file.lstrip(_UNICODE_SPACE)):
        if not doc.strip(_UNICODE_SPACE):
            continue
        docs.append(doc.lstrip(_UNICODE_SPACE))
    return docs


def _load_yaml(text):
    return cached(load, text)


def _json_type(value):
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "string"


_METADATA_TYPE = 'struct { Name string "json:\\"name\\""; Annotations map[string]string ' \
    '"json:\\"annotations\\"" }'


def _decode_error(value, where, go_type):
    return ("error unmarshaling JSON: while decoding JSON: json: cannot unmarshal %s into %s of "
            "type %s" % (_json_type(value), where, go_type))


def _string_field(value, where):
    """A scalar into a Go string field, as sigs.k8s.io/yaml converts it (``5`` -> ``"5"``)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, (dict, list)):
        raise ValueError(_decode_error(value, "Go struct field " + where, "string"))
    return scalar_to_string(value)


def parse_head(text, load_yaml=_load_yaml):
    """Decode a document into its Head the way sigs.k8s.io/yaml fills Helm's SimpleHead.

    Raises ``ValueError`` with Go's message when the document is not YAML or a field has
    the wrong shape (e.g. a list where a string belongs).
    """
    return head_of(load_yaml(text))


def head_of(doc):
    """The Head of an already decoded document (see :func:`parse_head`)."""
    if doc is None:
        return Head()
    if not isinstance(doc, dict):
        raise ValueError(_decode_error(doc, "Go value", "util.SimpleHead"))
    head = Head(version=_string_field(doc.get("apiVersion"), "SimpleHead.apiVersion"),
                kind=_string_field(doc.get("kind"), "SimpleHead.kind"))
    meta = doc.get("metadata")
    if meta is None:
        return head
    if not isinstance(meta, dict):
        raise ValueError(_decode_error(meta, "Go struct field SimpleHead.metadata", _METADATA_TYPE))
    head.has_metadata = True
    head.name = _string_field(meta.get("name"), ".metadata.name")
    annotations = meta.get("annotations")
    if annotations is not None:
        if not isinstance(annotations, dict):
            raise ValueError(_decode_error(annotations, "Go struct field .metadata.annotations",
                                           "map[string]string"))
        head.annotations = {key: _string_field(value, ".metadata.annotations")
                            for key, value in annotations.items()}
    return head


def _go_atoi(text):
    """strconv.Atoi: optional sign and decimal digits only, within int64; else 0 (Helm's fallback)."""
    if re.fullmatch(r"[+-]?[0-9]+", text or ""):
        value = int(text)
        if -(1 << 63) <= value < (1 << 63):
            return value
    return 0


def _annotation_values(annotations, key):
    value = annotations.get(key)
    if value is None:
        return []
    return [part.strip().lower() for part in value.split(",")]


def _kind_sort_key(order):
    index = {kind: i for i, kind in enumerate(order)}
    unknown = len(order)

    def key(kind):
        # Known kinds by their rank; unknown kinds after them, by name (Go's lessByKind).
        rank = index.get(kind)
        return (rank, "") if rank is not None else (unknown, kind)
    return key


def sort_by_kind(items, order=INSTALL_ORDER, kind_of=lambda item: item.head.kind):
    """Stable sort by kind in ``order``; unknown kinds last, alphabetically."""
    key = _kind_sort_key(order)
    return sorted(items, key=lambda item: key(kind_of(item)))


def sort_manifests(files, order=INSTALL_ORDER):
    """Helm's SortManifests: ``(hooks, manifests)`` from ``{template path: rendered text}``.

    Partials (``_*``) and whitespace-only files are skipped; documents with an unknown hook
    event are dropped entirely, as Helm does. Documents are parsed through the document cache: one entry
    for the render, by file, so a render with new values parses only the files they changed.
    """
    hooks, generic = [], []
    split = []
    for path in sorted(files):
        content = files[path]
        if posixpath.basename(path).startswith("_") or not content.strip(_UNICODE_SPACE):
            continue
        split.append((path, split_manifests(content)))
    loaded = cached_all(load, [doc for _path, docs in split for doc in docs], [len(docs) for _path, docs in split],
                        layout=[path for path, _docs in split])
    for path, docs in split:
        for doc in docs:
            try:
                obj = next(loaded)
                head = head_of(obj)
            except (HelmlessError, ValueError) as exc:  # goyaml.YAMLError, or head_of's decode error
                raise RenderManifestError("YAML parse error on %s: %s" % (path, _yaml_error_text(exc)))
            annotations = head.annotations or {}
            if HOOK_ANNOTATION not in annotations:
                generic.append(Manifest(path, doc, head, obj))
                continue
            events = []
            for event in _annotation_values(annotations, HOOK_ANNOTATION):
                if event not in HOOK_EVENTS:
                    events = None
                    break
                events.append(HOOK_EVENTS[event])
            if events is None:
                continue
            hooks.append(Hook(
                name=head.name, kind=head.kind, path=path, manifest=doc, events=events,
                weight=_go_atoi(annotations.get(HOOK_WEIGHT_ANNOTATION, "")),
                delete_policies=_annotation_values(annotations, HOOK_DELETE_ANNOTATION),
                output_log_policies=_annotation_values(annotations, HOOK_OUTPUT_LOG_ANNOTATION)))
    return (sort_by_kind(hooks, order, kind_of=lambda h: h.kind),
            sort_by_kind(generic, order))


def _yaml_error_text(exc):
    text = str(exc)
    if text.startswith("yaml: "):
        return "error converting YAML to JSON: " + text
    return text


def assemble(manifests, crds=()):
    """The release manifest: ``---\\n# Source: <path>\\n<doc>\\n`` per document, CRDs first."""
    parts = [SOURCE_HEADER % (path, text) for path, text in crds]
    parts.extend(SOURCE_HEADER % (m.name, m.content) for m in manifests)
    return "".join(parts)


def template_output(manifest, hooks=(), disable_hooks=False, show_only=None):
    """What ``helm template`` prints: the manifest, then the hooks, optionally ``--show-only``.

    With ``show_only`` the text is re-split and each document whose ``# Source:`` path (minus
    the chart name) matches a pattern (Go's ``filepath.Match``) is kept, pattern by pattern;
    a pattern matching nothing is an error, as in Helm.
    """
    out = [manifest.strip(_UNICODE_SPACE), "\n"]
    if not disable_hooks:
        out.extend(SOURCE_HEADER % (h.path, h.manifest) for h in hooks)
    text = "".join(out)
    if not show_only:
        return text
    docs = split_manifests(text)
    selected = []
    for pattern in show_only:
        pattern = pattern.replace("\\", "/")
        missing = True
        for doc in docs:
            match = _SOURCE_NAME.search(doc)
            if match and _path_match(pattern, match.group(1)):
                selected.append(doc)
                missing = False
        if missing:
            raise RenderManifestError("could not find template %s in chart" % pattern)
    return "".join("---\n%s\n" % doc for doc in selected)


_SOURCE_NAME = regex(r"# Source: [^/]+/(.+)")


def _path_match(pattern, name):
    """Go's path.Match: ``*`` and ``?`` never cross ``/``; ``[...]`` classes."""
    regex = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "*":
            regex.append("[^/]*")
        elif c == "?":
            regex.append("[^/]")
        elif c == "[":
            j = pattern.find("]", i + 1)
            if j < 0:
                return False
            body = pattern[i + 1:j]
            negate = body.startswith("^")
            body = re.sub(r"([\\\]\[^])", r"\\\1", body[1:] if negate else body)
            regex.append("[" + ("^" if negate else "") + body + "]")
            i = j
        elif c == "\\" and i + 1 < len(pattern):
            i += 1
            regex.append(re.escape(pattern[i]))
        else:
            regex.append(re.escape(c))
        i += 1
    return re.fullmatch("".join(regex), name) is not None
