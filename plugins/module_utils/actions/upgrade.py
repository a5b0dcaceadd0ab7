"""Install or upgrade (``release_state: present``), as Helm's action.Install and action.Upgrade.

The release is installed when no revision can be upgraded, else upgraded from the deployed revision (or
a failed, superseded or interrupted last one); a ReleaseInput that changes nothing writes nothing.
Statuses, descriptions and revision bookkeeping follow Helm's pkg/action so `helm` reads our records.
"""

from ..kube.errors import ApiError, KubeError
from ..plan.manifest import ManifestError, parse_manifest
from ..plan.planner import Change, Plan, PlanError, assigned_marked
from ..release.model import (DEPLOYED, FAILED, PENDING_INSTALL, PENDING_UPGRADE, SUPERSEDED, UNINSTALLED,
                             first_deployed, now, release_record, set_status, status)
from ..release.codec import prepare as prepare_record
from ..release.storage import SYSTEM_LABELS, Storage, StorageError
from .base import Moved, OperationError, Options, apply_method, custom_labels, refuse_option_pairs
from .executor import ExecuteError, apply_changes, in_parallel, install_crds, wait_for
from .hooks import HookError, HookRunner, hooks_for
from .progress import plan_summary
from .rollback import rollback_locked
from .sameness import differs
from .report import Outcome
from .uninstall import uninstall_records
from ..regexcache import regex

