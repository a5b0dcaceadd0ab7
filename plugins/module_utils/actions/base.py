"""What every release action shares: options, errors, the release's history, lease and pending-revision recovery.

Helm's pkg/action keeps this in ``Configuration``; the actions themselves are upgrade.py (install or
upgrade), uninstall.py, rollback.py, testing.py and info.py.
"""
import time

from ..kube.errors import ApiError, KubeError
from ..kube.openapi import OpenAPI
from ..kube.readiness import wait_strategy
from ..plan.planner import METHODS, Planner
from ..release.lease import IN_PROGRESS, Lease, LeaseHeld, held_message, lease_state
from ..release.model import FAILED, PENDING, PENDING_INSTALL, PENDING_ROLLBACK, PENDING_UPGRADE, set_status, status
from ..release.drivers import open_storage
from ..release.storage import SYSTEM_LABELS
from .progress import quiet
from ..errors import HelmlessError

STALE_PENDING_SECONDS = 300


class OperationError(HelmlessError):
    """The operation failed; ``outcome`` holds what was done before (for the module's result)."""

    def __init__(self, message, outcome=None):
        super().__init__(message)
        self.outcome = outcome


class Moved(Exception):
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
        # the controls Flux users rely on (docs/flux-controls.md)
        self.ignore = None  # plan.ignore.IgnoreRules: fields of existing objects left to other controllers
        self.health_checks = None  # kube.health.HealthChecks: CEL readiness of custom resources while waiting
        self.retries = 0  # attempts after a failed install or upgrade
        self.retry_delay = 0  # seconds between attempts
        self.remediation = None  # after the last failure: rollback, uninstall or none (None: atomic decides)
        self.test = False  # run the release's tests after a successful install or upgrade
        self.test_filter = ()
        self.ignore_test_failures = False
        self.force_reconcile = False  # write a revision and run the upgrade hooks even when nothing changed
        self.progress = quiet  # progress(phase, message): see progress.Progress
        self.hook_logs = None  # a list receiving the hooks' logs Helm 4 prints (actions.hooks.HookRunner)
        for key, value in kwargs.items():
            if not hasattr(self, key):
                raise TypeError("unknown option %s" % key)
            setattr(self, key, value)
        self.wait = wait_strategy(self.wait)

    def wait_mode(self):
        """The strategy a run waits with: ``rollback_on_failure``/``atomic`` raise hookOnly to watcher."""
        return "watcher" if self.atomic and self.wait == "hookOnly" else self.wait


