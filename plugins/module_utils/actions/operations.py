"""Install/upgrade, uninstall and rollback of one release: plan, then (unless check mode) execute.

Statuses, descriptions and revision bookkeeping follow Helm's pkg/action so `helm` reads our records.
"""
import re
import time

from ..kube.errors import ApiError, KubeError
from ..kube.openapi import OpenAPI
from ..kube.readiness import wait_strategy
from ..plan.manifest import ManifestError, parse_manifest
from ..plan.planner import METHODS, Change, Plan, PlanError, Planner, assigned_marked, uninstall_plan
from ..release.lease import IN_PROGRESS, Lease, LeaseHeld, held_message, lease_state
from ..release.model import (DEPLOYED, FAILED, PENDING, PENDING_INSTALL, PENDING_ROLLBACK, PENDING_UPGRADE, SUPERSEDED,
                             UNINSTALLED, UNINSTALLING, first_deployed, notes, now, release_record, set_deleted,
                             set_status, status)
from ..release.storage import SYSTEM_LABELS, Storage, StorageError
from .executor import ExecuteError, apply_changes, install_crds, wait_for, wait_gone
from .hooks import HookError, HookRunner, hooks_for
from .progress import plan_summary, quiet
from .sameness import differs, same_content
from .report import Outcome
from ..errors import HelmlessError

STALE_PENDING_SECONDS = 300
_LABEL = re.compile(r"^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$")
_PREFIX = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")


class OperationError(HelmlessError):
    """The operation failed; ``outcome`` holds what was done before (for the module's result)."""

    def __init__(self, message, outcome=None):
        super().__init__(message)
        self.outcome = outcome


class _Moved(Exception):
    """The release history changed under a read: plan again."""


class Options:
    """Operation options with Helm's defaults."""

    def __init__(self, **kwargs):
        self.check_mode = False
        self.strategy = "chart-delta"
        self.server_side = "auto"  # Helm 4's --server-side: auto, true or false
        self.take_ownership = False
        self.force = False
        self.force_conflicts = False
        self.wait = False  # Helm 4's strategy: hookOnly (False), watcher (True) or legacy
        self.wait_for_jobs = False
        self.cleanup_on_fail = False
        self.labels = None
        self.timeout = 300
        self.atomic = False
        self.history_max = 10
        self.disable_hook = False
        self.create_namespace = False
        self.skip_crds = False
        self.upgrade_crds = False
        self.description = None
        self.purge = True
        self.lease_duration = 15
        self.progress = quiet  # progress(phase, message): see progress.Progress
        for key, value in kwargs.items():
            if not hasattr(self, key):
                raise TypeError("unknown option %s" % key)
            setattr(self, key, value)
        self.wait = wait_strategy(self.wait)

    def wait_mode(self):
        """The strategy a run waits with: ``rollback_on_failure``/``atomic`` raise hookOnly to watcher."""
        return "watcher" if self.atomic and self.wait == "hookOnly" else self.wait


