"""SPEC §3, row by row, for apply_strategy chart-delta, helm3 and server-side on the real API server.

helm3 and server-side follow a real CLI (helm v3 for helm3, helm v4's server-side apply for server-side): in
every row the CLI repeats the same steps on the same cluster, in a second namespace, and our outcome must be
the one it gets. chart-delta's column is the seed's own rule (no CLI does it).
"""
import json

import pytest

from ansible_collections.helmless.core.plugins.module_utils.actions.base import OperationError

from test_release_support import (client_for, configmap, deployment, engine_for, literal_input, opts, to_yaml,
                                  write_chart)

STRATEGIES = ("chart-delta", "helm3", "server-side")
REFERENCE_CLI = {"helm3": "helm3", "server-side": "helm4"}


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


def _same_as_reference(request, tmp_path, namespace, reference_namespace, strategy, installed, between, upgraded,
                       observe):
    """For helm3 and server-side: the strategy's CLI repeats the steps in ``reference_namespace`` and what
    ``observe(namespace)`` sees of ours equals what it sees of the CLI's."""
    if strategy in REFERENCE_CLI:
        _reference(request, tmp_path, reference_namespace, strategy, installed, between, upgraded)
        assert observe(namespace) == observe(reference_namespace)


def _nothing(namespace):
    """No step between install and upgrade."""


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
def test_a_field_the_chart_changed_is_applied(request, tmp_path, kubeconfig, namespace, reference_namespace, strategy):
    installed, upgraded = [deployment("web", image="nginx:1")], [deployment("web", image="nginx:2")]
    client = client_for(kubeconfig)

    def image(ns):
        return client.get("apps/v1", "Deployment", "web", ns)["spec"]["template"]["spec"]["containers"][0]["image"]

    _install(kubeconfig, namespace, strategy, installed)
    out = _upgrade(kubeconfig, namespace, strategy, upgraded)
    assert out.changed
    assert image(namespace) == "nginx:2"
    _same_as_reference(request, tmp_path, namespace, reference_namespace, strategy, installed, _nothing, upgraded,
                       image)


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
def test_fields_added_by_someone_else_are_kept(request, tmp_path, kubeconfig, namespace, reference_namespace,
                                               strategy):
    installed, upgraded = [deployment("web", image="nginx:1")], [deployment("web", image="nginx:2")]
    injector = client_for(kubeconfig)
    injector.field_manager = "injector"

    def inject(ns):
        injector.patch("apps/v1", "Deployment", "web", ns,
                       {"metadata": {"annotations": {"injected": "yes"}},
                        "spec": {"template": {"spec": {"containers": [{"name": "sidecar", "image": "envoy"}]}}}})

    def kept(ns):
        live = client_for(kubeconfig).get("apps/v1", "Deployment", "web", ns)
        return (live["metadata"].get("annotations", {}).get("injected"),
                {c["name"]: c["image"] for c in live["spec"]["template"]["spec"]["containers"]})

    _install(kubeconfig, namespace, strategy, installed)
    inject(namespace)
    _upgrade(kubeconfig, namespace, strategy, upgraded)
    assert kept(namespace) == ("yes", {"app": "nginx:2", "sidecar": "envoy"})
    _same_as_reference(request, tmp_path, namespace, reference_namespace, strategy, installed, inject, upgraded, kept)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_resource_the_chart_removed_is_deleted(request, tmp_path, kubeconfig, namespace, reference_namespace,
                                                 strategy):
    installed, upgraded = [configmap("a", {"k": "v"}), configmap("b", {"k": "v"})], [configmap("a", {"k": "v"})]

    def left(ns):
        return sorted(n for n in ("a", "b") if client_for(kubeconfig).get("v1", "ConfigMap", n, ns) is not None)

    _install(kubeconfig, namespace, strategy, installed)
    _upgrade(kubeconfig, namespace, strategy, upgraded)
    assert left(namespace) == ["a"]
    _same_as_reference(request, tmp_path, namespace, reference_namespace, strategy, installed, _nothing, upgraded,
                       left)


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
def test_a_resource_deleted_by_hand_that_the_chart_changed_is_recreated(request, tmp_path, kubeconfig, namespace,
                                                                        reference_namespace, strategy):
    installed, upgraded = [configmap("b", {"k": "v"})], [configmap("b", {"k": "v2"})]
    client = client_for(kubeconfig)

    def remove(ns):
        client.delete("v1", "ConfigMap", "b", ns)

    def data(ns):
        live = client.get("v1", "ConfigMap", "b", ns)
        return live and live["data"]

    _install(kubeconfig, namespace, strategy, installed)
    remove(namespace)
    _upgrade(kubeconfig, namespace, strategy, upgraded)
    assert data(namespace) == {"k": "v2"}
    _same_as_reference(request, tmp_path, namespace, reference_namespace, strategy, installed, remove, upgraded, data)


def test_server_side_releases_are_recorded_with_apply_method_ssa(tmp_path, kubeconfig, namespace, reference_namespace,
                                                                 helm4):
    docs = [configmap("a", {"k": "v"})]
    _install(kubeconfig, namespace, "server-side", docs)
    helm4.run("install", "rel", _chart(tmp_path, docs, "0.1.0"), "-n", reference_namespace)
    theirs = json.loads(helm4.run("get", "metadata", "rel", "-n", reference_namespace, "-o", "json").stdout)
    assert engine_for(kubeconfig, namespace).history()[-1]["apply_method"] == "ssa" == theirs["applyMethod"]

    def managers(ns):
        live = client_for(kubeconfig).get("v1", "ConfigMap", "a", ns)
        return {(m["manager"], m["operation"]) for m in live["metadata"]["managedFields"]}

    assert managers(namespace) == {("helm", "Apply")} == managers(reference_namespace)


def test_drift_is_reported_per_field(kubeconfig, namespace):
    _install(kubeconfig, namespace, "chart-delta", [deployment("web"), configmap("c", {"v": "1"})])
    _scale(client_for(kubeconfig), namespace, "web", 3)
    out = _upgrade(kubeconfig, namespace, "chart-delta", [deployment("web"), configmap("c", {"v": "1"})])
    assert not out.changed
    assert [d["drift"] for d in out.drift if d["name"] == "web"] == [["spec.replicas"]]
