"""Helm's readiness rules (pkg/kube/ready.go) and the polling loop that waits on them."""
import time

from .errors import KubeError
from .health import HealthCheckError
from .kstatus import CURRENT, FAILED, compute

WAIT_STRATEGIES = ("watcher", "legacy", "hookOnly")
_WORKLOADS = ("Deployment", "StatefulSet", "ReplicaSet", "ReplicationController", "DaemonSet")


class WaitTimeout(KubeError):
    """Resources were not ready within the timeout."""


class WaitFailed(KubeError):
    """A resource reached a state it cannot leave by waiting (kstatus Failed)."""


def wait_strategy(value):
    """Helm 4's ``--wait`` value; booleans map as Helm 4.3 maps them (true: watcher, false: hookOnly)."""
    if value is None or value is False:
        return "hookOnly"
    if value is True:
        return "watcher"
    text = str(value).strip()
    if text.lower() in ("true", "yes", "on", "y", "1"):
        return "watcher"
    if text.lower() in ("false", "no", "off", "n", "0", ""):
        return "hookOnly"
    for strategy in WAIT_STRATEGIES:
        if text.lower() == strategy.lower():
            return strategy
    raise KubeError('invalid wait input "%s". Valid inputs are watcher, hookOnly, and legacy (or true for '
                    'watcher, false for hookOnly)' % text)


def _cond(obj, ctype):
    for cond in (obj.get("status") or {}).get("conditions") or []:
        if cond.get("type") == ctype:
            return cond
    return None


