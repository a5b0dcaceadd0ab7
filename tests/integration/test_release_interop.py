"""Interoperability both ways with the real helm v4 and v3 CLIs on the same release records."""
import json

import pytest

from ansible_collections.helmless.core.plugins.module_utils.ansible.runner import run_release

import differential_compare as compare
from test_release_support import (client_for, configmap, engine_for, literal_input, module_params, opts, to_yaml,
                                  write_chart)


def _chart(tmp_path, data, version="0.1.0"):
    return write_chart(tmp_path / version, {"a.yaml": to_yaml(configmap("a", data))}, version=version)


def _helm_json(helm, *args):
    return json.loads(helm.run(*args, "-o", "json").stdout)


@pytest.mark.parametrize("which", ["helm4", "helm3"])
def test_helm_reads_upgrades_rolls_back_and_uninstalls_our_release(request, tmp_path, kubeconfig, namespace, which):
    helm = request.getfixturevalue(which)
    engine_for(kubeconfig, namespace).present(literal_input([configmap("a", {"k": "v1"})], config={"x": 1}), opts())
    engine_for(kubeconfig, namespace).present(literal_input([configmap("a", {"k": "v2"})], config={"x": 2}), opts())
    listed = _helm_json(helm, "list", "-n", namespace)
    assert [(r["name"], r["revision"], r["status"], r["chart"]) for r in listed] == [("rel", "2", "deployed", "demo-0.1.0")]
    history = _helm_json(helm, "history", "rel", "-n", namespace)
    assert [(h["revision"], h["status"], h["description"]) for h in history] == [
        (1, "superseded", "Install complete"), (2, "deployed", "Upgrade complete")]
    assert _helm_json(helm, "get", "values", "rel", "-n", namespace) == {"x": 2}
    assert "name: a" in helm.run("get", "manifest", "rel", "-n", namespace).stdout
    helm.run("rollback", "rel", "1", "-n", namespace)
    client = client_for(kubeconfig)
    assert client.get("v1", "ConfigMap", "a", namespace)["data"] == {"k": "v1"}
    helm.run("upgrade", "rel", _chart(tmp_path, {"k": "v9"}, "0.2.0"), "-n", namespace)
    assert client.get("v1", "ConfigMap", "a", namespace)["data"] == {"k": "v9"}
    assert engine_for(kubeconfig, namespace).history()[-1]["info"]["status"] == "deployed"
    helm.run("uninstall", "rel", "-n", namespace)
    assert client.get("v1", "ConfigMap", "a", namespace) is None
    assert client.list("v1", "Secret", namespace, "owner=helm") == []


@pytest.mark.parametrize("which", ["helm4", "helm3"])
def test_we_upgrade_roll_back_and_describe_a_helm_installed_release(request, tmp_path, kubeconfig, namespace, which):
    helm = request.getfixturevalue(which)
    helm.run("install", "rel", _chart(tmp_path, {"k": "v1"}), "-n", namespace, "--set", "x=1")
    eng = engine_for(kubeconfig, namespace)
    assert eng.history()[-1]["info"]["status"] == "deployed"
    same = literal_input([configmap("a", {"k": "v1"})], config={"x": 1})
    out = eng.present(same, opts(check_mode=True))
    assert [c.action for c in out.changes] == ["unchanged"]  # Helm's stored manifest is our ①
    out = engine_for(kubeconfig, namespace).present(literal_input([configmap("a", {"k": "v2"})]), opts())
    assert out.changed and out.release["version"] == 2
    client = client_for(kubeconfig)
    assert client.get("v1", "ConfigMap", "a", namespace)["data"] == {"k": "v2"}
    engine_for(kubeconfig, namespace).rollback(1, opts())
    assert client.get("v1", "ConfigMap", "a", namespace)["data"] == {"k": "v1"}
    history = _helm_json(helm, "history", "rel", "-n", namespace)
    assert [(h["revision"], h["status"]) for h in history] == [(1, "superseded"), (2, "superseded"), (3, "deployed")]
    helm.run("status", "rel", "-n", namespace)
    engine_for(kubeconfig, namespace).absent(opts())
    assert client.get("v1", "ConfigMap", "a", namespace) is None


def _listed(data):
    """A template that is a ``kind: List`` of a ConfigMap and a ServiceAccount (aws-load-balancer-controller
    ships its IngressClassParams and IngressClass so), beside a plain ConfigMap."""
    items = [configmap("in-list", data), {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "sa"}}]
    listed = {"apiVersion": "v1", "kind": "List", "metadata": {"name": "things"}, "items": items}
    return {"list.yaml": to_yaml(listed), "plain.yaml": to_yaml(configmap("plain", {"k": "v"}))}


def test_a_list_document_is_installed_upgraded_and_deleted_item_by_item_as_helm_does(
        tmp_path, kubeconfig, namespace, reference_namespace, helm4):
    first = write_chart(tmp_path / "1", _listed({"k": "v1"}))
    helm4.run("upgrade", "--install", "rel", first, "-n", reference_namespace)
    params = module_params(name="rel", namespace=namespace, chart_ref=first, kubeconfig=kubeconfig)
    installed, _ = run_release(params)
    assert installed["changed"] and installed["status"]["status"] == "deployed"
    kube = compare.client(kubeconfig)
    for kind, name in (("ConfigMap", "in-list"), ("ServiceAccount", "sa"), ("ConfigMap", "plain")):
        helms, ours = (kube.get("v1", kind, name, ns) for ns in (reference_namespace, namespace))
        assert compare.normalized_object(ours, namespace) == compare.normalized_object(helms, reference_namespace)
    on_helms, _ = run_release(dict(params, release_namespace=reference_namespace))  # same chart: nothing to do
    assert not on_helms["changed"] and on_helms["api_requests"]["writes"] == 0

    second = write_chart(tmp_path / "2", _listed({"k": "v2"}))
    upgraded, _ = run_release(dict(params, chart_ref=second))
    assert upgraded["changed"] and kube.get("v1", "ConfigMap", "in-list", namespace)["data"] == {"k": "v2"}
    assert "kind: List" in helm4.run("get", "manifest", "rel", "-n", namespace).stdout  # the manifest as rendered
    helm4.run("rollback", "rel", "1", "-n", namespace)  # helm reads our revisions' items as its own
    assert kube.get("v1", "ConfigMap", "in-list", namespace)["data"] == {"k": "v1"}

    removed, _ = run_release(dict(params, release_state="absent"))
    assert removed["changed"]
    assert [kube.get("v1", kind, name, namespace) for kind, name in (("ConfigMap", "in-list"), ("ServiceAccount", "sa"),
                                                                       ("ConfigMap", "plain"))] == [None] * 3
