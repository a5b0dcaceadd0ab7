"""kube-apiserver or etcd SIGKILLed and restarted (same ports, same data) while an upgrade is in its apply,
in a hook or in its wait: the upgrade survives, or fails naming why and a clean rerun recovers.

These run on a control plane of their own (scripts/controlplane kill/revive), not the session's.
"""
import os
import threading
import time

import pytest

import cp_run
from ansible_collections.helmless.core.plugins.module_utils.actions import hooks, upgrade
from ansible_collections.helmless.core.plugins.module_utils.actions import executor
from ansible_collections.helmless.core.plugins.module_utils.actions.base import OperationError
from ansible_collections.helmless.core.plugins.module_utils.kube.errors import ApiError

from conftest import _helm
from reliability import invariants, record_row
from test_release_support import client_for, configmap, deployment, engine_for, job, literal_input, opts

ALL = [(fault, phase) for fault in ("apiserver", "etcd") for phase in ("apply", "hook", "wait")]
DEFAULT = [("apiserver", "apply"), ("etcd", "hook"), ("apiserver", "wait")]
CASES = ALL if os.environ.get("RELIABILITY_MATRIX") == "full" else DEFAULT


@pytest.fixture(scope="module")
def own_controlplane(tmp_path_factory):
    d = str(tmp_path_factory.mktemp("faults") / "cp")
    try:
        state = cp_run.start(d)
    except cp_run.ControlPlaneError as exc:
        pytest.fail("control plane for process faults did not start: %s" % exc, pytrace=False)
    yield state
    cp_run.stop(d)


def _inputs(phase, tag):
    if phase == "apply":
        return literal_input([configmap("m%03d" % i, {"k": tag}) for i in range(300)])
    if phase == "hook":
        return literal_input([configmap("a", {"k": tag})], hooks=[job("pre", ["pre-upgrade"])])
    return literal_input([configmap("a", {"k": tag}), deployment("web", replicas=2, env={"TAG": tag})])


def _pause_in(phase, monkeypatch, reached, resume):
    """Hold the upgrade at the point of ``phase`` until the test has killed the component."""
    def hold():
        reached.set()
        resume.wait(120)
    if phase == "apply":
        real = executor._run

        def run(client, change, force):
            if change.resource.name == "m150":
                hold()
            return real(client, change, force)
        monkeypatch.setattr(executor, "_run", run)
    elif phase == "hook":
        real_wait = hooks.HookRunner._wait

        def wait(self, obj, ref, deadline):
            hold()
            return real_wait(self, obj, ref, deadline + 120)
        monkeypatch.setattr(hooks.HookRunner, "_wait", wait)
    else:
        real_wait_for = upgrade.wait_for

        def wait_for(*args, **kwargs):
            hold()
            return real_wait_for(*args, **kwargs)
        monkeypatch.setattr(upgrade, "wait_for", wait_for)


def _kubelet_status_sync(kubeconfig, namespace):
    """What a kubelet's next status sync does for its pods. kwok (v0.8.0) drops a pod's stage whose patch met
    the restart: it retries refused connections, 503, 429 and timeouts, not etcd's Unavailable behind a 500, so
    under load a hook's pod could stay Running for good. An update of each pod makes kwok play its stage again."""
    client = client_for(kubeconfig)
    for pod in client.list("v1", "Pod", namespace):
        try:
            client.patch("v1", "Pod", pod["metadata"]["name"], namespace,
                         {"metadata": {"annotations": {"test.helmless.io/status-sync": str(time.time())}}}, "merge")
        except ApiError as exc:
            if exc.status != 404:  # gone since the list: nothing to sync
                raise


@pytest.mark.parametrize("fault,phase", CASES, ids=["%s-in-%s" % c for c in CASES])
def test_an_upgrade_survives_a_control_plane_process_restart(own_controlplane, tmp_path, monkeypatch, fault, phase):
    kubeconfig, d = own_controlplane["kubeconfig"], own_controlplane["dir"]
    namespace = "pf-%s-%s" % (fault, phase)
    client_for(kubeconfig).create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}})
    engine_for(kubeconfig, namespace).present(_inputs(phase, "v1"), opts())
    reached, resume, result = threading.Event(), threading.Event(), {}
    _pause_in(phase, monkeypatch, reached, resume)

    def upgrade():
        try:
            engine_for(kubeconfig, namespace).present(_inputs(phase, "v2"), opts(wait=phase == "wait", timeout=180))
        except OperationError as exc:
            result["error"] = str(exc)
    worker = threading.Thread(target=upgrade)
    started = time.monotonic()
    worker.start()
    assert reached.wait(120), "the upgrade never reached its %s phase" % phase
    cp_run.kill(fault, d)
    down = time.monotonic()
    resume.set()  # the upgrade goes on against a dead component
    time.sleep(2)
    cp_run.revive(fault, d)
    down = time.monotonic() - down
    _kubelet_status_sync(kubeconfig, namespace)
    worker.join(300)
    assert not worker.is_alive(), "the upgrade hung after the restart"
    seconds = time.monotonic() - started
    monkeypatch.undo()
    helm = _helm("helm4", tmp_path, kubeconfig)
    violations = invariants(kubeconfig, namespace, "upgrade", helm)
    if "error" in result:  # a clean rerun must recover
        engine_for(kubeconfig, namespace).present(_inputs(phase, "v2"), opts())
        violations += ["after rerun: " + v for v in invariants(kubeconfig, namespace, "upgrade", helm, True)]
    record_row({"process_fault": fault, "phase": phase, "survived": "error" not in result,
                "error": result.get("error"), "down": down, "seconds": seconds, "violations": violations})
    assert not violations, violations
    assert "error" not in result, "the upgrade did not survive the %s restart: %s" % (fault, result["error"])
    history = engine_for(kubeconfig, namespace).history()
    assert [(r["version"], r["info"]["status"]) for r in history] == [(1, "superseded"), (2, "deployed")]
