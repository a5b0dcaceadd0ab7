"""wait, atomic, CRDs from crds/, the ConfigMap driver, and the per-release lease."""
import re

import pytest

from ansible_collections.helmless.core.plugins.module_utils.actions.inputs import ReleaseInput
from ansible_collections.helmless.core.plugins.module_utils.actions.base import OperationError
from ansible_collections.helmless.core.plugins.module_utils.actions.operations import ReleaseEngine
from ansible_collections.helmless.core.plugins.module_utils.release.lease import Lease

from test_release_support import (client_for, configmap, deployment, engine_for, literal_input, opts, to_yaml)

CRD = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
       "metadata": {"name": "widgets.example.com"},
       "spec": {"group": "example.com", "scope": "Namespaced",
                "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
                "versions": [{"name": "v1", "served": True, "storage": True,
                              "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}}]}}


def _unschedulable(name):
    doc = deployment(name)
    doc["spec"]["template"]["spec"]["nodeSelector"] = {"helmless.test/no-such-node": "true"}
    return doc


def test_wait_returns_once_deployments_are_ready(kubeconfig, namespace):
    out = engine_for(kubeconfig, namespace).present(literal_input([deployment("web", replicas=2)]),
                                                    opts(wait=True, timeout=120))
    assert out.changed
    live = client_for(kubeconfig).get("apps/v1", "Deployment", "web", namespace)
    assert live["status"].get("readyReplicas") == 2


def test_a_failed_wait_marks_the_revision_failed_with_the_reason(kubeconfig, namespace):
    with pytest.raises(OperationError, match='^timed out waiting for the condition'):
        engine_for(kubeconfig, namespace).present(literal_input([_unschedulable("web")]), opts(wait=True, timeout=3))
    rel = engine_for(kubeconfig, namespace).history()[-1]
    assert rel["info"]["status"] == "failed"
    assert rel["info"]["description"].startswith('Release "rel" failed: timed out waiting for the condition')
    # the reason names the object and why it is not ready, from its live status
    assert "Deployment/web (0/1 replicas ready" in rel["info"]["description"]


def test_atomic_install_uninstalls_on_failure(kubeconfig, namespace):
    with pytest.raises(OperationError, match="has been uninstalled due to rollback-on-failure being set"):
        engine_for(kubeconfig, namespace).present(literal_input([configmap("a", {"k": "v"}), _unschedulable("web")]),
                                                  opts(atomic=True, timeout=3))
    client = client_for(kubeconfig)
    assert client.list("v1", "Secret", namespace, "owner=helm") == []
    assert client.get("v1", "ConfigMap", "a", namespace) is None


def test_atomic_upgrade_rolls_back_on_failure(kubeconfig, namespace):
    engine_for(kubeconfig, namespace).present(literal_input([configmap("a", {"k": "v1"})]), opts())
    with pytest.raises(OperationError, match="has been rolled back due to rollback-on-failure being set"):
        engine_for(kubeconfig, namespace).present(
            literal_input([configmap("a", {"k": "v2"}), _unschedulable("web")]), opts(atomic=True, timeout=3))
    history = engine_for(kubeconfig, namespace).history()
    assert [(r["version"], r["info"]["status"]) for r in history] == [(1, "superseded"), (2, "failed"), (3, "deployed")]
    client = client_for(kubeconfig)
    assert client.get("v1", "ConfigMap", "a", namespace)["data"] == {"k": "v1"}
    assert client.get("apps/v1", "Deployment", "web", namespace) is None


def test_crds_from_the_chart_are_installed_before_resources_using_them(kubeconfig, namespace):
    widget = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": {"size": 1}}
    inp = literal_input([widget])
    inp.crds = [("demo/crds/widget.yaml", to_yaml(CRD))]
    client = client_for(kubeconfig)
    if client.get("apiextensions.k8s.io/v1", "CustomResourceDefinition", "widgets.example.com") is None:
        check_engine = engine_for(kubeconfig, namespace)
        check = check_engine.present(inp, opts(check_mode=True))
        assert [c.action for c in check.crds] == ["apply"]
        assert check_engine.client.count(writes_only=True, include_dry_run=False) == 0
    engine_for(kubeconfig, namespace).present(inp, opts())
    assert client_for(kubeconfig).get("example.com/v1", "Widget", "w", namespace)["spec"] == {"size": 1}


def test_a_crd_of_crds_the_server_refuses_stops_the_install_before_anything_is_written(kubeconfig, namespace):
    """The CRDs of crds/ are created all at once, as Helm's kube client does, so each is dry-run first: one the
    server refuses fails the install with Helm's words and leaves no CRD, object or record behind."""
    group = "%s.example.com" % namespace
    good = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "gadgets." + group},
            "spec": dict(CRD["spec"], group=group, names={"plural": "gadgets", "singular": "gadget", "kind": "Gadget"})}
    bad = dict(good, metadata={"name": "gizmos." + group})  # its name must be its plural and group: refused
    inp = literal_input([configmap("a", {"k": "v"})])
    inp.crds = [("demo/crds/gadget.yaml", to_yaml(good)), ("demo/crds/gizmo.yaml", to_yaml(bad))]
    eng = engine_for(kubeconfig, namespace)
    with pytest.raises(OperationError, match=r"^failed to install CRD gizmos\.%s: .*spec\.names\.plural"
                       % re.escape(group)):
        eng.present(inp, opts())
    client = client_for(kubeconfig)
    assert eng.client.count(writes_only=True, include_dry_run=False) == 0
    assert client.get("apiextensions.k8s.io/v1", "CustomResourceDefinition", "gadgets." + group) is None
    assert client.get("v1", "ConfigMap", "a", namespace) is None
    assert client.list("v1", "Secret", namespace, "owner=helm") == []


def test_the_configmap_driver_stores_releases_in_configmaps(kubeconfig, namespace, helm4):
    eng = ReleaseEngine(client_for(kubeconfig), "rel", namespace, driver="configmap")
    eng.present(literal_input([configmap("a", {"k": "v"})]), opts())
    client = client_for(kubeconfig)
    stored = client.get("v1", "ConfigMap", "sh.helm.release.v1.rel.v1", namespace)
    assert stored["metadata"]["labels"]["owner"] == "helm" and "type" not in stored
    assert client.list("v1", "Secret", namespace, "owner=helm") == []
    helm4.env["HELM_DRIVER"] = "configmap"
    assert "rel" in helm4.run("list", "-n", namespace, "-q").stdout


def test_an_operation_in_progress_blocks_another_with_helms_message(kubeconfig, namespace):
    engine_for(kubeconfig, namespace).present(literal_input([configmap("a", {"k": "v"})]), opts())
    with Lease(client_for(kubeconfig), namespace, "rel"):
        history = engine_for(kubeconfig, namespace)
        last = history.history()[-1]
        last["info"]["status"] = "pending-upgrade"
        history.storage.update(last)
        with pytest.raises(OperationError, match=r"another operation \(install/upgrade/rollback\) is in progress"):
            engine_for(kubeconfig, namespace).present(literal_input([configmap("a", {"k": "v2"})]), opts())


def test_an_empty_input_is_a_release_without_objects(kubeconfig, namespace):
    out = engine_for(kubeconfig, namespace).present(ReleaseInput(""), opts())
    assert out.changed and out.release["info"]["status"] == "deployed"


def test_namespace_scoped_rbac_is_enough(kubeconfig, namespace, limited_kubeconfig):
    path = limited_kubeconfig(namespace, [{"apiGroups": [""], "resources": ["secrets", "configmaps"],
                                           "verbs": ["get", "list", "create", "update", "patch", "delete"]}])
    limited = ReleaseEngine(client_for(path), "rel", namespace)
    out = limited.present(literal_input([configmap("a", {"k": "v"})]), opts())
    assert out.changed and out.release["info"]["status"] == "deployed"
    again = ReleaseEngine(client_for(path), "rel", namespace)
    assert not again.present(literal_input([configmap("a", {"k": "v"})]), opts()).changed
    ReleaseEngine(client_for(path), "rel", namespace).absent(opts())
    assert client_for(kubeconfig).get("v1", "ConfigMap", "a", namespace) is None


ROLLOUT = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-web
spec:
  replicas: 2
  strategy:
    rollingUpdate: {maxSurge: "100%", maxUnavailable: 0}
  selector:
    matchLabels: {app: {{ .Release.Name }}}
  template:
    metadata:
      labels: {app: {{ .Release.Name }}}
    spec:
      {{- if .Values.stuck }}
      nodeSelector: {helmless.test/no-such-node: "true"}
      {{- end }}
      containers:
        - {name: app, image: "nginx:{{ .Values.tag }}"}
"""


def test_a_rollout_whose_new_pods_never_get_ready_fails_the_wait_like_helms_even_with_old_pods_up(
        tmp_path, kubeconfig, namespace, helm3):
    """Helm waits for the Deployment's new ReplicaSet: the old one's ready pods do not count (helm 3 agrees)."""
    from ansible_collections.helmless.core.plugins.module_utils.ansible.runner import ModuleFailure, run_release

    from test_release_support import module_params, write_chart

    chart = write_chart(tmp_path, {"deploy.yaml": ROLLOUT}, values={"tag": "1", "stuck": False})
    helm = ["--namespace", namespace, "--wait", "--timeout", "60s"]
    helm3.run("install", "theirs", chart, *helm)
    params = dict(name="ours", namespace=namespace, chart_ref=chart, kubeconfig=kubeconfig, wait=True)
    run_release(module_params(**params))
    stuck = {"tag": "2", "stuck": True}
    failed = helm3.run("upgrade", "theirs", chart, "--set", "tag=2,stuck=true", "--namespace", namespace, "--wait",
                       "--timeout", "8s", check=False)
    assert failed.returncode != 0 and "context deadline exceeded" in failed.stderr, failed.stderr
    with pytest.raises(ModuleFailure) as ours:
        run_release(module_params(values=stuck, timeout="8s", **params))
    assert "timed out waiting for the condition" in str(ours.value)
    assert re.search(r"Deployment/ours-web \(2/2 replicas ready, 2 updated; new ReplicaSet ours-web-\w+ 0/2 ready",
                     str(ours.value)), str(ours.value)
