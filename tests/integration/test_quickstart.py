"""docs/quickstart.md runs as written, end to end, through ansible-playbook against the local control plane:
the first release (installed, a second run that changes nothing, a ``--check --diff`` preview), the other
modules' tasks, and the ``releases`` role's example. The playbooks are the page's own YAML blocks; only what
must differ on a shared test cluster is set: the namespaces (unique per run), the cluster (through
``K8S_AUTH_KUBECONFIG``, as the page says) and the charts its paths name (the demo chart shipped in
``playbooks/charts/webapp``, copied there)."""
import copy
import os
import re
import shutil
import sys
import uuid

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PAGE = os.path.join(ROOT, "docs", "quickstart.md")


def _blocks():
    with open(PAGE) as fh:
        return [yaml.safe_load(b) for b in re.findall(r"^```yaml\n(.*?)^```", fh.read(), re.M | re.S)]


def _renamed(node, namespaces):
    """``node`` with each namespace of our modules' tasks and of the role's defaults replaced by a unique one."""
    if isinstance(node, list):
        return [_renamed(item, namespaces) for item in node]
    if not isinstance(node, dict):
        return node
    out = {}
    for key, value in node.items():
        if key == "namespace" and isinstance(value, str):
            value = namespaces.setdefault(value, "qs-%s-%s" % (value, uuid.uuid4().hex[:6]))
        out[key] = _renamed(value, namespaces)
    return out


def _run(tmp_path, play, *args):
    """``{task name (or module): (changed, result)}`` of a run of ``play`` through ansible-playbook."""
    import ansible_runner

    path = tmp_path / ("play-%s.yml" % uuid.uuid4().hex[:6])
    path.write_text(yaml.safe_dump(play))
    private = tmp_path / ("runner-%s" % uuid.uuid4().hex[:6])
    private.mkdir()
    result = ansible_runner.run(
        private_data_dir=str(private), playbook=str(path), inventory="localhost,", quiet=True, cmdline=" ".join(args),
        envvars={"ANSIBLE_COLLECTIONS_PATH": os.path.join(ROOT, ".build", "collections"),
                 "ANSIBLE_LOCALHOST_WARNING": "false", "K8S_AUTH_KUBECONFIG": os.environ["K8S_AUTH_KUBECONFIG"]},
        extravars={"ansible_python_interpreter": sys.executable})
    output = result.stdout.read()
    assert result.status == "successful", output[-6000:]
    return {event["event_data"]["task"] or event["event_data"]["task_action"]:
            (event["event_data"]["res"].get("changed"), event["event_data"]["res"])
            for event in result.events if event["event"] == "runner_on_ok"}


def test_the_quick_start_runs_as_written(tmp_path, kubeconfig, kube_client, monkeypatch):
    from kubernetes import client

    for chart in ("webapp", "postgres", "api", "frontend"):
        shutil.copytree(os.path.join(ROOT, "playbooks", "charts", "webapp"), str(tmp_path / "charts" / chart))
    monkeypatch.setenv("K8S_AUTH_KUBECONFIG", kubeconfig)
    first, defaults, others, role = _blocks()
    assert list(defaults) == ["module_defaults"]  # a fragment of a play, shown for its syntax (tests/packaging)
    namespaces = {}
    first, others, role = (_renamed(b, namespaces) for b in (first, others, role))
    try:
        tasks = _run(tmp_path, first)
        assert tasks["Install or upgrade the web app"][0] is True
        assert "notes" in tasks["Install or upgrade the web app"][1]["status"]
        assert _run(tmp_path, first)["Install or upgrade the web app"][0] is False  # "Run it twice"
        preview = _run(tmp_path, first, "--check", "--diff")["Install or upgrade the web app"]
        assert preview[0] is False and preview[1]["summary"].startswith("Plan: 0 to add, 0 to change")

        upgrade = copy.deepcopy(first)
        upgrade[0]["tasks"][0]["helmless.core.release"]["values"]["replicaCount"] = 3
        assert _run(tmp_path, upgrade)["Install or upgrade the web app"][0] is True
        play = [{"hosts": "localhost", "connection": "local", "gather_facts": False, "tasks": others}]
        done = list(_run(tmp_path, play).values())
        assert [changed for changed, _ in done] == [True, False, False]  # rollback, release_info, template
        assert done[1][1]["status"]["revision"] == "3" and done[2][1]["stdout"].startswith("---")

        tasks = _run(tmp_path, role)
        (releases,) = [result for _, result in tasks.values() if "results" in result]
        assert [(r["release"].split("/")[1], r["changed"]) for r in releases["results"]] == \
            [("db", True), ("api", True), ("old-frontend", False)]
    finally:
        core = client.CoreV1Api(kube_client)
        for name in namespaces.values():
            try:
                core.delete_namespace(name)
            except client.ApiException:
                pass
