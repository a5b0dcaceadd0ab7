"""A coordination.k8s.io Lease per release guards each operation.

Helm's only lock is "the last revision is pending". That lock is never released when the process
dies, so we also hold a Lease renewed in the background: while it is fresh, another operation is
refused with Helm's message; once it has expired, the holder is known to be gone and its ``pending-*``
revision can be recovered.
"""
import datetime
import os
import socket
import threading

from ..kube.errors import ApiError
from ..errors import HelmlessError

IN_PROGRESS = "another operation (install/upgrade/rollback) is in progress"


class LeaseHeld(HelmlessError):
    """Another live process holds the release's lease (``holder``: that Lease, None if it let go since)."""

    def __init__(self, holder):
        live = holder if holder is not None and not _expired(holder) else None
        super().__init__(held_message(live))
        self.holder = live


def held_message(lease):
    """Helm's message, plus who holds the release and since when (from the Lease)."""
    spec = (lease or {}).get("spec") or {}
    if not spec.get("holderIdentity"):
        return IN_PROGRESS
    return "%s: held by %s since %s (lease renewed %s, expires after %ss without renewal)" % (
        IN_PROGRESS, spec["holderIdentity"], spec.get("acquireTime") or "?", spec.get("renewTime") or "?",
        spec.get("leaseDurationSeconds") or "?")


def lease_name(release):
    return "helmless.core.%s" % release


def _micro(moment):
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _parse(text):
    try:
        return datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=datetime.timezone.utc)
    except (TypeError, ValueError):
        return None


def lease_state(client, namespace, release):
    """(lease object or None, expired?) for the release."""
    try:
        obj = client.get("coordination.k8s.io/v1", "Lease", lease_name(release), namespace)
    except ApiError as exc:
        if exc.status != 403:
            raise
        obj = None  # no rights on leases: Helm's pending check (and the record's age) still apply
    if obj is None:
        return None, True
    return obj, _expired(obj)


def _expired(obj):
    spec = obj.get("spec") or {}
    if not spec.get("holderIdentity"):
        return True
    renewed = _parse(spec.get("renewTime")) or _parse(spec.get("acquireTime"))
    if renewed is None:
        return True
    age = (datetime.datetime.now(datetime.timezone.utc) - renewed).total_seconds()
    return age > int(spec.get("leaseDurationSeconds") or 0)


class Lease:
    """Context manager: acquire (or take over an expired lease), renew in a thread, release."""

    def __init__(self, client, namespace, release, duration=15):
        self.client = client
        self.namespace = namespace
        self.release = release
        self.duration = duration
        self.identity = "%s/%d/%s" % (socket.gethostname(), os.getpid(), os.urandom(4).hex())  # not uuid: importing it costs ~2 ms a task
        self.took_over = False
        self.disabled = False
        self._stop = threading.Event()
        self._thread = None
        self._obj = None

    def _body(self, resource_version=None, acquire=None):
        now = _micro(datetime.datetime.now(datetime.timezone.utc))
        meta = {"name": lease_name(self.release), "namespace": self.namespace,
                "labels": {"app.kubernetes.io/managed-by": "helmless.core", "name": self.release}}
        if resource_version:
            meta["resourceVersion"] = resource_version
        return {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": meta,
                "spec": {"holderIdentity": self.identity, "leaseDurationSeconds": self.duration,
                         "acquireTime": acquire or now, "renewTime": now}}

    def acquire(self, attempts=3):
        """Take the lease; a holder that let go while we looked is retried, a live one raises LeaseHeld."""
        for attempt in range(attempts):
            try:
                return self._acquire_once()
            except LeaseHeld as exc:
                if exc.holder is not None or attempt == attempts - 1:
                    raise
        raise AssertionError("unreachable")

    def _acquire_once(self):
        current, expired = lease_state(self.client, self.namespace, self.release)
        try:
            if current is None:
                self._obj = self.client.create(self._body(), self.namespace)
            elif not expired:
                raise LeaseHeld(current)
            else:
                self.took_over = bool((current.get("spec") or {}).get("holderIdentity"))
                self._obj = self.client.replace(self._body(current["metadata"]["resourceVersion"]), self.namespace)
        except ApiError as exc:
            mine = self._ours_after_conflict(exc)
            if mine is not None:
                self._obj = mine
            elif exc.conflict:
                raise LeaseHeld(self._current()) from exc
            elif exc.status == 403:
                self.disabled = True  # namespace-scoped RBAC without leases: run unguarded, as Helm does
                return self
            else:
                raise
        self._thread = threading.Thread(target=self._renew, daemon=True)
        self._thread.start()
        return self

    def _current(self):
        try:
            return lease_state(self.client, self.namespace, self.release)[0]
        except ApiError:
            return None

    def _ours_after_conflict(self, exc):
        """A resent write can meet the effect of its own first attempt (409): the lease is ours if it names us."""
        if not exc.conflict:
            return None
        live = self._current()
        if live is not None and (live.get("spec") or {}).get("holderIdentity") == self.identity:
            return live
        return None

    def _renew(self):
        while not self._stop.wait(max(1.0, self.duration / 3.0)):
            try:
                body = self._body(self._obj["metadata"]["resourceVersion"], self._obj["spec"]["acquireTime"])
                self._obj = self.client.replace(body, self.namespace)
            except ApiError as exc:
                # a renewal resent after a lost answer conflicts with itself: carry on from the live lease
                self._obj = self._ours_after_conflict(exc) or self._obj
            except Exception:  # a missed renewal only shortens the lease; the operation goes on
                continue

    def release_lease(self, keep=False):
        """Stop renewing and delete the lease; ``keep`` leaves it to expire instead (the record is still
        pending because our last write failed: the next run recovers once the lease has expired)."""
        if self.disabled:
            return
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        if keep:
            return
        try:
            self.client.delete("coordination.k8s.io/v1", "Lease", lease_name(self.release), self.namespace)
        except ApiError:
            pass

    def __enter__(self):
        return self.acquire()

    def __exit__(self, *exc):
        self.release_lease()
        return False
