"""The README's main job, playbooks/demo.yml, from the installed collection and through ansible-runner (AWX)."""
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "packaging"))

from collection_support import build_and_install, isolated_env, run, tool  # noqa: E402

pytestmark = pytest.mark.ansible_core  # scripts/test runs this file on every ansible-core series

# Task name → changed flag expected from a first run of the demo on a fresh namespace.
EXPECTED = {
    "Install the release": True,
    "Show the notes of the installed release": False,
    "Install again - nothing changes": False,
    "The second run changed nothing": False,
    "Preview an upgrade (check mode with diff; no write)": True,
    "Upgrade for real": True,
    "Show how the upgrade went, phase by phase (ansible-playbook -v prints this with every release task)": False,
    "The preview predicted the real run": False,
    "Roll back to the first revision": True,
    "Read the release history": False,
    "Show the history": False,
    "Uninstall the release": True,
}


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    _, collections = build_and_install(tmp_path_factory.mktemp("demo-galaxy"))
    return collections


def _demo(collections):
    return os.path.join(collections, "ansible_collections", "helmless", "core", "playbooks", "demo.yml")


def test_the_demo_playbook_runs_from_the_installed_collection(installed, kubeconfig, kube_client, tmp_path):
    namespace = "demo-" + os.urandom(3).hex()
    # as the README's command runs it: no interpreter given, the playbook uses the one running Ansible
    proc = run([tool("ansible-playbook"), "-i", "localhost,",
                "-e", "kubeconfig=" + kubeconfig, "-e", "release_namespace=" + namespace, _demo(installed)],
               env=isolated_env(installed), cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-3000:]
    assert "failed=0" in proc.stdout and "changed=5" in proc.stdout
    from kubernetes import client
    # Uninstalled at the end: no release record is left.
    secrets = client.CoreV1Api(kube_client).list_namespaced_secret(namespace, label_selector="owner=helm").items
    assert secrets == []
    client.CoreV1Api(kube_client).delete_namespace(namespace)


def test_ansible_runner_reports_every_demo_task_ok_with_the_expected_changed_flags(installed, kubeconfig,
                                                                                   kube_client, tmp_path):
    import ansible_runner

    namespace = "demo-" + os.urandom(3).hex()
    private = tmp_path / "runner"
    (private / "project").mkdir(parents=True)
    env = isolated_env(installed)
    result = ansible_runner.run(
        private_data_dir=str(private), playbook=_demo(installed), inventory="localhost,", quiet=True,
        envvars={k: env[k] for k in ("ANSIBLE_COLLECTIONS_PATH", "ANSIBLE_COLLECTIONS_SCAN_SYS_PATH",
                                     "ANSIBLE_LOCALHOST_WARNING")},
        extravars={"kubeconfig": kubeconfig, "release_namespace": namespace,
                   "ansible_python_interpreter": sys.executable})
    events = list(result.events)
    assert result.status == "successful" and result.rc == 0, result.stdout.read()[-6000:]
    ok = {e["event_data"]["task"]: e["event_data"]["res"].get("changed", False)
          for e in events if e["event"] == "runner_on_ok"}
    assert ok == EXPECTED
    # AWX's job event for the upgrade carries its progress: every phase, the pre-upgrade hook Job included
    upgrade = [e for e in events if e["event"] == "runner_on_ok" and e["event_data"]["task"] == "Upgrade for real"]
    progress = upgrade[0]["event_data"]["res"]["progress"]
    phases = [line.split()[1].rstrip(":") for line in progress]
    assert phases[:3] == ["render", "plan", "record"] and phases[-1] == "result", progress
    assert {"hook", "apply", "wait"} <= set(phases), progress
    assert progress[-1].endswith("result: revision 2 deployed")
    assert not [e for e in events if e["event"] in ("runner_on_failed", "runner_on_unreachable")]
    stats = [e for e in events if e["event"] == "playbook_on_stats"][0]["event_data"]
    assert stats["ok"] == {"localhost": len(EXPECTED)} and stats["changed"] == {"localhost": 5}
    assert stats["failures"] == {}
    from kubernetes import client
    client.CoreV1Api(kube_client).delete_namespace(namespace)
