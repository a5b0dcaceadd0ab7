"""The ``template`` module runs the way Ansible runs it and returns what Helm would render."""
import json
import os
import subprocess
import sys

import helm_oracle
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
COLLECTIONS = os.path.join(ROOT, ".build", "collections")

CHART = {
    "Chart.yaml": "apiVersion: v2\nname: demo\nversion: 1.2.3\n",
    "values.yaml": "replicas: 1\nimage: nginx\n",
    "templates/_helpers.tpl": '{{- define "demo.name" }}{{ .Release.Name }}-demo{{ end }}',
    "templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ include \"demo.name\" . }}\n"
                         "  namespace: {{ .Release.Namespace }}\ndata:\n  replicas: {{ .Values.replicas | quote }}\n"
                         "  image: {{ .Values.image }}\n  tag: {{ .Values.tag | default \"latest\" | quote }}\n",
    "templates/sa.yaml": "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: {{ include \"demo.name\" . }}\n",
    "templates/hook.yaml": "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: migrate\n  annotations:\n"
                           "    helm.sh/hook: pre-install\n    helm.sh/hook-weight: \"3\"\n",
    "templates/NOTES.txt": "Installed {{ .Release.Name }}.\n",
    "crds/thing.yaml": "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n"
                       "  name: things.example.com\n",
}


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = COLLECTIONS + os.pathsep + env.get("PYTHONPATH", "")
    env["ANSIBLE_COLLECTIONS_PATH"] = COLLECTIONS
    return env


@pytest.fixture
def chart(tmp_path):
    root = tmp_path / "demo"
    for rel, text in CHART.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return str(root)


def _oracle_manifest(path, values):
    from helm_oracle import Chart, Config
    return Config(storage_driver="memory").install(
        Chart.load(path), "web", values, namespace="apps", dry_run="client")


def _run_module(args, tmp_path):
    args_file = tmp_path / "args.json"
    args_file.write_text(json.dumps({"ANSIBLE_MODULE_ARGS": args}))
    proc = subprocess.run(
        [sys.executable, "-m", "ansible_collections.helmless.core.plugins.modules.template",
         str(args_file)], capture_output=True, text=True, env=_env(), cwd=str(tmp_path))
    return json.loads(proc.stdout)


def test_module_run_as_ansible_runs_it_returns_helms_manifest_notes_and_hooks(chart, tmp_path):
    result = _run_module({"chart_ref": chart, "release_name": "web", "release_namespace": "apps",
                          "release_values": {"replicas": 3},
                          "set_values": [{"value": "tag=1.0", "value_type": "string"}]}, tmp_path)
    assert not result.get("failed"), result
    expected = _oracle_manifest(chart, {"replicas": 3, "tag": "1.0"})
    assert result["manifest"] == expected["manifest"]
    assert result["notes"] == expected["notes"]
    assert result["helm_version"] == helm_oracle.HELM_VERSION
    assert [h["name"] for h in result["hooks"]] == ["migrate"]
    assert result["hooks"][0]["weight"] == 3
    assert result["stdout"].endswith("# Source: demo/templates/hook.yaml\n" + result["hooks"][0]["manifest"] + "\n")
    assert [r["kind"] for r in result["resources"]] == ["ServiceAccount", "ConfigMap"]


def test_module_show_only_include_crds_and_output_dir(chart, tmp_path):
    out_dir = tmp_path / "out"
    result = _run_module({"chart_ref": chart, "include_crds": True, "show_only": ["templates/cm.yaml"],
                          "output_dir": str(out_dir), "disable_hook": True}, tmp_path)
    assert not result.get("failed"), result
    assert result["stdout"].count("# Source:") == 1
    assert "# Source: demo/templates/cm.yaml" in result["stdout"]
    assert result["manifest"].startswith("---\n# Source: demo/crds/thing.yaml\n")
    written = (out_dir / "demo" / "templates" / "cm.yaml").read_text()
    assert written.startswith("---\n# Source: demo/templates/cm.yaml\n")
    assert not (out_dir / "demo" / "templates" / "hook.yaml").exists()


def test_module_fails_with_helms_message_on_a_template_error(chart, tmp_path):
    with open(os.path.join(chart, "templates", "bad.yaml"), "w") as handle:
        handle.write('x: {{ required "tag is required" .Values.nope }}\n')
    result = _run_module({"chart_ref": chart}, tmp_path)
    assert result["failed"]
    assert result["msg"] == "execution error at (demo/templates/bad.yaml:1:6): tag is required"


def test_module_warns_when_the_local_chart_has_another_version(chart, tmp_path):
    result = _run_module({"chart_ref": chart, "chart_version": "9.9.9", "dependency_update": True,
                          "binary_path": "/usr/bin/helm"}, tmp_path)
    assert not result.get("failed"), result
    warnings = [str(w) for w in result.get("warnings", [])]
    assert len(warnings) == 3, warnings
    assert "chart_version 9.9.9 ignored" in " ".join(warnings)
    assert "binary_path is ignored" in " ".join(warnings)
    assert "There is no dependencies block defined in Chart.yaml" in " ".join(warnings)


def test_playbook_renders_with_the_collection_fqcn(chart, tmp_path):
    dest = tmp_path / "rendered.yaml"
    playbook = tmp_path / "play.yml"
    playbook.write_text(
        "- hosts: localhost\n  gather_facts: false\n  tasks:\n"
        "    - helmless.core.template:\n        chart_ref: %s\n        name: web\n        namespace: apps\n"
        "        values:\n          replicas: 3\n      register: out\n"
        "    - ansible.builtin.copy:\n        dest: %s\n        content: \"{{ out.manifest }}\"\n"
        "    - ansible.builtin.assert:\n        that:\n          - out is not changed\n"
        "          - out.notes == 'Installed web.\\n'\n" % (chart, dest))
    proc = subprocess.run(["ansible-playbook", "-i", "localhost,", "-c", "local",
                           "-e", "ansible_python_interpreter=" + sys.executable, str(playbook)],
                          capture_output=True, text=True, env=_env(), cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert dest.read_text() == _oracle_manifest(chart, {"replicas": 3})["manifest"]
