"""Module body of helmless.core.releases: many releases in one task, as a graph, several at a time.

Every Ansible task is a new process per host, and a loop is one process per item: a fleet of releases
paid Ansible's start-up, the module's imports and a cold render for every release. Run in one task,
each release is still exactly what the release module does (the same runner, with its own redaction,
result and failure), later releases of a chart render from templates already parsed, and releases that
do not need each other run at the same time (ansible/workers.py), so their waits overlap.

The order of work is helmfile's: uninstalls first (the fleet's releases no longer listed, then the
``state: absent`` items, dependants first), then installs and upgrades, each as soon as what it needs
succeeded. What the task reports does not depend on that order: results, diffs and warnings come in the
order of the list.
"""
import os
import time

from . import workers
from .fleet import check_cluster, releases_of
from .runner import ModuleFailure, run_release
from .secrets import credentials, redacted
from ..errors import HelmlessError


def item_credentials(params):
    """The secrets of every release of the task (its items' own repository passwords and URLs)."""
    connection = _connection(params)
    found = credentials(connection)
    for item in params.get("releases") or ():
        found |= credentials(dict(connection, **item))
    return found


_TASK_OPTIONS = ("releases", "concurrency", "select", "fleet", "prune")


def _connection(params):
    return {k: v for k, v in params.items() if k not in _TASK_OPTIONS}


def _item(connection, params):
    """A release's options: the task's, with the item's over them (an identity option the item leaves unset
    keeps the task's)."""
    return dict(connection, **{k: v for k, v in params.items() if v is not None or k not in connection})


def _titled(shown, key):
    """One release's diff, each part naming the release: objects of one name in two namespaces, or the
    summaries of two releases, would otherwise read as one."""
    if not shown:
        return []
    if isinstance(shown, dict):  # the yaml diff: one prepared text
        return [{"prepared": "Release %s:\n%s" % (key, shown["prepared"])}]
    return [dict(part, **{side: "%s: %s" % (key, part[side]) if part.get(side) else key
                          for side in ("before_header", "after_header")}) for part in shown]


