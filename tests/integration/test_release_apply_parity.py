"""Helm 4 apply parity with the real helm CLIs: apply_method, --server-side=auto, field managers.

Every step is followed by a look at each object's managedFields: the entries of field manager ``helm``
must all carry the operation the helm CLI itself used when it installed the release (Apply for Helm 4's
server-side apply, Update for Helm 3's patches), so the tools never leave mixed managers behind.
"""
import json

import pytest

from ansible_collections.helmless.core.plugins.module_utils.actions.info import describe
from ansible_collections.helmless.core.plugins.module_utils.actions.base import OperationError

from test_release_support import (client_for, configmap, deployment, engine_for, literal_input, opts, to_yaml,
                                  write_chart)


def _docs(value, image="nginx:1"):
    return [configmap("a", {"k": value}), deployment("web", image=image)]


def _chart(tmp_path, docs, version):
    return write_chart(tmp_path / version, {"%s.yaml" % d["metadata"]["name"]: to_yaml(d) for d in docs},
                       version=version)


def _helm_operations(kubeconfig, namespace):
    """{object: set of operations of manager ``helm``'s entries on the main resource}."""
    client = client_for(kubeconfig)
    out = {}
    for api_version, kind, name in (("v1", "ConfigMap", "a"), ("apps/v1", "Deployment", "web")):
        live = client.get(api_version, kind, name, namespace)
        out[name] = {e["operation"] for e in live["metadata"]["managedFields"]
                     if e["manager"] == "helm" and not e.get("subresource")}
    return out


def _apply_method(helm, namespace):
    return json.loads(helm.run("get", "metadata", "rel", "-n", namespace, "-o", "json").stdout).get("applyMethod")


@pytest.mark.parametrize("which", ["helm4", "helm3"])
def test_helm_and_we_take_turns_without_conflicts_or_mixed_managers(request, tmp_path, kubeconfig, namespace,
                                                                     which):
    helm = request.getfixturevalue(which)
    helm.run("install", "rel", _chart(tmp_path, _docs("v1"), "0.1.0"), "-n", namespace)
    ops = _helm_operations(kubeconfig, namespace)
    (helm_op,) = set.union(*ops.values())  # what the helm CLI itself used: Apply (v4) or Update (v3)
    helm_method = engine_for(kubeconfig, namespace).history()[-1].get("apply_method")

    out = engine_for(kubeconfig, namespace).present(literal_input(_docs("v2", "nginx:2")), opts())
    assert out.changed and out.release["apply_method"] == ("ssa" if helm_method == "ssa" else "csa")
    assert _helm_operations(kubeconfig, namespace) == {"a": {helm_op}, "web": {helm_op}}

    helm.run("upgrade", "rel", _chart(tmp_path, _docs("v3", "nginx:3"), "0.3.0"), "-n", namespace)
    assert engine_for(kubeconfig, namespace).history()[-1].get("apply_method") == helm_method
    assert _helm_operations(kubeconfig, namespace) == {"a": {helm_op}, "web": {helm_op}}

    rerun = engine_for(kubeconfig, namespace)  # the same chart and values as helm's upgrade: nothing to do
    assert not rerun.present(literal_input(_docs("v3", "nginx:3"), version="0.3.0"), opts()).changed
    assert rerun.client.count(writes_only=True) == 0 and len(rerun.history()) == 3

    out = engine_for(kubeconfig, namespace).present(literal_input(_docs("v4", "nginx:4")), opts())
    assert out.changed and out.release["version"] == 4
    assert _helm_operations(kubeconfig, namespace) == {"a": {helm_op}, "web": {helm_op}}

    helm.run("rollback", "rel", "2", "-n", namespace)
    client = client_for(kubeconfig)
    assert client.get("v1", "ConfigMap", "a", namespace)["data"] == {"k": "v2"}
    image = client.get("apps/v1", "Deployment", "web", namespace)["spec"]["template"]["spec"]["containers"][0]
    assert image["image"] == "nginx:2"
    assert _helm_operations(kubeconfig, namespace) == {"a": {helm_op}, "web": {helm_op}}
    history = json.loads(helm.run("history", "rel", "-n", namespace, "-o", "json").stdout)
    assert [(h["revision"], h["status"]) for h in history] == [
        (1, "superseded"), (2, "superseded"), (3, "superseded"), (4, "superseded"), (5, "deployed")]
    assert "STATUS: deployed" in helm.run("status", "rel", "-n", namespace).stdout
    info = describe(engine_for(kubeconfig, namespace))
    assert [(h["revision"], h["status"], h["description"]) for h in info["history"]] == [
        (h["revision"], h["status"], h["description"]) for h in history]
    if which == "helm4":
        assert _apply_method(helm, namespace) == "ssa"


