"""Bad input fails clearly and leaves the release history and the cluster as they were."""
import pytest

from ansible_collections.helmless.core.plugins.module_utils.actions.base import OperationError
from ansible_collections.helmless.core.plugins.module_utils.ansible.runner import ModuleFailure, run_release

from test_release_support import (client_for, configmap, deployment, engine_for, literal_input, module_params, opts,
                                  to_yaml, write_chart)


def _state(client, namespace):
    """Release records and objects in the namespace (what must not change)."""
    secrets = sorted((s["metadata"]["name"], s["metadata"]["resourceVersion"])
                     for s in client.list("v1", "Secret", namespace, "owner=helm"))
    cms = sorted((c["metadata"]["name"], c["metadata"]["resourceVersion"]) for c in client.list("v1", "ConfigMap", namespace)
                 if c["metadata"]["name"] != "kube-root-ca.crt")
    deploys = sorted(d["metadata"]["name"] for d in client.list("apps/v1", "Deployment", namespace))
    return secrets, cms, deploys


def test_a_malformed_kubeconfig_is_reported(tmp_path):
    bad = tmp_path / "kubeconfig"
    bad.write_text("apiVersion: v1\nclusters: [ {\n")
    chart = write_chart(tmp_path, {"a.yaml": to_yaml(configmap("a", {"k": "v"}))})
    with pytest.raises(ModuleFailure, match="invalid kubeconfig"):
        run_release(module_params(name="rel", namespace="x", chart_ref=chart, kubeconfig=str(bad)))


def test_an_unreachable_server_is_reported(tmp_path):
    chart = write_chart(tmp_path, {"a.yaml": to_yaml(configmap("a", {"k": "v"}))})
    with pytest.raises(ModuleFailure, match="cannot reach the Kubernetes API"):
        run_release(module_params(name="rel", namespace="x", chart_ref=chart, host="https://127.0.0.1:1",
                                  api_key="t", validate_certs=False, kubeconfig=None))


def test_a_missing_namespace_needs_create_namespace(kubeconfig, namespace):
    eng = engine_for(kubeconfig, namespace + "-missing")
    with pytest.raises(OperationError, match='namespaces "%s-missing" not found' % namespace):
        eng.present(literal_input([configmap("a", {"k": "v"})]), opts())
    assert eng.client.count(writes_only=True) == 0


def test_an_object_of_another_release_is_not_taken_over(kubeconfig, namespace):
    engine_for(kubeconfig, namespace, "other").present(literal_input([configmap("shared", {"k": "theirs"})]), opts())
    client = client_for(kubeconfig)
    before = _state(client, namespace)
    with pytest.raises(OperationError, match='ConfigMap "shared" in namespace "%s" exists and cannot be imported' % namespace):
        engine_for(kubeconfig, namespace).present(
            literal_input([configmap("mine", {"k": "v"}), configmap("shared", {"k": "mine"})]), opts())
    assert _state(client, namespace) == before
    engine_for(kubeconfig, namespace).present(literal_input([configmap("shared", {"k": "mine"})]), opts(take_ownership=True))
    live = client.get("v1", "ConfigMap", "shared", namespace)
    assert live["data"] == {"k": "mine"} and live["metadata"]["annotations"]["meta.helm.sh/release-name"] == "rel"


def test_an_object_the_server_rejects_fails_before_any_write(kubeconfig, namespace):
    engine_for(kubeconfig, namespace).present(literal_input([configmap("a", {"k": "v"})]), opts())
    client = client_for(kubeconfig)
    before = _state(client, namespace)
    bad = deployment("web")
    bad["spec"]["replicas"] = "many"
    with pytest.raises(OperationError, match="web"):
        engine_for(kubeconfig, namespace).present(literal_input([configmap("a", {"k": "v2"}), bad]), opts())
    assert _state(client, namespace) == before
    assert [r["info"]["status"] for r in engine_for(kubeconfig, namespace).history()] == ["deployed"]
