"""kstatus (fluxcd/cli-utils v1.2.2 pkg/kstatus/status, what Helm 4.3's ``--wait=watcher`` computes): the
status of any object - Current, InProgress, Failed, Terminating - from its generation, its standard
conditions (Reconciling, Stalled, Ready) and the rules for built-in kinds.

A custom resource is Current only when it has observed its latest generation, has no Reconciling=True or
Stalled=True condition and no Ready condition other than True; one without any status is Current.
"""
import datetime

CURRENT, IN_PROGRESS, FAILED, TERMINATING = "Current", "InProgress", "Failed", "Terminating"
_MAX_INT32 = 2 ** 31 - 1
_SCHEDULE_WINDOW = 15  # seconds an unschedulable pod gets before it is Failed


def _age(obj):
    created = (obj.get("metadata") or {}).get("creationTimestamp")
    try:
        moment = datetime.datetime.fromisoformat(str(created).replace("Z", "+00:00"))
    except ValueError:
        return 0
    return (datetime.datetime.now(datetime.timezone.utc) - moment).total_seconds()


def _field(obj, path, default):
    node = obj
    for key in path.split("."):
        if not isinstance(node, dict) or key not in node:
            return default
        node = node[key]
    return node


def _int(obj, path, default):
    value = _field(obj, path, default)
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _conditions(obj):
    return [c for c in _field(obj, "status.conditions", None) or [] if isinstance(c, dict)]


def _generic(obj):
    """checkGenericProperties: deletion, observedGeneration, Reconciling/Stalled conditions."""
    if (obj.get("metadata") or {}).get("deletionTimestamp"):
        return TERMINATING, "Resource scheduled for deletion"
    generation = _field(obj, "metadata.generation", None)
    observed = _field(obj, "status.observedGeneration", None)
    if generation is not None and observed is not None and observed != generation:
        return IN_PROGRESS, "%s generation is %s, but latest observed generation is %s" % (
            obj.get("kind"), generation, observed)
    for cond in _conditions(obj):
        if cond.get("type") == "Reconciling" and cond.get("status") == "True":
            return IN_PROGRESS, cond.get("message") or cond.get("reason") or "Reconciling"
        if cond.get("type") == "Stalled" and cond.get("status") == "True":
            return FAILED, cond.get("message") or cond.get("reason") or "Stalled"
    return None


def _deployment(obj):
    progressing = _int(obj, "spec.progressDeadlineSeconds", _MAX_INT32) == _MAX_INT32
    available = False
    for cond in _conditions(obj):
        if cond.get("type") == "Progressing":
            if cond.get("reason") == "ProgressDeadlineExceeded":
                return FAILED, "Progress deadline exceeded"
            if cond.get("status") == "True" and cond.get("reason") == "NewReplicaSetAvailable":
                progressing = True
        elif cond.get("type") == "Available" and cond.get("status") == "True":
            available = True
    spec, status = _int(obj, "spec.replicas", 1), _int(obj, "status.replicas", 0)
    updated, ready = _int(obj, "status.updatedReplicas", 0), _int(obj, "status.readyReplicas", 0)
    avail = _int(obj, "status.availableReplicas", 0)
    checks = ((spec > status, "Replicas: %d/%d" % (status, spec)), (spec > updated, "Updated: %d/%d" % (updated, spec)),
              (status > spec, "Pending termination: %d" % (status - spec)),
              (updated > avail, "Available: %d/%d" % (avail, updated)), (spec > ready, "Ready: %d/%d" % (ready, spec)),
              (not progressing, "ReplicaSet not Available"), (not available, "Deployment not Available"))
    for failing, message in checks:
        if failing:
            return IN_PROGRESS, message
    return CURRENT, "Deployment is available. Replicas: %d" % status


