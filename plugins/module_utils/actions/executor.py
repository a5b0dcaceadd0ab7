"""Carry out a Plan: the only code that writes objects. It never decides; the planner did."""
import time

from ..kube.errors import ApiError, KubeError
from ..kube.readiness import is_ready, wait_deleted, wait_ready
from ..plan.fields import upgrade_patch
from .progress import label, quiet
from ..errors import HelmlessError


class ExecuteError(HelmlessError):
    """A planned request failed on the server."""


def _run(client, change, force_conflicts):
    res, ns = change.resource, change.namespace or None
    if change.action == "create":
        return client.create(change.body, ns)
    if change.action == "replace":
        return client.replace(change.body, ns)
    if change.action == "apply":
        if change.upgrade:
            upgrade_field_manager(client, res.api_version, res.kind, res.name, ns)
        return client.patch(res.api_version, res.kind, res.name, ns, change.body, "apply",
                            force=force_conflicts or change.force)
    if change.action == "patch":
        return client.patch(res.api_version, res.kind, res.name, ns, change.patch, change.patch_type)
    if change.action == "delete":
        client.delete(res.api_version, res.kind, res.name, ns)
    return None


def upgrade_field_manager(client, api_version, kind, name, namespace, attempts=5):
    """Turn our client-side (Update) managedFields entry into the Apply one before a server-side apply,
    as Helm 4 does (client-go csaupgrade), so one object never has both; retried on a conflict."""
    for attempt in range(attempts):
        live = client.get(api_version, kind, name, namespace)
        patch = upgrade_patch(live, client.field_manager) if live is not None else None
        if patch is None:
            return
        try:
            client.patch(api_version, kind, name, namespace, patch, "json")
            return
        except ApiError as exc:
            if not exc.conflict or attempt == attempts - 1:
                raise


def _batches(changes):
    """Consecutive changes of the same kind, as Helm's batchPerform groups them (kind order is kept)."""
    batch = []
    for change in changes:
        if batch and batch[-1].resource.kind != change.resource.kind:
            yield batch
            batch = []
        batch.append(change)
    if batch:
        yield batch


def in_parallel(function, items, workers=8):
    """``[function(item) for item in items]``, on up to ``workers`` threads when there is more than one item."""
    if len(items) <= 1:
        return [function(item) for item in items]
    from concurrent.futures import ThreadPoolExecutor  # lazy: it imports logging, and a no-op writes nothing
    with ThreadPoolExecutor(max_workers=min(workers, len(items))) as pool:
        return list(pool.map(function, items))


def _carry_out(client, batch, force_conflicts, workers):
    def one(change):
        try:
            result = _run(client, change, force_conflicts)
        except (ApiError, KubeError) as exc:
            return change, exc
        if result is not None:
            change.after = result
        return change, None
    return [(change, exc) for change, exc in in_parallel(one, batch, workers) if exc is not None]


def _failure(change, exc):
    """A failed write's error; a server-side apply's in the words of Helm 4's kube client."""
    res, text = change.resource, getattr(exc, "message", "") or str(exc)
    if change.action != "apply" or not isinstance(exc, ApiError):
        return "failed to %s %s: %s" % (change.action, res.label(), text)
    group, _sep, version = res.api_version.rpartition("/")
    where = "%s/%s %s/%s, Kind=%s" % (change.namespace or "", res.name, group, version, res.kind)
    if exc.conflict:
        return "conflict occurred while applying object %s: %s" % (where, text)
    return "server-side apply failed for object %s: %s" % (where, text)


def _names(items, limit=10):
    more = " and %d more" % (len(items) - limit) if len(items) > limit else ""
    return ", ".join(items[:limit]) + more


