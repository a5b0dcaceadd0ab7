"""Uninstall, as Helm's action.Uninstall: delete hooks, objects and (with ``purge``) the history."""
import copy

from ..kube.errors import KubeError
from ..plan.manifest import ManifestError, parse_manifest
from ..plan.planner import uninstall_info, uninstall_plan
from ..release.model import DEPLOYED, SUPERSEDED, UNINSTALLED, UNINSTALLING, now, set_deleted, set_status, status
from .base import Moved, OperationError
from .executor import ExecuteError, apply_changes, wait_gone
from .hooks import HookError, HookRunner, hooks_for
from .progress import plan_summary
from .report import Outcome


def uninstall(engine, opts):
    """Uninstall release ``engine.name``: plan the deletions; unless check mode, run them under the lease."""
    history = engine.history()
    outcome = Outcome("uninstall", opts.check_mode)
    if not history:
        outcome.changed = False
        return outcome
    last = history[-1]
    if status(last) == UNINSTALLED:
        outcome.changed = opts.purge
        outcome.release = last
        if opts.purge and not opts.check_mode:
            for rel in history:
                engine.storage.delete(engine.name, rel["version"])
        return outcome
    try:
        engine.pending(last)
    except Moved:
        return engine.replan(lambda: uninstall(engine, opts), last)
    try:
        previous = parse_manifest(last.get("manifest") or "")
    except ManifestError as exc:
        raise OperationError(str(exc)) from exc
    plan = uninstall_plan(engine.client, engine.name, engine.namespace, previous)
    outcome.plan(plan, hooks=[] if opts.disable_hook else
                 [h["name"] for e in ("pre-delete", "post-delete") for h in hooks_for(last, e)])
    outcome.changed = True
    outcome.release = last
    outcome.info = uninstall_info(plan)
    outcome.warnings = left_warnings(plan, engine.name, opts.check_mode)
    opts.progress("plan", "uninstall: %s" % plan_summary(plan.changes))
    for warning in outcome.warnings:
        opts.progress("plan", warning)
    if opts.check_mode:  # the release as the run returns it
        outcome.release = copy.deepcopy(last)
        set_deleted(outcome.release, now())
        set_status(outcome.release, UNINSTALLED, "Uninstallation complete")
        opts.progress("result", "check mode: release would be uninstalled; nothing was written")
        return outcome

    def run():
        uninstall_records(engine, opts, last, plan)
        return outcome
    return engine.locked(opts, last, run, lambda: uninstall(engine, opts))


def left_warnings(plan, release, check_mode):
    """Helm 4.3's warning for every object the uninstall leaves because it is not (verifiably) this release's."""
    out = []
    for change in plan.changes:
        if change.action != "skip":
            continue
        res = change.resource
        where = "kind=%s name=%s namespace=%s release=%s" % (res.kind, res.name, change.namespace or "", release)
        if change.reason == "not owned":
            what = "dry-run: would skip resource not owned by this release" if check_mode else \
                "skipping delete of resource not owned by this release"
        else:
            what = ("dry-run: would skip resource (ownership could not be verified)" if check_mode else
                    "skipping delete of resource because ownership could not be verified")
            where += " error=%s" % change.reason
        out.append("%s: %s" % (what, where))
    return out


def uninstall_records(engine, opts, last, plan=None):
    """Uninstall revision ``last`` (the lease held): hooks, deletions, then its record (also after a failed
    install), as Helm's Uninstall.Run orders them and words their errors: a pre-delete hook that fails, or a
    deletion, stops it with the revision ``uninstalling``; waiting and post-delete hooks only count errors."""
    if plan is None:
        plan = uninstall_plan(engine.client, engine.name, engine.namespace, parse_manifest(last.get("manifest") or ""))
    set_deleted(last, now())
    set_status(last, UNINSTALLING, "Deletion in progress (or silently failed)")
    engine.storage.update(last)
    runner = HookRunner(engine.client, engine.namespace, engine.storage.update, opts.timeout, opts.progress,
                        server_side=True, logs=opts.hook_logs)  # Helm 4 creates uninstall hooks by server-side apply
    try:
        if not opts.disable_hook:
            runner.run(last, "pre-delete")
    except HookError as exc:
        raise OperationError(str(exc)) from exc
    try:
        apply_changes(engine.client, plan.changes, progress=opts.progress)
    except (ExecuteError, KubeError) as exc:
        raise OperationError("failed to delete release: %s" % engine.name) from exc
    errors = []
    if opts.wait != "hookOnly":
        try:
            wait_gone(engine.client, plan.changes, opts.timeout, opts.progress)
        except KubeError as exc:
            errors.append(str(exc))
    if not opts.disable_hook:
        try:
            runner.run(last, "post-delete")
        except HookError as exc:
            errors.append(str(exc))
    set_status(last, UNINSTALLED, "Uninstallation complete")
    if opts.purge:
        for rel in engine.storage.history(engine.name, refresh=True):
            engine.storage.delete(engine.name, rel["version"])
        opts.progress("result", "uninstalled; history deleted")
    else:
        engine.storage.update(last)
        for rel in engine.storage.history(engine.name, refresh=True):
            if rel["version"] != last["version"] and status(rel) == DEPLOYED:
                set_status(rel, SUPERSEDED)
                engine.storage.update(rel)
        opts.progress("result", "uninstalled; history kept")
    if errors:
        raise OperationError("uninstallation completed with %d error(s): %s" % (len(errors), "; ".join(errors)))
