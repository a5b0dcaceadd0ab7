"""The collection as users get it: galaxy build → install into a fresh path → modules, docs and EE work."""
import json
import os
import subprocess
import sys
import tarfile

import pytest
import yaml

from collection_support import ROOT, build_and_install, isolated_env, run, tool

pytestmark = pytest.mark.ansible_core  # scripts/test runs this file on every ansible-core series

MODULES = ("release", "releases", "rollback", "release_info", "release_test", "template", "repository", "pull", "registry_auth")


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    return build_and_install(tmp_path_factory.mktemp("galaxy"))


def test_the_built_artifact_holds_the_plugins_and_no_development_material(installed):
    artifact, _ = installed
    with tarfile.open(artifact) as tar:
        names = tar.getnames()
    for needed in ["MANIFEST.json", "FILES.json", "meta/runtime.yml", "meta/execution-environment.yml",
                   "requirements.txt", "plugins/modules/release.py", "plugins/filter/releases.py",
                   "roles/releases/tasks/main.yml", "playbooks/demo.yml", "playbooks/charts/webapp/Chart.yaml",
                   "docs/migrating.md", "LICENSE", "changelogs/changelog.yaml"]:
        assert needed in names, needed
    unwanted = [n for n in names if n.split("/")[0] in (".build", "benchmarks", ".git", ".pytest_cache")
                or n.startswith(("tests/output", "tests/corpus", "tests/unit", "tests/integration", "docs/dev"))
                or "__pycache__" in n or n.endswith(".pyc")]
    assert unwanted == []
    assert os.path.getsize(artifact) < 2 * 1024 * 1024


