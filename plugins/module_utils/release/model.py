"""The release record exactly as Helm 4 marshals it (field names, order, omitted empties, times).

Release, Info and Hook are Go structs (fixed field order); values and annotations are Go maps, which
encoding/json writes with sorted keys, so those are sorted here before encoding.
"""
import base64
import datetime

# A revision's ``info.status``, Helm's release.Status values.
UNKNOWN = "unknown"
DEPLOYED = "deployed"
UNINSTALLED = "uninstalled"
SUPERSEDED = "superseded"
FAILED = "failed"
UNINSTALLING = "uninstalling"
PENDING_INSTALL = "pending-install"
PENDING_UPGRADE = "pending-upgrade"
PENDING_ROLLBACK = "pending-rollback"
STATUSES = (UNKNOWN, DEPLOYED, UNINSTALLED, SUPERSEDED, FAILED, UNINSTALLING,
            PENDING_INSTALL, PENDING_UPGRADE, PENDING_ROLLBACK)
PENDING = (PENDING_INSTALL, PENDING_UPGRADE, PENDING_ROLLBACK)
HOOK_EVENTS = ("pre-install", "post-install", "pre-delete", "post-delete", "pre-upgrade", "post-upgrade",
               "pre-rollback", "post-rollback", "test")
ZERO_TIME = "0001-01-01T00:00:00Z"
_METADATA_ORDER = ("name", "home", "sources", "version", "description", "keywords", "maintainers", "icon",
                   "apiVersion", "condition", "tags", "appVersion", "deprecated", "annotations", "kubeVersion",
                   "dependencies", "type")
_DEPENDENCY_ORDER = ("name", "version", "repository", "condition", "tags", "enabled", "import-values", "alias")


def now():
    """Go's RFC3339Nano for the current time (local offset as Helm uses time.Now())."""
    return go_time(datetime.datetime.now().astimezone())


def go_time(moment):
    text = moment.isoformat(timespec="microseconds")
    main, rest = text.partition(".")[::2]
    frac, offset = rest[:6].rstrip("0"), rest[6:]
    if offset in ("+00:00", ""):
        offset = "Z"
    return main + ("." + frac if frac else "") + offset


def sorted_map(value):
    """Recursively sort dict keys, as Go writes map[string]interface{}."""
    if isinstance(value, dict):
        return {key: sorted_map(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return [sorted_map(item) for item in value]
    return value


def _ordered(mapping, order):
    out = {key: mapping[key] for key in order if mapping.get(key) not in (None, "", [], {}, False)}
    if "dependencies" in out:
        out["dependencies"] = [
            {k: d[k] for k in _DEPENDENCY_ORDER if k in ("name", "repository") or d.get(k) not in (None, "", [], {}, False)}
            for d in out["dependencies"]]
    if "annotations" in out:
        out["annotations"] = sorted_map(out["annotations"])
    return out


def _file(name, data):
    if isinstance(data, str):
        data = data.encode("utf-8")
    return {"name": name, "data": base64.b64encode(data).decode("ascii")}


def chart_record(metadata, templates=(), files=(), values=None, schema=None, lock=None):
    """The ``chart`` field: metadata, lock, templates and files (base64), default values, schema.

    ``templates``/``files`` are (name, bytes) pairs in the order Helm's loader keeps them.
    """
    return {
        "metadata": _ordered(metadata or {}, _METADATA_ORDER),
        "lock": sorted_map(lock) if lock else None,
        "templates": [_file(n, d) for n, d in templates] or None,  # Go's nil slice: null, as Helm writes it
        "values": sorted_map(values) if values is not None else None,
        "schema": base64.b64encode(schema).decode("ascii") if schema else None,
        "schemamodtime": ZERO_TIME,
        "files": [_file(n, d) for n, d in files] or None,
    }


def hook_record(name, kind, path, manifest, events, weight=0, delete_policies=(), output_log_policies=()):
    hook = {"name": name, "kind": kind, "path": path, "manifest": manifest, "events": list(events),
            "last_run": {"phase": ""}}
    if weight:
        hook["weight"] = int(weight)
    if delete_policies:
        hook["delete_policies"] = list(delete_policies)
    if output_log_policies:
        hook["output_log_policies"] = list(output_log_policies)
    return hook


def release_record(name, namespace, version, chart, config, manifest, hooks, status, description,
                   first_deployed, last_deployed, notes="", apply_method="csa", deleted=None, rollback_revision=0):
    info = {"first_deployed": first_deployed, "last_deployed": last_deployed}
    if deleted:
        info["deleted"] = deleted
    info["description"] = description
    info["status"] = status
    if rollback_revision:  # Helm 4.3: the revision a rollback went back to
        info["rollback_revision"] = int(rollback_revision)
    if notes:
        info["notes"] = notes
    rel = {"name": name, "info": info, "chart": chart}
    if config:
        rel["config"] = sorted_map(config)
    if manifest:
        rel["manifest"] = manifest
    if hooks:
        rel["hooks"] = hooks
    rel["version"] = int(version)
    rel["namespace"] = namespace
    if apply_method:
        rel["apply_method"] = apply_method
    return rel


# Records stay plain dicts (Helm's JSON, as stored); these read the fields every action asks about.
def status(release):
    """The revision's ``info.status`` (one of STATUSES)."""
    return release["info"]["status"]


def description(release):
    """``info.description``: what the last operation on this revision did (``Install complete``...)."""
    return release["info"].get("description", "")


def first_deployed(release, default=None):
    """``info.first_deployed``: when the release was first installed (kept by upgrades and rollbacks)."""
    return release["info"].get("first_deployed", default)


def notes(release):
    """``info.notes``, the rendered NOTES.txt ('' when the revision has none)."""
    return (release.get("info") or {}).get("notes") or ""


def set_status(release, status, description=None):
    release["info"]["status"] = status
    if description is not None:
        release["info"]["description"] = description
    return release


def set_deleted(release, when):
    """``info.deleted``: when an uninstall of this revision started."""
    release["info"]["deleted"] = when


def chart_label(release):
    meta = (release.get("chart") or {}).get("metadata") or {}
    return "%s-%s" % (meta.get("name", ""), meta.get("version", ""))


def app_version(release):
    return ((release.get("chart") or {}).get("metadata") or {}).get("appVersion", "")
