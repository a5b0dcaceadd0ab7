"""What an operation reports: changed, per-object actions, before/after diffs, drift, hooks, status.

Plain data only; the Ansible layer turns it into module results. Secret data is redacted here (in
diffs, plans and returned objects) unless ``show_secrets``; objects that are not Secrets are shown as
they are, so a diff's ``after`` is exactly what the cluster will hold.
"""
import copy
import datetime

from ..plan.fields import ASSIGNED
from ..plan.changes import causes, field_changes, immutable, related, requested_changes, value_at
from ..plan.defaults import crd_schemas, with_defaults
from ..plan.manifest import with_ownership
from .difftext import header, object_diff, summary

REDACTED = "VALUE_SPECIFIED_IN_NO_LOG_PARAMETER"
CHANGED = "(sensitive value changed)"
_SERVER_META = ("managedFields", "resourceVersion", "uid", "creationTimestamp", "generation", "selfLink")
_LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"


def _is_secret(obj):
    return isinstance(obj, dict) and obj.get("kind") == "Secret"


def redact(obj, show_secrets=False, mask=None, other=None):
    """A copy of Secret ``obj`` with each value of ``data`` and ``stringData`` (and the last-applied
    annotation that may hold them) replaced by ``REDACTED``, or by ``CHANGED`` where ``other`` (the same
    Secret on the other side of a diff) holds another value under that key: the keys stay, so a diff
    still names which values change and which do not. ``mask`` (free-text masking) is applied to the
    Secret's other strings, which may quote a value. Other objects are returned as they are."""
    if show_secrets or not _is_secret(obj):
        return obj
    other = other if _is_secret(other) else {}
    out = {}
    for key, value in obj.items():
        if key in ("data", "stringData") and isinstance(value, dict):
            theirs = other.get(key) if isinstance(other.get(key), dict) else {}
            out[key] = {k: CHANGED if k in theirs and theirs[k] != v else REDACTED for k, v in value.items()}
        else:
            out[key] = _masked(copy.deepcopy(value), mask)
    annotations = (out.get("metadata") or {}).get("annotations") or {}
    if _LAST_APPLIED in annotations:
        theirs = ((other.get("metadata") or {}).get("annotations") or {}).get(_LAST_APPLIED)
        mine = ((obj.get("metadata") or {}).get("annotations") or {}).get(_LAST_APPLIED)
        annotations[_LAST_APPLIED] = CHANGED if theirs is not None and theirs != mine else REDACTED
    return out


def redact_pair(before, after, show_secrets=False, mask=None):
    """``before`` and ``after`` of one object, Secret values redacted; a value ``after`` changes shows as
    ``CHANGED`` there, an unchanged one as ``REDACTED`` on both sides."""
    return redact(before, show_secrets, mask), redact(after, show_secrets, mask, other=before)


def _requested(change):
    """The object a request sends: the apply or replace body, else (a patch) the new manifest's object."""
    return clean(change.body) if change.body is not None else change.resource.obj


def _replacement(change):
    """Whether a refused update touches a field the server never updates in place."""
    if change.before is None:
        return False
    kind, live = change.resource.kind, change.before
    return any(immutable(kind, path, live) for path in change.refused[1]) or any(
        immutable(kind, f["path"], live) for f in requested_changes(clean(live), _requested(change)))


def _owned(obj, release, namespace):
    """A manifest object as the planner sends it: Helm's ownership markers, the namespace set."""
    out = with_ownership(obj, release["name"], release["namespace"])
    if namespace:
        out["metadata"]["namespace"] = namespace
    return out


def _skeleton(path, value):
    """A Secret holding only ``value`` at JSON pointer ``path`` (to redact a field change as its object)."""
    parts = [p.replace("~1", "/").replace("~0", "~") for p in path.split("/")[1:]]
    if not parts:
        return dict(value, kind="Secret") if isinstance(value, dict) else value
    root = node = {"kind": "Secret"}
    for part in parts[:-1]:
        node = node.setdefault(part, {})
    node[parts[-1]] = value
    return root


