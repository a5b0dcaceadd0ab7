"""Module body of helmless.core.releases: many releases in one task.

Every Ansible task is a new process per host, and a loop is one process per item: a fleet of releases
paid Ansible's start-up, the module's imports and a cold render for every release. Run in one process,
each release is still exactly what the release module does (the same runner, with its own redaction,
result and failure), but later releases of a chart render from templates already parsed and compiled.
"""
from .runner import ModuleFailure, run_release
from .secrets import credentials


def item_credentials(params):
    """The secrets of every release of the task (its items' own repository passwords and URLs)."""
    connection = _connection(params)
    found = credentials(connection)
    for item in params.get("releases") or ():
        found |= credentials(dict(connection, **item))
    return found


def _connection(params):
    return {k: v for k, v in params.items() if k != "releases"}


def _titled(shown, key):
    """One release's diff, each part naming the release: objects of one name in two namespaces, or the
    summaries of two releases, would otherwise read as one."""
    if not shown:
        return []
    if isinstance(shown, dict):  # the yaml diff: one prepared text
        return [{"prepared": "Release %s:\n%s" % (key, shown["prepared"])}]
    return [dict(part, **{side: "%s: %s" % (key, part[side]) if part.get(side) else key
                          for side in ("before_header", "after_header")}) for part in shown]


def run_releases(params, check_mode=False, diff=False):
    """Each release in order; one that fails leaves the others running, those that need it are skipped.

    Returns the result of each release under ``results`` (as the release module returns it, plus
    ``release``: namespace/name), their diffs in order under ``diff``, and fails the task when any
    release failed or was skipped."""
    connection = _connection(params)
    results, warnings, diffs, down = [], [], [], set()
    for item in params["releases"]:
        item = dict(item)
        needs = item.pop("needs", None) or ()
        key = "%s/%s" % (item["release_namespace"], item["release_name"])
        blocked = [need for need in needs if need in down] if item["release_state"] == "present" else []
        if blocked:
            down.update((key, item["release_name"]))
            results.append({"release": key, "changed": False, "skipped": True,
                            "msg": "skipped: it needs %s, which did not succeed" % ", ".join(blocked)})
            continue
        try:
            # an item's identity option left unset keeps the task's
            result, more = run_release(dict(connection, **{k: v for k, v in item.items()
                                                           if v is not None or k not in connection}), check_mode, diff)
        except ModuleFailure as exc:
            down.update((key, item["release_name"]))
            result, more = dict(exc.result, failed=True, msg=str(exc)), exc.warnings
        warnings.extend("%s: %s" % (key, w) for w in more)
        diffs.extend(_titled(result.pop("diff", None), key))
        results.append(dict(result, release=key))
    outcome = {"changed": any(r.get("changed") for r in results), "results": results}
    if diff:
        outcome["diff"] = diffs
    problems = [r for r in results if r.get("failed") or r.get("skipped")]
    if problems:
        raise ModuleFailure("%d of %d releases did not succeed: %s" % (
            len(problems), len(results), "; ".join("%s: %s" % (r["release"], r["msg"]) for r in problems)),
            outcome, warnings)
    return outcome, warnings