def _int_or_percent(value, total, round_up):
    if value is None:
        return 0
    if isinstance(value, str) and value.endswith("%"):
        pct = int(value[:-1]) * total
        return -(-pct // 100) if round_up else pct // 100
    return int(value)


def _generation_ok(obj):
    return (obj.get("status") or {}).get("observedGeneration", 0) >= (obj.get("metadata") or {}).get("generation", 0)


def _max_unavailable(deployment):
    """deploymentutil.MaxUnavailable: pods that may be down during a rolling update (0 for Recreate)."""
    spec = deployment.get("spec") or {}
    replicas = spec.get("replicas", 1)
    strategy = spec.get("strategy") or {}
    if strategy.get("type", "RollingUpdate") != "RollingUpdate" or replicas == 0:
        return 0
    rolling = strategy.get("rollingUpdate") or {}
    unavailable = _int_or_percent(rolling.get("maxUnavailable", "25%"), replicas, False)
    if unavailable == 0 and _int_or_percent(rolling.get("maxSurge", "25%"), replicas, True) == 0:
        unavailable = 1
    return min(unavailable, replicas)


def _without_hash(template):
    labels = dict((template.get("metadata") or {}).get("labels") or {})
    labels.pop("pod-template-hash", None)
    return dict(template, metadata=dict(template.get("metadata") or {}, labels=labels))


def new_replicaset(client, deployment):
    """The Deployment's ReplicaSet for its current pod template (deploymentutil.GetNewReplicaSet), or None."""
    meta = deployment.get("metadata") or {}
    spec = deployment.get("spec") or {}
    selector = ",".join("%s=%s" % kv for kv in sorted(((spec.get("selector") or {}).get("matchLabels") or {}).items()))
    template = _without_hash(spec.get("template") or {})
    owned = [rs for rs in client.list("apps/v1", "ReplicaSet", meta.get("namespace"), selector or None)
             if any(ref.get("uid") == meta.get("uid") and ref.get("controller")
                    for ref in (rs.get("metadata") or {}).get("ownerReferences") or [])
             and _without_hash((rs.get("spec") or {}).get("template") or {}) == template]
    owned.sort(key=lambda rs: (rs["metadata"].get("creationTimestamp", ""), rs["metadata"].get("name", "")))
    return owned[0] if owned else None


def job_state(obj):
    """'complete', 'failed' or None (still running), for hooks and wait_for_jobs."""
    if (_cond(obj, "Complete") or {}).get("status") == "True":
        return "complete"
    failed = _cond(obj, "Failed")
    if failed and failed.get("status") == "True":
        return "failed: %s" % (failed.get("reason") or failed.get("message") or "")
    return None


def pod_state(obj):
    """'complete', 'failed: <why>' (the containers that exited non-zero) or None (still running)."""
    status = obj.get("status") or {}
    phase = status.get("phase")
    if phase == "Succeeded":
        return "complete"
    if phase == "Failed":
        exits = ["container %s exited with code %s%s" % (cs.get("name"), term.get("exitCode"),
                                                         " (%s)" % term["reason"] if term.get("reason") else "")
                 for cs in (status.get("initContainerStatuses") or []) + (status.get("containerStatuses") or [])
                 for term in [(cs.get("state") or {}).get("terminated") or {}] if term.get("exitCode")]
        return "failed: %s" % ("; ".join(exits) or status.get("reason") or status.get("message") or "pod failed")
    return None


def is_ready(client, obj, check_jobs=True):
    """True when ``obj`` is ready by Helm's legacy rules (kinds without a rule are ready once they exist).

    A Job is only waited for with ``check_jobs`` (``--wait-for-jobs``); otherwise it is ready once created.
    """
    kind = obj.get("kind")
    spec = obj.get("spec") or {}
    status = obj.get("status") or {}
    meta = obj.get("metadata") or {}
    if kind == "Pod":
        return (_cond(obj, "Ready") or {}).get("status") == "True" or status.get("phase") == "Succeeded"
    if kind == "Job":
        if not check_jobs:
            return True
        state = job_state(obj)
        if state and state.startswith("failed"):
            raise KubeError("job %s %s" % (meta.get("name"), state))
        return state == "complete"
    if kind == "Deployment":
        if spec.get("paused"):
            return True
        if not _generation_ok(obj):
            return False
        new = new_replicaset(client, obj)
        if new is None or not _generation_ok(new):
            return False
        return (new.get("status") or {}).get("readyReplicas", 0) >= spec.get("replicas", 1) - _max_unavailable(obj)
    if kind == "StatefulSet" or kind == "DaemonSet":
        if not _generation_ok(obj):
            return False
        update = spec.get("updateStrategy") or {}
        if update.get("type", "RollingUpdate") != "RollingUpdate":
            return True  # OnDelete: as Helm, nothing to wait for
        rolling = update.get("rollingUpdate") or {}
        if kind == "StatefulSet":
            replicas = spec.get("replicas", 1)
            partition = rolling.get("partition") or 0
            if status.get("updatedReplicas", 0) < replicas - partition:
                return False
            if status.get("readyReplicas", 0) != replicas:
                return False
            return partition != 0 or status.get("currentRevision") == status.get("updateRevision")
        desired = status.get("desiredNumberScheduled", 0)
        if status.get("updatedNumberScheduled", 0) != desired:
            return False
        max_unavailable = _int_or_percent(rolling.get("maxUnavailable", 1), desired, True)
        return status.get("numberReady", 0) >= desired - max_unavailable
    if kind in ("ReplicaSet", "ReplicationController"):
        return _generation_ok(obj) and status.get("readyReplicas", 0) >= spec.get("replicas", 1)
    if kind == "PersistentVolumeClaim":
        return status.get("phase") == "Bound"
    if kind == "Service":
        if spec.get("type") == "ExternalName":
            return True
        if spec.get("clusterIP", "") == "":
            return False
        if spec.get("type") == "LoadBalancer":
            return bool(spec.get("externalIPs")) or (status.get("loadBalancer") or {}).get("ingress") is not None
        return True
    if kind == "CustomResourceDefinition":
        if (_cond(obj, "Established") or {}).get("status") == "True":
            return True
        return (_cond(obj, "NamesAccepted") or {}).get("status") == "False"
    return True


def not_ready_reason(client, obj):
    """Why ``obj`` is not ready, in a few words a user can act on (counts, failing conditions)."""
    if obj is None:
        return "not found"
    status = obj.get("status") or {}
    spec = obj.get("spec") or {}
    parts = []
    if obj.get("kind") in ("Deployment", "StatefulSet", "ReplicaSet", "ReplicationController"):
        parts.append("%d/%d replicas ready, %d updated" % (
            status.get("readyReplicas", 0), spec.get("replicas", 1), status.get("updatedReplicas", 0)))
    if obj.get("kind") == "Deployment" and not spec.get("paused"):
        new = new_replicaset(client, obj)
        parts.append("new ReplicaSet %s" % ("not created yet" if new is None else "%s %d/%d ready" % (
            new["metadata"]["name"], (new.get("status") or {}).get("readyReplicas", 0),
            (new.get("spec") or {}).get("replicas", 0))))
    elif obj.get("kind") == "DaemonSet":
        parts.append("%d/%d pods ready" % (status.get("numberReady", 0), status.get("desiredNumberScheduled", 0)))
    elif status.get("phase"):
        parts.append("phase %s" % status["phase"])
    for cond in status.get("conditions") or []:
        if cond.get("status") != "True":
            detail = cond.get("message") or cond.get("reason")
            parts.append("%s=%s%s" % (cond.get("type"), cond.get("status"), ": %s" % detail if detail else ""))
    return "; ".join(parts) or "waiting for its status"


def _watcher_reason(client, obj, with_jobs, judge=None):
    status, message = judge(obj) if judge else compute(obj, with_jobs)
    prefix = not_ready_reason(client, obj) + "; " if obj.get("kind") in _WORKLOADS else ""
    return "%sstatus %s: %s" % (prefix, status, message)


def _details(items, reason):
    more = " and %d more" % (len(items) - 10) if len(items) > 10 else ""
    return "; ".join("%s/%s (%s)" % (ref[1], ref[2], reason(obj)) for ref, obj in items[:10]) + more


def wait_ready(client, refs, timeout, interval=1.0, deadline=None, report=None, report_every=5.0,
               strategy="legacy", with_jobs=False, checks=None):
    """Poll ``refs`` [(apiVersion, kind, name, namespace)] until all are ready; raise WaitTimeout.

    ``strategy`` is Helm 4's: ``legacy`` (Helm 3's readiness rules) or ``watcher`` (kstatus: an object is
    ready when Current, and one that is Failed stops being waited for and fails the wait once the others
    are done, as Helm's watcher). ``with_jobs`` waits for Jobs to complete (``--wait-for-jobs``).
    The timeout message names every object still not ready and why (its counts, conditions, kstatus).
    ``report(still)`` is called every ``report_every`` seconds with the [(ref, reason)] not ready yet.
    ``checks`` (kube.health.HealthChecks) judge the kinds they name instead, with either strategy.
    """
    now = time.monotonic()
    deadline = deadline or now + timeout
    next_report = now + report_every
    pending, failed = list(refs), []

    def judge(obj):
        """(kstatus status, message): the object's health check when it has one, else kstatus."""
        check = checks.for_object(obj) if checks else None
        if check is None:
            return compute(obj, with_jobs)
        try:
            return check.status(obj)
        except HealthCheckError as exc:
            raise WaitFailed("%s/%s: %s" % (obj.get("kind"), (obj.get("metadata") or {}).get("name"), exc)) from exc

    def checked(obj):
        return bool(checks) and checks.for_object(obj) is not None

    def reason(obj):
        if obj is None:
            return "not found"
        if strategy == "watcher" or checked(obj):
            return _watcher_reason(client, obj, with_jobs, judge)
        return not_ready_reason(client, obj)

    while True:
        still = []
        for ref in pending:
            obj = client.get(*ref[:3], namespace=ref[3] or None)
            if obj is None:
                still.append((ref, obj))
            elif strategy != "watcher" and not checked(obj):
                if not is_ready(client, obj, check_jobs=with_jobs):
                    still.append((ref, obj))
            elif not (obj.get("kind") == "Deployment" and (obj.get("spec") or {}).get("paused")):
                status = judge(obj)[0]
                if status == FAILED:
                    failed.append((ref, obj))
                elif status != CURRENT:
                    still.append((ref, obj))
        if not still and failed:
            raise WaitFailed("resources failed: %s" % _details(failed, lambda obj: "status %s: %s" % judge(obj)))
        if not still:
            return
        now = time.monotonic()
        if now >= deadline:
            message = "timed out waiting for the condition: resources not ready: %s" % _details(still, reason)
            if failed:
                message += "; resources failed: %s" % _details(failed, lambda obj: "status %s: %s" % judge(obj))
            raise WaitTimeout(message)
        if report is not None and now >= next_report:
            report([(ref, reason(obj)) for ref, obj in still])
            next_report = now + report_every
        pending = [ref for ref, _obj in still]
        time.sleep(interval)


def wait_deleted(client, refs, timeout, interval=1.0):
    deadline = time.monotonic() + timeout
    pending = list(refs)
    while pending:
        pending = [r for r in pending if client.get(*r[:3], namespace=r[3] or None) is not None]
        if not pending:
            return
        if time.monotonic() >= deadline:
            raise WaitTimeout("timed out waiting for deletion of %s" % ", ".join("%s/%s" % (r[1], r[2]) for r in pending[:5]))
        time.sleep(interval)
