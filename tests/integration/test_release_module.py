"""The modules end to end: ansible-playbook with check/diff/idempotence, and the runner functions."""
import base64
import json
import os
import subprocess
import sys

import pytest
import yaml

from ansible_collections.helmless.core.plugins.module_utils.ansible.runner import (
    ModuleFailure, run_info, run_release, run_rollback)
from ansible_collections.helmless.core.plugins.module_utils.chart.capabilities import HELM_VERSION
from ansible_collections.helmless.core.plugins.module_utils.release.codec import decode_release

from test_release_support import client_for, module_params, write_chart

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TEMPLATES = {
    "cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-cm\ndata:\n"
               "  message: {{ .Values.message | quote }}\n",
    "secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata:\n  name: {{ .Release.Name }}-s\n"
                   "stringData:\n  password: {{ .Values.password | quote }}\n",
    "NOTES.txt": "Release {{ .Release.Name }} says {{ .Values.message }}\n",
}


def _chart(tmp_path):
    return write_chart(tmp_path, TEMPLATES, values={"message": "hello", "password": "s3cret"})


@pytest.mark.ansible_core
def test_a_playbook_installs_reruns_idempotently_previews_and_upgrades(tmp_path, kubeconfig, namespace):
    chart = _chart(tmp_path)
    task = {"helmless.core.release": {"name": "web", "namespace": namespace, "chart_ref": chart,
                                       "kubeconfig": kubeconfig}}
    upgrade = {"helmless.core.release": dict(task["helmless.core.release"], values={"message": "bye"})}
    play = [{"hosts": "localhost", "connection": "local", "gather_facts": False, "tasks": [
        dict(task, register="first"), dict(task, register="second"),
        {"helmless.core.release": dict(upgrade["helmless.core.release"], diff_format="json"), "register": "preview",
         "check_mode": True, "diff": True},
        dict(upgrade, register="real"),
        {"copy": {"content": "{{ {'first': first, 'second': second, 'preview': preview, 'real': real} | to_json }}",
                  "dest": str(tmp_path / "out.json")}}]}]
    (tmp_path / "play.yml").write_text(yaml.safe_dump(play))
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=os.path.join(ROOT, ".build", "collections"),
               ANSIBLE_LOCALHOST_WARNING="false")
    proc = subprocess.run(["ansible-playbook", "-i", "localhost,", "-e", "ansible_python_interpreter=" + sys.executable,
                           str(tmp_path / "play.yml")], env=env,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    out = json.loads((tmp_path / "out.json").read_text())
    assert out["first"]["changed"] and out["first"]["status"]["status"] == "deployed"
    assert out["first"]["status"]["notes"] == "Release web says hello\n"
    assert not out["second"]["changed"] and out["second"]["api_requests"]["writes"] == 0
    assert out["preview"]["changed"] and out["preview"]["status"]["revision"] == "2"
    diffs = {d["after_header"]: d for d in out["preview"]["diff"]}
    assert diffs["ConfigMap/%s/web-cm" % namespace]["after"]["data"] == {"message": "bye"}
    assert "s3cret" not in json.dumps(out)
    assert out["real"]["changed"] and out["real"]["status"]["revision"] == "2"
    assert client_for(kubeconfig).get("v1", "ConfigMap", "web-cm", namespace)["data"] == {"message": "bye"}


def test_values_files_set_values_and_reuse_values(tmp_path, kubeconfig, namespace):
    chart = _chart(tmp_path)
    values_file = tmp_path / "v.yaml"
    values_file.write_text("message: from-file\npassword: p\n")
    base = dict(name="web", namespace=namespace, chart_ref=chart, kubeconfig=kubeconfig)
    result, _ = run_release(module_params(values_files=[str(values_file)],
                                          set_values=[{"value": "message=from-set", "value_type": "string"}], **base))
    assert result["status"]["values"] == {"message": "from-set", "password": "p"}
    result, _ = run_release(module_params(values={"password": "q"}, reuse_values=True, reset_values=False, **base))
    assert result["status"]["values"] == {"message": "from-set", "password": "q"}
    assert client_for(kubeconfig).get("v1", "ConfigMap", "web-cm", namespace)["data"] == {"message": "from-set"}


def test_helm_binary_options_are_ignored_with_a_warning(tmp_path, kubeconfig, namespace):
    _result, warnings = run_release(module_params(name="web", namespace=namespace, chart_ref=_chart(tmp_path),
                                                  kubeconfig=kubeconfig, binary_path="/usr/bin/helm",
                                                  replace=True))
    assert any("binary_path is ignored" in w for w in warnings)
    assert any("replace is ignored" in w for w in warnings)


def test_release_info_describes_history_objects_notes_and_drift(tmp_path, kubeconfig, namespace):
    base = dict(name="web", namespace=namespace, chart_ref=_chart(tmp_path), kubeconfig=kubeconfig)
    run_release(module_params(**base))
    run_release(module_params(values={"message": "two"}, **base))
    client = client_for(kubeconfig)
    client.patch("v1", "ConfigMap", "web-cm", namespace, {"data": {"message": "edited"}})
    info, _ = run_info({"release_name": "web", "release_namespace": namespace, "kubeconfig": kubeconfig,
                        "release_state": [], "get_all_values": False, "show_secrets": False})
    status = info["status"]
    assert status["revision"] == "2" and status["status"] == "deployed"
    assert [h["status"] for h in status["history"]] == ["superseded", "deployed"]
    assert {o["kind"] for o in status["manifest"]} == {"ConfigMap", "Secret"}
    assert "s3cret" not in json.dumps(status["manifest"])
    assert status["notes"] == "Release web says two\n"
    assert status["drift"] == [{"apiVersion": "v1", "kind": "ConfigMap", "name": "web-cm", "namespace": namespace,
                                "drift": ["data.message"]}]
    listed, _ = run_info({"release_namespace": namespace, "kubeconfig": kubeconfig, "release_state": []})
    assert [r["name"] for r in listed["releases"]] == ["web"]
    back, _ = run_rollback(module_params("rollback", name="web", namespace=namespace, kubeconfig=kubeconfig))
    assert back["changed"] and back["status"]["revision"] == "3"
    assert back["status"]["description"] == "Rollback to 1"
    assert back["helm_version"] == HELM_VERSION
    stored = client.get("v1", "Secret", "sh.helm.release.v1.web.v3", namespace)
    assert decode_release(base64.b64decode(stored["data"]["release"]).decode())["info"]["rollback_revision"] == 1


def test_values_the_schema_rejects_fail_unless_schema_validation_is_skipped(tmp_path, kubeconfig, namespace):
    chart = _chart(tmp_path)
    (tmp_path / "demo" / "values.schema.json").write_text('{"properties": {"message": {"maxLength": 5}}}')
    base = dict(name="web", namespace=namespace, chart_ref=chart, kubeconfig=kubeconfig, values={"message": "too long"})
    with pytest.raises(ModuleFailure, match="message"):
        run_release(module_params(**base))
    assert client_for(kubeconfig).get("v1", "ConfigMap", "web-cm", namespace) is None
    result, warnings = run_release(module_params(skip_schema_validation=True, **base))
    assert result["status"]["status"] == "deployed" and not warnings
    assert client_for(kubeconfig).get("v1", "ConfigMap", "web-cm", namespace)["data"] == {"message": "too long"}