def _statefulset(obj):
    if _field(obj, "spec.updateStrategy.type", "") == "OnDelete":
        return CURRENT, "StatefulSet is using the ondelete update strategy"
    spec, ready = _int(obj, "spec.replicas", 1), _int(obj, "status.readyReplicas", 0)
    current, updated = _int(obj, "status.currentReplicas", 0), _int(obj, "status.updatedReplicas", 0)
    status, partition = _int(obj, "status.replicas", 0), _int(obj, "spec.updateStrategy.rollingUpdate.partition", -1)
    if spec > status:
        return IN_PROGRESS, "Replicas: %d/%d" % (status, spec)
    if spec > ready:
        return IN_PROGRESS, "Ready: %d/%d" % (ready, spec)
    if status > spec:
        return IN_PROGRESS, "Pending termination: %d" % (status - spec)
    if partition != -1:
        if updated < spec - partition:
            return IN_PROGRESS, "updated: %d/%d" % (updated, spec - partition)
        return CURRENT, "Partition rollout complete. updated: %d" % updated
    if spec > current:
        return IN_PROGRESS, "current: %d/%d" % (current, spec)
    if _field(obj, "status.currentRevision", "") != _field(obj, "status.updateRevision", ""):
        return IN_PROGRESS, "Waiting for updated revision to match current"
    return CURRENT, "All replicas scheduled as expected. Replicas: %d" % status


def _replicaset(obj):
    for cond in _conditions(obj):
        if cond.get("type") == "ReplicaFailure" and cond.get("status") == "True":
            return IN_PROGRESS, "Replica Failure condition. Check Pods"
    spec, status = _int(obj, "spec.replicas", 1), _int(obj, "status.replicas", 0)
    ready, avail = _int(obj, "status.readyReplicas", 0), _int(obj, "status.availableReplicas", 0)
    labelled = _int(obj, "status.fullyLabeledReplicas", 0)
    for failing, message in ((spec > labelled, "Labelled: %d/%d" % (labelled, spec)),
                             (spec > avail, "Available: %d/%d" % (avail, spec)),
                             (spec > ready, "Ready: %d/%d" % (ready, spec)),
                             (status > spec, "Pending termination: %d" % (status - spec))):
        if failing:
            return IN_PROGRESS, message
    return CURRENT, "ReplicaSet is available. Replicas: %d" % status


def _daemonset(obj):
    if _field(obj, "metadata.generation", None) is None:
        return IN_PROGRESS, "DaemonSet metadata.generation not found"
    if _field(obj, "status.observedGeneration", None) is None:
        return IN_PROGRESS, "DaemonSet status.observedGeneration not found"
    desired = _int(obj, "status.desiredNumberScheduled", -1)
    if desired == -1:
        return IN_PROGRESS, "Missing .status.desiredNumberScheduled"
    for field, label in (("currentNumberScheduled", "Current"), ("updatedNumberScheduled", "Updated"),
                         ("numberAvailable", "Available"), ("numberReady", "Ready")):
        have = _int(obj, "status." + field, 0)
        if desired > have:
            return IN_PROGRESS, "%s: %d/%d" % (label, have, desired)
    return CURRENT, "All replicas scheduled as expected. Replicas: %d" % desired


def _pod(obj):
    phase = _field(obj, "status.phase", "")
    if phase == "Succeeded":
        return CURRENT, "Pod has completed successfully"
    if phase == "Failed":
        return CURRENT, "Pod has completed, but not successfully"
    if phase == "Running":
        if any(c.get("type") == "Ready" and c.get("status") == "True" for c in _conditions(obj)):
            return CURRENT, "Pod is Ready"
        looping = [cs.get("name") for cs in _field(obj, "status.containerStatuses", None) or []
                   if ((cs.get("state") or {}).get("waiting") or {}).get("reason") == "CrashLoopBackOff"]
        if looping:
            return FAILED, "Containers in CrashLoop state: %s" % ",".join(looping)
        return IN_PROGRESS, "Pod is running but is not Ready"
    if phase == "Pending":
        unschedulable = any(c.get("type") == "PodScheduled" and c.get("status") == "False"
                            and c.get("reason") == "Unschedulable" for c in _conditions(obj))
        if not unschedulable:
            return IN_PROGRESS, "Pod is in the Pending phase"
        if _age(obj) < _SCHEDULE_WINDOW:
            return IN_PROGRESS, "Pod has not been scheduled"
        return FAILED, "Pod could not be scheduled"
    return IN_PROGRESS, "Pod phase not available"


