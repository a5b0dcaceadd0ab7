"""release_test against helm test (real helm v4.3.2) on the local control plane, where kwok runs test pods
to completion (scripts/controlplane.d/kwok-stages.yaml): same phases, same stored record, each reads the
other's runs."""
import copy
import json
import re

import pytest

import corpuskit
from ansible_collections.helmless.core.plugins.module_utils.ansible.options import CONNECTION, RELEASE_TEST
from ansible_collections.helmless.core.plugins.module_utils.ansible.runner import (
    ModuleFailure, run_info, run_release_test)

from test_release_support import client_for, engine_for, write_chart


def _pod(name, command, weight, policy=None):
    ann = {"helm.sh/hook": "test", "helm.sh/hook-weight": str(weight)}
    if policy:
        ann["helm.sh/hook-delete-policy"] = policy
    return json.dumps({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "annotations": ann},
                       "spec": {"restartPolicy": "Never",
                                "containers": [{"name": "t", "image": "busybox", "command": command}]}})


SUITE = {
    "app.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  k: v\n",
    "t-pod.yaml": _pod("pod-test", ["sh", "-c", "wget -qO- http://app"], 1),
    "t-clean.yaml": _pod("clean-test", ["true"], 1, "hook-succeeded"),
    "t-skip.yaml": _pod("skipped-test", ["sh", "-c", "exit 3"], 0),
    "t-job.yaml": json.dumps({
        "apiVersion": "batch/v1", "kind": "Job",
        "metadata": {"name": "job-test", "annotations": {"helm.sh/hook": "test", "helm.sh/hook-weight": "-1",
                                                         "helm.sh/hook-delete-policy": "hook-succeeded"}},
        "spec": {"backoffLimit": 0, "template": {"spec": {"restartPolicy": "Never", "containers": [
            {"name": "t", "image": "busybox", "command": ["true"]}]}}}}),
}


def _params(kubeconfig, namespace, name="rel", **kw):
    params = {key: copy.deepcopy(opt.get("default")) for table in (CONNECTION, RELEASE_TEST)
              for key, opt in table.items()}
    params.update(kubeconfig=kubeconfig, release_name=name, release_namespace=namespace, **kw)
    return params


def _record(kubeconfig, namespace, name="rel"):
    """The stored release with its times masked (install and test times are all that may differ)."""
    rel = copy.deepcopy(engine_for(kubeconfig, namespace, name).history()[-1])
    labels = rel.pop("_labels")
    for key in ("first_deployed", "last_deployed"):
        rel["info"][key] = bool(rel["info"].get(key))
    for hook in rel.get("hooks") or []:
        hook["last_run"] = {k: (v if k == "phase" else bool(v)) for k, v in hook["last_run"].items()}
    return rel, labels


def _secrets(kubeconfig, namespace):
    return {s["metadata"]["name"]: s["metadata"]["resourceVersion"]
            for s in client_for(kubeconfig).list("v1", "Secret", namespace, "owner=helm")}


def _pods(kubeconfig, namespace):
    """The test Pods left (a deleted Job's pods go later, with the garbage collector)."""
    return sorted(p["metadata"]["name"] for p in client_for(kubeconfig).list("v1", "Pod", namespace)
                  if not p["metadata"].get("ownerReferences"))


def test_release_test_records_what_helm_test_records_and_each_reads_the_others_runs(
        tmp_path, kubeconfig, namespace, helm4, kube_client):
    from kubernetes import client
    other = namespace + "-h"
    client.CoreV1Api(kube_client).create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=other)))
    try:
        chart = write_chart(tmp_path, SUITE)
        for ns in (namespace, other):
            helm4.run("install", "rel", chart, "-n", ns)
        helm4.run("test", "rel", "-n", other, "--filter", "!name=skipped-test")
        result, _ = run_release_test(_params(kubeconfig, namespace, filter=["!name=skipped-test"]))
        assert result["changed"]
        assert [(t["name"], t["phase"], t["ran"]) for t in result["tests"]] == [
            ("job-test", "Succeeded", True), ("clean-test", "Succeeded", True), ("pod-test", "Succeeded", True)]
        ours, our_labels = _record(kubeconfig, namespace)
        helms, helm_labels = _record(kubeconfig, other)
        helms["namespace"] = namespace
        assert ours == helms
        assert [h["name"] for h in ours["hooks"]][0] == "skipped-test"  # Helm keeps filtered-out hooks first
        assert set(our_labels) == set(helm_labels) and our_labels["status"] == "deployed"
        assert _pods(kubeconfig, namespace) == _pods(kubeconfig, other) == ["pod-test"]
        # helm status shows the runs we recorded, release_info the ones helm recorded
        status = helm4.run("status", "rel", "-n", namespace).stdout
        for name in ("job-test", "clean-test", "pod-test"):
            assert "TEST SUITE:     %s\n" % name in status
        assert status.count("Phase:          Succeeded") == 3 and "skipped-test" not in status
        info, _ = run_info({"kubeconfig": kubeconfig, "release_name": "rel", "release_namespace": other})
        runs = {h["name"]: h["last_run"] for h in info["status"]["hook_runs"]}
        assert runs["pod-test"]["phase"] == "Succeeded" and runs["pod-test"]["started_at"]
        # and a run by either is run again by the other (before-hook-creation replaces the pods)
        helm4.run("test", "rel", "-n", namespace, "--filter", "name=pod-test")
        again, _ = run_release_test(_params(kubeconfig, other, filter=["name=pod-test"]))
        assert [(t["name"], t["phase"]) for t in again["tests"]] == [("pod-test", "Succeeded")]
        status = helm4.run("status", "rel", "-n", other).stdout
        assert again["stdout"] == re.sub(r"RESOURCES:\n.*?\n\n(?=TEST SUITE)", "", status, flags=re.S)
    finally:
        client.CoreV1Api(kube_client).delete_namespace(other)


