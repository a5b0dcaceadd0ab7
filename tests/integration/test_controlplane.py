"""Smoke tests proving the local control plane (scripts/controlplane) behaves like a real cluster."""
import json
import os
import time

import cp_build  # on sys.path via conftest.py
import pytest
from kubernetes import client
from kubernetes.client.rest import ApiException


def wait_for(what, probe, timeout=120):
    """Poll ``probe`` until it returns a truthy value; fail naming ``what`` (a bound, not a timing check)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = probe()
        if value:
            return value
        time.sleep(0.5)
    pytest.fail("%s did not happen within %ds" % (what, timeout))


def apply(api, namespace, body, dry_run=False, manager="smoke-test", force=False):
    """Server-side apply of a ConfigMap (PATCH application/apply-patch+yaml)."""
    extra = {"dry_run": "All"} if dry_run else {}
    return client.CoreV1Api(api).patch_namespaced_config_map(
        body["metadata"]["name"], namespace, body, field_manager=manager, force=force or None,
        _content_type="application/apply-patch+yaml", **extra)


def configmap(name, **data):
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data}


def condition(obj, kind):
    return any(c.type == kind and c.status == "True" for c in (obj.status.conditions or []))


def test_server_side_apply_with_dry_run_all_persists_nothing_and_real_apply_tracks_field_owners(
        kube_client, namespace):
    core = client.CoreV1Api(kube_client)
    dry = apply(kube_client, namespace, configmap("ssa", color="blue"), dry_run=True)
    assert dry.data == {"color": "blue"}
    with pytest.raises(ApiException) as missing:
        core.read_namespaced_config_map("ssa", namespace)
    assert missing.value.status == 404

    created = apply(kube_client, namespace, configmap("ssa", color="blue"))
    assert [(m.manager, m.operation) for m in created.metadata.managed_fields] == [("smoke-test", "Apply")]
    with pytest.raises(ApiException) as conflict:
        apply(kube_client, namespace, configmap("ssa", color="red"), manager="someone-else")
    assert conflict.value.status == 409
    forced = apply(kube_client, namespace, configmap("ssa", color="red"), manager="someone-else", force=True)
    assert forced.data == {"color": "red"}
    assert core.read_namespaced_config_map("ssa", namespace).data == {"color": "red"}


def test_a_deployment_becomes_available_on_the_fake_nodes(kube_client, namespace):
    apps = client.AppsV1Api(kube_client)
    labels = {"app": "web"}
    apps.create_namespaced_deployment(namespace, {
        "metadata": {"name": "web"},
        "spec": {"replicas": 2, "selector": {"matchLabels": labels},
                 "template": {"metadata": {"labels": labels},
                              "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]}}}})
    dep = wait_for("Deployment web Available", lambda: (
        lambda d: d if condition(d, "Available") and d.status.available_replicas == 2 else None)(
        apps.read_namespaced_deployment("web", namespace)))
    assert dep.status.ready_replicas == 2
    pods = client.CoreV1Api(kube_client).list_namespaced_pod(namespace, label_selector="app=web").items
    assert {p.spec.node_name.startswith("kwok-node-") for p in pods} == {True}
    assert all(p.status.phase == "Running" and p.status.pod_ip for p in pods)


def test_a_job_runs_to_completion(kube_client, namespace):
    batch = client.BatchV1Api(kube_client)
    batch.create_namespaced_job(namespace, {
        "metadata": {"name": "once"},
        "spec": {"backoffLimit": 0, "template": {"spec": {
            "restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox", "command": ["true"]}]}}}})
    job = wait_for("Job once Complete", lambda: (
        lambda j: j if condition(j, "Complete") else None)(batch.read_namespaced_job("once", namespace)))
    assert job.status.succeeded == 1


def _ready_after(pod):
    """Seconds from a pod's creation to its Ready condition, by the cluster's own timestamps."""
    ready = next(c for c in pod.status.conditions or [] if c.type == "Ready" and c.status == "True")
    return (ready.last_transition_time - pod.metadata.creation_timestamp).total_seconds()


def test_a_pod_with_kwoks_pod_ready_delay_annotations_becomes_ready_only_after_that_delay(kube_client, namespace):
    core = client.CoreV1Api(kube_client)
    annotations = {"at-once": {}, "delay": {"pod-ready.stage.kwok.x-k8s.io/delay": "3s"},
                   "jitter": {"pod-ready.stage.kwok.x-k8s.io/delay": "2s",
                              "pod-ready.stage.kwok.x-k8s.io/jitter-delay": "4s"}}
    for name, notes in annotations.items():
        core.create_namespaced_pod(namespace, {"metadata": {"name": name, "annotations": notes}, "spec": {
            "nodeName": "kwok-node-0", "containers": [{"name": "c", "image": "nginx:1"}]}})
    pods = {name: wait_for("pod %s Ready" % name, lambda name=name: (
        lambda p: p if condition(p, "Ready") else None)(core.read_namespaced_pod(name, namespace)))
        for name in annotations}
    assert _ready_after(pods["at-once"]) <= 1
    assert _ready_after(pods["delay"]) >= 3
    assert 2 <= _ready_after(pods["jitter"]) <= 5  # between delay and jitter-delay (stamps are whole seconds)
    assert all(p.status.phase == "Running" and p.status.pod_ip for p in pods.values())


def test_a_containers_log_is_what_its_command_line_echoes_and_a_job_pod_exits_as_it_says(kube_client, namespace):
    """The fake kubelet serves container logs (what ``echo`` prints); a pod, or a Job's pod, ends with the
    exit code its command line gives, and its log is there as soon as it has ended."""
    core, batch = client.CoreV1Api(kube_client), client.BatchV1Api(kube_client)
    core.create_namespaced_pod(namespace, _pod("said", ["sh", "-c", "echo 'first line'; echo second >&2; exit 3"]))
    batch.create_namespaced_job(namespace, {
        "metadata": {"name": "migrate"},
        "spec": {"backoffLimit": 0, "template": {"spec": {"restartPolicy": "Never", "containers": [
            {"name": "c", "image": "busybox", "command": ["/bin/sh", "-ec"],
             "args": ["echo migrating\necho 'table users exists'\nfalse"]}]}}}})
    wait_for("pod said Failed", lambda: core.read_namespaced_pod("said", namespace).status.phase == "Failed")
    status = core.read_namespaced_pod("said", namespace).status.container_statuses[0].state.terminated
    assert status.exit_code == 3
    assert core.read_namespaced_pod_log("said", namespace, container="c") == "first line\nsecond\n"
    job = wait_for("Job migrate Failed", lambda: (
        lambda j: j if condition(j, "Failed") else None)(batch.read_namespaced_job("migrate", namespace)))
    assert job.status.failed == 1
    (pod,) = core.list_namespaced_pod(namespace, label_selector="job-name=migrate").items
    assert pod.status.phase == "Failed"
    assert core.read_namespaced_pod_log(pod.metadata.name, namespace) == "migrating\ntable users exists\n"
    core.create_namespaced_pod(namespace, {"metadata": {"name": "quiet"}, "spec": {  # the image's own command
        "restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}})
    wait_for("pod quiet Succeeded", lambda: core.read_namespaced_pod("quiet", namespace).status.phase == "Succeeded")
    assert core.read_namespaced_pod_log("quiet", namespace) == ""


def _pod(name, command):
    return {"metadata": {"name": name}, "spec": {"restartPolicy": "Never", "containers": [
        {"name": "c", "image": "busybox", "command": command}]}}


def _kwok_deletes(controlplane, namespace, name):
    """kwok's log lines about deleting pod ``namespace/name`` (done, or failed because it was gone)."""
    with open(os.path.join(controlplane.dir, "logs", "kwok.log"), errors="replace") as fh:
        return [line for line in fh if '"pod":"%s/%s"' % (namespace, name) in line and "elete" in line]


