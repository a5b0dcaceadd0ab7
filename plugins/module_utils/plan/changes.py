"""The field-level plan of one object: each changed field as a JSON pointer (RFC 6901) with its value
before and after, why it changes, and whether the API server refuses to change it in place.

``cause``: ``chart`` (the chart changed the field between the last manifest and the new one), ``drift``
(live differed from the last manifest and this run puts the manifest's value back) or ``server`` (neither:
ownership markers, a field manager's upgrade, a default the server fills in).

The API server refuses some updates: immutable fields (a Deployment's selector, a StatefulSet's
``volumeClaimTemplates``, a Job's template, a Service's ``clusterIP``...) and invalid values. Its dry-run
answer says so before anything is written; ``IMMUTABLE`` names the fields behind a refusal, which can
only be carried out by replacing the object (delete, then create).
"""
import json

from ..regexcache import regex

_MISSING = object()
_FIELD_PART = regex(r"[^.\[\]]+")  # spec.ports[0].nodePort -> spec, ports, 0, nodePort
# Fields the API server will not update in place, by kind: pointer prefixes, or ("/spec", allowed children)
# where everything under the prefix but those children is immutable (StatefulSet, PersistentVolumeClaim).
IMMUTABLE = {
    "Deployment": ("/spec/selector",),
    "ReplicaSet": ("/spec/selector",),
    "DaemonSet": ("/spec/selector",),
    "StatefulSet": (("/spec", ("replicas", "ordinals", "template", "updateStrategy", "revisionHistoryLimit",
                               "persistentVolumeClaimRetentionPolicy", "minReadySeconds")),),
    "Job": ("/spec/selector", "/spec/template", "/spec/completionMode", "/spec/completions"),
    "Service": ("/spec/clusterIP", "/spec/clusterIPs"),
    "PersistentVolumeClaim": (("/spec", ("resources", "volumeAttributesClassName")),),
    "RoleBinding": ("/roleRef",),
    "ClusterRoleBinding": ("/roleRef",),
    "StorageClass": ("/parameters", "/provisioner", "/reclaimPolicy", "/volumeBindingMode"),
}
_CONTENT = ("/data", "/binaryData", "/stringData")  # of a ConfigMap or Secret with ``immutable: true``


