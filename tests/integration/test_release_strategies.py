"""SPEC §3, row by row, for apply_strategy chart-delta, helm3 and server-side on the real API server."""
import pytest

from ansible_collections.helmless.core.plugins.module_utils.actions.operations import OperationError

from test_release_support import client_for, configmap, deployment, engine_for, literal_input, opts

STRATEGIES = ("chart-delta", "helm3", "server-side")


def _install(kubeconfig, namespace, strategy, docs):
    engine_for(kubeconfig, namespace).present(literal_input(docs), opts(strategy=strategy))


def _upgrade(kubeconfig, namespace, strategy, docs, **kw):
    return engine_for(kubeconfig, namespace).present(literal_input(docs), opts(strategy=strategy, **kw))


def _scale(client, namespace, name, replicas):
    """What ``kubectl scale`` does: the scale subresource, field manager kubectl."""
    path = client.resource_path("apps/v1", "Deployment", namespace, name, "scale")
    client.field_manager = "kubectl"
    try:
        client.request("PATCH", path, query=[("fieldManager", "kubectl")], body={"spec": {"replicas": replicas}},
                       content_type="application/merge-patch+json")
    finally:
        client.field_manager = "helm"


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_field_the_chart_changed_is_applied(kubeconfig, namespace, strategy):
    _install(kubeconfig, namespace, strategy, [deployment("web", image="nginx:1")])
    out = _upgrade(kubeconfig, namespace, strategy, [deployment("web", image="nginx:2")])
    assert out.changed
    live = client_for(kubeconfig).get("apps/v1", "Deployment", "web", namespace)
    assert live["spec"]["template"]["spec"]["containers"][0]["image"] == "nginx:2"


@pytest.mark.parametrize("strategy, expected", [("chart-delta", 10), ("helm3", 1), ("server-side", "conflict")])
def test_a_hand_scaled_replica_count_the_chart_did_not_change(kubeconfig, namespace, strategy, expected):
    _install(kubeconfig, namespace, strategy, [deployment("web"), configmap("c", {"v": "1"})])
    client = client_for(kubeconfig)
    _scale(client, namespace, "web", 10)
    upgrade = [deployment("web"), configmap("c", {"v": "2"})]
    if expected == "conflict":
        with pytest.raises(OperationError, match="conflict"):
            _upgrade(kubeconfig, namespace, strategy, upgrade)
        assert client.get("apps/v1", "Deployment", "web", namespace)["spec"]["replicas"] == 10
        _upgrade(kubeconfig, namespace, strategy, upgrade, force_conflicts=True)
        expected = 1
    else:
        _upgrade(kubeconfig, namespace, strategy, upgrade)
    assert client.get("apps/v1", "Deployment", "web", namespace)["spec"]["replicas"] == expected


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_fields_added_by_someone_else_are_kept(kubeconfig, namespace, strategy):
    _install(kubeconfig, namespace, strategy, [deployment("web", image="nginx:1")])
    client = client_for(kubeconfig)
    client.field_manager = "injector"
    client.patch("apps/v1", "Deployment", "web", namespace,
                 {"metadata": {"annotations": {"injected": "yes"}},
                  "spec": {"template": {"spec": {"containers": [{"name": "sidecar", "image": "envoy"}]}}}})
    _upgrade(kubeconfig, namespace, strategy, [deployment("web", image="nginx:2")])
    live = client_for(kubeconfig).get("apps/v1", "Deployment", "web", namespace)
    assert live["metadata"]["annotations"]["injected"] == "yes"
    images = {c["name"]: c["image"] for c in live["spec"]["template"]["spec"]["containers"]}
    assert images == {"app": "nginx:2", "sidecar": "envoy"}


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_resource_the_chart_removed_is_deleted(kubeconfig, namespace, strategy):
    _install(kubeconfig, namespace, strategy, [configmap("a", {"k": "v"}), configmap("b", {"k": "v"})])
    _upgrade(kubeconfig, namespace, strategy, [configmap("a", {"k": "v"})])
    assert client_for(kubeconfig).get("v1", "ConfigMap", "b", namespace) is None


@pytest.mark.parametrize("strategy, recreated", [("chart-delta", False), ("helm3", True), ("server-side", True)])
def test_a_resource_deleted_by_hand_that_the_chart_did_not_change(kubeconfig, namespace, strategy, recreated):
    _install(kubeconfig, namespace, strategy, [configmap("a", {"k": "v"}), configmap("b", {"k": "v"})])
    client = client_for(kubeconfig)
    client.delete("v1", "ConfigMap", "b", namespace)
    out = _upgrade(kubeconfig, namespace, strategy, [configmap("a", {"k": "v2"}), configmap("b", {"k": "v"})])
    assert (client.get("v1", "ConfigMap", "b", namespace) is not None) == recreated
    if not recreated:
        assert {"apiVersion": "v1", "kind": "ConfigMap", "name": "b", "namespace": namespace, "action": "drift",
                "drift": ["(object missing)"]} in out.drift


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_resource_deleted_by_hand_that_the_chart_changed_is_recreated(kubeconfig, namespace, strategy):
    _install(kubeconfig, namespace, strategy, [configmap("b", {"k": "v"})])
    client = client_for(kubeconfig)
    client.delete("v1", "ConfigMap", "b", namespace)
    _upgrade(kubeconfig, namespace, strategy, [configmap("b", {"k": "v2"})])
    assert client.get("v1", "ConfigMap", "b", namespace)["data"] == {"k": "v2"}


def test_server_side_releases_are_recorded_with_apply_method_ssa(kubeconfig, namespace):
    _install(kubeconfig, namespace, "server-side", [configmap("a", {"k": "v"})])
    assert engine_for(kubeconfig, namespace).history()[-1]["apply_method"] == "ssa"
    live = client_for(kubeconfig).get("v1", "ConfigMap", "a", namespace)
    assert {(m["manager"], m["operation"]) for m in live["metadata"]["managedFields"]} == {("helm", "Apply")}


def test_drift_is_reported_per_field(kubeconfig, namespace):
    _install(kubeconfig, namespace, "chart-delta", [deployment("web"), configmap("c", {"v": "1"})])
    _scale(client_for(kubeconfig), namespace, "web", 3)
    out = _upgrade(kubeconfig, namespace, "chart-delta", [deployment("web"), configmap("c", {"v": "1"})])
    assert not out.changed
    assert [d["drift"] for d in out.drift if d["name"] == "web"] == [["spec.replicas"]]
