"""roles/releases: many releases from one variable, in `needs` order, idempotent and check-mode aware."""
import os
import sys

import yaml

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


def _run(tmp_path, play, *args):
    """Run through ansible-runner; returns {task name: [per-item results]} from its job events."""
    import ansible_runner

    private = tmp_path / ("runner-%s" % os.urandom(3).hex())
    private.mkdir()
    result = ansible_runner.run(
        private_data_dir=str(private), playbook=str(play), inventory="localhost,", quiet=True, cmdline=" ".join(args),
        envvars={"ANSIBLE_COLLECTIONS_PATH": os.path.join(ROOT, ".build", "collections"),
                 "ANSIBLE_LOCALHOST_WARNING": "false"},
        extravars={"ansible_python_interpreter": sys.executable})
    assert result.status == "successful", result.stdout.read()[-6000:]
    results = {}
    for event in result.events:
        if event["event"] == "runner_item_on_ok":
            data = event["event_data"]
            results.setdefault(data["task"], []).append(data["res"])
    return results


def _released(results):
    return [(r["item"]["name"], r.get("changed")) for r in
            results["Install or upgrade releases, each after the releases it needs"] if "item" in r]


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
        preview = _run(tmp_path, play, "--check")
        assert _released(preview) == [("db", True), ("api", True), ("frontend", True)]
        assert namespace not in [n.metadata.name for n in core.list_namespace().items]

        first = _run(tmp_path, play)
        assert _released(first) == [("db", True), ("api", True), ("frontend", True)]
        assert core.read_namespaced_config_map("frontend", namespace).data == {"greeting": "hi"}

        again = _run(tmp_path, play)
        assert _released(again) == [("db", False), ("api", False), ("frontend", False)]

        releases[0]["values"] = {"greeting": "hey"}
        releases[2]["state"] = "absent"
        releases[1]["needs"] = []
        changed = _run(tmp_path, _play(tmp_path, kubeconfig, releases, defaults, "change"))
        assert _released(changed) == [("api", False), ("frontend", True)]
        removed = changed["Uninstall releases, dependants first"]
        assert [(r["item"]["name"], r["changed"]) for r in removed] == [("db", True)]
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
        first = _run(tmp_path, _play(tmp_path, kubeconfig, releases, defaults, "v1"))
        (installed,) = first["Install or upgrade releases, each after the releases it needs"]
        assert installed["changed"] and installed["status"]["chart"] == "greeter-0.1.0"
        releases[0]["chart_version"] = "^0.2"
        second = _run(tmp_path, _play(tmp_path, kubeconfig, releases, defaults, "v2"))
        (upgraded,) = second["Install or upgrade releases, each after the releases it needs"]
        assert upgraded["changed"] and upgraded["status"]["chart"] == "greeter-0.2.0"
        assert upgraded["status"]["revision"] == "2"
    finally:
        repo.close()
        try:
            core.delete_namespace(namespace)
        except client.ApiException:
            pass
