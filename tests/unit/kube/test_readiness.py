"""Helm's readiness rules on object states as the API reports them."""
import pytest

from ansible_collections.helmless.core.plugins.module_utils.kube.errors import KubeError
from ansible_collections.helmless.core.plugins.module_utils.kube.readiness import is_ready, job_state


def deploy(replicas=3, updated=3, ready=3, generation=2, observed=2, **spec):
    return {"kind": "Deployment", "metadata": {"generation": generation},
            "spec": dict({"replicas": replicas}, **spec),
            "status": {"observedGeneration": observed, "updatedReplicas": updated, "readyReplicas": ready}}


def test_a_deployment_is_ready_within_max_unavailable_of_its_replicas():
    assert is_ready(None, deploy())
    assert is_ready(None, deploy(replicas=4, ready=3))  # 25% of 4 may be unavailable
    assert not is_ready(None, deploy(replicas=4, ready=2))
    assert not is_ready(None, deploy(observed=1))
    assert is_ready(None, deploy(ready=0, paused=True))


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
