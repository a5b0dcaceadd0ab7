"""The field-level plan on the real control plane: each changed field of an update as a JSON pointer with
its live value before and the value the real run leaves, chart changes told apart from drift put back;
changes the API server refuses (immutable fields) all marked in check mode before any write, and the
documented pipeline gate stopping on them; custom resources of a CRD the run installs predicted with the
schema's defaults. Expected values are read from the cluster."""
import json
import os
import subprocess
import sys
import uuid

import pytest
import yaml

from ansible_collections.helmless.core.plugins.module_utils.ansible.runner import ModuleFailure, run_release
from ansible_collections.helmless.core.plugins.module_utils.plan.changes import value_at

from test_release_support import client_for, engine_for, module_params, prediction_matches, write_chart

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEPLOY = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: {{ .Values.replicas }}
  selector:
    matchLabels: {app: {{ .Values.app }}}
  template:
    metadata:
      labels: {app: {{ .Values.app }}}
    spec:
      containers:
      - {name: app, image: "nginx:1"}
"""
JOB = """apiVersion: batch/v1
kind: Job
metadata:
  name: once
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: c, image: "busybox:{{ .Values.tag }}"}
"""
CONFIG = """apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  k: v
  other: {{ .Values.other | quote }}
"""
VALUES = {"replicas": 1, "app": "web", "tag": "1", "other": "a"}


def _chart(tmp_path, templates):
    return write_chart(tmp_path, templates, values=VALUES)


def _fields(result, kind):
    return {f["path"]: f for entry in result["plan"] if entry["kind"] == kind for f in entry.get("fields", ())}


def test_an_upgrade_lists_each_changed_field_with_live_values_and_tells_chart_changes_from_drift(
        tmp_path, kubeconfig, namespace):
    chart = _chart(tmp_path, {"deploy.yaml": DEPLOY, "cm.yaml": CONFIG})
    base = dict(name="rel", namespace=namespace, chart_ref=chart, kubeconfig=kubeconfig, apply_strategy="helm3")
    run_release(module_params(**base))
    client = client_for(kubeconfig)
    client.patch("v1", "ConfigMap", "settings", namespace, {"data": {"k": "by hand"}, "metadata": {
        "labels": {"app.kubernetes.io/managed-by": None}}}, "merge")
    before = {kind: client.get(api, kind, name, namespace)
              for api, kind, name in (("apps/v1", "Deployment", "web"), ("v1", "ConfigMap", "settings"))}
    upgrade = module_params(values=dict(VALUES, replicas=2, other="b"), **base)
    check, _ = run_release(upgrade, check_mode=True)
    run_release(upgrade)
    deploy, config = _fields(check, "Deployment"), _fields(check, "ConfigMap")
    assert deploy["/spec/replicas"]["cause"] == "chart" and config["/data/other"]["cause"] == "chart"
    assert config["/data/k"]["cause"] == "drift"
    marker = config["/metadata/labels"]  # Helm's only label, removed by hand, put back
    assert marker["op"] == "add" and marker["cause"] == "drift"
    for kind, fields in (("Deployment", deploy), ("ConfigMap", config)):
        after = client.get(before[kind]["apiVersion"], kind, before[kind]["metadata"]["name"], namespace)
        for path, field in fields.items():
            assert field.get("before", "(none)") == value_at(before[kind], path, "(none)"), path
            assert field["after"] == value_at(after, path), path
    assert set(deploy) == {"/spec/replicas"}
    assert set(config) == {"/data/k", "/data/other", "/metadata/labels"}
    assert check["summary"] == "Plan: 0 to add, 2 to change, 0 to destroy, 0 unchanged"


def _playbook(tmp_path, tasks):
    play = [{"hosts": "localhost", "connection": "local", "gather_facts": False, "tasks": tasks}]
    (tmp_path / "play.yml").write_text(yaml.safe_dump(play))
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=os.path.join(ROOT, ".build", "collections"),
               ANSIBLE_LOCALHOST_WARNING="false", ANSIBLE_NOCOLOR="1")
    return subprocess.run(["ansible-playbook", "-i", "localhost,", "-e", "ansible_python_interpreter=" + sys.executable,
                           str(tmp_path / "play.yml")], env=env, capture_output=True, text=True)


@pytest.mark.ansible_core
def test_immutable_changes_are_all_refused_in_check_mode_before_any_write_and_the_pipeline_gate_stops(
        tmp_path, kubeconfig, namespace):
    chart = _chart(tmp_path, {"deploy.yaml": DEPLOY, "job.yaml": JOB, "cm.yaml": CONFIG})
    base = dict(name="rel", namespace=namespace, chart_ref=chart, kubeconfig=kubeconfig)
    run_release(module_params(**base))
    changed = module_params(values=dict(VALUES, app="web2", tag="2", other="b"), **base)
    with pytest.raises(ModuleFailure) as check:
        run_release(changed, check_mode=True)
    with pytest.raises(ModuleFailure) as real:
        run_release(changed)
    assert str(check.value) == str(real.value) and "field is immutable" in str(check.value)
    for failed in (check.value, real.value):
        assert failed.result["api_requests"]["writes"] == 0
    assert [r["version"] for r in engine_for(kubeconfig, namespace).history()] == [1]
    assert client_for(kubeconfig).get("v1", "ConfigMap", "settings", namespace)["data"]["other"] == "a"

    plan = {entry["kind"]: entry for entry in check.value.result["plan"]}
    for kind in ("Deployment", "Job"):
        assert plan[kind]["replacement"] and "field is immutable" in plan[kind]["refused"], plan[kind]
    assert "refused" not in plan["ConfigMap"]
    selector = {f["path"]: f for f in plan["Deployment"]["fields"]}["/spec/selector/matchLabels/app"]
    assert selector["replacement"] and (selector["before"], selector["after"]) == ("web", "web2")
    assert check.value.result["summary"].endswith("; 2 refused by the server (2 need replacement)")

    task = {"name": "rel", "namespace": namespace, "chart_ref": chart, "kubeconfig": kubeconfig,
            "values": dict(VALUES, app="web2")}
    gate = _playbook(tmp_path, [
        {"helmless.core.release": task, "check_mode": True, "diff": True, "register": "preview", "failed_when": False},
        {"ansible.builtin.assert": {
            "that": ["preview.plan | selectattr('action', 'equalto', 'delete') | list | length == 0",
                     "preview.plan | selectattr('refused', 'defined') | list | length == 0",
                     "preview is not failed"],
            "fail_msg": "{{ preview.summary | default(preview.msg) }}: {{ preview.plan | default([]) "
                        "| selectattr('refused', 'defined') | map(attribute='refused') | list }}"}},
        {"helmless.core.release": task}])
    assert gate.returncode != 0 and "1 refused by the server (1 need replacement)" in gate.stdout, gate.stdout[-3000:]
    assert "field is immutable" in gate.stdout and "TASK [helmless.core.release]" in gate.stdout
    assert [r["version"] for r in engine_for(kubeconfig, namespace).history()] == [1]


CRD = """apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.GROUP
spec:
  group: GROUP
  scope: Namespaced
  names: {kind: Widget, plural: widgets, singular: widget, listKind: WidgetList}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            default: {}
            properties:
              interval: {type: string, default: 30s}
              size: {type: integer, default: 3}
              given: {type: string, default: unused}
              limits:
                type: object
                default: {cpu: "1"}
                properties:
                  cpu: {type: string}
                  memory: {type: string, default: 1Gi}
              ports:
                type: array
                items:
                  type: object
                  properties:
                    port: {type: integer}
                    protocol: {type: string, default: TCP}
              labels:
                type: object
                additionalProperties:
                  type: object
                  properties:
                    value: {type: string}
                    weight: {type: integer, default: 1}
              mode: {type: string, default: fast}
