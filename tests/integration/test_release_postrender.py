"""Post-rendering end to end on the control plane: the plan and the diff see the post-rendered objects, which
are the objects the real kustomize (the pinned CLI) makes of the chart's manifest."""
import json
import os
import stat
import subprocess

import yaml

from ansible_collections.helmless.core.plugins.module_utils.ansible.runner import run_release

from test_release_support import client_for, module_params, write_chart

TEMPLATES = {
    "deploy.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}\n"
                   "spec:\n  replicas: 1\n  selector:\n    matchLabels:\n      app: web\n"
                   "  template:\n    metadata:\n      labels:\n        app: web\n"
                   "    spec:\n      containers:\n        - name: web\n          image: nginx:1\n",
    "cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-cm\ndata:\n  a: b\n",
}


def _labels(team):
    # Selectors are immutable on a live Deployment, so the label goes to metadata and pod templates only.
    return [{"kustomize": {"labels": [{"pairs": {"team": team}, "includeTemplates": True}]}}]


def _without(labels, own):
    assert own.items() <= labels.items(), labels
    return {k: v for k, v in labels.items() if k not in own}


def _kustomized_labels(kustomize, helm4, tmp_path, chart, namespace, renderer):
    """{kind: (metadata labels, pod template labels)} of ``kustomize build`` over ``helm template``'s manifest."""
    work = tmp_path / "kustomize"
    work.mkdir(exist_ok=True)
    (work / "chart.yaml").write_text(helm4.run("template", "web", chart, "-n", namespace).stdout)
    (work / "kustomization.yaml").write_text(yaml.safe_dump(dict(renderer["kustomize"], resources=["chart.yaml"])))
    built = subprocess.run([kustomize, "build", str(work)], capture_output=True, text=True, check=True).stdout
    return {d["kind"]: (d["metadata"].get("labels"), d.get("spec", {}).get("template", {}).get("metadata", {})
                        .get("labels")) for d in yaml.safe_load_all(built) if d}


def test_a_changed_transformer_is_previewed_exactly_and_then_applied(tmp_path, kubeconfig, namespace, helm4,
                                                                     kustomize):
    chart = write_chart(tmp_path, TEMPLATES)
    base = dict(name="web", namespace=namespace, chart_ref=chart, kubeconfig=kubeconfig)
    run_release(module_params(post_renderer=_labels("a"), **base))
    client = client_for(kubeconfig)
    deploy = client.get("apps/v1", "Deployment", "web", namespace)
    assert deploy["metadata"]["labels"]["team"] == "a"
    assert deploy["spec"]["template"]["metadata"]["labels"]["team"] == "a"

    preview, _ = run_release(module_params(post_renderer=_labels("b"), diff_format="json", **base), check_mode=True,
                             diff=True)
    assert preview["changed"]
    diffs = {d["after_header"]: d for d in preview["diff"]}
    predicted = diffs["Deployment/%s/web" % namespace]["after"]
    assert predicted["metadata"]["labels"]["team"] == "b"
    assert predicted["spec"]["template"]["metadata"]["labels"]["team"] == "b"
    assert client.get("apps/v1", "Deployment", "web", namespace)["metadata"]["labels"]["team"] == "a"

    real, _ = run_release(module_params(post_renderer=_labels("b"), **base))
    assert real["changed"]
    live = client.get("apps/v1", "Deployment", "web", namespace)
    assert live["metadata"]["labels"] == predicted["metadata"]["labels"]
    assert live["spec"]["template"]["metadata"]["labels"] == predicted["spec"]["template"]["metadata"]["labels"]
    assert client.get("v1", "ConfigMap", "web-cm", namespace)["metadata"]["labels"]["team"] == "b"
    own = {"app.kubernetes.io/managed-by": "Helm"}  # what installing adds after post-rendering, as Helm does
    live_cm = client.get("v1", "ConfigMap", "web-cm", namespace)
    assert _kustomized_labels(kustomize, helm4, tmp_path, chart, namespace, _labels("b")[0]) == {
        "Deployment": (_without(live["metadata"]["labels"], own), live["spec"]["template"]["metadata"]["labels"]),
        "ConfigMap": (_without(live_cm["metadata"]["labels"], own), None)}


def test_exec_plugins_need_enable_plugins_and_then_run(tmp_path, kubeconfig, namespace, monkeypatch):
    config_home = tmp_path / "xdg"
    plugin_dir = config_home / "kustomize" / "plugin" / "example.com" / "v1" / "stamper"
    plugin_dir.mkdir(parents=True)
    plugin = plugin_dir / "Stamper"
    plugin.write_text("#!/bin/sh\nsed 's/^  a: b$/  a: stamped/'\n")
    plugin.chmod(plugin.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config_home))
    stamper = {"apiVersion": "example.com/v1", "kind": "Stamper", "metadata": {"name": "s"}}
    base = dict(name="web", namespace=namespace, chart_ref=write_chart(tmp_path, TEMPLATES), kubeconfig=kubeconfig,
                post_renderer=[stamper])
    refused = None
    try:
        run_release(module_params(**base))
    except Exception as exc:  # the module turns this into fail_json
        refused = str(exc)
    assert refused and "enable_plugins" in refused
    assert client_for(kubeconfig).list("v1", "Secret", namespace, label_selector="owner=helm") == []
    result, _ = run_release(module_params(enable_plugins=True, **base))
    assert result["changed"]
    assert client_for(kubeconfig).get("v1", "ConfigMap", "web-cm", namespace)["data"] == {"a": "stamped"}
