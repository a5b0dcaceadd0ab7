"""Field ownership (metadata.managedFields) for server-side apply as Helm 4 does it.

``managedFields`` entries hold FieldsV1 tries: ``{"f:spec": {"f:replicas": {}}, ...}`` where ``f:<name>``
is a map field, ``k:<json>`` a list item by its keys, ``v:<json>`` a set member, ``i:<n>`` an index and
``"."`` marks a node that is owned itself as well as through its children.
"""
import json

ASSIGNED = "(assigned at creation)"
_IDENTITY = ("apiVersion", "kind")
_META_IDENTITY = ("name", "namespace")


def _union(a, b, root=False):
    """Union of two FieldsV1 tries (below the root, a node with no children is owned itself)."""
    if root and (not a or not b):
        return dict(a or b)
    owned = not a or not b or "." in a or "." in b
    out = {}
    for tree in (a, b):
        for key, child in tree.items():
            if key != ".":
                out[key] = _union(out[key], child) if key in out else child
    if out and owned:
        out["."] = {}
    return out


def _main(entry):
    return not entry.get("subresource")


def csa_entries(live, manager):
    """The client-side (operation Update) entries ``manager`` holds on the main resource."""
    return [e for e in (live.get("metadata") or {}).get("managedFields") or []
            if e.get("manager") == manager and e.get("operation") == "Update" and _main(e)]


def manager_fields(obj, manager):
    """What ``manager`` owns on ``obj``, entry by entry (operation, API version, subresource, fields), without
    the entries' times: a server-side apply that takes over fields of equal value changes only this."""
    return sorted((e.get("operation") or "", e.get("apiVersion") or "", e.get("subresource") or "",
                   json.dumps(e.get("fieldsV1") or {}, sort_keys=True))
                  for e in ((obj or {}).get("metadata") or {}).get("managedFields") or [] if e.get("manager") == manager)


def upgraded_managed_fields(live, manager):
    """client-go csaupgrade.UpgradeManagedFields for one manager name: ``manager``'s Update entry folds
    into its Apply entry (same API version) or becomes it; None when nothing changes."""
    entries = [dict(e) for e in (live.get("metadata") or {}).get("managedFields") or []]
    target = next((i for i, e in enumerate(entries)
                   if e.get("manager") == manager and e.get("operation") == "Apply" and _main(e)), None)
    if target is None:
        target = next((i for i, e in enumerate(entries)
                       if e.get("manager") == manager and e.get("operation") == "Update" and _main(e)), None)
        if target is None:
            return None
        entries[target]["operation"] = "Apply"
    apply_entry = entries[target]
    csa = next((e for i, e in enumerate(entries) if i != target and e.get("manager") == manager
                and e.get("operation") == "Update" and _main(e)
                and e.get("apiVersion") == apply_entry.get("apiVersion")), None)
    if csa is not None:
        apply_entry["fieldsV1"] = _union(apply_entry.get("fieldsV1") or {}, csa.get("fieldsV1") or {}, root=True)
    out = [e for i, e in enumerate(entries)
           if i == target or not (e.get("manager") == manager and e.get("operation") == "Update" and _main(e))]
    return None if out == (live.get("metadata") or {}).get("managedFields") else out


def upgrade_patch(live, manager):
    """The JSON patch Helm 4 sends before its first server-side apply of an object it patched client-side."""
    fields = upgraded_managed_fields(live, manager)
    if fields is None:
        return None
    return [{"op": "replace", "path": "/metadata/managedFields", "value": fields},
            {"op": "replace", "path": "/metadata/resourceVersion", "value": live["metadata"]["resourceVersion"]}]


def owned_fields(live, manager):
    """Everything ``manager`` owns on the main resource (Apply and Update entries together)."""
    tree = {}
    for entry in (live.get("metadata") or {}).get("managedFields") or []:
        if entry.get("manager") == manager and _main(entry):
            tree = _union(tree, entry.get("fieldsV1") or {}, root=True)
    return tree


_MISSING = object()


def keep_theirs(original, target, owned):
    """Chart-delta over server-side apply: ``target`` without the fields the chart did not change
    (same in ``original``) that ``owned`` (the manager's FieldsV1 trie) no longer covers, because
    someone else took them over or removed them. Applying the rest leaves their changes in place."""
    kept = _keep(original, target, owned or None)
    out = dict(kept) if isinstance(kept, dict) else {}
    for key in _IDENTITY:
        out[key] = target[key]
    meta = dict(out.get("metadata") or {})
    for key in _META_IDENTITY:
        if key in target.get("metadata", {}):
            meta[key] = target["metadata"][key]
    out["metadata"] = meta
    return out


def _keep(original, value, owned, identity=()):
    """``value`` pruned as keep_theirs says; _MISSING when nothing of it stays."""
    if original is _MISSING:
        return value  # the chart added it
    if owned is None and _equal(original, value):  # only here: an equality test at every level is quadratic
        return _MISSING
    if not isinstance(value, (dict, list)) or not isinstance(original, type(value)):
        return value  # a changed scalar, or one of ours
    if owned is not None and set(owned) <= {"."}:
        return value  # owned as a whole (atomic map or list)
    if isinstance(value, dict):
        out = {}
        for key, sub in value.items():
            kept = sub if key in identity else _keep(original.get(key, _MISSING), sub,
                                                     owned.get("f:" + key) if owned is not None else None)
            if kept is not _MISSING:
                out[key] = kept
        return out if out or not value else _MISSING
    names = _key_names(owned) if owned is not None else ()
    if not names:
        return value  # atomic list or set: applied whole
    out = []
    for item in value:
        kept = item
        if isinstance(item, dict):
            kept = _keep(_find(original, item, names), item, _node_for(owned, item, names), identity=names)
        if kept is not _MISSING:
            out.append(kept)
    return out


def _key_names(owned):
    """The list-map key fields, read from any ``k:{...}`` node (every item of a list has the same ones)."""
    for name in owned:
        if name.startswith("k:"):
            try:
                return tuple(json.loads(name[2:]))
            except ValueError:
                continue
    return ()


def _matches(item, keys, names):
    # a key the rendered item leaves out (a defaulted ``protocol``) matches any value: never drop on doubt
    return all(k not in item or _equal(item[k], keys.get(k)) for k in names)


def _node_for(owned, item, names):
    for name, node in owned.items():
        if name.startswith("k:"):
            try:
                keys = json.loads(name[2:])
            except ValueError:
                continue
            if isinstance(item, dict) and _matches(item, keys, names):
                return node
    return None


def _find(items, item, names):
    for prev in items:
        if isinstance(prev, dict) and isinstance(item, dict) and all(
                _equal(prev.get(k), item.get(k)) for k in names):
            return prev
    return _MISSING


def _equal(a, b):
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b))
    return a == b
