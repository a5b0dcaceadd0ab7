"""Timestamped phase lines of one operation (render, plan, record, hooks, apply, wait, result).

A module cannot stream to the controller, so the lines travel in the task result as ``progress``:
``ansible-playbook -v`` prints them, a failed task carries those recorded up to the failure, and AWX keeps
them in the job event. ``sink`` also receives each line as it happens (e.g. a log).
"""
import time

WAIT_REPORT_EVERY = 5.0  # seconds between "still not ready" lines while waiting


class Progress:
    def __init__(self, sink=None, clock=time.monotonic):
        self._clock = clock
        self._start = clock()
        self._sink = sink
        self.lines = []

    def elapsed(self):
        return self._clock() - self._start

    def __call__(self, phase, message):
        line = "%.2fs %s: %s" % (self.elapsed(), phase, message)
        self.lines.append(line)
        if self._sink is not None:
            self._sink(line)


def quiet(phase, message):
    """The progress sink for callers that do not report (tests, benchmarks, nested operations)."""


def plan_summary(changes, crds=(), namespace_create=None):
    """``2 create, 1 patch, 4 unchanged`` for a plan's changes (in a fixed order)."""
    counts = {}
    for change in list(crds) + list(changes):
        counts[change.action] = counts.get(change.action, 0) + 1
    order = ("create", "apply", "patch", "replace", "delete", "unchanged", "drift", "keep")
    parts = ["%d %s" % (counts[a], a) for a in order if counts.get(a)]
    if namespace_create is not None:
        parts.insert(0, "create namespace %s" % namespace_create["metadata"]["name"])
    return ", ".join(parts) or "no objects"


def label(ref):
    """``Deployment/ns/name`` for an (apiVersion, kind, name, namespace) reference."""
    return "/".join(x for x in (ref[1], ref[3], ref[2]) if x)
