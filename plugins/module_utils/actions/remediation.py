"""Retries, remediation and tests after deploy for install and upgrade, with Flux's HelmRelease semantics.

A task with ``retries``, ``remediation`` or ``test`` runs the install or upgrade as attempts: each attempt
that gets as far as writing is a revision recorded as Helm records it (``failed`` with Helm's description,
or ``deployed``), so ``helm history`` tells the story; a failure before anything is written (bad input, a
refused plan) is no attempt and fails the task as it is. After a successful attempt ``test`` runs the
release's tests (``test_filter``); a failed test fails the revision (its description says so) unless
``ignore_test_failures``. A failed attempt is followed by another while ``retries`` last (``retry_delay``
apart; a later attempt renders and writes a new revision even when the content is the same, as ``helm
upgrade`` does), then ``remediation`` acts on the last failure: ``rollback`` returns an upgrade to the last
revision that was deployed (an install has none: it is uninstalled), ``uninstall`` uninstalls (the history
kept, so it still tells the story), ``none`` leaves the failed revision. ``atomic`` / ``rollback_on_failure``
stay Helm's: without the other controls they run exactly as Helm's, with them they mean ``remediation:
rollback`` (a failed install then uninstalled with its history deleted, as Helm's). Check mode reports what
would apply.
"""
import copy
import time

from ..release.model import DEPLOYED, FAILED, SUPERSEDED, set_status, status
from .base import OperationError, Options
from .hooks import hooks_for
from .rollback import rollback
from .testing import TestFailed, parse_filters, run_tests, select, test_result
from .uninstall import uninstall
from .upgrade import install_or_upgrade

STRATEGIES = ("rollback", "uninstall", "none")


def strategy(opts):
    """The remediation after the last failure: the option, else ``rollback`` with ``atomic``, else ``none``;
    OperationError (before anything is read or written) for a pair that contradicts itself."""
    wanted = opts.remediation
    if wanted is not None and wanted not in STRATEGIES:
        raise OperationError("remediation must be one of %s, got %s" % (", ".join(STRATEGIES), wanted))
    if opts.atomic and wanted not in (None, "rollback"):
        raise OperationError("atomic (rollback_on_failure) means remediation: rollback; it cannot be combined "
                             "with remediation: %s" % wanted)
    if not isinstance(opts.retries, int) or opts.retries < 0:
        raise OperationError("retries must be 0 or more, got %s" % opts.retries)
    return wanted or ("rollback" if opts.atomic else "none")


def controlled(opts):
    """Whether the task uses the controls (else an install or upgrade runs exactly as Helm's)."""
    return bool(opts.retries or opts.remediation or opts.test)


def present(engine, inp, opts, again=None):
    """Install or upgrade ``engine.name`` to ``inp`` with retries, tests and remediation; ``again()`` renders
    the ReleaseInput of a later attempt (as a new revision), else ``inp`` is planned again."""
    remedy = strategy(opts)
    if opts.test:
        _check_filter(engine, inp, opts.test_filter)
    if not controlled(opts):
        return install_or_upgrade(engine, inp, opts)
    attempts, attempt_opts = [], _attempt_options(opts)
    outcome = None
    while True:
        try:
            failure, outcome = _attempt(engine, inp, attempt_opts, attempts, opts)
        except OperationError as exc:
            if outcome is None:
                raise
            failure = str(exc)  # a later attempt that could not even start: the last failure to remediate
            break
        if outcome.check_mode or failure is None:
            return _reported(outcome, attempts, opts, remedy, engine)
        if len(attempts) > opts.retries:
            break
        opts.progress("retry", "attempt %d of %d failed: %s; retrying" % (len(attempts), opts.retries + 1, failure))
        if opts.retry_delay:
            time.sleep(opts.retry_delay)
        attempt_opts.force_reconcile = True  # a later attempt is a new revision, also with the same content
        inp = again() if again is not None else inp
    raise _remediate(engine, outcome, failure, attempts, opts, remedy)


def _check_filter(engine, inp, filters):
    """Refuse, before anything is written, a test filter that is malformed or names no test of the chart."""
    include, exclude = parse_filters(filters)
    available = [h["name"] for h in hooks_for({"hooks": inp.hooks}, "test")]
    unknown = [n for n in include + exclude if n not in available]
    if unknown:
        raise OperationError('test_filter: no test of release "%s" is named %s (its tests: %s)' % (
            engine.name, ", ".join(unknown), ", ".join(available) or "none"))


def _attempt_options(opts):
    """The options of one attempt: ``atomic`` left to the remediation after the last one (its wait kept)."""
    out = copy.copy(opts)
    out.wait, out.atomic = opts.wait_mode(), False
    return out


