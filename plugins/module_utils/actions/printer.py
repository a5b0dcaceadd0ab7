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


def _needs_quoting(text):
    """Go slog's needsQuoting: empty, or a space, ``=``, ``"``, a control or non-printable character."""
    for ch in text:
        if ch < "\x80":
            if ch != "\\" and (ch in ' ="' or not " " <= ch <= "~"):
                return True
        elif ch.isspace() or not ch.isprintable():
            return True
    return not text


def _slog_value(text):
    """A value as Go's slog text handler writes it: bare when it needs no quoting, else Go-quoted."""
    from ..govalue.strconv import go_quote  # lazy: only a task whose hooks printed logs needs it
    return go_quote(text) if _needs_quoting(text) else text


def hook_log_stderr(entries):
    """The hooks' logs as helm v4 writes them to stderr: its hook output writer is the standard logger,
    which Helm 4 routes to slog, so a container's log (read in one piece, its last line break dropped)
    becomes one ``level=INFO msg=<log>`` record, an empty log none; a read that failed is Helm's ``error
    outputting logs for hook failure: ...``."""
    out = []
    for entry in entries:
        if "error" in entry:
            out.append("error outputting logs for hook failure: %s" % entry["error"])
        elif entry["log"]:
            out.append(entry["log"][:-1] if entry["log"].endswith("\n") else entry["log"])
    return "".join("level=INFO msg=%s\n" % _slog_value(text) for text in out)


def hook_log_text(entries):
    """The hooks' logs for a failure message, each under a line naming its hook, pod and container."""
    out = []
    for entry in entries:
        if "error" in entry:
            out.append("logs of hook %s: %s" % (entry["hook"], entry["error"]))
        else:
            out.append("logs of hook %s (pod %s, container %s):\n%s" % (
                entry["hook"], entry["pod"], entry["container"], entry["log"].rstrip("\n")))
    return "".join("\n" + text for text in out)