def pointer(parts):
    """The JSON pointer of a path (``~`` and ``/`` escaped as RFC 6901 says)."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def _names(items):
    """The ``name`` of every item when each is a map with a distinct one (containers, env, ports...)."""
    names = [item.get("name") if isinstance(item, dict) else None for item in items]
    return names if all(isinstance(n, str) for n in names) and len(set(names)) == len(names) else None


def _walk(before, after, path, out):
    if isinstance(before, dict) and isinstance(after, dict):
        for key, value in before.items():
            if key not in after:
                out.append({"op": "remove", "path": pointer(path + (key,)), "before": value})
            elif after[key] != value or type(after[key]) is not type(value):
                _walk(value, after[key], path + (key,), out)
        for key, value in after.items():
            if key not in before:
                out.append({"op": "add", "path": pointer(path + (key,)), "after": value})
        return
    if isinstance(before, list) and isinstance(after, list):
        old, new = _names(before), _names(after)
        if old is not None and new is not None and set(old) & set(new):
            where = {name: index for index, name in enumerate(old)}
            for index, item in enumerate(after):
                if new[index] in where:
                    if before[where[new[index]]] != item:
                        _walk(before[where[new[index]]], item, path + (index,), out)
                else:
                    out.append({"op": "add", "path": pointer(path + (index,)), "after": item})
            out.extend({"op": "remove", "path": pointer(path + (where[name],)), "before": before[where[name]]}
                       for name in old if name not in set(new))
            return
        if len(before) == len(after):
            for index, (a, b) in enumerate(zip(before, after)):
                if a != b or type(a) is not type(b):
                    _walk(a, b, path + (index,), out)
            return
    out.append({"op": "replace", "path": pointer(path), "before": before, "after": after})


def field_changes(before, after):
    """Changed fields from object ``before`` to ``after`` (``status`` left out: the run does not write it),
    as ``{"op": "add"|"remove"|"replace", "path": pointer, "before": ..., "after": ...}``. List items with
    distinct names are matched by name (the pointer has the item's index after the change, or before it
    for one removed); other lists item by item when their lengths agree, else as a whole."""
    out = []
    _walk({k: v for k, v in (before or {}).items() if k != "status"},
          {k: v for k, v in (after or {}).items() if k != "status"}, (), out)
    return out


def value_at(obj, path, missing=_MISSING):
    """The value at JSON pointer ``path`` in ``obj`` (``missing`` when absent)."""
    node = obj
    for raw in path.split("/")[1:]:
        key = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and key in node:
            node = node[key]
        elif isinstance(node, list) and key.isdigit() and int(key) < len(node):
            node = node[int(key)]
        else:
            return missing
    return node


def related(path, paths):
    """Whether pointer ``path`` is one of ``paths``, inside one, or holds one."""
    return any(path == p or path.startswith(p + "/") or p.startswith(path + "/") for p in paths)


def causes(fields, previous, target, after):
    """Give each field change its ``cause``. ``previous`` and ``target``: the object in the last and the
    new manifest (``previous`` None: there is no last one, everything is the chart's); ``after``: the
    object as the run leaves it."""
    chart = None if previous is None else [f["path"] for f in field_changes(previous, target)]
    for field in fields:
        if chart is None or related(field["path"], chart):
            field["cause"] = "chart"
        elif value_at(previous, field["path"]) == value_at(after, field["path"]):
            field["cause"] = "drift"
        else:
            field["cause"] = "server"
    return fields


def requested_changes(live, request):
    """The fields where ``request`` (the object a refused request sends) differs from ``live``: what the
    request asks to add or replace; what it leaves out is not listed."""
    out = []
    _request(live, request, (), out)
    return out


def _request(live, want, path, out):
    if isinstance(live, dict) and isinstance(want, dict):
        for key, value in want.items():
            if key not in live:
                out.append({"op": "add", "path": pointer(path + (key,)), "after": value})
            elif live[key] != value:
                _request(live[key], value, path + (key,), out)
        return
    if isinstance(live, list) and isinstance(want, list) and _names(live) is not None and _names(want) is not None:
        where = {item["name"]: item for item in live}
        for index, item in enumerate(want):
            if item["name"] not in where:
                out.append({"op": "add", "path": pointer(path + (index,)), "after": item})
            elif where[item["name"]] != item:
                _request(where[item["name"]], item, path + (index,), out)
        return
    out.append({"op": "replace", "path": pointer(path), "before": live, "after": want})


def immutable(kind, path, before=None):
    """Whether the field at ``path`` of a ``kind`` object cannot be changed in place (``before``: the live
    object, for a ConfigMap's or Secret's ``immutable: true``)."""
    if kind in ("ConfigMap", "Secret") and isinstance(before, dict) and before.get("immutable") is True:
        return related(path, _CONTENT) or path == "/immutable"
    for rule in IMMUTABLE.get(kind, ()):
        if isinstance(rule, tuple):
            prefix, allowed = rule
            if path.startswith(prefix + "/") and path[len(prefix) + 1:].split("/")[0] not in allowed:
                return True
        elif path == rule or path.startswith(rule + "/"):
            return True
    return False


def refusal_fields(body):
    """The fields an API server's refusal (its Status body) names (``spec.selector``,
    ``spec.ports[0].nodePort``), as JSON pointers."""
    try:
        doc = json.loads(body or "")
    except ValueError:
        return []
    details = doc.get("details") if isinstance(doc, dict) else None
    fields = [c["field"] for c in (details or {}).get("causes") or [] if isinstance(c, dict) and c.get("field")]
    return sorted({pointer(_FIELD_PART.findall(field)) for field in fields})
