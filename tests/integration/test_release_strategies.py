"""SPEC §3, row by row, for apply_strategy chart-delta, helm3 and server-side on the real API server.

Where helm3 and server-side differ from chart-delta, the expected outcome is what the real CLI they
follow (helm v3 for helm3, helm v4's server-side apply for server-side) does with the same steps on
the same cluster; chart-delta's column is the seed's own rule.
"""
import uuid

import pytest

from ansible_collections.helmless.core.plugins.module_utils.actions.operations import OperationError

from test_release_support import (client_for, configmap, deployment, engine_for, literal_input, opts, to_yaml,
                                  write_chart)

STRATEGIES = ("chart-delta", "helm3", "server-side")
REFERENCE_CLI = {"helm3": "helm3", "server-side": "helm4"}


@pytest.fixture
def reference_namespace(kube_client):
    """A second fresh namespace, where the reference helm CLI repeats the test's steps."""
    from kubernetes import client

    name = "r-" + uuid.uuid4().hex[:10]
    core = client.CoreV1Api(kube_client)
    core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=name)))
    yield name
    core.delete_namespace(name)


def _chart(root, docs, version):
    return write_chart(root / version, {"%s.yaml" % d["metadata"]["name"]: to_yaml(d) for d in docs},
                       version=version)


def _reference(request, tmp_path, namespace, strategy, installed, between, upgraded):
    """Run install → ``between(namespace)`` → upgrade with the strategy's helm CLI; a conflict is retried
    with --force-conflicts. Returns whether the upgrade first hit a conflict."""
    helm = request.getfixturevalue(REFERENCE_CLI[strategy])
    helm.run("install", "rel", _chart(tmp_path, installed, "0.1.0"), "-n", namespace)
    between(namespace)
    chart = _chart(tmp_path, upgraded, "0.2.0")
    proc = helm.run("upgrade", "rel", chart, "-n", namespace, check=False)
    conflict = proc.returncode != 0
    if conflict:
        assert "conflict" in proc.stderr, proc.stderr
        helm.run("upgrade", "rel", chart, "-n", namespace, "--force-conflicts")
    return conflict


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


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_hand_scaled_replica_count_the_chart_did_not_change(request, tmp_path, kubeconfig, namespace,
                                                              reference_namespace, strategy):
    installed = [deployment("web"), configmap("c", {"v": "1"})]
    upgraded = [deployment("web"), configmap("c", {"v": "2"})]
    client = client_for(kubeconfig)

    def replicas(ns):
        return client.get("apps/v1", "Deployment", "web", ns)["spec"]["replicas"]

    _install(kubeconfig, namespace, strategy, installed)
    _scale(client, namespace, "web", 10)
    try:
        _upgrade(kubeconfig, namespace, strategy, upgraded)
        conflict = False
    except OperationError as exc:
        assert "conflict" in str(exc)
        assert replicas(namespace) == 10
        _upgrade(kubeconfig, namespace, strategy, upgraded, force_conflicts=True)
        conflict = True
    if strategy == "chart-delta":
        assert (conflict, replicas(namespace)) == (False, 10)  # the seed: a hand edit the chart did not touch stays
    else:
        expected = _reference(request, tmp_path, reference_namespace, strategy, installed,
                              lambda ns: _scale(client, ns, "web", 10), upgraded)
        assert (conflict, replicas(namespace)) == (expected, replicas(reference_namespace))


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


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_resource_deleted_by_hand_that_the_chart_did_not_change(request, tmp_path, kubeconfig, namespace,
                                                                  reference_namespace, strategy):
    installed = [configmap("a", {"k": "v"}), configmap("b", {"k": "v"})]
    upgraded = [configmap("a", {"k": "v2"}), configmap("b", {"k": "v"})]
    client = client_for(kubeconfig)
    _install(kubeconfig, namespace, strategy, installed)
    client.delete("v1", "ConfigMap", "b", namespace)
    out = _upgrade(kubeconfig, namespace, strategy, upgraded)
    recreated = client.get("v1", "ConfigMap", "b", namespace) is not None
    if strategy == "chart-delta":
        assert not recreated  # the seed: reported as drift instead
    else:
        _reference(request, tmp_path, reference_namespace, strategy, installed,
                   lambda ns: client.delete("v1", "ConfigMap", "b", ns), upgraded)
        assert recreated == (client.get("v1", "ConfigMap", "b", reference_namespace) is not None)
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
