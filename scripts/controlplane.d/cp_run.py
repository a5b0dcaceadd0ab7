"""Start, stop and inspect a loopback control plane: etcd, kube-apiserver, controller-manager,
scheduler and kwok (fake nodes), all on 127.0.0.1 with ports picked at start.

Everything lives in one directory (certs, data, logs, kubeconfigs, ``state.json``); ``stop`` kills each
recorded process group and removes that directory. Importable: tests/integration/conftest.py uses it.
"""
import contextlib
import fcntl
import json
import os
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

import cp_build
import cp_certs

# Our own kwok Stages (test pods run to completion), read from the tree at every start: no rebuild needed.
HELMLESS_STAGES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kwok-stages.yaml")
# Writes each run-to-completion pod's container logs and the kwok Logs object serving them.
POD_LOGS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cp_podlogs.py")
# kwok's Logs kind (kwok.x-k8s.io/v1alpha1), which kwok watches with --enable-crds=Logs: our own minimal
# definition (kwok reads spec.logs[].containers/logsFile; nothing else here looks at the schema).
LOGS_CRD = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "logs.kwok.x-k8s.io"},
    "spec": {"group": "kwok.x-k8s.io", "scope": "Namespaced",
             "names": {"kind": "Logs", "listKind": "LogsList", "plural": "logs", "singular": "logs"},
             "versions": [{"name": "v1alpha1", "served": True, "storage": True, "subresources": {"status": {}},
                           "schema": {"openAPIV3Schema": {"type": "object",
                                                          "x-kubernetes-preserve-unknown-fields": True}}}]}}

HOST = "127.0.0.1"
FAKE_NODES = ("kwok-node-0", "kwok-node-1", "kwok-node-2")


def default_dir():
    return os.environ.get("HELMLESS_CONTROLPLANE_DIR") or os.path.join(
        tempfile.gettempdir(), "helmless-controlplane-%d" % os.getuid())


class ControlPlaneError(Exception):
    pass


def log(msg):
    sys.stderr.write("controlplane: %s\n" % msg)
    sys.stderr.flush()


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a zombie (our own unreaped child) counts as gone
        with open("/proc/%d/stat" % pid) as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def read_state(d):
    try:
        with open(os.path.join(d, "state.json")) as fh:
            return json.load(fh)
    except (OSError, ValueError):
        return None


def _save_state(d, state):
    tmp = os.path.join(d, "state.json.tmp")
    with open(tmp, "w") as fh:
        json.dump(state, fh, indent=1)
    os.replace(tmp, os.path.join(d, "state.json"))


class Api:
    """Minimal HTTPS client authenticated with the admin client cert (no third-party deps)."""

    def __init__(self, d, server):
        pki = os.path.join(d, "pki")
        self.server = server
        self.ctx = ssl.create_default_context(cafile=os.path.join(pki, "ca.crt"))
        self.ctx.load_cert_chain(os.path.join(pki, "admin.crt"), os.path.join(pki, "admin.key"))

    def call(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.server + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, context=self.ctx, timeout=10) as resp:
                status, payload = resp.status, resp.read()
        except urllib.error.HTTPError as exc:
            status, payload = exc.code, exc.read()
        except OSError as exc:
            return 0, {"error": str(exc)}
        try:
            return status, json.loads(payload or b"{}")
        except ValueError:  # /readyz and friends answer plain text
            return status, {"raw": payload.decode(errors="replace")}


def _wait(what, check, timeout, procs=()):
    deadline = time.time() + timeout
    while time.time() < deadline:
        for name, proc in procs:
            if proc.poll() is not None:
                raise ControlPlaneError("%s exited with %s while waiting for %s" % (name, proc.returncode, what))
        if check():
            return
        time.sleep(0.2)
    raise ControlPlaneError("timed out after %ds waiting for %s" % (timeout, what))


def _spawn(d, state, name, argv, env=None):
    logf = open(os.path.join(d, "logs", name + ".log"), "ab")
    proc = subprocess.Popen(argv, stdout=logf, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                            cwd=d, env=env or dict(os.environ), start_new_session=True)
    logf.close()
    state["processes"].append({"name": name, "pid": proc.pid, "argv": argv})
    _save_state(d, state)
    return proc


def _http_ok(url):
    try:
        with urllib.request.urlopen(url, timeout=2) as resp:
            return resp.status == 200
    except (OSError, ValueError):
        return False