def test_a_pod_recreated_at_once_by_its_name_is_not_deleted_by_the_fake_kubelet(
        controlplane, kube_client, namespace):
    """What a hook's before-hook-creation does: delete an ended pod (the apiserver removes it at once, after
    an update that sets deletionTimestamp) and create one of the same name. The fake kubelet (kwok) must
    leave a deletion the apiserver did to it: its delete by name would hit the new pod."""
    core = client.CoreV1Api(kube_client)
    core.create_namespaced_pod(namespace, _pod("hook", ["sh", "-c", "exit 1"]))
    wait_for("pod hook Failed", lambda: core.read_namespaced_pod("hook", namespace).status.phase == "Failed")
    core.delete_namespaced_pod("hook", namespace)
    core.create_namespaced_pod(namespace, _pod("hook", ["sleep", "infinity"]))
    wait_for("the new pod hook Running",
             lambda: core.read_namespaced_pod("hook", namespace).status.phase == "Running")
    time.sleep(2)  # kwok answers an update within milliseconds; give a loaded machine some more
    assert core.read_namespaced_pod("hook", namespace).metadata.deletion_timestamp is None
    assert _kwok_deletes(controlplane, namespace, "hook") == []


def test_a_running_pod_deleted_with_a_grace_period_goes_away_as_a_kubelet_would_end_it(
        controlplane, kube_client, namespace):
    core = client.CoreV1Api(kube_client)
    core.create_namespaced_pod(namespace, _pod("server", ["sleep", "infinity"]))
    wait_for("pod server Running", lambda: core.read_namespaced_pod("server", namespace).status.phase == "Running")
    core.delete_namespaced_pod("server", namespace)  # the pod's default 30 s grace period

    def gone():
        try:
            core.read_namespaced_pod("server", namespace)
        except ApiException as exc:
            return exc.status == 404
        return False
    wait_for("pod server deleted", gone, timeout=25)
    assert len(_kwok_deletes(controlplane, namespace, "server")) == 1


