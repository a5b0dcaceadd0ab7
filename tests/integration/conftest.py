"""Fixtures for tests against a real control plane (scripts/controlplane, docs/dev/controlplane.md).

One control plane serves the whole test run, also under pytest-xdist: the first worker to need it starts
it under a file lock keyed by the run id, every worker registers its pid in a reference file, and the
last worker to leave (session end, interpreter exit or SIGTERM/SIGHUP) stops it.
"""
import atexit
import fcntl
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import uuid
from contextlib import contextmanager

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts", "controlplane.d"))

import cp_build  # noqa: E402
import cp_run  # noqa: E402

_RUN_KEY = os.environ.get("PYTEST_XDIST_TESTRUNUID") or "solo-%d" % os.getpid()
_BASE = os.path.join(tempfile.gettempdir(), "helmless-cp-%s" % _RUN_KEY)
_CP_DIR = os.path.join(_BASE, "cp")


@contextmanager
def _locked():
    os.makedirs(_BASE, exist_ok=True)
    with open(os.path.join(_BASE, "lock"), "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _refs(update=None):
    """Live pids using the control plane, after applying ``update`` to the set; caller holds the lock."""
    path = os.path.join(_BASE, "refs.json")
    try:
        with open(path) as fh:
            pids = set(json.load(fh))
    except (OSError, ValueError):
        pids = set()
    pids = {p for p in pids if cp_run._alive(p)}
    if update:
        update(pids)
    with open(path, "w") as fh:
        json.dump(sorted(pids), fh)
    return pids


class _Session:
    attached = False
    starting = False

    def attach(self):
        with _locked():
            _refs(lambda pids: pids.add(os.getpid()))
            self.attached, self.starting = True, True
            try:
                return cp_run.start(_CP_DIR)
            finally:
                self.starting = False

    def detach(self, *_):
        if not self.attached:
            return
        self.attached = False
        with _locked():
            if not _refs(lambda pids: pids.discard(os.getpid())):
                cp_run.stop(_CP_DIR)
                shutil.rmtree(_BASE, ignore_errors=True)


_session = _Session()
atexit.register(_session.detach)


def _on_signal(signum, _frame):
    if _session.starting:  # we hold the lock: unwind (start cleans up), atexit detaches
        raise KeyboardInterrupt
    _session.detach()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


for _sig in (signal.SIGTERM, signal.SIGHUP):
    try:
        signal.signal(_sig, _on_signal)
    except ValueError:  # not the main thread: atexit and fixture teardown still apply
        pass


class ControlPlane:
    """A running control plane: ``kubeconfig`` (admin, system:masters), ``server``, ``dir``."""

    def __init__(self, state):
        self.dir = state["dir"]
        self.server = state["server"]
        self.kubeconfig = state["kubeconfig"]

    def token_kubeconfig(self, namespace, serviceaccount):
        """Kubeconfig path authenticating as a (created if missing) ServiceAccount via a TokenRequest."""
        return cp_run.token(namespace, serviceaccount, self.dir)


@pytest.fixture(scope="session")
def controlplane():
    try:
        state = _session.attach()
    except cp_run.ControlPlaneError as exc:
        pytest.fail("local control plane did not start: %s" % exc, pytrace=False)
    yield ControlPlane(state)
    _session.detach()


@pytest.fixture(scope="session")
def kubeconfig(controlplane):
    """Path of the admin kubeconfig."""
    return controlplane.kubeconfig


@pytest.fixture(scope="session")
def kube_client(kubeconfig):
    """A ``kubernetes.client.ApiClient`` authenticated as admin."""
    from kubernetes import config

    return config.new_client_from_config(config_file=kubeconfig)


def _fresh_namespace(kube_client, prefix):
    from kubernetes import client

    name = prefix + uuid.uuid4().hex[:10]
    core = client.CoreV1Api(kube_client)
    core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=name)))
    yield name
    core.delete_namespace(name)


@pytest.fixture
def namespace(kube_client):
    """A fresh namespace for one test, deleted (without waiting) afterwards."""
    yield from _fresh_namespace(kube_client, "t-")


@pytest.fixture
def reference_namespace(kube_client):
    """A second fresh namespace, where a real helm CLI repeats a test's steps to show what it does."""
    yield from _fresh_namespace(kube_client, "r-")


@pytest.fixture
def limited_kubeconfig(controlplane, kube_client):
    """Factory: ``limited_kubeconfig(namespace, rules)`` → kubeconfig path of a fresh ServiceAccount whose
    only permissions are a Role with ``rules`` (list of dicts: apiGroups/resources/verbs) in ``namespace``."""
    from kubernetes import client

    rbac = client.RbacAuthorizationV1Api(kube_client)

    def make(namespace, rules, name=None):
        name = name or "limited-" + uuid.uuid4().hex[:6]
        path = controlplane.token_kubeconfig(namespace, name)
        rbac.create_namespaced_role(namespace, {"metadata": {"name": name}, "rules": rules})
        rbac.create_namespaced_role_binding(namespace, {
            "metadata": {"name": name},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": name},
            "subjects": [{"kind": "ServiceAccount", "name": name, "namespace": namespace}]})
        return path

    return make


class HelmCLI:
    """A real helm binary with HELM_* homes isolated in a tmp dir and KUBECONFIG set to the admin one."""

    def __init__(self, path, env):
        self.path = path
        self.env = env

    def __fspath__(self):
        return self.path

    def __str__(self):
        return self.path

    def run(self, *args, check=True, **kwargs):
        """Run ``helm ARGS``; returns the CompletedProcess (text). ``check`` raises with helm's stderr."""
        proc = subprocess.run([self.path, *args], env=self.env, capture_output=True, text=True, **kwargs)
        if check and proc.returncode != 0:
            raise AssertionError("helm %s failed (%d):\n%s%s" % (" ".join(args), proc.returncode,
                                                                  proc.stdout, proc.stderr))
        return proc


def _built(which):
    path = cp_build.binaries()[which]
    if not os.path.exists(path):
        pytest.fail("%s is not built (%s): run scripts/controlplane build" % (which, path), pytrace=False)
    return path


def _helm(which, tmp_path, kubeconfig):
    path = _built(which)
    home = tmp_path / ("%s-home" % which)
    env = dict(os.environ, KUBECONFIG=kubeconfig, HELM_CONFIG_HOME=str(home / "config"),
               HELM_CACHE_HOME=str(home / "cache"), HELM_DATA_HOME=str(home / "data"),
               HELM_PLUGINS=str(home / "plugins"))
    env.pop("HELM_NAMESPACE", None)
    return HelmCLI(path, env)


@pytest.fixture
def helm4(tmp_path, kubeconfig):
    """Helm v4 CLI (``HelmCLI``: ``.path``, ``.env``, ``.run(*args)``), no plugins."""
    return _helm("helm4", tmp_path, kubeconfig)


@pytest.fixture
def helm3(tmp_path, kubeconfig):
    """Helm v3 CLI, same interface as ``helm4``."""
    return _helm("helm3", tmp_path, kubeconfig)


@pytest.fixture
def kustomize():
    """The path of the kustomize CLI at KUSTOMIZE_VERSION (scripts/versions.env), the post-render reference."""
    return _built("kustomize")
