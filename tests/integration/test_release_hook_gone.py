"""A Job or Pod hook that is gone while we wait for it, side by side with the real helm v4 CLI.

Helm 4 watches a hook: one removed right after it ended (a Job with ``ttlSecondsAfterFinished: 0``) has
succeeded, one removed while it runs fails the run at the timeout. Reading the hook every half second
cannot tell the two apart; the watch events since the last read can, so ours must do as helm does.
"""
import threading
import time

import pytest

from ansible_collections.helmless.core.plugins.module_utils.ansible.runner import ModuleFailure, run_release

from test_release_support import client_for, module_params, write_chart

RUNS_FOREVER = """apiVersion: v1
kind: Pod
metadata:
  name: pre
  annotations:
    helm.sh/hook: pre-install
spec:
  restartPolicy: Never
  containers:
  - name: c
    image: busybox
    command: ["sleep", "infinity"]
"""
REMOVED_WHEN_DONE = """apiVersion: batch/v1
kind: Job
metadata:
  name: post
  annotations:
    helm.sh/hook: post-install
spec:
  ttlSecondsAfterFinished: 0
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: c
        image: busybox
        command: ["true"]
"""
CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  k: v\n"


def _delete_when_running(kubeconfig, namespace, name, found):
    """Delete Pod ``name`` one second after it runs (so helm's watch has seen it)."""
    client = client_for(kubeconfig)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        pod = client.get("v1", "Pod", name, namespace)
        if pod and (pod.get("status") or {}).get("phase") == "Running":
            time.sleep(1)
            client.delete("v1", "Pod", name, namespace)
            found.append(name)
            return
        time.sleep(0.1)


def _while_deleting(kubeconfig, namespace, run):
    found = []
    deleter = threading.Thread(target=_delete_when_running, args=(kubeconfig, namespace, "pre", found))
    deleter.start()
    try:
        return run()
    finally:
        deleter.join()
        assert found, "the hook Pod never ran"


def _status(kubeconfig, namespace):
    secrets = client_for(kubeconfig).list("v1", "Secret", namespace, label_selector="owner=helm")
    return [s["metadata"]["labels"]["status"] for s in secrets]


def test_a_hook_deleted_while_it_runs_fails_the_install_at_the_timeout_as_helm_does(
        tmp_path, kubeconfig, namespace, reference_namespace, helm4):
    chart = write_chart(tmp_path, {"pre.yaml": RUNS_FOREVER, "cm.yaml": CM})
    helms = _while_deleting(kubeconfig, reference_namespace, lambda: helm4.run(
        "install", "a", chart, "-n", reference_namespace, "--timeout", "8s", check=False))
    assert helms.returncode == 1

    started = time.monotonic()
    with pytest.raises(ModuleFailure) as failure:
        _while_deleting(kubeconfig, namespace, lambda: run_release(module_params(
            name="a", namespace=namespace, kubeconfig=kubeconfig, chart_ref=chart, timeout="8s")))
    assert time.monotonic() - started >= 8
    expected = "resource Pod/%s/pre not ready. status: NotFound, message: Resource not found\ncontext deadline exceeded"
    assert expected % reference_namespace in helms.stderr
    assert expected % namespace in str(failure.value)
    assert _status(kubeconfig, namespace) == _status(kubeconfig, reference_namespace) == ["failed"]


def test_a_job_hook_removed_as_soon_as_it_completes_has_succeeded_as_with_helm(
        tmp_path, kubeconfig, namespace, reference_namespace, helm4):
    chart = write_chart(tmp_path, {"post.yaml": REMOVED_WHEN_DONE, "cm.yaml": CM})
    helm4.run("install", "a", chart, "-n", reference_namespace, "--timeout", "30s")
    result, _ = run_release(module_params(name="a", namespace=namespace, kubeconfig=kubeconfig, chart_ref=chart,
                                          timeout="30s"))
    assert result["changed"] and result["status"]["status"] == "deployed"
    assert _status(kubeconfig, namespace) == _status(kubeconfig, reference_namespace) == ["deployed"]
    for ns in (namespace, reference_namespace):
        assert client_for(kubeconfig).get("batch/v1", "Job", "post", ns) is None