def test_the_installed_template_module_renders_a_chart_without_a_cluster(installed, tmp_path):
    _, collections = installed
    core = os.path.join(collections, "ansible_collections", "helmless", "core")
    chart = os.path.join(core, "playbooks", "charts", "webapp")
    play = [{"hosts": "localhost", "connection": "local", "gather_facts": False, "tasks": [
        {"helmless.core.template": {"chart_ref": chart, "release_name": "web", "release_namespace": "apps",
                                    "values": {"replicaCount": 4}, "extra_results": ["resources", "hooks"]},
         "register": "out"},
        {"ansible.builtin.copy": {"content": "{{ out | to_json }}", "dest": str(tmp_path / "out.json")}}]}]
    (tmp_path / "play.yml").write_text(yaml.safe_dump(play))
    proc = run([tool("ansible-playbook"), "-i", "localhost,", "-e", "ansible_python_interpreter=" + sys.executable,
                str(tmp_path / "play.yml")], env=isolated_env(collections), cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    out = json.loads((tmp_path / "out.json").read_text())
    kinds = sorted((r["kind"], r["metadata"]["name"]) for r in out["resources"])
    assert kinds == [("ConfigMap", "web-webapp"), ("Deployment", "web-webapp"), ("Service", "web-webapp")]
    deployment = [r for r in out["resources"] if r["kind"] == "Deployment"][0]
    assert deployment["spec"]["replicas"] == 4
    assert [h["name"] for h in out["hooks"]] == ["web-webapp-migrate"]
    assert "web-webapp is revision 1 in namespace apps." in out["notes"]
    # The module ran from the installed copy, not from the work tree.
    assert ROOT not in proc.stdout


def test_the_collection_needs_no_other_collection_and_declares_its_action_group(installed):
    _, collections = installed
    core = os.path.join(collections, "ansible_collections", "helmless", "core")
    with open(os.path.join(core, "MANIFEST.json")) as fh:
        manifest = json.load(fh)["collection_info"]
    assert manifest["dependencies"] == {}
    with open(os.path.join(core, "meta", "runtime.yml")) as fh:
        runtime = yaml.safe_load(fh)
    assert sorted(runtime["action_groups"]["helm"]) == sorted(MODULES)
    assert runtime["requires_ansible"].startswith(">=")


def test_requires_ansible_admits_this_ansible_core_and_starts_at_the_oldest_series_the_tests_run():
    """scripts/test runs every series it names; requires_ansible claims those and nothing older."""
    import re

    from ansible.release import __version__
    from ansible.utils.version import SemanticVersion

    with open(os.path.join(ROOT, "meta", "runtime.yml")) as fh:
        required = yaml.safe_load(fh)["requires_ansible"]
    with open(os.path.join(ROOT, "scripts", "test")) as fh:
        series = re.search(r"^SERIES=\(([^)]*)\)", fh.read(), re.M).group(1).split()
    assert required == ">=%s.0" % series[0]
    running = SemanticVersion(re.match(r"\d+\.\d+\.\d+", __version__).group(0))
    assert running >= SemanticVersion(required[2:])
    assert ".".join(__version__.split(".")[:2]) in series


@pytest.mark.parametrize("plugin,kind", [("helmless.core.%s" % m, "module") for m in MODULES]
                         + [("helmless.core.release_order", "filter")])
def test_ansible_doc_renders_every_plugin(plugin, kind):
    env = isolated_env(os.path.join(ROOT, ".build", "collections"))
    proc = run([tool("ansible-doc"), "-t", kind, "--json", plugin], env=env)
    assert proc.returncode == 0 and not proc.stderr.strip(), proc.stderr
    doc = json.loads(proc.stdout)[plugin]
    assert doc["doc"]["short_description"] and doc["doc"]["description"]
    assert doc["examples"].strip()
    assert doc["return"]
    if kind == "module":
        key = {"repository": "repo_name", "pull": "destination", "template": "chart_ref", "registry_auth": "host",
               "releases": "releases"}
        assert key.get(plugin.rsplit(".", 1)[1], "release_name") in doc["doc"]["options"]
        text = run([tool("ansible-doc"), "-t", kind, plugin], env=env)
        assert text.returncode == 0 and "OPTIONS" in text.stdout and "EXAMPLES" in text.stdout, text.stderr


def test_the_role_argument_spec_is_documented():
    env = isolated_env(os.path.join(ROOT, ".build", "collections"))
    proc = run([tool("ansible-doc"), "-t", "role", "--json", "helmless.core.releases"], env=env)
    assert proc.returncode == 0, proc.stderr
    spec = json.loads(proc.stdout)["helmless.core.releases"]["entry_points"]["main"]
    assert "helmless_releases" in spec["options"]


def test_ansible_builder_creates_a_build_context_offline(tmp_path):
    """ansible-builder's ``create`` step (no container engine, no network) accepts our EE definition."""
    proc = run([tool("ansible-builder"), "create", "-f", os.path.join(ROOT, "execution-environment.yml"),
                "-c", str(tmp_path / "context"), "--output-filename", "Containerfile"],
               env=dict(os.environ, no_proxy="*", https_proxy="http://127.0.0.1:9", http_proxy="http://127.0.0.1:9"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    containerfile = (tmp_path / "context" / "Containerfile").read_text()
    assert "ansible-galaxy" in containerfile and "assemble" in containerfile
    build = tmp_path / "context" / "_build"
    python_reqs = (build / "requirements.txt").read_text()
    for dep in ("kubernetes", "PyYAML", "jsonpatch", "jsonschema", "cryptography", "bcrypt"):
        assert dep in python_reqs
    assert "helmless.core" in (build / "requirements.yml").read_text()
    assert not (build / "bindep.txt").exists() or not (build / "bindep.txt").read_text().strip()


def test_the_option_table_in_the_docs_is_current():
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "docs", "gen_option_table.py"), "--check"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_the_collection_python_requirements_match_the_ee_metadata():
    with open(os.path.join(ROOT, "meta", "execution-environment.yml")) as fh:
        meta = yaml.safe_load(fh)
    assert meta["dependencies"]["python"] == "requirements.txt"
    with open(os.path.join(ROOT, "requirements.txt")) as fh:
        runtime = {line.split(">=")[0].strip() for line in fh if line.strip() and not line.startswith("#")}
    with open(os.path.join(ROOT, "execution-environment.yml")) as fh:
        example = yaml.safe_load(fh)
    assert {d.split(">=")[0] for d in example["dependencies"]["python"]} == runtime
