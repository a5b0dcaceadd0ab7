"""What the helm CLI prints after an operation (its ``stdout``), from the release record we stored.

Helm 4's table printer (``helm status`` layout, used by install, upgrade and rollback) and the one-line
messages of ``helm upgrade --install``, ``uninstall`` and ``rollback``. Times are the record's own
(``time.ANSIC`` in the offset it was written with), as helm prints the release it just wrote.
"""
import datetime


def ansic(text):
    """Go's ``time.ANSIC`` (``Mon Jan _2 15:04:05 2006``) of an RFC3339 time; '' when absent or unreadable."""
    try:
        moment = datetime.datetime.fromisoformat((text or "").replace("Z", "+00:00"))
    except ValueError:
        return ""
    return moment.strftime("%a %b ") + ("%2d" % moment.day) + moment.strftime(" %H:%M:%S %Y")


def status_text(rel):
    """``helm status`` table output (no resources, no debug sections) of a release record."""
    info = rel.get("info") or {}
    lines = ["NAME: %s" % rel.get("name")]
    deployed = ansic(info.get("last_deployed"))
    if deployed and not (info.get("last_deployed") or "").startswith("0001-01-01"):
        lines.append("LAST DEPLOYED: %s" % deployed)
    lines += ["NAMESPACE: %s" % rel.get("namespace"), "STATUS: %s" % info.get("status"),
              "REVISION: %d" % rel.get("version"), "DESCRIPTION: %s" % info.get("description", "")]
    tests = [h for h in rel.get("hooks") or [] for e in h.get("events") or [] if e == "test"]
    if not tests:
        lines.append("TEST SUITE: None")
    for hook in tests:
        run = hook.get("last_run") or {}
        if not run.get("started_at"):
            continue
        lines += ["TEST SUITE:     %s" % hook.get("name"), "Last Started:   " + ansic(run.get("started_at")),
                  "Last Completed: " + ansic(run.get("completed_at")), "Phase:          " + (run.get("phase") or "")]
    out = "\n".join(lines) + "\n"
    if info.get("notes"):
        out += "NOTES:\n%s\n" % info["notes"].strip()
    return out


def operation_stdout(operation, rel, name, info=""):
    """What ``helm upgrade --install`` / ``helm uninstall`` / ``helm rollback`` prints after ``operation``;
    ``info``: uninstall's report of the objects it kept or skipped, printed first as helm does."""
    if operation == "install":
        return 'Release "%s" does not exist. Installing it now.\n' % name + status_text(rel)
    if operation == "upgrade":
        return 'Release "%s" has been upgraded. Happy Helming!\n' % name + status_text(rel)
    if operation == "uninstall":
        return (info + "\n" if info else "") + 'release "%s" uninstalled\n' % name
    if operation == "rollback":
        return "Rollback was a success! Happy Helming!\n"
    return ""