def test_our_install_is_server_side_and_helm4_upgrades_it_server_side(tmp_path, kubeconfig, namespace, helm4):
    out = engine_for(kubeconfig, namespace).present(literal_input(_docs("v1")), opts())
    assert out.release["apply_method"] == "ssa"
    assert _helm_operations(kubeconfig, namespace) == {"a": {"Apply"}, "web": {"Apply"}}
    assert _apply_method(helm4, namespace) == "ssa"
    helm4.run("upgrade", "rel", _chart(tmp_path, _docs("v2", "nginx:2"), "0.2.0"), "-n", namespace)
    assert _apply_method(helm4, namespace) == "ssa"
    assert _helm_operations(kubeconfig, namespace) == {"a": {"Apply"}, "web": {"Apply"}}
    assert client_for(kubeconfig).get("v1", "ConfigMap", "a", namespace)["data"] == {"k": "v2"}


def test_server_side_true_moves_a_helm3_release_to_apply_managers_as_helm4_does(tmp_path, kubeconfig, namespace,
                                                                               helm3, helm4):
    helm3.run("install", "rel", _chart(tmp_path, _docs("v1"), "0.1.0"), "-n", namespace)
    assert _helm_operations(kubeconfig, namespace) == {"a": {"Update"}, "web": {"Update"}}
    out = engine_for(kubeconfig, namespace).present(literal_input(_docs("v2")), opts(server_side="true"))
    assert out.release["apply_method"] == "ssa"
    assert _helm_operations(kubeconfig, namespace) == {"a": {"Apply"}, "web": {"Apply"}}
    helm4.run("upgrade", "rel", _chart(tmp_path, _docs("v3", "nginx:3"), "0.3.0"), "-n", namespace)
    assert _apply_method(helm4, namespace) == "ssa"
    assert _helm_operations(kubeconfig, namespace) == {"a": {"Apply"}, "web": {"Apply"}}


def test_auto_keeps_a_helm3_release_client_side_and_server_side_false_keeps_ours_client_side(
        tmp_path, kubeconfig, namespace, helm3):
    helm3.run("install", "rel", write_chart(tmp_path, {"a.yaml": to_yaml(configmap("a", {"k": "v1"}))}),
              "-n", namespace)
    out = engine_for(kubeconfig, namespace).present(literal_input([configmap("a", {"k": "v2"})]), opts())
    assert out.release["apply_method"] == "csa"
    out = engine_for(kubeconfig, namespace).present(literal_input([configmap("a", {"k": "v3"})]),
                                                    opts(server_side="false"))
    assert out.release["apply_method"] == "csa"


def test_contradicting_apply_options_are_refused_before_anything_is_written(kubeconfig, namespace):
    engine_for(kubeconfig, namespace).present(literal_input([configmap("a", {"k": "v1"})]), opts())
    for bad, message in ((dict(strategy="helm3", server_side="true"), "helm3 applies client-side"),
                         (dict(strategy="server-side", server_side="false"), "server-side applies server-side"),
                         (dict(force=True, server_side="true"), "cannot use server-side apply and force replace")):
        eng = engine_for(kubeconfig, namespace)
        with pytest.raises(OperationError, match=message):
            eng.present(literal_input([configmap("a", {"k": "v2"})]), opts(**bad))
        assert eng.client.count(writes_only=True, include_dry_run=False) == 0
    assert [r["version"] for r in engine_for(kubeconfig, namespace).history()] == [1]


def test_take_ownership_of_an_object_another_manager_wrote(kubeconfig, namespace):
    client = client_for(kubeconfig)
    client.field_manager = "kubectl-client-side-apply"
    client.create(dict(configmap("a", {"k": "theirs"}), metadata={"name": "a", "namespace": namespace}))
    with pytest.raises(OperationError, match="conflict"):  # Helm 4's server-side apply: a conflict
        engine_for(kubeconfig, namespace).present(literal_input([configmap("a", {"k": "ours"})]),
                                                  opts(strategy="server-side", take_ownership=True))
    # chart-delta: everything of a taken-over object is the chart's
    engine_for(kubeconfig, namespace).present(literal_input([configmap("a", {"k": "ours"})]),
                                              opts(take_ownership=True))
    assert client.get("v1", "ConfigMap", "a", namespace)["data"] == {"k": "ours"}
    owners = {e["manager"] for e in client.get("v1", "ConfigMap", "a", namespace)["metadata"]["managedFields"]
              if "f:k" in e["fieldsV1"].get("f:data", {})}
    assert owners == {"helm"}