def test_a_failing_podinfo_test_fails_as_in_helm_with_the_same_phases(kubeconfig, namespace, helm4):
    helm4.run("install", "pi", corpuskit.archive("podinfo"), "-n", namespace, "--set", "faults.testFail=true")
    with pytest.raises(ModuleFailure) as failed:
        run_release_test(_params(kubeconfig, namespace, "pi", logs=True))
    tests = failed.value.result["tests"]
    fault = [t for t in tests if "-fault-test-" in t["name"]]
    assert [t["phase"] for t in fault] == ["Failed"]
    message = str(failed.value)
    assert message == "resource Pod/%s/%s not ready. status: Failed, message: pod %s failed" % (
        namespace, fault[0]["name"], fault[0]["name"])
    assert fault[0]["logs"] == {"fault": ""}  # read before its delete policy; `sh -c "exit 1"` echoes nothing
    ours = {h["name"]: h["last_run"]["phase"] for h in _record(kubeconfig, namespace, "pi")[0]["hooks"]
            if "test" in h["events"]}
    proc = helm4.run("test", "pi", "-n", namespace, check=False)
    assert proc.returncode != 0 and proc.stderr.strip().endswith("Error: " + message)  # helm's own words
    helms = {h["name"]: h["last_run"]["phase"] for h in _record(kubeconfig, namespace, "pi")[0]["hooks"]
             if "test" in h["events"]}
    assert ours == helms
    # without the fault, podinfo's own test pods (grpc, jwt, service) all reach Succeeded
    result, _ = run_release_test(_params(kubeconfig, namespace, "pi", filter=["!name=" + fault[0]["name"]]))
    assert len(result["tests"]) >= 3 and {t["phase"] for t in result["tests"]} == {"Succeeded"}
    assert engine_for(kubeconfig, namespace, "pi").history()[-1]["info"]["status"] == "deployed"


def test_bad_input_is_a_clear_error_and_changes_nothing(tmp_path, kubeconfig, namespace, helm4):
    chart = write_chart(tmp_path, {"t.yaml": _pod("forever", ["sh", "-c", "while true; do sleep 1; done"], 0),
                                   "ok.yaml": _pod("ok", ["true"], 0)})
    helm4.run("install", "rel", chart, "-n", namespace)
    before = _secrets(kubeconfig, namespace)
    with pytest.raises(ModuleFailure) as missing:
        run_release_test(_params(kubeconfig, namespace, "nope"))
    assert helm4.run("test", "nope", "-n", namespace, check=False).stderr.strip() == "Error: %s" % missing.value
    with pytest.raises(ModuleFailure, match='no test of release "rel" matches the filter name=okay '
                                            r'\(its tests: forever, ok\)'):
        run_release_test(_params(kubeconfig, namespace, filter=["name=okay"]))
    check, _ = run_release_test(_params(kubeconfig, namespace), check_mode=True)
    assert [(t["name"], t["ran"]) for t in check["tests"]] == [("forever", False), ("ok", False)]
    assert _secrets(kubeconfig, namespace) == before and _pods(kubeconfig, namespace) == []
    # a test that never finishes times out, named, recorded Failed as helm records it; no new revision
    with pytest.raises(ModuleFailure, match="resource Pod/%s/forever not ready. status: InProgress, message: Pod in "
                                            "progress\ncontext deadline exceeded" % namespace) as failed:
        run_release_test(_params(kubeconfig, namespace, timeout="3s"))
    assert [(t["name"], t["phase"]) for t in failed.value.result["tests"]] == [("forever", "Failed"), ("ok", "")]
    history = engine_for(kubeconfig, namespace).history()
    assert [(r["version"], r["info"]["status"]) for r in history] == [(1, "deployed")]
