"""Strategic merge patches (kyaml merge2 semantics) and RFC 6902 JSON patches."""
import copy

from .errors import PostRenderError

# Merge keys of the Kubernetes schema (x-kubernetes-patch-merge-key) by field name; ``ports``
# depends on whether it is a container's or a Service's.
_MERGE_KEYS = {
    "containers": "name", "initContainers": "name", "ephemeralContainers": "name",
    "volumes": "name", "env": "name", "volumeMounts": "mountPath", "volumeDevices": "devicePath",
    "imagePullSecrets": "name", "hostAliases": "ip", "topologySpreadConstraints": "topologyKey",
    "ownerReferences": "uid", "conditions": "type", "readinessGates": "conditionType",
    "resourceClaims": "name", "schedulingGates": "name",
}
# Fields the schema declares atomic (replaced wholesale) even though their items have a name.
_ATOMIC = frozenset(("tolerations", "args", "command", "envFrom", "subjects", "rules"))
# kyaml's fallback when no schema applies: the first key every element carries.
_ASSOCIATIVE = ("mountPath", "devicePath", "ip", "type", "topologyKey", "name", "containerPort")
_MERGE_PRIMITIVES = frozenset(("finalizers",))


def _merge_keys(field, dest_items, patch_items, kind, path):
    """The keys list elements are matched by, or None for a list replaced wholesale."""
    if field == "ports":
        return ("port" if kind == "Service" and path == ("spec",) else "containerPort", "protocol")
    if field in _ATOMIC:
        return None
    if field in _MERGE_KEYS:
        return (_MERGE_KEYS[field],)
    items = [i for i in list(dest_items) + list(patch_items) if isinstance(i, dict)]
    if not items or len(items) != len(dest_items) + len(patch_items):
        return None
    for key in _ASSOCIATIVE:
        if all(key in i for i in items):
            return (key,)
    return None


def _merge_list(dest, patch, keys):
    """kyaml's associative-list merge as kustomize runs it (prepend mode): the patch's
    elements in patch order, then the elements only the object has, in its order.

    A patch element lacking a secondary key (``protocol``) whose primary key matches an
    element is dropped, and one matching nothing goes to the front, as kustomize does."""
    def ident(item):
        return tuple(item.get(k) for k in keys)
    dest_items = [d for d in dest if isinstance(d, dict)]
    by_ident = {ident(d): d for d in dest_items}
    ordered, front, used, deleted = [], [], set(), set()
    for item in patch:
        if not isinstance(item, dict) or item.get(keys[0]) is None:
            continue
        key, directive = ident(item), item.get("$patch")
        if key not in by_ident and any(k is None for k in key):
            if not any(d.get(keys[0]) == item[keys[0]] for d in dest_items) and directive != "delete":
                front.append(_strip_directives(item))
            continue
        if directive == "delete":
            deleted.add(key)
            continue
        if directive == "replace":
            merged = {k: v for k, v in item.items() if k != "$patch"}
        elif key in by_ident:
            merged = smp(by_ident[key], item)
        else:
            merged = _strip_directives(item)
        used.add(key)
        ordered.append(merged)
    rest = [copy.deepcopy(d) for d in dest
            if not isinstance(d, dict) or (ident(d) not in used and ident(d) not in deleted)]
    return front + ordered + rest


def _strip_directives(value):
    if isinstance(value, dict):
        return {k: _strip_directives(v) for k, v in value.items() if k != "$patch" and v is not None}
    if isinstance(value, list):
        return [_strip_directives(v) for v in value]
    return value


def smp(dest, patch, kind="", path=()):
    """Apply a strategic merge patch to ``dest`` (not modified); returns the result or None
    when the patch deletes the whole object."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    directive = patch.get("$patch")
    if directive == "delete":
        return None
    if directive == "replace":
        return _strip_directives(patch)
    if not isinstance(dest, dict):
        return _strip_directives(patch)
    # kyaml knows only the $patch directive; $retainKeys, $setElementOrder/... and
    # $deleteFromPrimitiveList/... end up in the object as ordinary fields, as in kustomize.
    result = dict(dest)
    for field, value in patch.items():
        if field == "$patch":
            continue
        if value is None:
            result.pop(field, None)
            continue
        current = result.get(field)
        if isinstance(value, dict) and isinstance(current, dict):
            merged = smp(current, value, kind, path + (field,))
            if merged is None:
                result.pop(field, None)
            else:
                result[field] = merged
        elif isinstance(value, list) and isinstance(current, list):
            if any(isinstance(v, dict) and v.get("$patch") == "replace" and len(v) == 1 for v in value):
                result[field] = _replace_list([v for v in value if not (
                    isinstance(v, dict) and v.get("$patch") == "replace" and len(v) == 1)])
                continue
            keys = _merge_keys(field, current, value, kind, path)
            if keys:
                result[field] = _merge_list(current, value, keys)
            elif field in _MERGE_PRIMITIVES:
                result[field] = current + [v for v in value if v not in current]
            else:
                result[field] = _replace_list(value)
        else:
            result[field] = _strip_directives(value)
    return result


def drop_empty_nulls(value):
    """kyaml's merge walks the whole object and drops every field written as a bare ``key:``
    on the way (an explicit ``null`` stays), so a strategic-merge-patched object loses them."""
    if isinstance(value, dict):
        empty = getattr(value, "empty_keys", ())
        return {k: drop_empty_nulls(v) for k, v in value.items() if not (v is None and k in empty)}
    if isinstance(value, list):
        return [drop_empty_nulls(v) for v in value]
    return value


def _replace_list(value):
    return [_strip_directives(v) for v in value
            if not (isinstance(v, dict) and v.get("$patch") == "delete")]


def json6902(obj, ops, where):
    """Apply RFC 6902 operations; ``where`` names the patch in errors."""
    import jsonpatch  # lazy: third-party, only for JSON 6902 patches (ansible/libraries.py)

    try:
        return jsonpatch.JsonPatch(ops).apply(obj)
    except (jsonpatch.JsonPatchException, jsonpatch.JsonPointerException, TypeError, KeyError) as exc:
        raise PostRenderError("%s: %s" % (where, exc)) from exc
