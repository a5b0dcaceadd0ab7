"""Timestamped phase lines of one operation (render, plan, record, hooks, apply, wait, result).

A module cannot stream to the controller, so the lines travel in the task result as ``progress``:
``ansible-playbook -v`` prints them, a failed task carries those recorded up to the failure, and AWX keeps
them in the job event.
"""
import time


class Progress:
    """Collects ``progress(phase, message)`` calls as lines stamped with the seconds since the start, and
    (``hook_logs``) the hooks' logs the operation printed as Helm 4 would (actions.hooks.HookRunner)."""

    def __init__(self):
        self._start = time.monotonic()
        self.lines = []
        self.hook_logs = []

    def __call__(self, phase, message):
        self.lines.append("%.2fs %s: %s" % (time.monotonic() - self._start, phase, message))


def quiet(phase, message):
    """The progress sink for callers that do not report (tests, benchmarks, nested operations)."""


def plan_summary(changes, crds=(), namespace_create=None):
    """``2 create, 1 patch, 4 unchanged`` for a plan's changes (in a fixed order)."""
    counts = {}
    for change in list(crds) + list(changes):
        counts[change.action] = counts.get(change.action, 0) + 1
    order = ("create", "apply", "patch", "replace", "delete", "unchanged", "drift", "keep", "skip")
    parts = ["%d %s" % (counts[a], a) for a in order if counts.get(a)]
    if namespace_create is not None:
        parts.insert(0, "create namespace %s" % namespace_create["metadata"]["name"])
    return ", ".join(parts) or "no objects"


def label(ref):
    """``Deployment/ns/name`` for an (apiVersion, kind, name, namespace) reference."""
    return "/".join(x for x in (ref[1], ref[3], ref[2]) if x)
