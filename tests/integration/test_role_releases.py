"""roles/releases: many releases from one variable, in `needs` order, idempotent and check-mode aware."""
import os
import sys

import pytest
import yaml

pytestmark = pytest.mark.ansible_core  # scripts/test runs this file on every ansible-core series

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "unit", "repo"))


def _chart(path, name):
    (path / "templates").mkdir(parents=True)
    (path / "Chart.yaml").write_text("apiVersion: v2\nname: %s\nversion: 0.1.0\n" % name)
    (path / "values.yaml").write_text("greeting: hello\n")
    (path / "templates" / "cm.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n"
        "data:\n  greeting: {{ .Values.greeting | quote }}\n")
    return str(path)


def _play(tmp_path, kubeconfig, releases, defaults, name):
    play = [{"hosts": "localhost", "connection": "local", "gather_facts": False,
             "module_defaults": {"group/helmless.core.helm": {"kubeconfig": kubeconfig}},
             "roles": [{"role": "helmless.core.releases",
                        "vars": {"helmless_releases": releases, "helmless_release_defaults": defaults}}]}]
    path = tmp_path / ("%s.yml" % name)
    path.write_text(yaml.safe_dump(play))
    return path


TASK = "Uninstall releases, dependants first; then install or upgrade them, each after the releases it needs"


def _run(tmp_path, play, *args, succeed=True):
    """Run through ansible-runner; returns (the releases task's result, the run's whole output)."""
    import ansible_runner

    private = tmp_path / ("runner-%s" % os.urandom(3).hex())
    private.mkdir()
    result = ansible_runner.run(
        private_data_dir=str(private), playbook=str(play), inventory="localhost,", quiet=True, cmdline=" ".join(args),
        envvars={"ANSIBLE_COLLECTIONS_PATH": os.path.join(ROOT, ".build", "collections"),
                 "ANSIBLE_LOCALHOST_WARNING": "false"},
        extravars={"ansible_python_interpreter": sys.executable})
    output = result.stdout.read()
    assert (result.status == "successful") is succeed, output[-6000:]
    found = [event["event_data"]["res"] for event in result.events
             if event["event"] in ("runner_on_ok", "runner_on_failed") and event["event_data"]["task"] == TASK]
    assert len(found) == 1, output[-6000:]
    return found[0], output + "".join(repr(event) for event in result.events)


def _released(task):
    return [(r["release"].split("/", 1)[1], r.get("changed")) for r in task["results"]]


def test_the_role_installs_in_needs_order_idempotently_and_previews_in_check_mode(tmp_path, kubeconfig,
                                                                                  kube_client):
    from kubernetes import client

    core = client.CoreV1Api(kube_client)
    namespace = "role-" + os.urandom(3).hex()
    chart = _chart(tmp_path / "chart", "greeter")
    releases = [{"name": "frontend", "chart": chart, "needs": ["api"], "values": {"greeting": "hi"}},
                {"name": "api", "chart": chart, "needs": ["db"]},
                {"name": "db", "chart": chart}]
    defaults = {"namespace": namespace, "state": "present", "create_namespace": True}
    play = _play(tmp_path, kubeconfig, releases, defaults, "deploy")
    try:
        preview = _run(tmp_path, play, "--check", "--diff")[0]
        assert _released(preview) == [("frontend", True), ("api", True), ("db", True)]
        # one diff per release, each naming it, in the order of the list
        assert [part["prepared"].split("\n", 1)[0] for part in preview["diff"]] == [
            "Release %s/%s:" % (namespace, name) for name in ("frontend", "api", "db")]
        assert namespace not in [n.metadata.name for n in core.list_namespace().items]

        first = _run(tmp_path, play)[0]
        assert _released(first) == [("frontend", True), ("api", True), ("db", True)]
        lines = [line.split(" ", 1)[1] for line in first["progress"]]
        for need, dependant in (("db", "api"), ("api", "frontend")):  # each started after what it needs ended
            ended = next(i for i, line in enumerate(lines) if line.startswith("changed %s/%s in " % (namespace, need)))
            assert ended < lines.index("start %s/%s" % (namespace, dependant))
        assert core.read_namespaced_config_map("frontend", namespace).data == {"greeting": "hi"}

        again = _run(tmp_path, play)[0]
        assert not again["changed"]
        assert _released(again) == [("frontend", False), ("api", False), ("db", False)]

        releases[0]["values"] = {"greeting": "hey"}
        releases[2]["state"] = "absent"
        releases[1]["needs"] = []
        changed = _run(tmp_path, _play(tmp_path, kubeconfig, releases, defaults, "change"))[0]
        assert _released(changed) == [("frontend", True), ("api", False), ("db", True)]
        assert core.read_namespaced_config_map("frontend", namespace).data == {"greeting": "hey"}
        assert "db" not in [c.metadata.name for c in core.list_namespaced_config_map(namespace).items]
    finally:
        try:
            core.delete_namespace(namespace)
        except client.ApiException:
            pass