"""
WIDGET = """apiVersion: GROUP/v1
kind: Widget
metadata:
  name: w
spec:
  given: chart
  ports:
  - port: 80
  - port: 53
    protocol: UDP
  labels:
    a: {value: x}
  mode: null
"""


def test_a_custom_resource_of_a_crd_the_run_installs_is_predicted_with_the_schemas_defaults(
        tmp_path, kubeconfig, namespace):
    group = "t%s.example.helmless.io" % uuid.uuid4().hex[:8]  # a kind no cached discovery of an older cluster knows
    chart = write_chart(tmp_path, {"widget.yaml": WIDGET.replace("GROUP", group)},
                        crds={"widgets.yaml": CRD.replace("GROUP", group)})
    params = module_params(name="rel", namespace=namespace, chart_ref=chart, kubeconfig=kubeconfig,
                           diff_format="json")
    try:
        check, _ = run_release(params, check_mode=True, diff=True)
        run_release(params)
        predicted = {d["after_header"]: d["after"] for d in check["diff"]}["Widget/%s/w" % namespace]
        live = client_for(kubeconfig).get(group + "/v1", "Widget", "w", namespace)
        assert prediction_matches(live, predicted), json.dumps([live, predicted])
        assert live["spec"]["limits"] == {"cpu": "1", "memory": "1Gi"}  # the defaults did apply
    finally:
        run_release(dict(params, release_state="absent"))
        client_for(kubeconfig).delete("apiextensions.k8s.io/v1", "CustomResourceDefinition", "widgets." + group)
