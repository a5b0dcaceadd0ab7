"""Filters for the ``helmless.core.releases`` role."""

from ansible.errors import AnsibleFilterError


def _key(release, default_namespace):
    if not isinstance(release, dict) or not release.get("name"):
        raise AnsibleFilterError("release_order: every release needs a 'name': %r" % (release,))
    return "%s/%s" % (release.get("namespace") or default_namespace, release["name"])


def release_order(releases, defaults=None, reverse=False):
    """``releases`` with ``defaults`` filled in (``state: present`` unless they or the release say otherwise), in a
    stable topological order of their ``needs``."""
    if not isinstance(releases, list):
        raise AnsibleFilterError("release_order: expected a list of releases, got %r" % (releases,))
    defaults = dict(defaults or {})
    default_namespace = defaults.get("namespace") or "default"
    releases = [dict({"state": "present"}, **dict(defaults, **r)) if isinstance(r, dict) else r for r in releases]
    keys = [_key(r, default_namespace) for r in releases]
    by_key = dict(zip(keys, releases))
    if len(by_key) != len(keys):
        dupes = sorted({k for k in keys if keys.count(k) > 1})
        raise AnsibleFilterError("release_order: releases defined twice: %s" % ", ".join(dupes))
    by_name = {}
    for key in keys:
        by_name.setdefault(key.split("/", 1)[1], []).append(key)

    def resolve(owner, need):
        if "/" in need:
            if need not in by_key:
                raise AnsibleFilterError("release_order: %s needs unknown release %s" % (owner, need))
            return need
        matches = by_name.get(need, [])
        if len(matches) != 1:
            raise AnsibleFilterError("release_order: %s needs %s, which %s" % (
                owner, need, "is not defined" if not matches else "is ambiguous (%s)" % ", ".join(matches)))
        return matches[0]

    deps = {k: [resolve(k, n) for n in (by_key[k].get("needs") or [])] for k in keys}
    ordered, state = [], {}

    def visit(key, path):
        if state.get(key) == "done":
            return
        if state.get(key) == "visiting":
            raise AnsibleFilterError("release_order: dependency cycle: %s" % " -> ".join(path + [key]))
        state[key] = "visiting"
        for dep in deps[key]:
            visit(dep, path + [key])
        state[key] = "done"
        ordered.append(by_key[key])

    for key in keys:
        visit(key, [])
    return list(reversed(ordered)) if reverse else ordered


class FilterModule(object):
    def filters(self):
        return {"release_order": release_order}