def _node(name):
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "annotations": {"kwok.x-k8s.io/node": "fake"},
                         "labels": {"type": "kwok", "kubernetes.io/hostname": name,
                                    "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64"}},
            "status": {"allocatable": {"cpu": "32", "memory": "256Gi", "pods": "110"},
                       "capacity": {"cpu": "32", "memory": "256Gi", "pods": "110"}}}


def _nodes_ready(api):
    status, body = api.call("GET", "/api/v1/nodes?labelSelector=type%3Dkwok")
    if status != 200:
        return False
    ready = [n for n in body.get("items", []) for c in n.get("status", {}).get("conditions") or []
             if c.get("type") == "Ready" and c.get("status") == "True"]
    return len(ready) == len(FAKE_NODES)


def running(d):
    """The state of a live control plane in ``d``, or None."""
    state = read_state(d)
    if not state or not state.get("ready"):
        return None
    if not all(_alive(p["pid"]) for p in state["processes"]):
        return None
    return state


@contextlib.contextmanager
def _dir_lock(d):
    """Serialize start/stop on one dir, so a concurrent stop cannot orphan a process being spawned."""
    os.makedirs(os.path.dirname(d.rstrip("/")), exist_ok=True)
    with open(d.rstrip("/") + ".lock", "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        yield


def start(d=None, timeout=120):
    """Start a control plane in ``d`` (reuse it if already running); return its state dict."""
    d = os.path.abspath(d or default_dir())
    with _dir_lock(d):
        return _start_locked(d, timeout)


def _start_locked(d, timeout):
    state = running(d)
    if state:
        return state
    if read_state(d):
        _stop_locked(d)
    bins = cp_build.binaries()
    for name in ("etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kwok"):
        if not os.path.exists(bins[name]):
            raise ControlPlaneError("%s is not built (%s): run scripts/controlplane build" % (name, bins[name]))
    for attempt in range(3):
        try:
            return _start(d, bins, timeout)
        except ControlPlaneError as exc:
            tail = _log_tails(d)
            _stop_locked(d)
            # Only a server dying early can be a port taken between free_port() and bind: retry those.
            if attempt == 2 or not str(exc).startswith(("etcd exited", "kube-apiserver exited")):
                raise ControlPlaneError("%s\n%s" % (exc, tail))
            log("start failed (%s); retrying with new ports" % exc)
        except BaseException:  # interrupted: leave nothing running
            _stop_locked(d)
            raise
    raise AssertionError("unreachable")


def _log_tails(d, lines=15):
    out = []
    logs = os.path.join(d, "logs")
    for name in sorted(os.listdir(logs)) if os.path.isdir(logs) else []:
        with open(os.path.join(logs, name), errors="replace") as fh:
            out.append("--- %s\n%s" % (name, "".join(fh.readlines()[-lines:])))
    return "".join(out)


# kwok's general-stage annotations: a pod becomes Ready after `delay` (a Go duration, or an RFC 3339 time),
# or after a random time between `delay` (default 0) and `jitter-delay`, as kwok v0.8.0's Stage delay reads them.
POD_READY_DELAY = ("pod-ready.stage.kwok.x-k8s.io/delay", "pod-ready.stage.kwok.x-k8s.io/jitter-delay")


def _pod_ready_stages(doc):
    """kwok's `pod-ready` Stage as two: the same for a pod without the delay annotations, and
    `helmless-pod-ready-delayed`, which does the same after the delay the annotations give."""
    anchor, nxt = "\n    matchExpressions:\n", "\n  next:\n"
    if doc.count(anchor) != 1 or doc.count(nxt) != 1:
        raise ControlPlaneError("kwok's pod-ready Stage has no single selector and next: cannot add its delay")
    annotated = " // ".join('.metadata.annotations["%s"]' % a for a in POD_READY_DELAY)

    def selecting(text, operator):
        return text.replace(anchor, "%s    - key: '%s'\n      operator: '%s'\n" % (anchor, annotated, operator))
    delay = ("\n  delay:\n    durationMilliseconds: 0\n"
             "    durationFrom:\n      expressionFrom: '.metadata.annotations[\"%s\"]'\n"
             "    jitterDurationFrom:\n      expressionFrom: '.metadata.annotations[\"%s\"]'" % POD_READY_DELAY)
    delayed = selecting(doc, "Exists").replace("\n  name: pod-ready\n", "\n  name: helmless-pod-ready-delayed\n")
    return [selecting(doc, "DoesNotExist"), delayed.replace(nxt, delay + nxt)]


def _upstream_stages(d, path, replaced=("pod-delete", "pod-complete")):
    """kwok's own Stages without those kwok-stages.yaml replaces, `pod-ready` split by its delay
    annotations (_pod_ready_stages), written into the run directory."""
    with open(path) as fh:
        docs = fh.read().split("\n---\n")
    kept = [doc for doc in docs if not any("\n  name: %s\n" % name in doc for name in replaced)]
    if len(docs) - len(kept) != len(replaced):
        raise ControlPlaneError("%s: expected kwok Stages %s to replace" % (path, ", ".join(replaced)))
    ready = [doc for doc in kept if "\n  name: pod-ready\n" in doc]
    if len(ready) != 1:
        raise ControlPlaneError("%s: expected one kwok Stage pod-ready" % path)
    at = kept.index(ready[0])
    kept[at:at + 1] = _pod_ready_stages(ready[0])
    out = os.path.join(d, "kwok-upstream-stages.yaml")
    with open(out, "w") as fh:
        fh.write("\n---\n".join(kept))
    return out


def _start(d, bins, timeout):
    t0 = time.time()
    for sub in ("pki", "logs", "etcd", "kwok-home", "apiserver-certs"):
        os.makedirs(os.path.join(d, sub), exist_ok=True)
    pki = os.path.join(d, "pki")
    cp_certs.generate(pki)
    etcd_port, peer_port, api_port, kubelet_port = free_port(), free_port(), free_port(), free_port()
    server = "https://%s:%d" % (HOST, api_port)
    state = {"dir": d, "server": server, "processes": [], "ready": False,
             "kubeconfig": os.path.join(d, "admin.kubeconfig"), "started": time.time()}
    _save_state(d, state)
    p = lambda name: os.path.join(pki, name)  # noqa: E731
    for user, stem in (("admin", "admin"), ("controller-manager", "controller-manager"),
                       ("scheduler", "scheduler")):
        cp_certs.kubeconfig(os.path.join(d, stem + ".kubeconfig"), server, p("ca.crt"),
                            cert=p(stem + ".crt"), key=p(stem + ".key"), user=user)

    etcd_url, peer_url = "http://%s:%d" % (HOST, etcd_port), "http://%s:%d" % (HOST, peer_port)
    etcd = _spawn(d, state, "etcd", [
        bins["etcd"], "--name=default", "--data-dir=" + os.path.join(d, "etcd", "data"),
        "--listen-client-urls=" + etcd_url, "--advertise-client-urls=" + etcd_url,
        "--listen-peer-urls=" + peer_url, "--initial-advertise-peer-urls=" + peer_url,
        "--initial-cluster=default=" + peer_url,
        "--unsafe-no-fsync", "--log-level=warn", "--quota-backend-bytes=8589934592"])
    _wait("etcd /health", lambda: _http_ok(etcd_url + "/health"), 30, [("etcd", etcd)])
    phases = ["etcd %.1fs" % (time.time() - t0)]

    apiserver = _spawn(d, state, "kube-apiserver", [
        bins["kube-apiserver"], "--etcd-servers=" + etcd_url,
        "--bind-address=" + HOST, "--advertise-address=" + HOST, "--secure-port=%d" % api_port,
        "--cert-dir=" + os.path.join(d, "apiserver-certs"),
        "--tls-cert-file=" + p("apiserver.crt"), "--tls-private-key-file=" + p("apiserver.key"),
        "--client-ca-file=" + p("ca.crt"), "--authorization-mode=Node,RBAC",
        "--service-cluster-ip-range=10.96.0.0/16", "--allow-privileged=true",
        "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
        "--service-account-signing-key-file=" + p("sa.key"), "--service-account-key-file=" + p("sa.pub"),
        "--endpoint-reconciler-type=none",  # its endpoint would be 127.0.0.1, which Endpoints reject
        "--kubelet-preferred-address-types=InternalIP",  # the fake nodes' kubelet (kwok) is on 127.0.0.1
        "--profiling=false", "--v=1"])
    api = Api(d, server)
    _wait("kube-apiserver /readyz", lambda: api.call("GET", "/readyz")[0] == 200, 60,
          [("kube-apiserver", apiserver), ("etcd", etcd)])
    phases.append("apiserver %.1fs" % (time.time() - t0))
    status, body = api.call("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", LOGS_CRD)
    if status not in (201, 409):
        raise ControlPlaneError("creating the Logs CRD: HTTP %s %s" % (status, body))
    _wait("the Logs CRD established", lambda: any(
        c.get("type") == "Established" and c.get("status") == "True" for c in (api.call(
            "GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/logs.kwok.x-k8s.io")[1].get("status")
            or {}).get("conditions") or []), 30, [("kube-apiserver", apiserver)])

    cm = _spawn(d, state, "kube-controller-manager", [
        bins["kube-controller-manager"], "--kubeconfig=" + os.path.join(d, "controller-manager.kubeconfig"),
        "--use-service-account-credentials=true", "--service-account-private-key-file=" + p("sa.key"),
        "--root-ca-file=" + p("ca.crt"), "--cluster-signing-cert-file=" + p("ca.crt"),
        "--cluster-signing-key-file=" + p("ca.key"), "--leader-elect=false", "--secure-port=0",
        "--controllers=*", "--v=1"])
    sched = _spawn(d, state, "kube-scheduler", [
        bins["kube-scheduler"], "--kubeconfig=" + os.path.join(d, "scheduler.kubeconfig"),
        "--leader-elect=false", "--secure-port=0", "--v=1"])
    kwok_env = dict(os.environ, HOME=os.path.join(d, "kwok-home"), KWOK_WORKDIR=os.path.join(d, "kwok-home"))
    kwok = _spawn(d, state, "kwok", [
        bins["kwok"], "--kubeconfig=" + state["kubeconfig"], "--config=" + _upstream_stages(d, bins["kwok-stages"]),
        "--config=" + HELMLESS_STAGES,
        "--manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake",
        # kwok serves the fake nodes' kubelet API (container logs from its Logs objects) on 127.0.0.1 only
        "--server-address=%s:%d" % (HOST, kubelet_port), "--node-port=%d" % kubelet_port, "--enable-crds=Logs",
        "--node-ip=" + HOST, "--node-lease-duration-seconds=40"], env=kwok_env)
    pod_logs = _spawn(d, state, "pod-logs", [sys.executable, POD_LOGS, d, "%s:%d" % (HOST, kubelet_port)])
    for name in FAKE_NODES:
        status, body = api.call("POST", "/api/v1/nodes", _node(name))
        if status not in (201, 409):
            raise ControlPlaneError("creating node %s: HTTP %s %s" % (name, status, body))
    procs = [("kube-apiserver", apiserver), ("kube-controller-manager", cm), ("kube-scheduler", sched),
             ("kwok", kwok), ("pod-logs", pod_logs)]
    _wait("default ServiceAccount in namespace default",
          lambda: api.call("GET", "/api/v1/namespaces/default/serviceaccounts/default")[0] == 200,
          timeout, procs)
    phases.append("serviceaccount %.1fs" % (time.time() - t0))
    _wait("fake nodes Ready", lambda: _nodes_ready(api), timeout, procs)
    state["ready"] = True
    _save_state(d, state)
    log("ready in %.1fs at %s (%s)" % (time.time() - t0, server, ", ".join(phases)))
    return state


def stop(d=None):
    """Kill every recorded process group, then remove the directory. Safe to call twice."""
    d = os.path.abspath(d or default_dir())
    with _dir_lock(d):
        _stop_locked(d)
    with contextlib.suppress(OSError):
        os.remove(d.rstrip("/") + ".lock")


def _stop_locked(d, grace=3):
    state = read_state(d)
    procs = list(reversed(state["processes"])) if state else []
    for p in procs:
        try:
            os.killpg(p["pid"], signal.SIGTERM)
        except (ProcessLookupError, PermissionError):
            pass
    deadline = time.time() + grace
    for p in procs:
        while _alive(p["pid"]) and time.time() < deadline:
            _reap(p["pid"])
            time.sleep(0.1)
        if _alive(p["pid"]):
            try:
                os.killpg(p["pid"], signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        _reap(p["pid"])
    if state or os.path.exists(os.path.join(d, "pki")):
        shutil.rmtree(d, ignore_errors=True)


def _reap(pid):
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass


def status(d=None):
    d = os.path.abspath(d or default_dir())
    state = read_state(d)
    if not state:
        print("not running (no state in %s)" % d)
        return 1
    for p in state["processes"]:
        print("%-24s pid %-8d %s" % (p["name"], p["pid"], "running" if _alive(p["pid"]) else "DEAD"))
    ready = Api(d, state["server"]).call("GET", "/readyz")[0] == 200
    print("server     %s (/readyz %s)" % (state["server"], "ok" if ready else "FAILING"))
    print("kubeconfig %s" % state["kubeconfig"])
    return 0 if ready and running(d) else 1


def token(namespace, serviceaccount, d=None, expiration=86400):
    """Create the namespace/SA if missing, mint a TokenRequest token; return a kubeconfig path using it.

    The SA has no permissions of its own: grant them with a Role/RoleBinding (tests do).
    """
    d = os.path.abspath(d or default_dir())
    state = running(d)
    if not state:
        raise ControlPlaneError("no control plane running in %s" % d)
    api = Api(d, state["server"])
    api.call("POST", "/api/v1/namespaces", {"metadata": {"name": namespace}})
    status, body = api.call("POST", "/api/v1/namespaces/%s/serviceaccounts" % namespace,
                            {"metadata": {"name": serviceaccount}})
    if status not in (201, 409):
        raise ControlPlaneError("creating serviceaccount: HTTP %s %s" % (status, body))
    status, body = api.call("POST", "/api/v1/namespaces/%s/serviceaccounts/%s/token" % (namespace, serviceaccount),
                            {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest",
                             "spec": {"expirationSeconds": expiration}})
    if status != 201:
        raise ControlPlaneError("TokenRequest: HTTP %s %s" % (status, body))
    os.makedirs(os.path.join(d, "tokens"), exist_ok=True)
    path = os.path.join(d, "tokens", "%s-%s.kubeconfig" % (namespace, serviceaccount))
    return cp_certs.kubeconfig(path, state["server"], os.path.join(d, "pki", "ca.crt"),
                               token=body["status"]["token"], user="%s-%s" % (namespace, serviceaccount),
                               namespace=namespace)


RESTARTABLE = {"etcd": "etcd", "apiserver": "kube-apiserver", "kube-apiserver": "kube-apiserver"}


def _entry(state, component):
    name = RESTARTABLE.get(component)
    for p in (state or {}).get("processes", []):
        if p["name"] == name and p.get("argv"):
            return p
    raise ControlPlaneError("cannot restart %r: one of %s (started by this script version)"
                            % (component, ", ".join(sorted(RESTARTABLE))))


def kill(component, d=None):
    """SIGKILL one component (etcd or apiserver) and reap it; its ports and data stay for ``revive``."""
    d = os.path.abspath(d or default_dir())
    with _dir_lock(d):
        entry = _entry(read_state(d), component)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(entry["pid"], signal.SIGKILL)
        deadline = time.time() + 10
        while _alive(entry["pid"]) and time.time() < deadline:
            _reap(entry["pid"])
            time.sleep(0.05)
        _reap(entry["pid"])


def revive(component, d=None, timeout=90):
    """Start a killed component again with the same flags (ports, data dir); return once it is healthy."""
    d = os.path.abspath(d or default_dir())
    with _dir_lock(d):
        state = read_state(d)
        entry = _entry(state, component)
        if _alive(entry["pid"]):
            raise ControlPlaneError("%s is still running (pid %d)" % (entry["name"], entry["pid"]))
        state["processes"].remove(entry)
        proc = _spawn(d, state, entry["name"], entry["argv"])
        if entry["name"] == "etcd":
            url = [a.split("=", 1)[1] for a in entry["argv"] if a.startswith("--listen-client-urls=")][0]
            _wait("etcd /health", lambda: _http_ok(url + "/health"), timeout, [("etcd", proc)])
        else:
            api = Api(d, state["server"])
            _wait("kube-apiserver /readyz", lambda: api.call("GET", "/readyz")[0] == 200, timeout,
                  [("kube-apiserver", proc)])
        return proc.pid


def restart(component, d=None, down=0.0):
    """SIGKILL one component, keep it down ``down`` seconds, start it again with the same ports and data."""
    kill(component, d)
    time.sleep(down)
    return revive(component, d)