def _job(obj):
    completions = _int(obj, "spec.completions", _int(obj, "spec.parallelism", 1))
    for cond in _conditions(obj):
        if cond.get("type") == "Complete" and cond.get("status") == "True":
            return CURRENT, "Job Completed. succeeded: %d/%d" % (_int(obj, "status.succeeded", 0), completions)
        if cond.get("type") == "Failed" and cond.get("status") == "True":
            return FAILED, "Job Failed. failed: %d/%d" % (_int(obj, "status.failed", 0), completions)
    if not _field(obj, "status.startTime", ""):
        return IN_PROGRESS, "Job not started"
    return CURRENT, "Job in progress. success:%d, active: %d, failed: %d" % (
        _int(obj, "status.succeeded", 0), _int(obj, "status.active", 0), _int(obj, "status.failed", 0))


def _helm_job(obj):
    """Helm's own Job reader (``wait_for_jobs``): only a Complete Job is Current."""
    state, message = _job(obj)
    if state == CURRENT and not message.startswith("Job Completed"):
        return IN_PROGRESS, "Job in progress"
    return state, message


def _crd(obj):
    for cond in _conditions(obj):
        if cond.get("type") == "NamesAccepted" and cond.get("status") == "False":
            return FAILED, cond.get("message") or cond.get("reason") or ""
        if cond.get("type") == "Established":
            if cond.get("status") == "False" and cond.get("reason") != "Installing":
                return FAILED, cond.get("message") or cond.get("reason") or ""
            if cond.get("status") == "True":
                return CURRENT, "CRD is established"
    return IN_PROGRESS, "Install in progress"


def _always(_obj):
    return CURRENT, "Resource is always ready"


def _service(obj):
    if _field(obj, "spec.type", "ClusterIP") == "LoadBalancer" and not _field(obj, "spec.clusterIP", ""):
        return IN_PROGRESS, "ClusterIP not set. Service type: LoadBalancer"
    return CURRENT, "Service is ready"


def _pvc(obj):
    phase = _field(obj, "status.phase", "unknown")
    if phase != "Bound":
        return IN_PROGRESS, "PVC is not Bound. phase: %s" % phase
    return CURRENT, "PVC is Bound"


_BUILT_IN = {"Service": _service, "Pod": _pod, "Secret": _always, "PersistentVolumeClaim": _pvc,
             "apps/StatefulSet": _statefulset, "apps/DaemonSet": _daemonset, "extensions/DaemonSet": _daemonset,
             "apps/Deployment": _deployment, "extensions/Deployment": _deployment, "apps/ReplicaSet": _replicaset,
             "extensions/ReplicaSet": _replicaset, "policy/PodDisruptionBudget": _always, "batch/CronJob": _always,
             "ConfigMap": _always, "batch/Job": _job, "apiextensions.k8s.io/CustomResourceDefinition": _crd}


def _key(obj):
    api_version = obj.get("apiVersion") or ""
    group = api_version.rpartition("/")[0]
    return "%s/%s" % (group, obj.get("kind")) if group else obj.get("kind")


def compute(obj, with_jobs=False):
    """(status, message) of a live object as Helm 4's watcher sees it; ``with_jobs`` is ``--wait-for-jobs``."""
    if with_jobs and _key(obj) == "batch/Job":
        return _helm_job(obj)
    generic = _generic(obj)
    if generic is not None:
        return generic
    rule = _BUILT_IN.get(_key(obj))
    if rule is not None:
        return rule(obj)
    for cond in _conditions(obj):
        if cond.get("type") == "Ready":
            if cond.get("status") == "True":
                return CURRENT, "Resource is Ready"
            if cond.get("status") in ("False", "Unknown"):
                return IN_PROGRESS, "Ready=%s%s" % (cond.get("status"), ": %s" % (
                    cond.get("message") or cond.get("reason")) if cond.get("message") or cond.get("reason") else "")
    return CURRENT, "Resource is current"