def apply_changes(client, changes, force_conflicts=False, workers=8, progress=quiet):
    """Creates/updates in plan order, then deletions; objects of one kind go in parallel. As Helm's update,
    an object that fails to be created stops the run, one that fails to be updated does not stop the
    others (their errors are joined with " && "), and nothing is deleted after a failed write."""
    writes = [c for c in changes if c.action in ("create", "patch", "apply", "replace")]
    deletes = [c for c in changes if c.action == "delete"]
    failed = []
    for batch in _batches(writes):
        errors = _carry_out(client, batch, force_conflicts, workers)
        created = [(change, exc) for change, exc in errors if change.before is None]
        if created:
            raise ExecuteError(_failure(*created[0])) from created[0][1]
        failed += errors
        done = [c for c in batch if all(c is not change for change, _exc in errors)]
        if done:
            progress("apply", _names(["%s %s" % (c.action, label(_ref(c))) for c in done]))
    if failed:
        raise ExecuteError(" && ".join(_failure(change, exc) for change, exc in failed)) from failed[0][1]
    for batch in _batches(deletes):
        errors = _carry_out(client, batch, force_conflicts, workers)
        if errors:
            raise ExecuteError(_failure(*errors[0])) from errors[0][1]
        progress("apply", _names(["%s %s" % (c.action, label(_ref(c))) for c in batch]))
    return writes + deletes


def _ref(change):
    return change.resource.api_version, change.resource.kind, change.resource.name, change.namespace


def refs(changes, actions=("create", "patch", "apply", "replace", "unchanged")):
    """(apiVersion, kind, name, namespace) of the changes with one of ``actions``."""
    return [_ref(c) for c in changes if c.action in actions]


def wait_for(client, changes, timeout, progress=quiet, strategy="legacy", with_jobs=False, checks=None):
    """Wait until every created or kept object is ready (``checks``: health checks judging some kinds);
    report what is still not ready as it goes."""
    targets = refs(changes)
    jobs = ", jobs" if with_jobs else ""
    progress("wait", "%d object(s), timeout %gs (%s%s)" % (len(targets), timeout, strategy, jobs))
    start = time.monotonic()

    def report(still):
        progress("wait", "%d not ready after %.0fs: %s" % (len(still), time.monotonic() - start, _names(
            ["%s (%s)" % (label(ref), reason) for ref, reason in still])))
    wait_ready(client, targets, timeout, report=report, strategy=strategy, with_jobs=with_jobs, checks=checks)
    progress("wait", "all ready after %.1fs" % (time.monotonic() - start))


def wait_gone(client, changes, timeout, progress=quiet):
    targets = refs(changes, ("delete",))
    progress("wait", "for %d deletion(s), timeout %gs" % (len(targets), timeout))
    wait_deleted(client, targets, timeout)


def install_crds(client, crd_changes, timeout=60, progress=quiet, workers=8):
    """Create (or apply, with ``crds: upgrade``) CRDs, all at once as Helm's kube client does, wait until
    Established, refresh discovery."""
    def one(change):
        try:
            if change.action == "create":
                change.after = client.create(change.resource.obj)
            elif change.action == "apply":
                change.after = client.patch(change.resource.api_version, "CustomResourceDefinition",
                                            change.resource.name, None, change.resource.obj, "apply",
                                            force=change.before is not None)
        except ApiError as exc:
            if not exc.already_exists:
                return ExecuteError("failed to install CRD %s: %s" % (change.resource.name, exc.message)), exc
        return None
    failures = [f for f in in_parallel(one, crd_changes, workers) if f is not None]
    if failures:
        raise failures[0][0] from failures[0][1]
    deadline = time.monotonic() + timeout
    for change in crd_changes:
        while True:
            live = client.get(change.resource.api_version, "CustomResourceDefinition", change.resource.name)
            if live is not None and is_ready(client, live):
                break
            if time.monotonic() > deadline:
                raise ExecuteError("CRD %s not established in time" % change.resource.name)
            time.sleep(0.2)
    if not crd_changes:
        return
    # the API server's discovery serves an Established CRD's kinds a moment later: until then a custom
    # resource of the chart would fail with "resource mapping not found"
    kinds = [kind for change in crd_changes for kind in _served(change.resource.obj)]
    client.discovery.invalidate()
    while not all(client.discovery.has(*kind) for kind in kinds) and time.monotonic() < deadline:
        time.sleep(0.2)
        client.discovery.invalidate()
    progress("crds", "established: %s" % _names([c.resource.name for c in crd_changes]))


def _served(crd):
    """(group/version, Kind) of each version a CRD serves."""
    spec = crd.get("spec") or {}
    kind = (spec.get("names") or {}).get("kind")
    versions = [v.get("name") for v in spec.get("versions") or [] if v.get("served", True)] or [spec.get("version")]
    return [("%s/%s" % (spec.get("group"), name), kind) for name in versions if name and kind]