class ReleaseEngine:
    """Operations on release ``name`` in ``namespace`` through one KubeClient."""

    def __init__(self, client, name, namespace, driver="secret", cache_dir=None):
        self.client = client
        self.name = name
        self.namespace = namespace
        self.storage = Storage(client, namespace, driver)
        self.openapi = OpenAPI(client, cache_dir)

    # ---- shared -------------------------------------------------------------------------------
    def history(self):
        return self.storage.history(self.name)

    def _planner(self, opts, method):
        return Planner(self.client, self.openapi, self.name, self.namespace, opts.strategy, opts.take_ownership,
                       opts.force, opts.force_conflicts, method=method)

    def _pending(self, last, opts):
        """For a ``pending-*`` last revision: raise if its operation is alive, else say it is recoverable."""
        if last is None or status(last) not in PENDING:
            return False
        lease, expired = lease_state(self.client, self.namespace, self.name)
        if lease is not None and not expired:
            raise OperationError(held_message(lease))
        if lease is None:
            if self._moved(last):
                raise _Moved()  # its operation ended between our read of the history and of the lease
            labels = last.get("_labels") or {}
            stamp = labels.get("modifiedAt") or labels.get("createdAt")
            if stamp and time.time() - int(stamp) < STALE_PENDING_SECONDS:
                raise OperationError("%s: revision %d is %s since %s (no lease; recoverable %ds after that)" % (
                    IN_PROGRESS, last["version"], status(last),
                    time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(int(stamp))), STALE_PENDING_SECONDS))
        return True

    def _moved(self, last):
        """Whether the history changed since ``last`` was read (another operation finished meanwhile)."""
        fresh = self.storage.history(self.name, refresh=True)
        head = fresh[-1] if fresh else None
        if head is None or last is None:
            return (head is None) != (last is None)
        return (head["version"], status(head)) != (last["version"], status(last))

    def _recover(self, last):
        verb = {PENDING_INSTALL: "Release", PENDING_UPGRADE: "Upgrade", PENDING_ROLLBACK: "Rollback"}
        set_status(last, FAILED, '%s "%s" failed: operation interrupted (its process is gone; recovered)'
                   % (verb[status(last)], self.name))
        self.storage.update(last)

    def _lease(self, opts):
        try:
            return Lease(self.client, self.namespace, self.name, opts.lease_duration).acquire()
        except LeaseHeld as exc:
            raise OperationError(str(exc)) from exc

    def _namespace_exists(self):
        try:
            return self.client.get("v1", "Namespace", self.namespace) is not None
        except ApiError as exc:
            if exc.status == 403:
                return True  # namespace-scoped RBAC: assume it exists, the writes will tell
            raise

    # ---- install / upgrade ---------------------------------------------------------------------
    def present(self, inp, opts):
        history = self.history()
        last = history[-1] if history else None
        try:
            recover = self._pending(last, opts)
        except _Moved:
            return self._replan(lambda: self.present(inp, opts), last)
        deployed = Storage.deployed(history)
        current = deployed
        if current is None and last is not None and (status(last) in (FAILED, SUPERSEDED) or recover):
            current = last
        install = current is None
        labels = release_labels(None if install else current, opts.labels)  # refused before any write
        version = last["version"] + 1 if last else 1
        try:
            target = parse_manifest(inp.manifest)
            previous = parse_manifest(current["manifest"]) if current and current.get("manifest") else []
        except ManifestError as exc:
            raise OperationError(str(exc)) from exc
        outcome = Outcome("install" if install else "upgrade", opts.check_mode)
        plan = Plan(opts.strategy)
        if install and not self._namespace_exists():
            if not opts.create_namespace:
                raise OperationError('create: failed to create: namespaces "%s" not found' % self.namespace)
            plan.namespace_create = {"apiVersion": "v1", "kind": "Namespace",
                                     "metadata": {"name": self.namespace, "labels": {"name": self.namespace}}}
        method = apply_method(opts, None if install else last.get("apply_method"), install)
        crd_changes, pending_kinds = self._plan_crds(inp, install, opts, method)
        trusted = current is not None and status(current) == DEPLOYED and not recover
        try:
            planned = self._planner(opts, method).plan(
                previous, target, pending_kinds=pending_kinds, missing_is_drift=trusted,
                new_namespaces=[self.namespace] if plan.namespace_create else ())
        except (PlanError, KubeError) as exc:
            raise OperationError(str(exc), outcome) from exc
        plan.changes, plan.crds = planned.changes, crd_changes
        if opts.check_mode:
            for change in crd_changes:
                change.after = self._dry_run_crd(change)
        changed = (install or recover or plan.changed or _differs(current, last, inp)
                   or last.get("apply_method", "csa") != method or _custom_labels(current) != labels)
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
        record = self._new_record(inp, version, current, install, method, PENDING_INSTALL if install else PENDING_UPGRADE, labels)
        try:
            self.storage.check_size(record)
        except StorageError as exc:
            raise OperationError(str(exc), outcome) from exc
        if opts.check_mode:
            outcome.release = record
            set_status(outcome.release, DEPLOYED, "Install complete" if install else "Upgrade complete")
            opts.progress("result", "check mode: revision %d would be deployed; nothing was written" % version)
            return outcome
        if plan.namespace_create:
            try:
                self.client.create(plan.namespace_create)
            except ApiError as exc:
                if not exc.already_exists:
                    raise OperationError("create namespace %s: %s" % (self.namespace, exc.message)) from exc
            opts.progress("apply", "create Namespace/%s" % self.namespace)
        lease = self._lease(opts)
        try:
            if not self._moved(last):
                if recover:
                    self._recover(last)
                return self._run_present(inp, opts, plan, outcome, version, current, install, method, labels)
        finally:
            lease.release_lease(keep=bool(self.storage.unsettled))
        return self._replan(lambda: self.present(inp, opts), last)

    def _replan(self, again, last):
        """Another operation finished between our plan and our lease: plan again on the new history.

        Never apply a plan made against a history that moved (it would reuse that operation's revision
        number); each replan follows a completed operation, so the depth is bounded by real contention.
        """
        self._replans = getattr(self, "_replans", 0) + 1
        if self._replans > 3:
            raise OperationError("%s: the release changed %d times while this operation was planning "
                                 "(last seen revision %s)" % (IN_PROGRESS, self._replans - 1,
                                                              last["version"] if last else "none"))
        return again()

    def _new_record(self, inp, version, current, install, method, status, labels):
        stamp = now()
        first = stamp if install or current is None else first_deployed(current, stamp)
        rel = release_record(self.name, self.namespace, version, inp.chart, inp.config, inp.manifest,
                             [dict(h, last_run={"phase": ""}) for h in inp.hooks], status,
                             "Initial install underway" if install else "Preparing upgrade", first, stamp,
                             inp.notes, method)
        rel["_labels"] = dict(labels)
        return rel

    def _plan_crds(self, inp, install, opts, method):
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
                live = self.client.get(res.api_version, res.kind, res.name)
                spec = res.obj.get("spec") or {}
                for ver in spec.get("versions") or [{"name": spec.get("version")}]:
                    gv = "%s/%s" % (spec.get("group"), ver.get("name"))
                    kinds[(gv, (spec.get("names") or {}).get("kind"))] = spec.get("scope") == "Namespaced"
                if live is None:
                    changes.append(Change("apply" if method == "ssa" else "create", res, "", after=res.obj, crd=True))
                elif opts.upgrade_crds:
                    changes.append(Change("apply", res, "", before=live, after=res.obj, crd=True))
        return changes, kinds

    def _dry_run_crd(self, change):
        """Check mode's prediction of a CRD write (the real run reports the server's answer instead)."""
        res = change.resource
        try:
            if change.action == "create":
                answer = self.client.create(res.obj, dry_run=True)
            else:
                answer = self.client.patch(res.api_version, res.kind, res.name, None, res.obj, "apply",
                                           dry_run=True, force=change.before is not None)
        except ApiError as exc:
            raise OperationError("failed to install CRD %s: %s" % (res.name, exc.message)) from exc
        return assigned_marked(answer, res.obj) if change.before is None else answer

    def _run_present(self, inp, opts, plan, outcome, version, current, install, method, labels):
        event = "install" if install else "upgrade"
        rel = self._new_record(inp, version, current, install, method, PENDING_INSTALL if install else PENDING_UPGRADE, labels)
        try:
            install_crds(self.client, plan.crds, progress=opts.progress)
            self.storage.create(rel, 0 if install else opts.history_max)
        except (ExecuteError, StorageError, KubeError) as exc:
            raise OperationError(str(exc), outcome) from exc
        opts.progress("record", "revision %d %s" % (version, status(rel)))
        outcome.release = rel
        runner = HookRunner(self.client, self.namespace, self.storage.update, opts.timeout, opts.progress)
        try:
            if not opts.disable_hook:
                runner.run(rel, "pre-" + event)
            apply_changes(self.client, plan.changes, opts.force_conflicts, progress=opts.progress)
            if opts.wait_mode() != "hookOnly":
                wait_for(self.client, plan.changes, opts.timeout, opts.progress, opts.wait_mode(), opts.wait_for_jobs)
            if not opts.disable_hook:
                runner.run(rel, "post-" + event)
        except (HookError, ExecuteError, KubeError, ApiError) as exc:
            return self._fail(rel, exc, opts, outcome, install, current, plan.changes)
        if current is not None and status(current) == DEPLOYED:
            set_status(current, SUPERSEDED)
            self.storage.update(current)
        for old in self.history():
            if old["version"] < rel["version"] and status(old) == DEPLOYED:
                set_status(old, SUPERSEDED)
                self.storage.update(old)
        set_status(rel, DEPLOYED, opts.description or ("Install complete" if install else "Upgrade complete"))
        self.storage.update(rel)
        opts.progress("result", "revision %d deployed" % version)
        return outcome

    def _cleanup_created(self, changes, opts, message):
        """``--cleanup-on-fail``: delete (in the background) what this failed upgrade/rollback created."""
        # absent when planned (a create, or a server-side apply with nothing before): ours if there now
        created = [c for c in changes if c.action in ("create", "apply") and c.before is None]
        if not opts.cleanup_on_fail or not created:
            return message
        errors, deleted = [], 0
        for change in created:
            res = change.resource
            try:
                deleted += self.client.delete(res.api_version, res.kind, res.name, change.namespace or None)
            except (ApiError, KubeError) as exc:
                errors.append("%s: %s" % (res.label(), getattr(exc, "message", "") or exc))
        opts.progress("cleanup", "deleted %d object(s) created by the failed run" % deleted)
        if errors:
            return "an error occurred while cleaning up resources. original error: %s: unable to cleanup " \
                   "resources: %s" % (message, ", ".join(errors))
        return message

    def _fail(self, rel, exc, opts, outcome, install, current, changes=()):
        message = str(exc)
        what = 'Release "%s" failed' % self.name if install else 'Upgrade "%s" failed' % self.name
        set_status(rel, FAILED, "%s: %s" % (what, message))
        self.storage.update(rel)
        opts.progress("result", "revision %d failed: %s" % (rel["version"], message))
        if not install:
            message = self._cleanup_created(changes, opts, message)
        if opts.atomic and install:
            opts.progress("atomic", "uninstalling the failed install")
            self._uninstall_records(Options(purge=True, timeout=opts.timeout, disable_hook=True,
                                            progress=opts.progress), rel)
            raise OperationError("release %s failed, and has been uninstalled due to rollback-on-failure being "
                                 "set: %s" % (self.name, message), outcome)
        if opts.atomic and current is not None:
            opts.progress("atomic", "rolling back to revision %d" % current["version"])
            back = Options(strategy=opts.strategy, server_side=opts.server_side, timeout=opts.timeout,
                           wait=opts.wait_mode(), wait_for_jobs=opts.wait_for_jobs, history_max=opts.history_max,
                           progress=opts.progress)
            self._rollback_locked(current["version"], back, Outcome("rollback", False))
            raise OperationError("release %s failed, and has been rolled back due to rollback-on-failure being "
                                 "set: %s" % (self.name, message), outcome)
        raise OperationError("%s: %s" % (what, message), outcome)

    # ---- uninstall ----------------------------------------------------------------------------
    def absent(self, opts):
        history = self.history()
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
                    self.storage.delete(self.name, rel["version"])
            return outcome
        try:
            self._pending(last, opts)
        except _Moved:
            return self._replan(lambda: self.absent(opts), last)
        try:
            previous = parse_manifest(last.get("manifest") or "")
        except ManifestError as exc:
            raise OperationError(str(exc)) from exc
        plan = uninstall_plan(self.client, self.name, self.namespace, previous)
        outcome.plan(plan, hooks=[] if opts.disable_hook else
                     [h["name"] for e in ("pre-delete", "post-delete") for h in hooks_for(last, e)])
        outcome.changed = True
        outcome.release = last
        opts.progress("plan", "uninstall: %s" % plan_summary(plan.changes))
        if opts.check_mode:
            opts.progress("result", "check mode: release would be uninstalled; nothing was written")
            return outcome
        lease = self._lease(opts)
        try:
            if not self._moved(last):
                self._uninstall_records(opts, last, plan)
                return outcome
        finally:
            lease.release_lease(keep=bool(self.storage.unsettled))
        return self._replan(lambda: self.absent(opts), last)

    def _uninstall_records(self, opts, last, plan=None):
        if plan is None:
            plan = uninstall_plan(self.client, self.name, self.namespace, parse_manifest(last.get("manifest") or ""))
        set_deleted(last, now())
        set_status(last, UNINSTALLING, "Deletion in progress (or silently failed)")
        self.storage.update(last)
        runner = HookRunner(self.client, self.namespace, self.storage.update, opts.timeout, opts.progress)
        try:
            if not opts.disable_hook:
                runner.run(last, "pre-delete")
            apply_changes(self.client, plan.changes, progress=opts.progress)
            if opts.wait != "hookOnly":
                wait_gone(self.client, plan.changes, opts.timeout, opts.progress)
            if not opts.disable_hook:
                runner.run(last, "post-delete")
        except (HookError, ExecuteError, KubeError) as exc:
            set_status(last, FAILED, "uninstallation completed with 1 error(s): %s" % exc)
            self.storage.update(last)
            raise OperationError("failed to delete release: %s: %s" % (self.name, exc)) from exc
        if opts.purge:
            for rel in self.storage.history(self.name, refresh=True):
                self.storage.delete(self.name, rel["version"])
            opts.progress("result", "uninstalled; history deleted")
            return
        for rel in self.storage.history(self.name, refresh=True):
            if rel["version"] != last["version"] and status(rel) == DEPLOYED:
                set_status(rel, SUPERSEDED)
                self.storage.update(rel)
        set_status(last, UNINSTALLED, "Uninstallation complete")
        self.storage.update(last)
        opts.progress("result", "uninstalled; history kept")

    # ---- rollback -----------------------------------------------------------------------------
    def rollback(self, revision, opts):
        history = self.history()
        if not history:
            raise OperationError('release: not found')
        last = history[-1]
        try:
            recover = self._pending(last, opts)
        except _Moved:
            return self._replan(lambda: self.rollback(revision, opts), last)
        outcome = Outcome("rollback", opts.check_mode)
        target_version = revision or last["version"] - 1
        if target_version < 1:
            raise OperationError("release has no %d version" % target_version)
        target = self.storage.get(self.name, target_version)
        if target is None:
            raise OperationError("release has no %d version" % target_version)
        plan, changed, method = self._plan_rollback(last, target, opts, outcome, recover)
        outcome.changed = changed
        if not changed:
            opts.progress("result", "no change: revision %d already matches revision %d" % (last["version"],
                                                                                            target_version))
            outcome.release = last
            return outcome
        if opts.check_mode:
            outcome.release = self._rollback_record(last, target, method)
            set_status(outcome.release, DEPLOYED, "Rollback to %d" % target_version)
            opts.progress("result", "check mode: revision %d would roll back to %d; nothing was written"
                          % (last["version"] + 1, target_version))
            return outcome
        lease = self._lease(opts)
        try:
            if not self._moved(last):
                if recover:
                    self._recover(last)
                return self._execute_rollback(last, target, plan, opts, outcome, method)
        finally:
            lease.release_lease(keep=bool(self.storage.unsettled))
        return self._replan(lambda: self.rollback(revision, opts), last)

    def _plan_rollback(self, last, target, opts, outcome, recover=False):
        try:
            previous = parse_manifest(last.get("manifest") or "")
            wanted = parse_manifest(target.get("manifest") or "")
        except ManifestError as exc:
            raise OperationError(str(exc)) from exc
        method = apply_method(opts, target.get("apply_method"))
        try:
            plan = self._planner(opts, method).plan(previous, wanted)
        except (PlanError, KubeError) as exc:
            raise OperationError(str(exc), outcome) from exc
        outcome.plan(plan, hooks=[] if opts.disable_hook else
                     [h["name"] for e in ("pre-rollback", "post-rollback") for h in hooks_for(target, e)])
        summary = plan_summary(plan.changes)
        opts.progress("plan", "rollback to %d: %s (%s, %s)" % (target["version"], summary, opts.strategy, method))
        same = (status(last) == DEPLOYED and same_content(last, target)
                and last.get("apply_method", "csa") == method and _custom_labels(last) == _custom_labels(target))
        return plan, recover or plan.changed or not same, method

    def _rollback_record(self, last, target, method):
        stamp = now()
        rel = release_record(self.name, self.namespace, last["version"] + 1, target.get("chart"),
                             target.get("config"), target.get("manifest", ""),
                             [dict(h, last_run={"phase": ""}) for h in target.get("hooks") or []], PENDING_ROLLBACK,
                             "Rollback to %d" % target["version"], first_deployed(last, stamp), stamp,
                             notes(target), method, rollback_revision=target["version"])
        rel["_labels"] = _custom_labels(target)
        return rel

    def _rollback_locked(self, target_version, opts, outcome):
        history = self.storage.history(self.name, refresh=True)
        last, target = history[-1], self.storage.get(self.name, target_version)
        plan, _changed, method = self._plan_rollback(last, target, opts, outcome)
        return self._execute_rollback(last, target, plan, opts, outcome, method)

    def _execute_rollback(self, last, target, plan, opts, outcome, method):
        rel = self._rollback_record(last, target, method)
        try:
            self.storage.create(rel, opts.history_max)
        except StorageError as exc:
            raise OperationError(str(exc), outcome) from exc
        outcome.release = rel
        opts.progress("record", "revision %d pending-rollback" % rel["version"])
        runner = HookRunner(self.client, self.namespace, self.storage.update, opts.timeout, opts.progress)
        try:
            if not opts.disable_hook:
                runner.run(rel, "pre-rollback")
            apply_changes(self.client, plan.changes, opts.force_conflicts, progress=opts.progress)
            if opts.wait_mode() != "hookOnly":
                wait_for(self.client, plan.changes, opts.timeout, opts.progress, opts.wait_mode(), opts.wait_for_jobs)
            if not opts.disable_hook:
                runner.run(rel, "post-rollback")
        except (HookError, ExecuteError, KubeError) as exc:
            if status(last) == DEPLOYED:
                set_status(last, SUPERSEDED)
                self.storage.update(last)
            set_status(rel, FAILED, 'Rollback "%s" failed: %s' % (self.name, exc))
            self.storage.update(rel)
            opts.progress("result", "revision %d failed: %s" % (rel["version"], exc))
            message = self._cleanup_created(plan.changes, opts, str(exc))
            raise OperationError('Rollback "%s" failed: %s' % (self.name, message), outcome) from exc
        for old in self.storage.history(self.name, refresh=True):
            if old["version"] != rel["version"] and status(old) == DEPLOYED:
                set_status(old, SUPERSEDED)
                self.storage.update(old)
        set_status(rel, DEPLOYED, "Rollback to %d" % target["version"])
        self.storage.update(rel)
        opts.progress("result", "revision %d deployed (rollback to %d)" % (rel["version"], target["version"]))
        return outcome


