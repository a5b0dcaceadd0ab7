"""Interoperability both ways with the real helm v4 and v3 CLIs on the same release records."""
import json

import pytest

from test_release_support import (client_for, configmap, engine_for, literal_input, opts, to_yaml, write_chart)


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
