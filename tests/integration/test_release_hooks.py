"""Hooks with real Jobs (kwok runs their pods): order, delete policies, failures, last_run."""
import datetime

import pytest

from ansible_collections.helmless.core.plugins.module_utils.actions.base import OperationError

from test_release_support import client_for, configmap, engine_for, job, literal_input, opts


def _hook_cm(name, events, weight):
    doc = configmap(name, {"k": "v"})
    doc["metadata"]["annotations"] = {"helm.sh/hook": ",".join(events), "helm.sh/hook-weight": str(weight)}
    return doc


def test_hooks_run_by_weight_then_name_with_delete_policies_and_last_run(kubeconfig, namespace):
    hooks = [job("z-post", ["post-install"], 0),
             job("b-pre", ["pre-install"], 5, ["hook-succeeded"]),
             _hook_cm("a-pre-cm", ["pre-install"], 5),
             job("c-pre", ["pre-install"], -3, ["before-hook-creation", "hook-succeeded"])]
    out = engine_for(kubeconfig, namespace).present(literal_input([configmap("app", {"k": "v"})], hooks=hooks), opts())
    assert out.changed
    rel = engine_for(kubeconfig, namespace).history()[-1]
    runs = {h["name"]: h["last_run"] for h in rel["hooks"]}
    assert all(r["phase"] == "Succeeded" for r in runs.values())
    order = sorted(runs, key=lambda n: datetime.datetime.fromisoformat(runs[n]["started_at"]))
    assert order == ["c-pre", "a-pre-cm", "b-pre", "z-post"]
    assert all(runs[n]["completed_at"] >= runs[n]["started_at"] for n in runs)
    client = client_for(kubeconfig)
    assert client.get("batch/v1", "Job", "c-pre", namespace) is None  # hook-succeeded
    assert client.get("batch/v1", "Job", "b-pre", namespace) is None
    assert client.get("batch/v1", "Job", "z-post", namespace) is not None  # before-hook-creation only
    assert client.get("v1", "ConfigMap", "a-pre-cm", namespace) is not None
    assert "meta.helm.sh/release-name" not in (client.get("v1", "ConfigMap", "a-pre-cm", namespace)["metadata"]
                                               .get("annotations") or {})  # hooks are not release resources
    # check mode names the hooks it would run and runs none
    check = engine_for(kubeconfig, namespace).present(
        literal_input([configmap("app", {"k": "v2"})], hooks=hooks + [job("u", ["pre-upgrade"])]), opts(check_mode=True))
    assert check.hooks == ["u"] and client.get("batch/v1", "Job", "u", namespace) is None


def test_a_failing_pre_upgrade_hook_fails_the_upgrade_and_is_recorded(kubeconfig, namespace):
    engine_for(kubeconfig, namespace).present(literal_input([configmap("app", {"k": "v"})]), opts())
    hooks = [job("ok", ["pre-upgrade"], -1, ["hook-succeeded"]), job("bad", ["pre-upgrade"], 0, ["hook-failed"], fail=True)]
    with pytest.raises(OperationError, match='^UPGRADE FAILED: pre-upgrade hooks failed: resource Job/%s/bad not ready. '
                                             'status: Failed, message: Job Failed. failed: 1/1$' % namespace):
        engine_for(kubeconfig, namespace).present(
            literal_input([configmap("app", {"k": "v2"})], hooks=hooks), opts(timeout=60))
    history = engine_for(kubeconfig, namespace).history()
    assert [(r["version"], r["info"]["status"]) for r in history] == [(1, "deployed"), (2, "failed")]
    runs = {h["name"]: h["last_run"]["phase"] for h in history[-1]["hooks"]}
    assert runs == {"ok": "Succeeded", "bad": "Failed"}
    client = client_for(kubeconfig)
    assert client.get("batch/v1", "Job", "bad", namespace) is None  # hook-failed
    assert client.get("batch/v1", "Job", "ok", namespace) is None  # earlier succeeded hook cleaned up
    assert client.get("v1", "ConfigMap", "app", namespace)["data"] == {"k": "v"}  # resources untouched


def test_disable_hook_skips_every_hook(kubeconfig, namespace):
    out = engine_for(kubeconfig, namespace).present(
        literal_input([configmap("app", {"k": "v"})], hooks=[job("pre", ["pre-install"])]), opts(disable_hook=True))
    assert out.changed and out.hooks == []
    assert client_for(kubeconfig).get("batch/v1", "Job", "pre", namespace) is None


def test_uninstall_runs_delete_hooks_and_leaves_hook_resources(kubeconfig, namespace):
    engine_for(kubeconfig, namespace).present(
        literal_input([configmap("app", {"k": "v"})], hooks=[job("pre-del", ["pre-delete"])]), opts())
    engine_for(kubeconfig, namespace).absent(opts())
    client = client_for(kubeconfig)
    assert client.get("v1", "ConfigMap", "app", namespace) is None
    assert client.get("batch/v1", "Job", "pre-del", namespace) is not None