def test_rbac_allows_what_a_limited_token_role_grants_and_denies_the_rest(limited_kubeconfig, namespace):
    from kubernetes import config

    path = limited_kubeconfig(namespace, [{"apiGroups": [""], "resources": ["configmaps"],
                                           "verbs": ["get", "list", "create"]}])
    core = client.CoreV1Api(config.new_client_from_config(config_file=path))
    core.create_namespaced_config_map(namespace, configmap("allowed", k="v"))
    assert [c.metadata.name for c in core.list_namespaced_config_map(namespace).items
            if c.metadata.name == "allowed"] == ["allowed"]
    for denied in (lambda: core.list_namespaced_secret(namespace),
                   lambda: core.delete_namespaced_config_map("allowed", namespace),
                   lambda: core.list_namespaced_config_map("default")):
        with pytest.raises(ApiException) as exc:
            denied()
        assert exc.value.status == 403


def write_chart(root):
    chart = root / "smoke"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: smoke\nversion: 0.1.0\n")
    (chart / "values.yaml").write_text("greeting: hello\n")
    (chart / "templates" / "configmap.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-smoke\n"
        "data:\n  greeting: {{ .Values.greeting | quote }}\n"
        "  kubeVersion: {{ .Capabilities.KubeVersion.Version | quote }}\n")
    return chart


@pytest.mark.parametrize("helm_fixture", ["helm4", "helm3"])
def test_helm_cli_installs_and_uninstalls_a_chart_against_the_cluster(
        request, helm_fixture, kube_client, namespace, tmp_path):
    helm = request.getfixturevalue(helm_fixture)
    version = helm.run("version", "--template", "{{ .Version }}").stdout
    assert version.startswith("v%s." % helm_fixture[-1])
    chart = write_chart(tmp_path)
    helm.run("install", "rel", str(chart), "-n", namespace, "--set", "greeting=hi", "--wait")
    core = client.CoreV1Api(kube_client)
    server_version = client.VersionApi(kube_client).get_code().git_version
    assert core.read_namespaced_config_map("rel-smoke", namespace).data == {
        "greeting": "hi", "kubeVersion": server_version}
    releases = json.loads(helm.run("list", "-n", namespace, "-o", "json").stdout)
    assert [(r["name"], r["status"]) for r in releases] == [("rel", "deployed")]
    helm.run("uninstall", "rel", "-n", namespace, "--wait")
    with pytest.raises(ApiException) as gone:
        core.read_namespaced_config_map("rel-smoke", namespace)
    assert gone.value.status == 404
    assert json.loads(helm.run("list", "-n", namespace, "-o", "json").stdout) == []


def test_the_apiserver_reports_the_pinned_kubernetes_version(kube_client):
    assert client.VersionApi(kube_client).get_code().git_version == cp_build.load_versions()["K8S_VERSION"]


def test_a_component_that_fails_to_build_fails_the_build_while_the_others_still_build(tmp_path, monkeypatch, capsys):
    calls = []

    def refused(v, dest, work, log):
        calls.append("refused")
        raise cp_build.Unavailable("cannot download example.invalid/tool@v1: 403 Forbidden")

    def fine(v, dest, work, log):
        cp_build.write(os.path.join(dest, "bin", "tool"), "")

    monkeypatch.setattr(cp_build, "CACHE", str(tmp_path))
    monkeypatch.setattr(cp_build, "component_dirs", lambda v=None: {n: str(tmp_path / n) for n in ("refused", "fine")})
    monkeypatch.setattr(cp_build, "check_go", lambda minimum: True)
    monkeypatch.setattr(cp_build, "COMPONENTS", [("refused", "HELM4_VERSION", refused),
                                                 ("fine", "HELM4_VERSION", fine)])
    assert cp_build.build() == 1
    assert (tmp_path / "fine" / ".built").exists() and "FAILED: refused" in capsys.readouterr().out
    assert cp_build.build() == 1 and calls == ["refused"]  # remembered as refused: no new attempt, still a failure
    assert "UNAVAILABLE" in capsys.readouterr().out
