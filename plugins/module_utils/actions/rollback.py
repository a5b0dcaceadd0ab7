"""Rollback, as Helm's action.Rollback: plan from a stored revision's manifest, store it as a new revision."""
import copy

from ..kube.errors import KubeError
from ..plan.manifest import ManifestError, parse_manifest
from ..plan.planner import PlanError
from ..release.model import (DEPLOYED, FAILED, PENDING_ROLLBACK, SUPERSEDED, first_deployed, notes, now, release_record,
                             set_status, status)
from ..release.storage import StorageError
from .base import Moved, OperationError, apply_method, custom_labels, refuse_option_pairs
from .executor import ExecuteError, apply_changes, wait_for
from .hooks import HookError, HookRunner, hooks_for
from .progress import plan_summary
from .sameness import same_content
from .report import Outcome


MAX_DESCRIPTION = 256  # Helm 4.3's rollback --description limit, in characters


def rollback(engine, revision, opts):
    """Roll release ``engine.name`` back to ``revision`` (0: the one before the last)."""
    history = engine.history()
    if not history:
        raise OperationError('release: not found')
    last = history[-1]
    try:
        recover = engine.pending(last)
    except Moved:
        return engine.replan(lambda: rollback(engine, revision, opts), last)
    outcome = Outcome("rollback", opts.check_mode)
    if len(opts.description or "") > MAX_DESCRIPTION:
        raise OperationError("description must be %d characters or less, got %d"
                             % (MAX_DESCRIPTION, len(opts.description)))
    target_version = revision or last["version"] - 1
    if target_version < 1:
        raise OperationError("release has no %d version" % target_version)
    target = engine.storage.get(engine.name, target_version)
    if target is None:
        raise OperationError("release has no %d version" % target_version)
    plan, changed, method = _plan(engine, last, target, opts, outcome, recover)
    outcome.changed = changed
    if not changed:
        opts.progress("result", "no change: revision %d already matches revision %d" % (last["version"],
                                                                                        target_version))
        outcome.release = last
        return outcome
    if opts.check_mode:
        outcome.release = _record(engine, last, target, method, opts.description)
        set_status(outcome.release, DEPLOYED)
        opts.progress("result", "check mode: revision %d would roll back to %d; nothing was written"
                      % (last["version"] + 1, target_version))
        return outcome
    return engine.locked(opts, last, lambda: _execute(engine, last, target, plan, opts, outcome, method),
                         lambda: rollback(engine, revision, opts), recover)


def rollback_locked(engine, target_version, opts, outcome):
    """Roll back to ``target_version`` with the lease already held (a failed upgrade's rollback-on-failure)."""
    history = engine.storage.history(engine.name, refresh=True)
    last, target = history[-1], engine.storage.get(engine.name, target_version)
    plan, _changed, method = _plan(engine, last, target, opts, outcome)
    return _execute(engine, last, target, plan, opts, outcome, method)


def _plan(engine, last, target, opts, outcome, recover=False):
    try:
        previous = parse_manifest(last.get("manifest") or "")
        wanted = parse_manifest(target.get("manifest") or "")
    except ManifestError as exc:
        raise OperationError(str(exc)) from exc
    method = apply_method(opts, target.get("apply_method"))
    try:
        # chart-delta keeps a missing object missing (a hand deletion) only after a deployed revision: one of
        # a failed or interrupted revision may never have been created
        plan = engine.planner(opts, method, "rollback").plan(previous, wanted,
                                                             missing_is_drift=status(last) == DEPLOYED and not recover)
    except (PlanError, KubeError) as exc:
        if getattr(exc, "plan", None) is not None:  # Helm's update refuses the pair before it writes an object
            refuse_option_pairs(opts, method, False, outcome=outcome)
        raise OperationError(str(exc), outcome) from exc
    refuse_option_pairs(opts, method, False, outcome=outcome)
    outcome.plan(plan, hooks=[] if opts.disable_hook else
                 [h["name"] for e in ("pre-rollback", "post-rollback") for h in hooks_for(target, e)])
    summary = plan_summary(plan.changes)
    opts.progress("plan", "rollback to %d: %s (%s, %s)" % (target["version"], summary, opts.strategy, method))
    same = (status(last) == DEPLOYED and same_content(last, target)
            and last.get("apply_method", "csa") == method and custom_labels(last) == custom_labels(target))
    return plan, recover or plan.changed or not same, method


def _record(engine, last, target, method, description=None):
    stamp = now()
    rel = release_record(engine.name, engine.namespace, last["version"] + 1, target.get("chart"),
                         target.get("config"), target.get("manifest", ""),
                         copy.deepcopy(target.get("hooks") or []), PENDING_ROLLBACK,  # their last runs too, as Helm
                         description or "Rollback to %d" % target["version"], first_deployed(last, stamp), stamp,
                         notes(target), method, rollback_revision=target["version"])
    rel["_labels"] = custom_labels(target)
    return rel


def _failed(engine, rel, description, opts):
    set_status(rel, FAILED, description)
    engine.storage.update(rel)
    opts.progress("result", "revision %d failed: %s" % (rel["version"], description))


def _execute(engine, last, target, plan, opts, outcome, method):
    rel = _record(engine, last, target, method, opts.description)
    try:
        engine.storage.create(rel, opts.history_max)
    except StorageError as exc:
        raise OperationError(str(exc), outcome) from exc
    outcome.release = rel
    opts.progress("record", "revision %d pending-rollback" % rel["version"])
    runner = HookRunner(engine.client, engine.namespace, engine.storage.update, opts.timeout, opts.progress,
                        server_side=method == "ssa", logs=opts.hook_logs)
    try:
        if not opts.disable_hook:
            runner.run(rel, "pre-rollback")
        apply_changes(engine.client, plan.changes, opts.force_conflicts, progress=opts.progress)
    except (HookError, ExecuteError, KubeError) as exc:
        # Helm leaves a revision whose pre-rollback hook failed pending-rollback; we mark it failed
        # (docs/helm-differences.md). An apply that fails supersedes the last revision, as Helm's.
        if not isinstance(exc, HookError):
            set_status(last, SUPERSEDED)
            engine.storage.update(last)
        _failed(engine, rel, 'Rollback "%s" failed: %s' % (engine.name, exc), opts)
        message = str(exc) if isinstance(exc, HookError) else engine.cleanup_created(plan.changes, opts, str(exc),
                                                                                     "rollback")
        raise OperationError(message, outcome) from exc
    try:
        if opts.wait_mode() != "hookOnly":
            wait_for(engine.client, plan.changes, opts.timeout, opts.progress, opts.wait_mode(), opts.wait_for_jobs,
                     opts.health_checks)
    except (ExecuteError, KubeError) as exc:
        _failed(engine, rel, 'Release "%s" failed: %s' % (engine.name, exc), opts)
        raise OperationError("release %s failed: %s" % (engine.name, exc), outcome) from exc
    try:
        if not opts.disable_hook:
            runner.run(rel, "post-rollback")
    except HookError as exc:
        _failed(engine, rel, 'Rollback "%s" failed: %s' % (engine.name, exc), opts)
        raise OperationError(str(exc), outcome) from exc
    for old in engine.storage.history(engine.name, refresh=True):
        if old["version"] != rel["version"] and status(old) == DEPLOYED:
            set_status(old, SUPERSEDED)
            engine.storage.update(old)
    set_status(rel, DEPLOYED)  # its description stays: "Rollback to N" or the task's
    engine.storage.update(rel)
    opts.progress("result", "revision %d deployed (rollback to %d)" % (rel["version"], target["version"]))
    return outcome