class ReleaseContext:
    """Release ``name`` in ``namespace`` through one KubeClient: its history and the steps every action takes."""

    def __init__(self, client, name, namespace, driver="secret", cache_dir=None, sql_connection=None):
        self.client = client
        self.name = name
        self.namespace = namespace
        self.storage = open_storage(client, namespace, driver, sql_connection)
        self.openapi = OpenAPI(client, cache_dir)

    def history(self):
        return self.storage.history(self.name)

    def planner(self, opts, method, operation="install", current=None):
        """The planner of an ``install``, ``update`` (from revision ``current``) or ``rollback`` (which, as
        Helm's, takes over the objects of the revision it returns to whoever owns them now). Helm 4's
        upgrade moves our client-side field ownership to server-side apply only when ``current`` was applied
        client-side (upgrade.go: the deployed revision's method, not the last one's); its install and rollback
        always do."""
        planner = Planner(self.client, self.openapi, self.name, self.namespace, opts.strategy,
                          opts.take_ownership or operation == "rollback", opts.force, opts.force_conflicts,
                          method=method, ignore=opts.ignore)
        planner.operation = operation
        planner.fold_client_side = operation != "update" or (current or {}).get("apply_method", "csa") in ("", "csa")
        return planner

    def pending(self, last):
        """For a ``pending-*`` last revision: raise if its operation is alive, else say it is recoverable."""
        if last is None or status(last) not in PENDING:
            return False
        lease, expired = lease_state(self.client, self.namespace, self.name)
        if lease is not None and not expired:
            raise OperationError(held_message(lease))
        if lease is None:
            if self.moved(last):
                raise Moved()  # its operation ended between our read of the history and of the lease
            labels = last.get("_labels") or {}
            stamp = labels.get("modifiedAt") or labels.get("createdAt")
            if stamp and time.time() - int(stamp) < STALE_PENDING_SECONDS:
                raise OperationError("%s: revision %d is %s since %s (no lease; recoverable %ds after that)" % (
                    IN_PROGRESS, last["version"], status(last),
                    time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(int(stamp))), STALE_PENDING_SECONDS))
        return True

    def moved(self, last):
        """Whether the history changed since ``last`` was read (another operation finished meanwhile)."""
        fresh = self.storage.history(self.name, refresh=True)
        head = fresh[-1] if fresh else None
        if head is None or last is None:
            return (head is None) != (last is None)
        return (head["version"], status(head)) != (last["version"], status(last))

    def recover(self, last):
        verb = {PENDING_INSTALL: "Release", PENDING_UPGRADE: "Upgrade", PENDING_ROLLBACK: "Rollback"}
        set_status(last, FAILED, '%s "%s" failed: operation interrupted (its process is gone; recovered)'
                   % (verb[status(last)], self.name))
        self.storage.update(last)

    def locked(self, opts, last, run, again, recover=False):
        """``run()`` under the release's lease, after failing an interrupted pending ``last`` when ``recover``;
        ``again()`` instead when the history moved since ``last`` was read."""
        lease = self._lease(opts)
        try:
            if not self.moved(last):
                if recover:
                    self.recover(last)
                return run()
        finally:
            lease.release_lease(keep=bool(self.storage.unsettled))
        return self.replan(again, last)

    def _lease(self, opts):
        try:
            return Lease(self.client, self.namespace, self.name, opts.lease_duration).acquire()
        except LeaseHeld as exc:
            raise OperationError(str(exc)) from exc

    def replan(self, again, last):
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

    def namespace_exists(self):
        try:
            return self.client.get("v1", "Namespace", self.namespace) is not None
        except ApiError as exc:
            if exc.status == 403:
                return True  # namespace-scoped RBAC: assume it exists, the writes will tell
            raise

    def cleanup_created(self, changes, opts, message, operation):
        """``--cleanup-on-fail``: delete (in the background) what this failed ``operation`` (upgrade or
        rollback) created; the message is Helm's when some deletion fails."""
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
        if errors:  # Helm's rollback leaves its original error out of this message, its upgrade does not
            return "an error occurred while cleaning up resources. original %s error: %sunable to cleanup " \
                   "resources: %s" % (operation, "" if operation == "rollback" else message + ": ", ", ".join(errors))
        return message


def custom_labels(rel):
    """A revision's own labels (Helm 4's ``--labels``): its storage object's labels but Helm's."""
    return {k: v for k, v in ((rel or {}).get("_labels") or {}).items() if k not in SYSTEM_LABELS}


def apply_method(opts, previous, install=False):
    """``ssa`` or ``csa`` as Helm 4 chooses it: ``server_side`` true/false, or ``auto``: the method
    ``previous`` (upgrade: the last revision; rollback: the target) was applied with, server-side for an
    install. helm3 is client-side and server-side is server-side whatever the release had."""
    side = opts.server_side or "auto"
    fixed = METHODS.get(opts.strategy)
    wanted = {"true": "ssa", "false": "csa"}.get(side)
    if fixed and wanted and fixed != wanted:
        raise OperationError("apply_strategy %s applies %s; it cannot be combined with server_side: %s"
                             % (opts.strategy, "server-side" if fixed == "ssa" else "client-side", side))
    return fixed or wanted or ("ssa" if install or previous == "ssa" else "csa")


def refuse_option_pairs(opts, method, install, adopted=False, outcome=None):
    """Refuse, before anything is written, the option pairs Helm 4 refuses once its pending revision and
    pre-hooks ran (docs/helm-differences.md): ``force`` (replace) with server-side apply of an upgrade, a
    rollback or an install that adopts existing objects (an install creates, so Helm ignores it there),
    and ``force_conflicts`` client-side. Called after planning, which reports Helm's earlier errors first."""
    if opts.force and method == "ssa" and (adopted or not install):
        raise OperationError("invalid operation: cannot use server-side apply and force replace together", outcome)
    if opts.force_conflicts and method == "csa":
        raise OperationError("invalid client update option(s): forceConflicts enabled when serverSideApply "
                             "disabled", outcome)