def _redacted_fields(fields, kind, show_secrets, mask):
    """Field changes of a Secret with its values redacted as ``redact`` does (``CHANGED`` where the value
    changes) and its other strings masked."""
    if show_secrets or kind != "Secret":
        return fields
    out = []
    for field in fields:
        field = dict(field)
        before = _skeleton(field["path"], field["before"]) if "before" in field else {}
        after = _skeleton(field["path"], field["after"]) if "after" in field else {}
        shown = {"before": redact(before, mask=mask), "after": redact(after, mask=mask, other=before)}
        for side in ("before", "after"):
            if side in field:
                field[side] = value_at(shown[side], field["path"])
        out.append(field)
    return out


def _masked(node, mask):
    if mask is None:
        return node
    if isinstance(node, str):
        return mask(node)
    if isinstance(node, dict):
        return {k: _masked(v, mask) for k, v in node.items()}
    if isinstance(node, list):
        return [_masked(v, mask) for v in node]
    return node


def clean(obj):
    """An object without server bookkeeping (for diffs and returns); what a create would assign stays,
    marked ``(assigned at creation)``."""
    if not isinstance(obj, dict):
        return obj
    out = dict(obj)
    meta = {k: v for k, v in (obj.get("metadata") or {}).items() if k not in _SERVER_META or v == ASSIGNED}
    out["metadata"] = meta
    return out


def go_list_time(text):
    """RFC3339 → the form ``helm list`` prints (Go's time.String())."""
    try:
        moment = datetime.datetime.fromisoformat((text or "").replace("Z", "+00:00"))
    except ValueError:
        return text or ""
    frac = moment.strftime("%f").rstrip("0")
    offset = moment.strftime("%z") or "+0000"
    zone = moment.tzname() if moment.tzname() not in (None, "") and not moment.tzname().startswith("UTC+") else ""
    zone = "UTC" if offset == "+0000" else zone
    return "%s%s %s %s" % (moment.strftime("%Y-%m-%d %H:%M:%S"), "." + frac if frac else "", offset, zone)


def release_status(rel):
    """kubernetes.core.helm's ``status`` shape (helm list fields + values) for a release record."""
    if rel is None:
        return None
    meta = (rel.get("chart") or {}).get("metadata") or {}
    info = rel.get("info") or {}
    config = rel.get("config") or {}
    return {
        "name": rel.get("name"),
        "namespace": rel.get("namespace"),
        "revision": str(rel.get("version")),
        "updated": go_list_time(info.get("last_deployed")),
        "status": info.get("status"),
        "chart": "%s-%s" % (meta.get("name", ""), meta.get("version", "")),
        "app_version": meta.get("appVersion", ""),
        "description": info.get("description", ""),
        "notes": info.get("notes", ""),
        "values": config,
        "release_values": config,
        "apply_method": rel.get("apply_method", ""),
        "labels": {k: v for k, v in (rel.get("_labels") or {}).items()
                   if k not in ("name", "owner", "status", "version", "createdAt", "modifiedAt")},
    }