_LABEL = regex(r"^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$")
_PREFIX = regex(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")


UPGRADE_FAILED = "UPGRADE FAILED: "


def no_deployed_releases(name):
    """Helm upgrade's refusal of a history it cannot upgrade nor install over (e.g. left uninstalling)."""
    return '%s"%s" has no deployed releases' % (UPGRADE_FAILED, name)


def install_or_upgrade(engine, inp, opts):
    """Install or upgrade release ``engine.name`` to ReleaseInput ``inp``: plan; unless check mode, execute.

    An upgrade's errors read as ``helm upgrade`` prints them (``UPGRADE FAILED: ...``); ``helm upgrade
    --install`` prints an install's as they are."""
    try:
        return _present(engine, inp, opts)
    except OperationError as exc:
        if exc.outcome is None or exc.outcome.operation != "upgrade" or str(exc).startswith(UPGRADE_FAILED):
            raise
        raise OperationError(UPGRADE_FAILED + str(exc), exc.outcome) from exc


def _present(engine, inp, opts):
    history = engine.history()
    last = history[-1] if history else None
    try:
        recover = engine.pending(last)
    except Moved:
        return engine.replan(lambda: _present(engine, inp, opts), last)
    deployed = Storage.deployed(history)
    current = deployed
    if current is None and last is not None and (status(last) in (FAILED, SUPERSEDED) or recover):
        current = last
    install = current is None
    outcome = Outcome("install" if install else "upgrade", opts.check_mode)
    if install and last is not None and status(last) != UNINSTALLED:
        # helm upgrade --install installs only over no history or an uninstalled one (an uninstall that
        # failed halfway leaves its revision uninstalling, which neither install nor upgrade takes)
        raise OperationError(no_deployed_releases(engine.name), Outcome("upgrade", opts.check_mode))
    # merged over the last revision's labels, as Helm's (a failed rollback's revision has its target's)
    labels = release_labels(None if install else last, opts.labels, outcome, install)  # refused before any write
    version = last["version"] + 1 if last else 1
    try:
        target = parse_manifest(inp.manifest)
        previous = parse_manifest(current["manifest"]) if current and current.get("manifest") else []
    except ManifestError as exc:
        raise OperationError(str(exc), outcome) from exc
    plan = Plan(opts.strategy)
    method = apply_method(opts, None if install else last.get("apply_method"), install)
    if install and not engine.namespace_exists():
        if not opts.create_namespace:
            raise OperationError('create: failed to create: namespaces "%s" not found' % engine.namespace)
        plan.namespace_create = _dry_run_namespace(engine, method)
    crd_changes, pending_kinds = _plan_crds(engine, inp, install, opts, method)
    inputs_differ = install or _differs(current, last, inp)
    # then a new revision is stored whatever the plan says: compress its chart and manifest while the plan waits
    compressing = prepare_record({"chart": inp.chart, "manifest": inp.manifest}) if (
        inputs_differ and not opts.check_mode) else None
    trusted = current is not None and status(current) == DEPLOYED and not recover
    try:
        planned = engine.planner(opts, method, "install" if install else "update", current).plan(
            previous, target, pending_kinds=pending_kinds, missing_is_drift=trusted,
            new_namespaces=[engine.namespace] if plan.namespace_create else ())
    except (PlanError, KubeError) as exc:
        if getattr(exc, "plan", None) is not None:  # Helm's update refuses the pair before it writes an object
            refuse_option_pairs(opts, method, install, any(c.before is not None for c in exc.plan.changes), outcome)
        unknown = install and str(exc).startswith("resource mapping not found")
        raise OperationError("%s%s" % ("unable to build kubernetes objects from release manifest: " if unknown else "",
                                       exc), outcome) from exc
    # Helm's install adopts an object that is there by an update, which refuses force with server-side apply
    refuse_option_pairs(opts, method, install, any(c.before is not None for c in planned.changes), outcome)
    plan.changes, plan.crds = planned.changes, crd_changes
    # also in a real run: a CRD of crds/ the server refuses stops the run before anything is written
    for change, answer in zip(crd_changes, _dry_run_crds(engine, crd_changes)):
        change.after = answer
    changed = (inputs_differ or recover or plan.changed or opts.force_reconcile
               or last.get("apply_method", "csa") != method or custom_labels(current) != labels)
    event = "install" if install else "upgrade"
    outcome.plan(plan, hooks=[] if opts.disable_hook or not changed else
                 [h["name"] for e in ("pre-", "post-") for h in hooks_for({"hooks": inp.hooks}, e + event)])
    outcome.changed = changed
    summary = plan_summary(plan.changes, plan.crds, plan.namespace_create)
    opts.progress("plan", "%s: %s (%s, %s)" % (event, summary, opts.strategy, method))
    if not changed:
        opts.progress("result", "no change: revision %d stays %s" % (current["version"], status(current)))
        outcome.release = current
        return outcome
    record = _new_record(engine, inp, version, current, install, method, labels)
    if compressing is not None:
        compressing.join()
    try:
        engine.storage.check_size(record)
    except StorageError as exc:
        raise OperationError(str(exc), outcome) from exc
    if opts.check_mode:
        outcome.release = record
        set_status(outcome.release, DEPLOYED, "Install complete" if install else "Upgrade complete")
        opts.progress("result", "check mode: revision %d would be deployed; nothing was written" % version)
        return outcome
    if plan.namespace_create or (install and opts.create_namespace and method == "ssa"):
        _create_namespace(engine, method, opts)

    def run():
        if install and last is not None and status(last) != FAILED:
            # Helm's install over an uninstalled history (Replace): the last revision is superseded first
            set_status(last, SUPERSEDED, "superseded by new release")
            engine.storage.update(last)
        return _run(engine, inp, opts, plan, outcome, version, current, install, method, record)
    return engine.locked(opts, last, run, lambda: _present(engine, inp, opts), recover)


def _namespace(engine):
    return {"apiVersion": "v1", "kind": "Namespace",
            "metadata": {"name": engine.namespace, "labels": {"name": engine.namespace}}}


def _dry_run_namespace(engine, method):
    """The release namespace as the server will create it (its labels, finalizers and phase); a creation
    the server refuses fails the plan as it fails the real run."""
    body = _namespace(engine)
    try:
        if method == "ssa":
            answer = engine.client.patch("v1", "Namespace", engine.namespace, None, body, "apply", dry_run=True)
        else:
            answer = engine.client.create(body, dry_run=True)
    except ApiError as exc:
        if exc.already_exists:  # created since we looked: the real run goes on with it
            return body
        raise OperationError("create namespace %s: %s" % (engine.namespace, exc.message)) from exc
    return assigned_marked(answer, body)


def _create_namespace(engine, method, opts):
    """``create_namespace`` as Helm 4's install: created, or applied server-side (also when it exists, which
    then gains the ``name`` label and Helm's field manager)."""
    body = _namespace(engine)
    try:
        if method == "ssa":
            engine.client.patch("v1", "Namespace", engine.namespace, None, body, "apply")
        else:
            engine.client.create(body)
    except ApiError as exc:
        if not exc.already_exists:
            raise OperationError("create namespace %s: %s" % (engine.namespace, exc.message)) from exc
    opts.progress("apply", "%s Namespace/%s" % ("apply" if method == "ssa" else "create", engine.namespace))


def _new_record(engine, inp, version, current, install, method, labels):
    """The new revision as it is first stored: ``pending-install`` or ``pending-upgrade``."""
    stamp = now()
    first = stamp if install or current is None else first_deployed(current, stamp)
    rel = release_record(engine.name, engine.namespace, version, inp.chart, inp.config, inp.manifest,
                         [dict(h, last_run={"phase": ""}) for h in inp.hooks],
                         PENDING_INSTALL if install else PENDING_UPGRADE,
                         "Initial install underway" if install else "Preparing upgrade", first, stamp,
                         inp.notes, method)
    rel["_labels"] = dict(labels)
    return rel


def _plan_crds(engine, inp, install, opts, method):
    """CRDs of ``crds/`` to create (install) or apply (``crds: upgrade``), and the kinds they define."""
    changes, kinds = [], {}
    if opts.skip_crds or not inp.crds or not (install or opts.upgrade_crds):
        return changes, kinds
    for path, text in inp.crds:
        try:
            docs = parse_manifest(text)
        except ManifestError as exc:
            raise OperationError("%s: %s" % (path, exc)) from exc
        for res in docs:
            if res.kind != "CustomResourceDefinition":
                continue
            live = engine.client.get(res.api_version, res.kind, res.name)
            spec = res.obj.get("spec") or {}
            for ver in spec.get("versions") or [{"name": spec.get("version")}]:
                gv = "%s/%s" % (spec.get("group"), ver.get("name"))
                kinds[(gv, (spec.get("names") or {}).get("kind"))] = spec.get("scope") == "Namespaced"
            if live is None:
                changes.append(Change("apply" if method == "ssa" else "create", res, "", after=res.obj, crd=True))
            elif opts.upgrade_crds:
                changes.append(Change("apply", res, "", before=live, after=res.obj, crd=True))
    return changes, kinds


def _dry_run_crds(engine, changes):
    """The server's answers to the CRD writes of ``changes``, asked all at once (as they are then written)."""
    return in_parallel(lambda change: _dry_run_crd(engine, change), changes)


def _dry_run_crd(engine, change):
    """The prediction of a CRD write (check mode shows it; the real run reports the server's answer instead)."""
    res = change.resource
    try:
        if change.action == "create":
            answer = engine.client.create(res.obj, dry_run=True)
        else:
            answer = engine.client.patch(res.api_version, res.kind, res.name, None, res.obj, "apply",
                                         dry_run=True, force=change.before is not None)
    except ApiError as exc:
        raise OperationError("failed to install CRD %s: %s" % (res.name, exc.message)) from exc
    return assigned_marked(answer, res.obj) if change.before is None else answer


def _run(engine, inp, opts, plan, outcome, version, current, install, method, rel):
    """Store ``rel`` (the pending record whose size was checked: its encoding is reused), apply, record."""
    event = "install" if install else "upgrade"
    try:
        install_crds(engine.client, plan.crds, progress=opts.progress)
        engine.storage.create(rel, 0 if install else opts.history_max)
    except (ExecuteError, StorageError, KubeError) as exc:
        raise OperationError(str(exc), outcome) from exc
    opts.progress("record", "revision %d %s" % (version, status(rel)))
    outcome.release = rel
    runner = HookRunner(engine.client, engine.namespace, engine.storage.update, opts.timeout, opts.progress,
                        server_side=method == "ssa", logs=opts.hook_logs)
    try:
        if not opts.disable_hook:
            _hooks(runner, rel, "pre-" + event, install)
        apply_changes(engine.client, plan.changes, opts.force_conflicts, progress=opts.progress)
        if opts.wait_mode() != "hookOnly":
            wait_for(engine.client, plan.changes, opts.timeout, opts.progress, opts.wait_mode(), opts.wait_for_jobs,
                     opts.health_checks)
        if not opts.disable_hook:
            _hooks(runner, rel, "post-" + event, install)
    except (HookError, ExecuteError, KubeError, ApiError) as exc:
        return _fail(engine, rel, exc, opts, outcome, install, plan.changes)
    if current is not None:  # Helm supersedes the revision it upgraded from, also a failed one
        set_status(current, SUPERSEDED)
        engine.storage.update(current)
    for old in engine.history():
        if old["version"] < rel["version"] and status(old) == DEPLOYED:
            set_status(old, SUPERSEDED)
            engine.storage.update(old)
    set_status(rel, DEPLOYED, opts.description or ("Install complete" if install else "Upgrade complete"))
    engine.storage.update(rel)
    opts.progress("result", "revision %d deployed" % version)
    return outcome


def _hooks(runner, rel, event, install):
    """Run ``event``'s hooks; a failure reads as Helm words it (``failed pre-install: ...``,
    ``pre-upgrade hooks failed: ...``)."""
    try:
        runner.run(rel, event)
    except HookError as exc:
        raise HookError(("failed %s: %s" if install else "%s hooks failed: %s") % (event, exc)) from exc


def _fail(engine, rel, exc, opts, outcome, install, changes=()):
    """Record the failed revision; with ``atomic``, uninstall the failed install or roll back the upgrade to
    the last revision that was deployed, as Helm's failRelease. The error is Helm's: the cause itself."""
    message = str(exc)
    what = 'Release "%s" failed' % engine.name if install else 'Upgrade "%s" failed' % engine.name
    set_status(rel, FAILED, "%s: %s" % (what, message))
    engine.storage.update(rel)
    opts.progress("result", "revision %d failed: %s" % (rel["version"], message))
    if not install:
        message = engine.cleanup_created(changes, opts, message, "upgrade")
    if opts.atomic and install:
        opts.progress("atomic", "uninstalling the failed install")
        try:
            uninstall_records(engine, Options(purge=True, timeout=opts.timeout, disable_hook=opts.disable_hook,
                                              wait=opts.wait, progress=opts.progress), rel)
        except OperationError as uninstall_exc:
            raise OperationError("an error occurred while uninstalling the release. original install error: %s: %s"
                                 % (message, uninstall_exc), outcome) from uninstall_exc
        raise OperationError("release %s failed, and has been uninstalled due to rollback-on-failure being "
                             "set: %s" % (engine.name, message), outcome)
    good = [r for r in engine.storage.history(engine.name, refresh=True) if status(r) in (DEPLOYED, SUPERSEDED)]
    if opts.atomic and not good:
        raise OperationError("unable to find a previously successful release when attempting to rollback. "
                             "original upgrade error: %s" % message, outcome)
    if opts.atomic:
        target = good[-1]["version"]
        opts.progress("atomic", "rolling back to revision %d" % target)
        back = Options(strategy=opts.strategy, server_side=opts.server_side, timeout=opts.timeout,
                       wait=opts.wait_mode(), wait_for_jobs=opts.wait_for_jobs, disable_hook=opts.disable_hook,
                       force=opts.force, force_conflicts=opts.force_conflicts, progress=opts.progress)
        try:
            rollback_locked(engine, target, back, Outcome("rollback", False))
        except OperationError as rollback_exc:
            raise OperationError("an error occurred while rolling back the release. original upgrade error: %s: %s"
                                 % (message, rollback_exc), outcome) from rollback_exc
        raise OperationError("release %s failed, and has been rolled back due to rollback-on-failure being "
                             "set: %s" % (engine.name, message), outcome)
    raise OperationError(message, outcome)


def release_labels(current, labels, outcome=None, install=False):
    """Labels of a new revision: ``labels`` merged over ``current``'s, ``"null"`` deleting (mergeCustomLabels);
    an install stores them as given, ``"null"`` too, as Helm's."""
    out = custom_labels(current)
    for key, value in (labels or {}).items():
        if key in SYSTEM_LABELS:
            raise OperationError("user supplied labels contains system reserved label name. System labels: [%s]"
                                 % " ".join(SYSTEM_LABELS), outcome)
        value = "" if value is None else str(value)
        prefix, name = key.rpartition("/")[::2]
        good_prefix = not prefix or (_PREFIX.match(prefix) and len(prefix) <= 253)
        if not (_LABEL.match(name) and len(name) <= 63 and good_prefix):
            raise OperationError('invalid release label name "%s": a qualified name ([prefix/]name, name at most 63 '
                                 'alphanumerics, "-", "_" or ".", starting and ending alphanumeric)' % key, outcome)
        if value != "null" and value and not (_LABEL.match(value) and len(value) <= 63):
            raise OperationError('invalid value "%s" of release label "%s": at most 63 alphanumerics, "-", "_" or '
                                 '".", starting and ending alphanumeric' % (value, key), outcome)
        out[key] = value
    return out if install else {k: v for k, v in out.items() if v != "null"}


def _differs(current, last, inp):
    if current is None or last is None or last is not current or status(current) != DEPLOYED:
        return True
    return differs(current, inp)