def _attempt(engine, inp, opts, attempts, task_opts):
    """One install or upgrade, then its tests: (None or the failure's message, outcome). A failure before a
    revision was written is raised as it is (it is no attempt)."""
    try:
        outcome = install_or_upgrade(engine, inp, opts)
    except OperationError as exc:
        rel = exc.outcome.release if exc.outcome is not None else None
        if rel is None or exc.outcome.check_mode or status(rel) != FAILED:
            raise
        attempts.append(_entry(len(attempts) + 1, exc.outcome, rel, str(exc)))
        return str(exc), exc.outcome
    if outcome.check_mode or not outcome.changed:
        return None, outcome
    entry = _entry(len(attempts) + 1, outcome, outcome.release)
    attempts.append(entry)
    if not task_opts.test:
        return None, outcome
    try:
        rel, tests = run_tests(engine, task_opts.test_filter, task_opts.timeout, progress=task_opts.progress)
    except TestFailed as exc:
        entry["tests"] = exc.tests
        message = "test failed: %s" % exc
        if task_opts.ignore_test_failures:
            outcome.warnings.append("%s (ignored: ignore_test_failures)" % message)
            return None, outcome
        rel = engine.storage.history(engine.name, refresh=True)[-1]
        what = 'Release "%s" failed' % engine.name if outcome.operation == "install" else \
            'Upgrade "%s" failed' % engine.name
        set_status(rel, FAILED, "%s: %s" % (what, message))
        engine.storage.update(rel)
        outcome.release = rel
        entry["status"], entry["error"] = FAILED, message
        task_opts.progress("result", "revision %d failed: %s" % (rel["version"], message))
        return message, outcome
    entry["tests"] = tests
    outcome.release = rel
    return None, outcome


def _entry(number, outcome, rel, error=None):
    out = {"attempt": number, "operation": outcome.operation, "revision": rel["version"], "status": status(rel)}
    if error:
        out["error"] = error
    return out


def _reported(outcome, attempts, opts, remedy, engine):
    """The outcome with what the controls did (``attempts``) or, in check mode, would do."""
    if outcome.check_mode:
        outcome.extra["remediation"] = _would(engine, outcome, opts, remedy)
        if opts.test and outcome.changed:
            include, exclude = parse_filters(opts.test_filter)
            tests = hooks_for({"hooks": select(_hooks(outcome), include, exclude)[1]}, "test")
            outcome.extra["tests"] = [dict(test_result(h), ran=False) for h in tests]
    else:
        outcome.extra["attempts"] = attempts
        if attempts and "tests" in attempts[-1]:
            outcome.extra["tests"] = attempts[-1]["tests"]
    return outcome


def _hooks(outcome):
    return (outcome.release or {}).get("hooks") or []


def _would(engine, outcome, opts, remedy):
    """What a failure of this run would lead to: the attempts, then the remediation and its target."""
    out = {"retries": opts.retries, "strategy": remedy, "test": bool(opts.test)}
    if remedy == "none":
        out["action"] = "none"
    elif outcome.operation == "install" or remedy == "uninstall":
        out["action"] = "uninstall"
    else:
        good = _good(engine.history())
        out["action"] = "rollback"
        out["target_revision"] = good[-1]["version"] if good else None
    if outcome.changed:
        opts.progress("remediation", "on failure: %d retr%s, then %s" % (
            opts.retries, "y" if opts.retries == 1 else "ies", _described(out)))
    return out


def _described(would):
    if would.get("action") == "rollback":
        return "roll back to revision %s" % would["target_revision"]
    return "leave the failed revision" if would["action"] == "none" else would["action"]


def _good(history):
    return [r for r in history if status(r) in (DEPLOYED, SUPERSEDED)]


def _remediate(engine, outcome, failure, attempts, opts, remedy):
    """Act on the last failure; the OperationError that fails the task, with what was done in its outcome."""
    count = "%d attempt%s" % (len(attempts), "" if len(attempts) == 1 else "s")
    outcome.extra["attempts"] = attempts
    installed = attempts[0]["operation"] == "install"
    if remedy == "none":
        return OperationError("release %s failed after %s: %s" % (engine.name, count, failure), outcome)
    nested = Options(strategy=opts.strategy, server_side=opts.server_side, timeout=opts.timeout,
                     wait=opts.wait_mode(), wait_for_jobs=opts.wait_for_jobs, disable_hook=opts.disable_hook,
                     force=opts.force, force_conflicts=opts.force_conflicts, progress=opts.progress,
                     ignore=opts.ignore, health_checks=opts.health_checks,
                     purge=bool(opts.atomic and opts.remediation is None))  # atomic purges, as Helm's
    good = _good(engine.storage.history(engine.name, refresh=True))
    try:
        if remedy == "uninstall" or installed or not good:
            if remedy == "rollback" and not installed:
                raise OperationError("unable to find a previously successful release when attempting to rollback")
            opts.progress("remediation", "uninstalling after %s" % count)
            done = uninstall(engine, nested)
            outcome.extra["remediation"] = {"strategy": remedy, "action": "uninstall"}
            what = "has been uninstalled" + ("" if nested.purge else " (its history kept)")
        else:
            target = good[-1]["version"]
            opts.progress("remediation", "rolling back to revision %d after %s" % (target, count))
            done = rollback(engine, target, nested)
            outcome.extra["remediation"] = {"strategy": remedy, "action": "rollback", "target_revision": target,
                                            "revision": done.release["version"]}
            what = "has been rolled back to revision %d" % target
    except OperationError as exc:
        outcome.extra["remediation"] = {"strategy": remedy, "error": str(exc)}
        return OperationError("release %s failed after %s, and its remediation (%s) failed: %s; last failure: %s"
                              % (engine.name, count, remedy, exc, failure), outcome)
    outcome.release = done.release
    return OperationError("release %s failed after %s, and %s (remediation: %s): %s"
                          % (engine.name, count, what, remedy, failure), outcome)
