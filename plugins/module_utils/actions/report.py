"""What an operation reports: changed, per-object actions, before/after diffs, drift, hooks, status.

Plain data only; the Ansible layer turns it into module results. Secret data is redacted here (in
diffs, plans and returned objects) unless ``show_secrets``.
"""
import copy
import datetime

from ..plan.fields import ASSIGNED

REDACTED = "VALUE_SPECIFIED_IN_NO_LOG_PARAMETER"
_SERVER_META = ("managedFields", "resourceVersion", "uid", "creationTimestamp", "generation", "selfLink")


def redact(obj, show_secrets=False):
    """A copy of ``obj`` with Secret data (and a last-applied annotation that may hold it) masked."""
    if show_secrets or not isinstance(obj, dict) or obj.get("kind") != "Secret":
        return obj
    out = copy.deepcopy(obj)
    for field in ("data", "stringData"):
        if isinstance(out.get(field), dict):
            out[field] = {k: REDACTED for k in out[field]}
    annotations = (out.get("metadata") or {}).get("annotations") or {}
    if "kubectl.kubernetes.io/last-applied-configuration" in annotations:
        annotations["kubectl.kubernetes.io/last-applied-configuration"] = REDACTED
    return out


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

    def plan(self, plan, hooks=()):
        self.changes = list(plan.changes)
        self.crds = list(plan.crds)
        self.namespace_create = plan.namespace_create
        self.hooks = list(hooks)
        self.drift = plan.drift()

    def diff(self, show_secrets=False):
        """Ansible's list-of-diffs form: one before/after pair per object that changes."""
        out = []
        if self.namespace_create:
            out.append({"before_header": "Namespace/%s" % self.namespace_create["metadata"]["name"],
                        "after_header": "Namespace/%s" % self.namespace_create["metadata"]["name"],
                        "before": {}, "after": self.namespace_create})
        for change in self.crds + self.changes:
            if not change.changes:
                continue
            res = change.resource
            label = "/".join(x for x in (res.kind, change.namespace, res.name) if x)
            before = clean(change.before) if change.before is not None else {}
            after = clean(change.after) if change.action != "delete" and change.after is not None else {}
            out.append({"before_header": label, "after_header": label,
                        "before": redact(before, show_secrets), "after": redact(after, show_secrets)})
        return out

    def result(self, diff=False, show_secrets=False):
        res = {"changed": self.changed,
               "status": release_status(self.release),
               "plan": [dict(c.summary(), crd=True) for c in self.crds] + [c.summary() for c in self.changes],
               "drift": self.drift,
               "hooks": self.hooks}
        if diff:
            res["diff"] = self.diff(show_secrets)
        return res