class Outcome:
    def __init__(self, operation, check_mode):
        self.operation = operation
        self.check_mode = check_mode
        self.changed = False
        self.release = None
        self.changes = []
        self.crds = []
        self.namespace_create = None
        self.hooks = []
        self.drift = []
        self.info = ""  # helm's lines before its own stdout (uninstall: objects kept or skipped)
        self.warnings = []
        self.extra = {}  # what the Flux-style controls add to the result (actions/remediation.py)

    def plan(self, plan, hooks=()):
        self.changes = list(plan.changes)
        self.crds = list(plan.crds)
        self.namespace_create = plan.namespace_create
        self.hooks = list(hooks)
        self.drift = plan.drift()

    def _pairs(self, show_secrets, mask):
        """(change summary, before, after) of each object that changes, Secrets redacted."""
        if self.namespace_create:
            meta = self.namespace_create["metadata"]
            yield {"apiVersion": "v1", "kind": "Namespace", "name": meta["name"]}, {}, clean(self.namespace_create)
        schemas = crd_schemas(c.resource.obj for c in self.crds) if self.crds else {}
        for change in self.crds + self.changes:
            if not change.changes:
                continue
            before = clean(change.before) if change.before is not None else {}
            after = clean(change.after) if change.action != "delete" and change.after is not None else {}
            schema = schemas.get((change.resource.api_version, change.resource.kind))
            if schema is not None and change.before is None and change.after is change.body:
                after = with_defaults(after, schema)  # its CRD is installed first: no dry run could answer
            yield (change.summary(),) + redact_pair(before, after, show_secrets, mask)

    def diff(self, show_secrets=False, mask=None):
        """Ansible's list-of-diffs form: one before/after pair per object that changes."""
        out = []
        for obj, before, after in self._pairs(show_secrets, mask):
            label = "/".join(x for x in (obj["kind"], obj.get("namespace"), obj["name"]) if x)
            out.append({"before_header": label, "after_header": label, "before": before, "after": after})
        return out

    def diff_text(self, show_secrets=False, mask=None, context=3):
        """The diff as the text Ansible prints as it is (``prepared``, as kubernetes.core.helm returns
        helm-diff's): per object that changes a helm-diff header over the diff of its YAML, then the plan
        summary. None when nothing changes (kubernetes.core.helm returns no diff then either)."""
        texts = [object_diff(header(obj["apiVersion"], obj["kind"], obj["name"], obj.get("namespace")),
                             before, after, context)
                 for obj, before, after in self._pairs(show_secrets, mask)]
        return {"prepared": "".join(texts) + self.summary() + "\n"} if texts else None

    def counts(self):
        """Objects to add, change and destroy, and those that stay as they are (kept, drifted, skipped)."""
        counts = {"add": 1 if self.namespace_create else 0, "change": 0, "destroy": 0, "unchanged": 0}
        for change in self.crds + self.changes:
            if change.action == "delete":
                counts["destroy"] += 1
            elif not change.changes:
                counts["unchanged"] += 1
            else:
                counts["add" if change.before is None else "change"] += 1
        return counts

    def summary(self):
        refused = [c for c in self.crds + self.changes if c.refused]
        return summary(self.counts()) + ("; %d refused by the server (%d need replacement)" % (
            len(refused), sum(1 for c in refused if _replacement(c))) if refused else "")

    def plan_entries(self, show_secrets=False, mask=None):
        """``plan``: per object its action, and for an update its changed fields (``fields``), or the
        server's refusal (``refused``, with the fields only a replacement could change marked)."""
        out = []
        for change in self.crds + self.changes:
            entry = dict(change.summary(), crd=True) if change in self.crds else change.summary()
            fields = self._fields(change)
            if fields is not None:
                entry["fields"] = _redacted_fields(fields, change.resource.kind, show_secrets, mask)
            if change.refused:
                entry["refused"] = mask(change.refused[0]) if mask is not None else change.refused[0]  # free text
                entry["replacement"] = _replacement(change)
            out.append(entry)
        return out

    def _fields(self, change):
        """The field changes of an update (None for other actions): live → predicted, or, for a refused
        request, live → what the request asks for."""
        if change.before is None or not (change.refused or change.action in ("patch", "apply", "replace")):
            return None
        before = clean(change.before)
        fields = (requested_changes(before, _requested(change)) if change.refused else
                  field_changes(before, clean(change.after)))
        previous, target = change.previous, change.resource.obj
        if previous is not None and self.release is not None:  # both as sent: with Helm's ownership markers
            previous, target = (_owned(obj, self.release, change.namespace) for obj in (previous, target))
        causes(fields, previous, target, clean(change.after) if change.after is not None else {})
        for field in fields:
            if change.refused and (immutable(change.resource.kind, field["path"], change.before)
                                   or related(field["path"], change.refused[1])):
                field["replacement"] = True
        return fields

    def result(self, diff=False, show_secrets=False, mask=None, diff_format="yaml", diff_context=3):
        res = {"changed": self.changed,
               "status": release_status(self.release),
               "plan": self.plan_entries(show_secrets, mask),
               "summary": self.summary(),
               "drift": self.drift,
               "hooks": self.hooks}
        res.update(self.extra)
        if diff:
            shown = (self.diff(show_secrets, mask) if diff_format == "json" else
                     self.diff_text(show_secrets, mask, diff_context))
            if shown is not None:
                res["diff"] = shown
        return res
