"""Every corpus chart, default values: helm 4 installs it, our run on helm's release is a no-op, helm
uninstalls it, we install it into the same namespace, and our second run is a no-op (no write, no new
revision). A chart helm itself cannot install is
listed with helm's reason, and we must refuse it too, before writing anything (helm leaves a failed
revision for some of them).

Engine calls go through the module body in-process (run_release); podinfo (random test-hook names) goes
through ansible-playbook. What the chart shares with other tests on the run's one control plane (kept CRDs,
cluster-scoped objects of fixed names) is locked while the test runs and deleted after it
(corpus_cluster.py), so no result depends on test order or on how xdist spreads the tests.
"""
import json
import os
import subprocess
import sys
import uuid

import pytest
import yaml

import corpuskit
from ansible_collections.helmless.core.plugins.module_utils.ansible.runner import ModuleFailure, run_release

from corpus_cluster import Claims
from test_release_support import engine_for, module_params

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHARTS = corpuskit.names()
# Charts helm v4.3.2 cannot install with their default values on a bare cluster: helm's reason, ours.
HELM_REFUSES = {
    "loki": ("Please define loki.storage.bucketNames.chunks", "Please define loki.storage.bucketNames.chunks"),
    "opentelemetry-collector": ("'image.repository' must be set", "'image.repository' must be set"),
    "istiod": ('namespaces "istio-system" not found', 'namespaces "istio-system" not found'),
    "opentelemetry-kube-stack": ('no matches for kind "Certificate" in version "cert-manager.io/v1"',
                                 'no matches for kind "Certificate" in version "cert-manager.io/v1"'),
}
THROUGH_ANSIBLE = "podinfo"
TIMEOUT = "300s"


@pytest.fixture
def claims(controlplane, kubeconfig, namespace):
    """What the test's chart shares with other tests, locked; its leftovers deleted (corpus_cluster.py)."""
    held = Claims(controlplane, kubeconfig, namespace)
    yield held
    held.release()


def _release_name(chart):
    # unique per test (cluster-scoped objects are named after the release), short enough for every chart
    return "%s-%s" % (chart.replace("kube-prometheus-stack", "kps")[:20].rstrip("-"), uuid.uuid4().hex[:4])


def _ours(kubeconfig, namespace, name, chart, **kw):
    result, _ = run_release(module_params(name=name, namespace=namespace, chart_ref=corpuskit.archive(chart),
                                          kubeconfig=kubeconfig, timeout=TIMEOUT, **kw))
    return result


def _playbook(tmp_path, kubeconfig, namespace, name, chart):
    task = {"helmless.core.release": {"name": name, "namespace": namespace, "kubeconfig": kubeconfig,
                                       "chart_ref": corpuskit.archive(chart), "timeout": TIMEOUT}}
    play = [{"hosts": "localhost", "connection": "local", "gather_facts": False, "tasks": [
        dict(task, register="first"), dict(task, register="second"),
        {"copy": {"content": "{{ [first, second] | to_json }}", "dest": str(tmp_path / "out.json")}}]}]
    (tmp_path / "play.yml").write_text(yaml.safe_dump(play))
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=os.path.join(ROOT, ".build", "collections"),
               ANSIBLE_LOCALHOST_WARNING="false")
    proc = subprocess.run(["ansible-playbook", "-i", "localhost,", "-e", "ansible_python_interpreter=" + sys.executable,
                           str(tmp_path / "play.yml")], env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    return json.loads((tmp_path / "out.json").read_text())


@pytest.mark.parametrize("chart", CHARTS)
def test_a_corpus_chart_installs_where_helm_installs_it_and_reruns_as_a_no_op(
        chart, helm4, tmp_path, kubeconfig, namespace, claims):
    name = _release_name(chart)
    claims.claim(chart, name)
    helm = helm4.run("install", name, corpuskit.archive(chart), "-n", namespace, "--timeout", TIMEOUT,
                     check=False)
    if chart in HELM_REFUSES:
        theirs, ours = HELM_REFUSES[chart]
        assert helm.returncode != 0 and theirs in helm.stderr, \
            "helm now installs %s: drop it from HELM_REFUSES\n%s" % (chart, helm.stderr)
        if engine_for(kubeconfig, namespace, name).history():  # helm recorded its failed install
            helm4.run("uninstall", name, "-n", namespace, "--wait", "--timeout", TIMEOUT)
        try:
            with pytest.raises(ModuleFailure) as failed:
                _ours(kubeconfig, namespace, name, chart)
            assert ours in str(failed.value)
            assert engine_for(kubeconfig, namespace, name).history() == []  # refused before any write
        finally:
            run_release(module_params(name=name, namespace=namespace, kubeconfig=kubeconfig, state="absent"))
        return
    assert helm.returncode == 0, "helm cannot install %s:\n%s" % (chart, helm.stderr)
    on_helms = _ours(kubeconfig, namespace, name, chart)  # helm wrote the revision: same chart and values
    assert not on_helms["changed"] and on_helms["api_requests"]["writes"] == 0, on_helms["progress"]
    helm4.run("uninstall", name, "-n", namespace, "--wait", "--timeout", TIMEOUT)
    try:
        if chart == THROUGH_ANSIBLE:
            first, second = _playbook(tmp_path, kubeconfig, namespace, name, chart)
        else:
            first = _ours(kubeconfig, namespace, name, chart)
            second = _ours(kubeconfig, namespace, name, chart)
        assert first["changed"] and first["status"]["status"] == "deployed", first.get("progress")
        assert not second["changed"] and second["api_requests"]["writes"] == 0, second["progress"]
        assert [r["version"] for r in engine_for(kubeconfig, namespace, name).history()] == [1]
    finally:  # cluster-scoped objects (webhooks, cluster roles) must not outlive the test
        run_release(module_params(name=name, namespace=namespace, kubeconfig=kubeconfig, state="absent"))
