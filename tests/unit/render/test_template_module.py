"""The ``template`` module runs the way Ansible runs it and returns what Helm would render."""
import json
import os
import subprocess
import sys

import helm_oracle
import pytest

pytestmark = pytest.mark.ansible_core  # scripts/test runs this file on every ansible-core series

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


def _helm(*args, cwd=None):
    """The real helm v4 CLI (HELM4_VERSION), which ``helm template`` needs no cluster for."""
    home = os.path.join(cwd, "helm-home")
    return subprocess.run([helm_oracle.cp_build.binaries()["helm4"], *args], capture_output=True, text=True,
                          cwd=cwd, env=dict(os.environ, HELM_CONFIG_HOME=os.path.join(home, "config"),
                                            HELM_CACHE_HOME=os.path.join(home, "cache"),
                                            HELM_DATA_HOME=os.path.join(home, "data")))


def test_module_returns_helm_templates_stdout_and_the_notes_and_nothing_else_by_default(chart, tmp_path):
    result = _run_module({"chart_ref": chart, "release_name": "web", "release_namespace": "apps",
                          "release_values": {"replicas": 3}}, tmp_path)
    assert not result.get("failed"), result
    helm = _helm("template", "web", chart, "--namespace", "apps", "--set", "replicas=3", cwd=str(tmp_path))
    assert helm.returncode == 0, helm.stderr
    assert result["stdout"] == helm.stdout
    assert result["notes"] == _oracle_manifest(chart, {"replicas": 3})["notes"]
    assert sorted(set(result) - {"invocation"}) == ["changed", "command", "helm_version", "notes", "rc", "stderr",
                                                    "stdout"]


def test_extra_results_all_returns_manifest_rendered_resources_crds_and_hooks(chart, tmp_path):
    result = _run_module({"chart_ref": chart, "release_name": "web", "release_namespace": "apps",
                          "release_values": {"replicas": 3}, "extra_results": ["all"],
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
    assert [c["path"] for c in result["crds"]] == ["demo/crds/thing.yaml"]
    assert sorted(result["rendered"]) == ["demo/templates/NOTES.txt", "demo/templates/cm.yaml",
                                          "demo/templates/hook.yaml", "demo/templates/sa.yaml"]


def test_extra_results_returns_only_what_it_names(chart, tmp_path):
    result = _run_module({"chart_ref": chart, "extra_results": ["resources"]}, tmp_path)
    assert not result.get("failed"), result
    assert [r["kind"] for r in result["resources"]] == ["ServiceAccount", "ConfigMap"]
    assert not {"manifest", "rendered", "crds", "hooks"} & set(result)


def _tree(root):
    """``{relative path: bytes}`` of every file under ``root``."""
    out = {}
    for folder, _dirs, files in os.walk(root):
        for name in files:
            path = os.path.join(folder, name)
            with open(path, "rb") as handle:
                out[os.path.relpath(path, root)] = handle.read()
    return out


def test_output_dir_is_laid_out_byte_for_byte_as_helm_template_output_dir_and_a_rerun_changes_nothing(chart,
                                                                                                       tmp_path):
    # a template holding a resource and a hook (helm appends the hook to the resource's file), and a subchart
    with open(os.path.join(chart, "templates", "mixed.yaml"), "w") as handle:
        handle.write("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: mixed\n---\napiVersion: v1\nkind: Pod\n"
                     "metadata:\n  name: mixed-test\n  annotations:\n    helm.sh/hook: test\n")
    sub = os.path.join(chart, "charts", "sub")
    os.makedirs(os.path.join(sub, "templates"))
    os.makedirs(os.path.join(sub, "crds"))
    with open(os.path.join(sub, "Chart.yaml"), "w") as handle:
        handle.write("apiVersion: v2\nname: sub\nversion: 0.1.0\n")
    with open(os.path.join(sub, "templates", "svc.yaml"), "w") as handle:
        handle.write("apiVersion: v1\nkind: Service\nmetadata:\n  name: sub\n")
    with open(os.path.join(sub, "crds", "widget.yaml"), "w") as handle:
        handle.write("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n"
                     "  name: widgets.example.com\n")
    ours, helms = tmp_path / "ours", tmp_path / "helms"
    args = {"chart_ref": chart, "release_name": "web", "include_crds": True, "output_dir": str(ours)}
    result = _run_module(args, tmp_path)
    assert not result.get("failed"), result
    helm = _helm("template", "web", chart, "--include-crds", "--output-dir", str(helms), cwd=str(tmp_path))
    assert helm.returncode == 0, helm.stderr
    assert _tree(str(ours)) == _tree(str(helms))
    assert os.path.join("demo", "templates", "mixed.yaml") in _tree(str(ours))
    assert result["stdout"] == helm.stdout.replace(str(helms), str(ours))
    assert result["changed"] and result["files"] == sorted(str(ours / path) for path in _tree(str(ours)))

    before = {path: os.stat(os.path.join(str(ours), path)).st_mtime_ns for path in _tree(str(ours))}
    again = _run_module(args, tmp_path)
    assert not again.get("failed"), again
    assert not again["changed"] and _tree(str(ours)) == _tree(str(helms))
    assert {path: os.stat(os.path.join(str(ours), path)).st_mtime_ns for path in before} == before


def test_output_dir_in_check_mode_writes_nothing_and_reports_the_change(chart, tmp_path):
    out_dir = tmp_path / "out"
    result = _run_module({"chart_ref": chart, "output_dir": str(out_dir), "_ansible_check_mode": True}, tmp_path)
    assert not result.get("failed"), result
    assert result["changed"] and result["files"] and not out_dir.exists()


def test_output_dir_with_show_only_writes_the_matching_templates_files(chart, tmp_path):
    out_dir = tmp_path / "out"
    result = _run_module({"chart_ref": chart, "include_crds": True, "show_only": ["templates/cm.yaml"],
                          "output_dir": str(out_dir)}, tmp_path)
    assert not result.get("failed"), result
    assert result["stdout"] == "wrote %s/demo/templates/cm.yaml\n\n" % out_dir
    assert sorted(_tree(str(out_dir))) == ["demo/templates/cm.yaml"]
    written = (out_dir / "demo" / "templates" / "cm.yaml").read_text()
    assert written.startswith("---\n# Source: demo/templates/cm.yaml\n")


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
        "        values:\n          replicas: 3\n        extra_results: [manifest]\n      register: out\n"
        "    - ansible.builtin.copy:\n        dest: %s\n        content: \"{{ out.manifest }}\"\n"
        "    - ansible.builtin.assert:\n        that:\n          - out is not changed\n"
        "          - out.notes == 'Installed web.\\n'\n" % (chart, dest))
    proc = subprocess.run(["ansible-playbook", "-i", "localhost,", "-c", "local",
                           "-e", "ansible_python_interpreter=" + sys.executable, str(playbook)],
                          capture_output=True, text=True, env=_env(), cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert dest.read_text() == _oracle_manifest(chart, {"replicas": 3})["manifest"]
