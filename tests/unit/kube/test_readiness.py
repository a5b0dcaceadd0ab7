"""Helm's readiness rules on object states as the API reports them."""
import pytest

from ansible_collections.helmless.core.plugins.module_utils.kube.errors import KubeError
from ansible_collections.helmless.core.plugins.module_utils.kube.readiness import _max_unavailable, is_ready, job_state


def rolling(replicas, surge=None, unavailable=None, kind="RollingUpdate"):
    update = {k: v for k, v in (("maxSurge", surge), ("maxUnavailable", unavailable)) if v is not None}
    return {"kind": "Deployment", "spec": {"replicas": replicas, "strategy": {"type": kind, "rollingUpdate": update}}}


def test_a_deployment_may_miss_max_unavailable_pods_as_deploymentutil_computes_it():
    assert _max_unavailable(rolling(4)) == 1  # 25% rounded down
    assert _max_unavailable(rolling(3)) == 0
    assert _max_unavailable(rolling(10, unavailable="33%")) == 3
    assert _max_unavailable(rolling(2, surge=0, unavailable=0)) == 1  # both zero: one may be unavailable
    assert _max_unavailable(rolling(2, unavailable=5)) == 2  # never more than the replicas
    assert _max_unavailable(rolling(4, kind="Recreate")) == 0
    assert _max_unavailable(rolling(0)) == 0


def test_a_service_needs_a_cluster_ip_and_a_load_balancer_an_ingress():
    assert not is_ready(None, {"kind": "Service", "spec": {"clusterIP": ""}})
    assert is_ready(None, {"kind": "Service", "spec": {"clusterIP": "10.0.0.1"}})
    assert not is_ready(None, {"kind": "Service", "spec": {"clusterIP": "10.0.0.1", "type": "LoadBalancer"}})
    assert is_ready(None, {"kind": "Service", "spec": {"type": "ExternalName"}})


def test_jobs_complete_or_fail_by_their_conditions():
    done = {"kind": "Job", "status": {"conditions": [{"type": "Complete", "status": "True"}]}}
    failed = {"kind": "Job", "metadata": {"name": "j"},
              "status": {"conditions": [{"type": "Failed", "status": "True", "reason": "DeadlineExceeded"}]}}
    assert job_state(done) == "complete" and is_ready(None, done)
    assert job_state(failed) == "failed: DeadlineExceeded"
    with pytest.raises(KubeError, match="job j failed: DeadlineExceeded"):
        is_ready(None, failed)


def test_pvcs_crds_and_statefulsets():
    assert is_ready(None, {"kind": "PersistentVolumeClaim", "status": {"phase": "Bound"}})
    assert not is_ready(None, {"kind": "PersistentVolumeClaim", "status": {"phase": "Pending"}})
    assert is_ready(None, {"kind": "CustomResourceDefinition",
                           "status": {"conditions": [{"type": "Established", "status": "True"}]}})
    sts = {"kind": "StatefulSet", "metadata": {"generation": 1}, "spec": {"replicas": 2},
           "status": {"observedGeneration": 1, "updatedReplicas": 2, "readyReplicas": 2,
                      "currentRevision": "a", "updateRevision": "a"}}
    assert is_ready(None, sts)
    sts["status"]["updateRevision"] = "b"
    assert not is_ready(None, sts)
