"""Patch computation: strategic merge (two- and three-way) and JSON merge patches, plus drift.

Semantics follow apimachinery's strategicpatch: maps merge recursively; lists whose schema says
``patchStrategy: merge`` merge by their patch merge key (deleted items as ``$patch: delete``,
primitive lists through ``$deleteFromPrimitiveList/<field>``); every other list is atomic. With no
schema (``meta is None``: custom resources) the same walk yields an RFC 7386 JSON merge patch.
A three-way patch is (deletions original→modified) merged with (changes current→modified), with
overwrite, as Helm 3's CreateThreeWayMergePatch.
"""
_MISSING = object()


def _child(meta, key):
    return meta.field(key) if meta is not None else None


def _items(meta):
    return meta.items() if meta is not None else None


def _merge_key_list(meta, value):
    return (meta is not None and meta.merges and meta.merge_key
            and all(isinstance(item, dict) and meta.merge_key in item for item in value))


def _primitive_merge_list(meta, value):
    return meta is not None and meta.merges and all(not isinstance(item, (dict, list)) for item in value)


def diff_maps(original, modified, meta=None, deletions=True, changes=True):
    """Patch taking ``original`` to ``modified`` (only deletions / only changes when asked)."""
    patch = {}
    if deletions:
        for key in original:
            if key not in modified:
                patch[key] = None
    for key, new in modified.items():
        old = original.get(key, _MISSING)
        if old is _MISSING:
            if changes:
                patch[key] = new
            continue
        sub_meta = _child(meta, key)
        if isinstance(old, dict) and isinstance(new, dict):
            sub = diff_maps(old, new, sub_meta, deletions, changes)
            if sub:
                patch[key] = sub
        elif isinstance(old, list) and isinstance(new, list) and _merge_key_list(sub_meta, old + new):
            sub = _diff_keyed_lists(old, new, sub_meta, deletions, changes)
            if sub:
                patch[key] = sub
        elif isinstance(old, list) and isinstance(new, list) and old and new and _primitive_merge_list(sub_meta, old + new):
            added = [item for item in new if item not in old]
            removed = [item for item in old if item not in new]
            if changes and added:
                patch[key] = added
            if deletions and removed:
                patch["$deleteFromPrimitiveList/" + key] = removed
        elif old != new or type(old) is not type(new) and not _same_number(old, new):
            if changes:
                patch[key] = new
    return patch


def _same_number(old, new):
    return (isinstance(old, (int, float)) and isinstance(new, (int, float))
            and not isinstance(old, bool) and not isinstance(new, bool) and old == new)


def _diff_keyed_lists(old, new, meta, deletions, changes):
    key = meta.merge_key
    by_key = {item[key]: item for item in old}
    new_keys = {item[key] for item in new}
    out = []
    for item in new:
        prev = by_key.get(item[key])
        if prev is None:
            if changes:
                out.append(item)
            continue
        sub = diff_maps(prev, item, _items(meta), deletions, changes)
        if sub:
            sub[key] = item[key]
            out.append(sub)
    if deletions:
        out.extend({key: item[key], "$patch": "delete"} for item in old if item[key] not in new_keys)
    return out


def merge_patches(first, second):
    """Combine two patches (deletions then changes), as strategicpatch's mergeMap with overwrite."""
    out = dict(first)
    for key, value in second.items():
        if key in out and isinstance(out[key], dict) and isinstance(value, dict):
            out[key] = merge_patches(out[key], value)
        elif key in out and isinstance(out[key], list) and isinstance(value, list) and _is_directive_list(out[key]):
            out[key] = out[key] + value
        else:
            out[key] = value
    return out


def _is_directive_list(items):
    return all(isinstance(item, dict) and item.get("$patch") == "delete" for item in items)


def two_way(original, modified, meta=None):
    """Chart-delta: what the chart itself changed, as a patch for the live object."""
    return diff_maps(original, modified, meta)


def three_way(original, modified, current, meta=None):
    """Helm 3: deletions original→modified plus everything in modified that differs from live."""
    deletions = diff_maps(original, modified, meta, deletions=True, changes=False)
    delta = diff_maps(current, modified, meta, deletions=False, changes=True)
    return merge_patches(deletions, delta)


def drift(original, live, meta=None, prefix=""):
    """Paths (dotted, list items by merge key or index) where the live object differs from ``original``."""
    out = []
    for key, want in original.items():
        have = live.get(key, _MISSING) if isinstance(live, dict) else _MISSING
        if have is not _MISSING and want == have:  # the common case, at C speed: nothing below differs
            continue
        path = prefix + ("." if prefix else "") + str(key)
        sub_meta = _child(meta, key)
        if have is _MISSING:
            out.append(path)
        elif isinstance(want, dict) and isinstance(have, dict):
            out.extend(drift(want, have, sub_meta, path))
        elif isinstance(want, list) and isinstance(have, list):
            out.extend(_list_drift(want, have, sub_meta, path))
        elif want != have and not _same_number(want, have) and not _same_text(want, have):
            out.append(path)
    return out


def _same_text(want, have):
    # manifests may carry numbers or booleans where the API returns their string form (and vice versa)
    return str(want) == str(have) if isinstance(want, (int, float, str)) and isinstance(have, (int, float, str)) else False


def _list_drift(want, have, meta, path):
    if _merge_key_list(meta, want) and all(isinstance(i, dict) for i in have):
        key = meta.merge_key
        live = {item.get(key): item for item in have}
        out = []
        for item in want:
            sub_path = "%s[%s=%s]" % (path, key, item[key])
            if item[key] not in live:
                out.append(sub_path)
            else:
                out.extend(drift(item, live[item[key]], _items(meta), sub_path))
        return out
    if len(want) != len(have):
        return [path]
    out = []
    for index, (a, b) in enumerate(zip(want, have)):
        sub_path = "%s[%d]" % (path, index)
        if isinstance(a, dict) and isinstance(b, dict):
            out.extend(drift(a, b, _items(meta), sub_path))
        elif a != b and not _same_number(a, b):
            out.append(sub_path)
    return out
