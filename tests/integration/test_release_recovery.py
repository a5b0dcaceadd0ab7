"""SIGKILL the operation in pre-upgrade hooks, during apply and during wait: the next run recovers."""
import os
import signal
import subprocess
import sys
import time

import pytest

from ansible_collections.helmless.core.plugins.module_utils.actions.base import OperationError

from test_release_support import client_for, configmap, engine_for, literal_input, opts

HERE = os.path.dirname(os.path.abspath(__file__))
def _spawn(kubeconfig, namespace, scenario):
    code = ("import json, sys\nsys.path[:0] = %r\n"
            "from test_release_support import *\n"
            "kubeconfig, namespace, scenario = %r, %r, %r\n"
            "if scenario == 'hook':\n"
            "    hooks = [job('stuck', ['pre-upgrade'], fail=False)]\n"
            "    hooks[0]['spec']['template']['spec']['nodeSelector'] = {'no-such': 'node'}\n"
            "    inp = literal_input([configmap('a', {'k': 'v2'})], hooks=hooks)\n"
            "    engine_for(kubeconfig, namespace).present(inp, opts(timeout=600, lease_duration=6))\n"
            "elif scenario == 'apply':\n"
            "    import time\n"
            "    from ansible_collections.helmless.core.plugins.module_utils.actions import executor\n"
            "    real_run = executor._run\n"
            "    def slow_run(client, change, force):\n"
            "        if change.resource.name == 'm150':\n"
            "            time.sleep(600)  # a slow API server in the middle of the apply\n"
            "        return real_run(client, change, force)\n"
            "    executor._run = slow_run\n"
            "    docs = [configmap('m%%03d' %% i, {'k': 'v2'}) for i in range(300)]\n"
            "    engine_for(kubeconfig, namespace).present(literal_input(docs), opts(lease_duration=6))\n"
            "else:\n"
            "    d = deployment('web', replicas=1)\n"
            "    d['spec']['template']['spec']['nodeSelector'] = {'no-such': 'node'}\n"
            "    engine_for(kubeconfig, namespace).present(literal_input([configmap('a', {'k': 'v2'}), d]),\n"
            "                                           opts(wait=True, timeout=600, lease_duration=6))\n"
            % (sys.path, kubeconfig, namespace, scenario))
    return subprocess.Popen([sys.executable, "-c", code], cwd=HERE)


def _wait_until(predicate, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.2)
    raise AssertionError("condition not reached")


def _pending(kubeconfig, namespace):
    history = engine_for(kubeconfig, namespace).history()
    return history and history[-1]["info"]["status"] == "pending-upgrade"


@pytest.mark.parametrize("scenario", ["hook", "apply", "wait"])
def test_a_killed_upgrade_is_recovered_by_the_next_run(kubeconfig, namespace, scenario):
    base = [configmap("a", {"k": "v1"})]
    if scenario == "apply":
        base = [configmap("m%03d" % i, {"k": "v1"}) for i in range(300)]
    engine_for(kubeconfig, namespace).present(literal_input(base), opts())
    client = client_for(kubeconfig)
    child = _spawn(kubeconfig, namespace, scenario)
    try:
        if scenario == "hook":
            _wait_until(lambda: client.get("batch/v1", "Job", "stuck", namespace) is not None)
        elif scenario == "apply":
            _wait_until(lambda: _pending(kubeconfig, namespace) and
                        client.get("v1", "ConfigMap", "m000", namespace)["data"] == {"k": "v2"})
        else:
            _wait_until(lambda: _pending(kubeconfig, namespace) and
                        client.get("apps/v1", "Deployment", "web", namespace) is not None)
        assert child.poll() is None, "the operation ended before it could be killed"
        os.kill(child.pid, signal.SIGKILL)
    finally:
        child.wait()
    assert _pending(kubeconfig, namespace)
    with pytest.raises(OperationError, match="another operation"):  # the lease is still fresh
        engine_for(kubeconfig, namespace).present(literal_input(base), opts())
    time.sleep(7)
    final = [configmap("a", {"k": "v3"})]
    out = engine_for(kubeconfig, namespace).present(literal_input(final), opts())
    assert out.changed
    history = engine_for(kubeconfig, namespace).history()
    assert [(r["version"], r["info"]["status"]) for r in history] == [(1, "superseded"), (2, "failed"), (3, "deployed")]
    assert client.get("v1", "ConfigMap", "a", namespace)["data"] == {"k": "v3"}
    if scenario == "apply":
        assert client.get("v1", "ConfigMap", "m299", namespace) is None
