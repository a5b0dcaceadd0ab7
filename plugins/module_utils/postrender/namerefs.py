"""Hash suffixes and kustomize's back-reference fixing (NameReferenceTransformer)."""
from .errors import PostRenderError
from .fieldspecs import NAME_REFERENCES
from .generators import content_hash
from .resources import apply_fieldspecs, ns_equal


def add_hashes(resources):
    for res in resources:
        if res.needs_hash:
            res.set_name("%s-%s" % (res.name, content_hash(res.obj)))


def _candidates(resources, kind, group):
    return [r for r in resources
            if r.kind == kind and (not group or r.group == group)
            and (len(r.prev_names) > 1 or r.orig_ns != r.namespace)]


def _select(cands, old, referrer, subject_ns=None):
    found = [c for c in cands if old in c.prev_names]
    if subject_ns is not None:
        found = [c for c in found if not subject_ns or subject_ns in (c.orig_ns, c.namespace)]
    elif not referrer.cluster_scoped:
        found = [c for c in found if c.cluster_scoped or ns_equal(referrer.namespace, c.namespace)]
    if len({(c.name, c.namespace) for c in found}) > 1:
        raise PostRenderError("found multiple possible referrals for %s %r in %s: %s" % (
            found[0].kind, old, referrer.ident(), ", ".join(c.ident() for c in found)))
    return found[0] if found else None


def _fix_value(value, cands, referrer, kind):
    """New value for a referring field: a name, a list of names, or a {name, namespace} map."""
    if isinstance(value, str):
        hit = _select(cands, value, referrer)
        return hit.name if hit else value
    if isinstance(value, list):
        return [_fix_value(v, cands, referrer, kind) for v in value]
    if isinstance(value, dict) and isinstance(value.get("name"), str):
        # kustomize matches subjects by name and namespace only, whatever their kind.
        hit = _select(cands, value["name"], referrer, subject_ns=value.get("namespace") or "")
        if hit:
            value = dict(value, name=hit.name)
            if hit.namespace and "namespace" in value or kind == "ServiceAccount" and hit.namespace:
                value["namespace"] = hit.namespace
        return value
    return value


def fix_references(resources):
    """Point every referring field at the current (prefixed, suffixed, hashed) name."""
    for kind, group, specs in NAME_REFERENCES:
        cands = _candidates(resources, kind, group)
        if not cands:
            continue

        def fix(res, parent, key, cands=cands, kind=kind):
            parent[key] = _fix_value(parent[key], cands, res, kind)
        apply_fieldspecs(resources, specs, fix)
