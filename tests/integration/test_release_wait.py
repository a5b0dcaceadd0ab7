"""Helm 4's wait strategies (watcher = kstatus, legacy, hookOnly), wait_for_jobs, labels, cleanup_on_fail and
rollback_on_failure, each checked against what real helm v4.3.2 does with the same chart on the same cluster."""
import json

import pytest

from ansible_collections.helmless.core.plugins.module_utils.ansible.runner import (
    ModuleFailure, run_info, run_release, run_rollback)

from test_release_support import client_for, engine_for, module_params, to_yaml, write_chart

CRD = to_yaml({
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "widgets.example.helmless.dev"},
    "spec": {"group": "example.helmless.dev", "scope": "Namespaced",
             "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
             "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                 "type": "object", "x-kubernetes-preserve-unknown-fields": True}}}]}})
# No status subresource: the chart's own status stands, as a controller that never gets there would leave it.
STATES = {
    "never-ready": {"conditions": [{"type": "Ready", "status": "False", "reason": "Provisioning",
                                    "message": "waiting for a backend"}]},
    "stale": {"observedGeneration": 0, "conditions": [{"type": "Ready", "status": "True"}]},
    "stalled": {"conditions": [{"type": "Stalled", "status": "True", "reason": "BadConfig",
                                "message": "size must be positive"}]},
    "ready": {"observedGeneration": 1, "conditions": [{"type": "Ready", "status": "True"}]},
}


NAME = "{{ .Release.Name }}"  # objects named after the release: several releases share one namespace


def _widget_chart(tmp_path, state):
    widget = {"apiVersion": "example.helmless.dev/v1", "kind": "Widget", "metadata": {"name": NAME + "-w"},
              "spec": {"size": 1}, "status": STATES[state]}
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": NAME + "-cm"}, "data": {"k": "v"}}
    return write_chart(tmp_path / state, {"w.yaml": to_yaml(widget), "cm.yaml": to_yaml(cm)}, crds={"w.yaml": CRD})


def _helm_install(helm4, name, chart, namespace, *flags):
    return helm4.run("install", name, chart, "-n", namespace, *flags, check=False)


def _status(kubeconfig, namespace, name):
    return [(r["version"], r["info"]["status"]) for r in engine_for(kubeconfig, namespace, name).history()]


@pytest.mark.parametrize("state, helm_ok", [("never-ready", False), ("stale", False), ("stalled", False),
                                            ("ready", True)])
def test_watcher_waits_for_custom_resources_by_kstatus_as_helm_and_legacy_does_not(
        tmp_path, kubeconfig, namespace, helm4, state, helm_ok):
    chart = _widget_chart(tmp_path, state)
    helm = _helm_install(helm4, "h", chart, namespace, "--wait=watcher", "--timeout", "4s")
    assert (helm.returncode == 0) == helm_ok, helm.stderr
    params = module_params(name="ours", namespace=namespace, chart_ref=chart, kubeconfig=kubeconfig,
                           wait="watcher", timeout="4s")
    if helm_ok:
        assert run_release(params)[0]["status"]["status"] == "deployed"
        return
    assert "Widget/%s/h-w not ready" % namespace in helm.stderr
    with pytest.raises(ModuleFailure) as failed:
        run_release(params)
    assert "Widget/ours-w (status " in str(failed.value)
    assert _status(kubeconfig, namespace, "ours") == _status(kubeconfig, namespace, "h") == [(1, "failed")]
    if state == "never-ready":
        assert "timed out waiting for the condition" in str(failed.value)
        assert "Ready=False: waiting for a backend" in str(failed.value)
    if state == "stalled":  # Failed is final: reported at once, not at the timeout
        assert "resources failed: Widget/ours-w (status Failed: size must be positive)" in str(failed.value)
    if state != "never-ready":
        return
    # legacy (Helm 3's rules) counts a custom resource ready once it exists; true is Helm 4's bare --wait
    assert _helm_install(helm4, "hl", chart, namespace, "--wait=legacy", "--timeout", "4s").returncode == 0
    legacy, _ = run_release(dict(params, release_name="ourl", wait="legacy"))
    assert legacy["status"]["status"] == "deployed"
    with pytest.raises(ModuleFailure, match="Widget/ourt-w"):
        run_release(dict(params, release_name="ourt", wait=True))


def test_an_unknown_wait_value_is_refused_before_anything_is_written(tmp_path, kubeconfig, namespace):
    params = module_params(name="ours", namespace=namespace, chart_ref=_widget_chart(tmp_path, "ready"),
                           kubeconfig=kubeconfig, wait="eventually")
    with pytest.raises(ModuleFailure, match='wait: invalid wait input "eventually". Valid inputs are watcher, '
                                            'hookOnly, and legacy'):
        run_release(params)
    assert client_for(kubeconfig).list("v1", "Secret", namespace, "owner=helm") == []
    assert client_for(kubeconfig).get("v1", "ConfigMap", "ours-cm", namespace) is None


def _job_chart(tmp_path, fail):
    spec = {"backoffLimit": 0, "template": {"spec": {"restartPolicy": "Never",
                                                      "containers": [{"name": "c", "image": "busybox"}]}}}
    if fail:  # never scheduled, so the Job controller fails it at its deadline
        spec["activeDeadlineSeconds"] = 2
        spec["template"]["spec"]["nodeSelector"] = {"helmless.test/no-such-node": "true"}
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": NAME + "-j"}, "spec": spec}
    return write_chart(tmp_path / ("fail" if fail else "ok"), {"j.yaml": to_yaml(job)})


def test_wait_for_jobs_waits_for_jobs_to_complete_and_a_failed_job_fails_the_wait_as_in_helm(
        tmp_path, kubeconfig, namespace, helm4):
    chart = _job_chart(tmp_path, fail=True)
    helm = _helm_install(helm4, "h", chart, namespace, "--wait=watcher", "--wait-for-jobs", "--timeout", "30s")
    assert helm.returncode != 0 and "Job" in helm.stderr
    params = module_params(name="ours", namespace=namespace, chart_ref=chart, kubeconfig=kubeconfig,
                           wait="watcher", wait_for_jobs=True, timeout="30s")
    with pytest.raises(ModuleFailure, match=r"resources failed: Job/ours-j \(status Failed: Job Failed"):
        run_release(params)
    assert _status(kubeconfig, namespace, "ours") == _status(kubeconfig, namespace, "h") == [(1, "failed")]
    # without wait_for_jobs a started Job is ready for the watcher, as for helm
    assert _helm_install(helm4, "h2", chart, namespace, "--wait=watcher", "--timeout", "30s").returncode == 0
    assert run_release(dict(params, release_name="ours2", wait_for_jobs=False))[0]["status"]["status"] == "deployed"
    ok = run_release(dict(params, release_name="ours3", chart_ref=_job_chart(tmp_path, fail=False)))[0]
    assert ok["status"]["status"] == "deployed"
    assert client_for(kubeconfig).get("batch/v1", "Job", "ours3-j", namespace)["status"].get("succeeded") == 1


def test_release_labels_are_stored_as_helm_stores_them_merged_on_upgrade_and_filter_release_info(
        tmp_path, kubeconfig, namespace, helm4):
    chart = _widget_chart(tmp_path, "ready")
    helm4.run("install", "h", chart, "-n", namespace, "--labels", "team=web,tier=front")
    run_release(module_params(name="ours", namespace=namespace, chart_ref=chart, kubeconfig=kubeconfig,
                              labels={"team": "web", "tier": "front"}))
    labels = {s["metadata"]["labels"]["name"]: {k: v for k, v in s["metadata"]["labels"].items()
                                                if k not in ("name", "createdAt", "modifiedAt")}
              for s in client_for(kubeconfig).list("v1", "Secret", namespace, "owner=helm")}
    assert labels["ours"] == labels["h"] == {"owner": "helm", "status": "deployed", "version": "1", "team": "web",
                                             "tier": "front"}
    # upgrade: merged over the deployed labels, "null" removes one (mergeCustomLabels)
    helm4.run("upgrade", "h", chart, "-n", namespace, "--labels", "tier=null,env=prod")
    up, _ = run_release(module_params(name="ours", namespace=namespace, chart_ref=chart, kubeconfig=kubeconfig,
                                      labels={"tier": "null", "env": "prod"}))
    assert up["changed"] and up["status"]["revision"] == "2"
    assert up["status"]["labels"] == {"team": "web", "env": "prod"}
    helm_listed = json.loads(helm4.run("list", "-n", namespace, "--selector", "env=prod", "-o", "json").stdout)
    info, _ = run_info({"kubeconfig": kubeconfig, "release_namespace": namespace, "selector": "env=prod"})
    assert sorted(r["name"] for r in info["releases"]) == sorted(r["name"] for r in helm_listed) == ["h", "ours"]
    info, _ = run_info({"kubeconfig": kubeconfig, "release_namespace": namespace, "selector": "tier=front"})
    assert info["releases"] == []  # the latest revisions no longer carry it
    again, _ = run_release(module_params(name="ours", namespace=namespace, chart_ref=chart, kubeconfig=kubeconfig,
                                         labels={"env": "prod"}))
    assert not again["changed"]
    # a rollback restores the target revision's labels, as helm's
    run_rollback(module_params("rollback", name="ours", namespace=namespace, kubeconfig=kubeconfig, revision=1))
    helm4.run("rollback", "h", "1", "-n", namespace)
    labels = {s["metadata"]["labels"]["name"]: s["metadata"]["labels"] for s in client_for(kubeconfig).list(
        "v1", "Secret", namespace, "owner=helm,version=3")}
    assert labels["ours"]["tier"] == labels["h"]["tier"] == "front" and "env" not in labels["ours"]
    with pytest.raises(ModuleFailure, match="system reserved label name"):
        run_release(module_params(name="ours", namespace=namespace, chart_ref=chart, kubeconfig=kubeconfig,
                                  labels={"owner": "me"}))
    assert len(engine_for(kubeconfig, namespace, "ours").history()) == 3


def test_cleanup_on_fail_and_rollback_on_failure_as_helm_4(tmp_path, kubeconfig, namespace, helm4):
    first = write_chart(tmp_path / "v1", {"cm.yaml": to_yaml(
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": NAME + "-cm"}, "data": {"k": "v1"}})},
        crds={"w.yaml": CRD})
    widget = _widget_chart(tmp_path, "never-ready")
    helm4.run("install", "h", first, "-n", namespace)
    proc = helm4.run("upgrade", "h", widget, "-n", namespace, "--wait=watcher", "--timeout", "3s",
                     "--cleanup-on-fail", check=False)
    assert proc.returncode != 0
    client = client_for(kubeconfig)
    assert client.get("v1", "ConfigMap", "h-cm", namespace)["data"] == {"k": "v"}  # changed, kept
    assert client.get("example.helmless.dev/v1", "Widget", "h-w", namespace) is None  # created, deleted
    run_release(module_params(name="ours", namespace=namespace, chart_ref=first, kubeconfig=kubeconfig))
    with pytest.raises(ModuleFailure, match='^UPGRADE FAILED: timed out'):  # helm upgrade's prefix
        run_release(module_params(name="ours", namespace=namespace, chart_ref=widget, kubeconfig=kubeconfig,
                                  wait="watcher", timeout="3s", cleanup_on_fail=True))
    assert client.get("v1", "ConfigMap", "ours-cm", namespace)["data"] == {"k": "v"}
    assert client.get("example.helmless.dev/v1", "Widget", "ours-w", namespace) is None
    assert _status(kubeconfig, namespace, "ours") == [(1, "deployed"), (2, "failed")]
    # rollback_on_failure (Helm 4's atomic) raises hookOnly to watcher and rolls back to the last good revision
    with pytest.raises(ModuleFailure, match="has been rolled back due to rollback-on-failure being set"):
        run_release(module_params(name="ours", namespace=namespace, chart_ref=widget, kubeconfig=kubeconfig,
                                  rollback_on_failure=True, timeout="3s"))
    assert _status(kubeconfig, namespace, "ours")[-2:] == [(3, "failed"), (4, "deployed")]
    assert client.get("v1", "ConfigMap", "ours-cm", namespace)["data"] == {"k": "v1"}