def _custom_labels(rel):
    """A revision's own labels (Helm 4's ``--labels``): its storage object's labels but Helm's."""
    return {k: v for k, v in ((rel or {}).get("_labels") or {}).items() if k not in SYSTEM_LABELS}


def release_labels(current, labels):
    """Labels of a new revision: ``labels`` merged over ``current``'s, ``"null"`` deleting (mergeCustomLabels)."""
    out = _custom_labels(current)
    for key, value in (labels or {}).items():
        if key in SYSTEM_LABELS:
            raise OperationError("user supplied labels contains system reserved label name. System labels: [%s]"
                                 % " ".join(SYSTEM_LABELS))
        value = "" if value is None else str(value)
        prefix, name = key.rpartition("/")[::2]
        good_prefix = not prefix or (_PREFIX.match(prefix) and len(prefix) <= 253)
        if not (_LABEL.match(name) and len(name) <= 63 and good_prefix):
            raise OperationError('invalid release label name "%s": a qualified name ([prefix/]name, name at most 63 '
                                 'alphanumerics, "-", "_" or ".", starting and ending alphanumeric)' % key)
        if value != "null" and value and not (_LABEL.match(value) and len(value) <= 63):
            raise OperationError('invalid value "%s" of release label "%s": at most 63 alphanumerics, "-", "_" or '
                                 '".", starting and ending alphanumeric' % (value, key))
        out[key] = value
    return {k: v for k, v in out.items() if v != "null"}


