"""One ``module_defaults`` block for ``group/helmless.core.helm`` serves every module of the collection.

Every connection option of the group (kubeconfig, context, host, api_key, ca_cert, validate_certs,
storage_driver, binary_path) is set once for the play; each module of the action group in
``meta/runtime.yml`` then runs against a real API server, a chart repository and a registry, with
nothing but its own options in the task. The cluster options really are used where they matter: the
kubeconfig's own user is not allowed to do anything, so releases only work through ``api_key``.
"""
import json
import os
import sys

import pytest
import yaml

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "unit", "repo"))

from repokit import Server, env, publish, run_playbook, write_chart  # noqa: E402,F401 - env is a fixture

pytestmark = pytest.mark.ansible_core  # scripts/test runs this file on every ansible-core series

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _group():
    with open(os.path.join(ROOT, "meta", "runtime.yml")) as handle:
        return yaml.safe_load(handle)["action_groups"]["helm"]


def _admin_token(controlplane, kube_client, namespace):
    """A bearer token of a ServiceAccount bound to cluster-admin, and the server's CA file."""
    from kubernetes import client
    path = controlplane.token_kubeconfig(namespace, "deployer")
    client.RbacAuthorizationV1Api(kube_client).create_cluster_role_binding({
        "metadata": {"name": "helmless-md-" + namespace},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "cluster-admin"},
        "subjects": [{"kind": "ServiceAccount", "name": "deployer", "namespace": namespace}]})
    with open(path) as handle:
        config = yaml.safe_load(handle)
    return config["users"][0]["user"]["token"], os.path.join(controlplane.dir, "pki", "ca.crt")


def test_one_module_defaults_block_for_the_group_serves_every_module(tmp_path, controlplane, kube_client, namespace,
                                                                     env):
    from kubernetes import client
    token, ca_cert = _admin_token(controlplane, kube_client, namespace)
    # A kubeconfig whose user has no rights: only api_key makes the release tasks pass.
    weak = controlplane.token_kubeconfig(namespace, "nobody")
    with open(weak) as handle:
        context = yaml.safe_load(handle)["current-context"]
    served = tmp_path / "served"
    publish(str(served), str(tmp_path / "src"), [("demo", "1.0.0"), ("demo", "1.1.0")])
    (served / "v2").mkdir()  # the registry's /v2/ ping, behind Basic auth
    repo = Server(served)
    registry = Server(served, credentials=("robot", "pw"))
    chart = write_chart(tmp_path / "local", "local", "0.1.0")
    rel = "md-" + namespace[-6:]
    steps = [
        ("repository", {"name": "local", "url": repo.url}),
        ("pull", {"chart_ref": "local/demo", "chart_version": "1.0.0", "destination": str(tmp_path / "pulled")}),
        ("template", {"chart_ref": chart, "release_name": rel}),
        ("release", {"name": rel, "namespace": namespace, "chart_ref": "local/demo", "chart_version": "1.0.0"}),
        ("release", {"name": rel, "namespace": namespace, "chart_ref": "local/demo", "chart_version": "1.1.0"}),
        ("releases", {"releases": [{"name": rel, "namespace": namespace, "chart_ref": "local/demo",
                                    "chart_version": "1.1.0"}]}),
        ("release_info", {"name": rel, "namespace": namespace}),
        ("rollback", {"name": rel, "namespace": namespace}),
        ("release_test", {"name": rel, "namespace": namespace}),
        ("registry_auth", {"host": registry.url.split("//")[1], "username": "robot", "password": "pw",
                           "plain_http": True}),
    ]
    group = _group()
    assert set(group) <= {name for name, _ in steps}, "a module of the group has no task here"
    steps = [(name, args) for name, args in steps if name in group]
    play = [{
        "hosts": "localhost", "gather_facts": False,
        "module_defaults": {"group/helmless.core.helm": {
            "kubeconfig": weak, "context": context, "host": controlplane.server, "api_key": token,
            "ca_cert": ca_cert, "validate_certs": True, "storage_driver": "secret", "binary_path": "/no/helm"}},
        "tasks": [{"name": "%s %d" % (name, i), "helmless.core." + name: args, "register": "r%d" % i}
                  for i, (name, args) in enumerate(steps)]
                 + [{"name": "results", "ansible.builtin.copy": {
                     "dest": str(tmp_path / "results.json"),
                     "content": "{{ [%s] | to_json }}" % ", ".join("r%d" % i for i in range(len(steps)))}}],
    }]
    (tmp_path / "play.yml").write_text(yaml.safe_dump(play, sort_keys=False))
    try:
        proc = run_playbook(tmp_path / "play.yml", env, tmp_path)
    finally:
        repo.close()
        registry.close()
        client.RbacAuthorizationV1Api(kube_client).delete_cluster_role_binding("helmless-md-" + namespace)
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]
    results = json.loads((tmp_path / "results.json").read_text())
    by_name = {name: result for (name, _), result in zip(steps, results)}
    assert by_name["pull"]["version"] == "1.0.0"
    assert "name: %s-local" % rel in by_name["template"]["stdout"]
    assert not by_name["releases"]["changed"]  # the same chart and values as the upgrade before it
    assert by_name["release_info"]["status"]["chart"] == "demo-1.1.0"
    assert by_name["rollback"]["status"]["revision"] == "3"
    assert by_name["rollback"]["status"]["chart"] == "demo-1.0.0"
    # binary_path is ignored with a warning by every module of the group (it was set for all of them)
    for (name, _), result in zip(steps, results):
        assert any("binary_path" in w for w in result.get("warnings", [])), (name, result.get("warnings"))