def cores():
    """CPU cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


# Releases in flight one process carries before its core is busy: at 8 in flight, releases that wait and
# releases of a 50-object chart that do not (their no-op re-run the busiest) kept at most half a core busy
# (benchmarks/fleet.py --models). Wider, render and plan need more cores than the GIL gives one process.
THREADS_PER_PROCESS = 16


def processes_for(concurrency, jobs, available=None):
    """How many processes share ``concurrency`` threads: one per THREADS_PER_PROCESS releases in flight, on
    at most half the cores (Ansible's other forks and the controller need the rest). A process more costs
    a fork and renders its charts again before its caches are warm: measured slower until one process's
    core is busy."""
    available = cores() if available is None else available
    in_flight = min(concurrency, jobs)
    return max(1, min(available // 2, -(-in_flight // THREADS_PER_PROCESS)))


def run_releases(params, check_mode=False, diff=False, processes=None):
    """Every release of the task, in dependency order, ``concurrency`` at a time; see the module's docs.

    ``processes`` overrides processes_for (benchmarks/fleet.py compares the models with it). Returns the
    result of each release under ``results`` (as the release module returns it, plus ``release``:
    namespace/name, and ``pruned`` for a release uninstalled by ``prune``), their diffs in the same order
    under ``diff``, one ``progress`` line per release start and end; fails the task when any release failed
    or was skipped."""
    concurrency = params.get("concurrency") or 4
    if concurrency < 1:
        raise ModuleFailure("concurrency: must be 1 or more, got %d" % concurrency)
    connection = _connection(params)
    releases = releases_of(params)  # refuses a bad list before anything is read or written
    chosen = [rel for rel in releases if rel.selected]
    by_key = {rel.key: rel for rel in releases}
    found, warnings = _check_cluster(dict(params, releases=None), releases)
    undeployed, pruned = set(found["undeployed"]), found["pruned"]
    jobs = len(pruned) + len(chosen)
    clock = _Clock()
    pool = None
    if jobs > 1 and concurrency > 1:
        pool = workers.pool(_one, concurrency, processes_for(concurrency, jobs) if processes is None else processes)
        clock.line("%d releases, %d at a time, in %d process%s" % (jobs, concurrency, pool.processes,
                                                                   "" if pool.processes == 1 else "es"))
    run = _Runner(pool, concurrency, check_mode, diff, clock)
    try:
        for key in pruned:
            namespace, name = key.split("/", 1)
            run.add(key, dict(connection, release_name=name, release_namespace=namespace, release_state="absent"))
        absent = [rel for rel in chosen if rel.absent]
        for rel in absent:  # dependants first: a release is uninstalled after those that need it
            run.add(rel.key, _item(connection, rel.params),
                    after=[("%s needs it and was not uninstalled" % other.key, other.key) for other in absent
                           if rel.key in [key for _w, key in other.needs]])
        run.phase()
        for rel in chosen:
            if rel.absent:
                continue
            missing = [written for written, key in rel.needs if key in undeployed]
            run.add(rel.key, _item(connection, rel.params),
                    after=[("it needs %s, which did not succeed" % written, key) for written, key in rel.needs
                           if by_key[key].selected],
                    skip=missing and "it needs %s, which was not selected and has no deployed revision"
                    % ", ".join(missing))
        run.phase()
    finally:
        if pool is not None:
            pool.close()
    order = pruned + [rel.key for rel in chosen]
    return _report(order, run.done, set(pruned), diff, clock, warnings)


@redacted
def _check_cluster(params, releases):
    """fleet.check_cluster as a runner: what it fails with is masked as a release's failure would be."""
    undeployed, pruned = check_cluster(params, releases)
    return {"undeployed": sorted(undeployed), "pruned": pruned}, []


class _Clock:
    """``progress``: lines stamped with the seconds since the task started."""

    def __init__(self):
        self.start = time.monotonic()
        self.lines = []

    def line(self, text):
        self.lines.append("%.2fs %s" % (time.monotonic() - self.start, text))


class _Runner:
    """Runs the releases added since the last ``phase()`` as soon as the releases each comes ``after``
    succeeded (the others are skipped), at most ``concurrency`` at a time, on ``pool`` (in this thread,
    one after another, without one)."""

    def __init__(self, pool, concurrency, check_mode, diff, clock):
        self.pool, self.concurrency, self.clock = pool, concurrency, clock
        self.check_mode, self.diff = check_mode, diff
        self.done = {}  # key -> (result, warnings)
        self._jobs = []

    def add(self, key, params, after=(), skip=None):
        """``after``: [(why the release is skipped when that one does not succeed, key)]; ``skip``: why it
        is skipped from the start."""
        self._jobs.append((key, params, list(after), skip))

    def phase(self):
        jobs, self._jobs = self._jobs, []
        rank = {key: i for i, (key, _p, _a, _s) in enumerate(jobs)}
        params = {key: p for key, p, _a, _s in jobs}
        waiting = {key: {k for _w, k in after} for key, _p, after, _s in jobs}
        dependants = {}
        for key, _p, after, _s in jobs:
            for why, need in after:
                dependants.setdefault(need, []).append((key, why))
        ready, started, running = [], {}, 0

        def settle(key, outcome):
            self.done[key] = outcome
            failed = outcome[0].get("failed") or outcome[0].get("skipped")
            for dependant, why in dependants.get(key, ()):
                if dependant in self.done:
                    continue
                if failed:
                    skip(dependant, why)
                else:
                    waiting[dependant].discard(key)
                    if not waiting[dependant]:
                        ready.append(dependant)

        def skip(key, why):
            self.clock.line("skip %s: %s" % (key, why))
            settle(key, ({"changed": False, "skipped": True, "msg": "skipped: " + why}, []))

        for key, _p, _a, why in jobs:
            if key in self.done:
                continue
            if why:
                skip(key, why)
            elif not waiting[key]:
                ready.append(key)
        while True:
            while ready and running < self.concurrency:
                ready.sort(key=rank.get)
                key = ready.pop(0)
                if self.pool is None:
                    self._started(key, started)
                    self._ended(key, _one((params[key], self.check_mode, self.diff)), started, settle)
                    continue
                self.pool.submit(key, (params[key], self.check_mode, self.diff))
                running += 1
            if not running:
                break
            event = self.pool.next_event()
            if event[0] == "start":
                self._started(event[1], started)
            else:
                running -= 1
                self._ended(event[1], event[2], started, settle)

    def _started(self, key, started):
        started[key] = time.monotonic()
        self.clock.line("start %s" % key)

    def _ended(self, key, value, started, settle):
        if "lost" in value:
            value = {"result": {"changed": False, "failed": True, "msg": value["lost"]}, "warnings": []}
        result = value["result"]
        took = time.monotonic() - started.get(key, time.monotonic())
        state = "failed" if result.get("failed") else "changed" if result.get("changed") else "ok"
        self.clock.line("%s %s in %.2fs" % (state, key, took))
        settle(key, (result, value["warnings"]))


def _one(job):
    """One release as the release module runs it; what it returns or fails with as plain data (it may
    cross a process boundary), never an exception: one release's bug must not lose the others' results."""
    params, check_mode, diff = job
    try:
        result, warnings = run_release(params, check_mode, diff)
        return {"result": result, "warnings": warnings}
    except ModuleFailure as exc:
        return {"result": dict(exc.result, failed=True, msg=str(exc)), "warnings": exc.warnings}
    except HelmlessError as exc:
        return {"result": {"changed": False, "failed": True, "msg": str(exc)}, "warnings": []}
    except Exception as exc:  # noqa: BLE001 - reported as that release's failure, with the traceback
        import traceback
        return {"result": {"changed": False, "failed": True, "msg": "%s: %s" % (type(exc).__name__, exc),
                           "exception": traceback.format_exc()}, "warnings": []}


def _report(order, done, pruned, diff, clock, warnings):
    results, diffs = [], []
    for key in order:
        result, more = done[key]
        result = dict(result)
        warnings.extend("%s: %s" % (key, w) for w in more)
        diffs.extend(_titled(result.pop("diff", None), key))
        result["release"] = key
        if key in pruned:
            result["pruned"] = True
        results.append(result)
    outcome = {"changed": any(r.get("changed") for r in results), "results": results, "progress": clock.lines}
    if diff:
        outcome["diff"] = diffs
    problems = [r for r in results if r.get("failed") or r.get("skipped")]
    if problems:
        raise ModuleFailure("%d of %d releases did not succeed: %s" % (
            len(problems), len(results), "; ".join("%s: %s" % (r["release"], r["msg"]) for r in problems)),
            outcome, warnings)
    return outcome, warnings