def test_the_role_takes_charts_from_a_chart_repository_and_upgrades_on_a_new_chart_version(tmp_path, kubeconfig,
                                                                                          kube_client):
    from helm_oracle import package, repo_index
    from kubernetes import client

    from repokit import Server

    served = tmp_path / "repository"
    served.mkdir()
    for version in ("0.1.0", "0.2.0"):
        chart = _chart(tmp_path / version / "greeter", "greeter")
        chart_yaml = tmp_path / version / "greeter" / "Chart.yaml"
        chart_yaml.write_text(chart_yaml.read_text().replace("0.1.0", version))
        package(chart, str(served))
    repo_index(str(served))
    repo = Server(served)
    core = client.CoreV1Api(kube_client)
    namespace = "role-" + os.urandom(3).hex()
    releases = [{"name": "greeter", "chart": "greeter", "chart_repo_url": repo.url, "chart_version": "0.1.0"}]
    defaults = {"namespace": namespace, "state": "present", "create_namespace": True}
    try:
        (installed,) = _run(tmp_path, _play(tmp_path, kubeconfig, releases, defaults, "v1"))[0]["results"]
        assert installed["changed"] and installed["status"]["chart"] == "greeter-0.1.0"
        releases[0]["chart_version"] = "^0.2"
        (upgraded,) = _run(tmp_path, _play(tmp_path, kubeconfig, releases, defaults, "v2"))[0]["results"]
        assert upgraded["changed"] and upgraded["status"]["chart"] == "greeter-0.2.0"
        assert upgraded["status"]["revision"] == "2"
    finally:
        repo.close()
        try:
            core.delete_namespace(namespace)
        except client.ApiException:
            pass


def test_a_failing_release_skips_the_releases_that_need_it_and_leaves_the_others_deployed(tmp_path, kubeconfig,
                                                                                        kube_client):
    from kubernetes import client

    core = client.CoreV1Api(kube_client)
    namespace = "role-" + os.urandom(3).hex()
    chart = _chart(tmp_path / "chart", "greeter")
    broken = _chart(tmp_path / "broken", "broken")
    with open(os.path.join(broken, "templates", "cm.yaml"), "a") as handle:
        handle.write("  bad: {{ fail \"the chart refuses\" }}\n")
    password = "pw-%s-never-shown" % os.urandom(4).hex()
    releases = [{"name": "db", "chart": broken},
                {"name": "api", "chart": chart, "needs": ["db"]},
                {"name": "cache", "chart": chart, "repo_username": "me", "repo_password": password}]
    defaults = {"namespace": namespace, "state": "present", "create_namespace": True}
    try:
        task, output = _run(tmp_path, _play(tmp_path, kubeconfig, releases, defaults, "partial"), succeed=False)
        db, api, cache = task["results"]
        assert db["failed"] and "the chart refuses" in db["msg"]
        assert api["skipped"] and "needs db" in api["msg"]
        assert cache["changed"] and cache["status"]["status"] == "deployed"
        assert "2 of 3 releases did not succeed" in task["msg"]
        names = [c.metadata.name for c in core.list_namespaced_config_map(namespace).items]
        assert "cache" in names and "api" not in names and "db" not in names
        assert password not in output
    finally:
        try:
            core.delete_namespace(namespace)
        except client.ApiException:
            pass