def apply_method(opts, previous, install=False):
    """``ssa`` or ``csa`` as Helm 4 chooses it: ``server_side`` true/false, or ``auto``: the method
    ``previous`` (upgrade: the last revision; rollback: the target) was applied with, server-side for an
    install. helm3 is client-side and server-side is server-side whatever the release had; ``force``
    (replace) is client-side, as Helm 4 refuses force-replace with server-side apply."""
    side = opts.server_side or "auto"
    fixed = METHODS.get(opts.strategy)
    if opts.force and (fixed == "ssa" or side == "true"):
        raise OperationError("force (replace) cannot be combined with server-side apply (%s)"
                             % ("apply_strategy: server-side" if fixed == "ssa" else "server_side: true"))
    wanted = {"true": "ssa", "false": "csa"}.get(side)
    if fixed and wanted and fixed != wanted:
        raise OperationError("apply_strategy %s applies %s; it cannot be combined with server_side: %s"
                             % (opts.strategy, "server-side" if fixed == "ssa" else "client-side", side))
    if fixed or wanted:
        return fixed or wanted
    if opts.force:
        return "csa"
    return "ssa" if install or previous == "ssa" else "csa"


def _differs(current, last, inp):
    if current is None or last is None or last is not current or status(current) != DEPLOYED:
        return True
    return differs(current, inp)
