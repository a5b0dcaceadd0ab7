"""The reliability matrix's parts (no tests here): charts, operations, fault schedules, invariants.

An operation runs through the fault proxy under one schedule, then once more without faults (the
"rerun"); the invariants are checked after both. Each run yields one row for docs/reliability.md.
``storage`` (the engine's driver keywords, e.g. ``{"driver": "sql", "sql_connection": url}``) runs the
same operations on another storage driver; SQL_SCHEDULES are the database's faults (pgfaultproxy).
"""
import base64
import json
import os
import re
import threading
import time

import psycopg

from ansible_collections.helmless.core.plugins.module_utils.actions.base import OperationError
from ansible_collections.helmless.core.plugins.module_utils.actions.operations import ReleaseEngine
from ansible_collections.helmless.core.plugins.module_utils.actions.testing import run_tests
from ansible_collections.helmless.core.plugins.module_utils.kube.client import KubeClient
from ansible_collections.helmless.core.plugins.module_utils.kube.config import load_connection
from ansible_collections.helmless.core.plugins.module_utils.plan.manifest import parse_manifest
from ansible_collections.helmless.core.plugins.module_utils.release.lease import lease_state

from faultproxy import burst, every, window
from test_release_support import configmap, job, literal_input, opts

OPERATIONS = ("install", "upgrade", "rollback", "uninstall", "test")
SIZES = (50, 300)
RELEASE = "rel"
LEASE_SECONDS = 3

# name → (what it does, how to arm it on a FaultProxy)
SCHEDULES = {
    "none": ("no faults (the baseline each fault's cost is measured against)", lambda p: None),
    "429-burst": ("429 with Retry-After: 1 for requests 10-13", lambda p: p.add(
        "status", status=429, retry_after=1, schedule=burst(10, 4))),
    "503-every-5th": ("503 without Retry-After on every 5th request", lambda p: p.add(
        "status", status=503, schedule=every(5, 2))),
    "brownout-2s": ("503 with Retry-After: 1 on everything for 2 s", lambda p: p.add(
        "status", status=503, retry_after=1, schedule=window(0.05, 2.05))),
    "reset-every-9th": ("connection reset before forwarding, every 9th request", lambda p: p.add(
        "reset", schedule=every(9, 4))),
    "lost-answer-every-7th-write": ("write applied by the server, answer lost, every 7th write", lambda p: p.add(
        "lose_response", method="POST|PUT|PATCH|DELETE", schedule=every(7, 3))),
    "cut-body-every-13th": ("response cut halfway through its body, every 13th request", lambda p: p.add(
        "reset_mid_body", schedule=every(13, 5))),
    "stall": ("one request held 12 s then dropped (client timeout 8 s)", lambda p: p.add(
        "stall", seconds=12, schedule=burst(12, 1))),
}


# name → (what it does, how to arm a PgFaultProxy: arm(proxy, postgres, direct_url)). A statement
# timeout needs the connection string of the faulted run to set one (SQL_TIMEOUT_OPTION).
SQL_SCHEDULES = {
    "db-restarted": ("the server restarted (every session cut, 1 s down) when the first revision update is sent",
                     lambda proxy, pg, url: proxy.add("UPDATE releases_v1", "drop_before",
                                                      call=lambda: pg.restart(down=1.0))),
    "db-connection-dropped": ("the connection dropped after the server committed the first write (its COMMIT, or "
                              "a write outside a transaction), before its answer",
                              lambda proxy, pg, url: proxy.add("committed", "drop_after")),
    "db-statement-timeout": ("the release table locked for 3 s when the first revision update is sent, under a "
                             "500 ms statement_timeout", lambda proxy, pg, url: proxy.add(
                                 "UPDATE releases_v1", "lock-table", call=lambda: hold_table_lock(url, 3.0))),
}
SQL_TIMEOUT_OPTION = "&options=-c%20statement_timeout%3D500"


def hold_table_lock(url, seconds):
    """Lock releases_v1 from another session for ``seconds``; returns once the lock is held."""
    held = threading.Event()

    def hold():
        with psycopg.connect(url) as conn:
            conn.execute("LOCK TABLE releases_v1 IN ACCESS EXCLUSIVE MODE")
            held.set()
            time.sleep(seconds)
    threading.Thread(target=hold, daemon=True).start()
    held.wait(10)


def _secret(name, value):
    return {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": name}, "type": "Opaque",
            "data": {"value": base64.b64encode(value.encode()).decode()}}


def _test_pod(name, weight):
    """A ``helm test`` Pod that kwok runs to Succeeded (scripts/controlplane.d/kwok-stages.yaml)."""
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "annotations": {"helm.sh/hook": "test", "helm.sh/hook-weight": str(weight),
                                                       "helm.sh/hook-delete-policy": "before-hook-creation"}},
            "spec": {"restartPolicy": "Never", "containers": [{"name": "t", "image": "busybox", "command": ["true"]}]}}


TESTS = ("smoke-test", "data-test")


def chart(size, tag, hooks, event):
    """``size`` objects (every 10th a Secret); v2 drops the first 5 names and adds 5 new ones. Every version
    carries two test Pods (``helm test`` hooks), which only the ``test`` operation runs."""
    shift = 5 if tag == "v2" else 0
    docs = [(_secret if i % 10 == 9 else lambda n, v: configmap(n, {"k": v}))("obj-%03d" % i, "%s-%d" % (tag, i))
            for i in range(shift, size + shift)]
    hook_docs = [job("pre-%s" % event, ["pre-%s" % event], policies=["before-hook-creation", "hook-succeeded"]),
                 job("post-%s" % event, ["post-%s" % event], policies=["before-hook-creation", "hook-succeeded"])] \
        if hooks else []
    hook_docs += [_test_pod(name, weight) for weight, name in enumerate(TESTS)]
    return literal_input(docs, hooks=hook_docs)


def engine(kubeconfig, namespace, timeout=60, storage=None):
    return ReleaseEngine(KubeClient(load_connection(kubeconfig), timeout=timeout), RELEASE, namespace,
                         **(storage or {}))


def setup(kubeconfig, namespace, operation, size, hooks, storage=None):
    """Bring the release to where ``operation`` starts (without faults)."""
    if operation == "install":
        return
    engine(kubeconfig, namespace, storage=storage).present(chart(size, "v1", hooks, "install"),
                                                           opts(lease_duration=LEASE_SECONDS))
    if operation == "rollback":
        engine(kubeconfig, namespace, storage=storage).present(chart(size, "v2", hooks, "upgrade"),
                                                               opts(lease_duration=LEASE_SECONDS))


def run(kubeconfig, namespace, operation, size, hooks, timeout=60, storage=None):
    """Run ``operation`` once; return (client, error message or None)."""
    eng = engine(kubeconfig, namespace, timeout, storage)
    options = opts(lease_duration=LEASE_SECONDS, timeout=120)
    try:
        if operation in ("install", "upgrade"):
            event = "install" if operation == "install" else "upgrade"
            eng.present(chart(size, "v1" if operation == "install" else "v2", hooks, event), options)
        elif operation == "rollback":
            eng.rollback(1, options)
        elif operation == "test":
            run_tests(eng, timeout=120)
        else:
            options.purge = False
            eng.absent(options)
    except OperationError as exc:
        return eng.client, str(exc)
    return eng.client, None


def wait_for_lease_expiry(kubeconfig, namespace):
    """A run that could not record its end leaves its lease to expire: wait that out (≤ LEASE_SECONDS)."""
    client = KubeClient(load_connection(kubeconfig))
    deadline = time.monotonic() + LEASE_SECONDS * 4
    while time.monotonic() < deadline:
        lease, expired = lease_state(client, namespace, RELEASE)
        if lease is None or expired:
            return
        time.sleep(0.5)


def names_failure(message):
    """Whether a failure message names the object or request that failed, and why."""
    what = re.search(r"(\b(?:ConfigMap|Secret|Job)/\S+|\b(?:GET|POST|PUT|PATCH|DELETE) /\S+|hook \S+|release \S+)",
                     message)
    why = re.search(r"(HTTP \d{3}|connection|timed out|refused|reset|lost|Retry-After|injected fault|"
                    r"in progress|failed|statement timeout)", message)
    return bool(what and why)


def invariants(kubeconfig, namespace, operation, helm=None, after_rerun=False, storage=None):
    """Violations of the release invariants, as readable strings (empty when all hold)."""
    out = []
    client = KubeClient(load_connection(kubeconfig))
    history = ReleaseEngine(client, RELEASE, namespace, **(storage or {})).history()
    versions = [r["version"] for r in history]
    if versions != list(range(1, len(versions) + 1)):
        out.append("revisions lost or duplicated: %s" % versions)
    statuses = [r["info"]["status"] for r in history]
    deployed = [r for r in history if r["info"]["status"] == "deployed"]
    if operation == "uninstall" and after_rerun:
        if statuses[-1:] != ["uninstalled"] or deployed:
            out.append("after uninstall: statuses %s" % statuses)
    elif statuses and statuses[-1] != "uninstalled" and len(deployed) != 1 and (after_rerun or deployed):
        out.append("%d revisions deployed: %s" % (len(deployed), statuses))
    if after_rerun and any(s.startswith("pending-") for s in statuses):
        out.append("left pending: %s" % statuses)
    if after_rerun and operation != "uninstall" and not deployed:
        out.append("nothing deployed after the rerun: %s" % statuses)
    if deployed and statuses[-1] != "uninstalled":
        out.extend(_objects_match(client, namespace, deployed[0]))
    elif after_rerun:
        left = _release_objects(client, namespace)
        if left:
            out.append("objects left after uninstall: %s" % sorted(left)[:5])
    if operation == "test":
        out.extend(_tests_recorded(history, after_rerun))
    if helm is not None and history:
        out.extend(_helm_reads(helm, namespace, history))
    return out


def _tests_recorded(history, after_rerun):
    """``helm test`` writes no revision; after the rerun every test of the release has a Succeeded run on record."""
    out = []
    if [r["version"] for r in history] != [1]:
        out.append("helm test changed the history: revisions %s" % [r["version"] for r in history])
    if after_rerun and history:
        runs = {h["name"]: (h.get("last_run") or {}).get("phase") for h in history[-1].get("hooks") or []
                if "test" in (h.get("events") or ())}
        if runs != {name: "Succeeded" for name in TESTS}:
            out.append("test runs on record after the rerun: %s" % runs)
    return out


def _release_objects(client, namespace):
    found = {}
    for kind in ("ConfigMap", "Secret"):
        for obj in client.list("v1", kind, namespace, "app.kubernetes.io/managed-by=Helm"):
            if (obj["metadata"].get("annotations") or {}).get("meta.helm.sh/release-name") == RELEASE:
                found[(kind, obj["metadata"]["name"])] = obj
    return found


def _objects_match(client, namespace, release):
    """Every object of the revision's manifest is live with that content (data, or the pod template's
    containers); no ConfigMap/Secret of the release is live beyond it."""
    out = []
    wanted = parse_manifest(release.get("manifest") or "")
    for res in wanted:
        have = client.get(res.api_version, res.kind, res.name, namespace)
        if have is None:
            out.append("%s/%s of revision %d missing" % (res.kind, res.name, release["version"]))
            continue
        if res.kind in ("ConfigMap", "Secret"):
            same = have.get("data") == res.obj.get("data")
        else:
            pod = lambda o: ((o.get("spec") or {}).get("template") or {}).get("spec") or {}  # noqa: E731
            same = [(c.get("image"), c.get("env")) for c in pod(have).get("containers") or []] == [
                (c.get("image"), c.get("env")) for c in pod(res.obj).get("containers") or []]
        if not same:
            out.append("%s/%s differs from revision %d" % (res.kind, res.name, release["version"]))
    extra = sorted(set(_release_objects(client, namespace)) - {(r.kind, r.name) for r in wanted})
    if extra:
        out.append("objects not in revision %d: %s" % (release["version"], extra[:5]))
    return out


def _helm_reads(helm, namespace, history):
    out = []
    proc = helm.run("history", RELEASE, "-n", namespace, "-o", "json", check=False)
    if proc.returncode != 0:
        return ["helm history failed: %s" % proc.stderr.strip()]
    theirs = [(r["revision"], r["status"]) for r in json.loads(proc.stdout)]
    ours = [(r["version"], r["info"]["status"]) for r in history]
    if theirs != ours:
        out.append("helm history %s != ours %s" % (theirs, ours))
    proc = helm.run("status", RELEASE, "-n", namespace, "-o", "json", check=False)
    if proc.returncode != 0:
        out.append("helm status failed: %s" % proc.stderr.strip())
    else:
        status = json.loads(proc.stdout)
        last = history[-1]  # helm status shows the last revision, whatever its status
        if (status["version"], status["info"]["status"]) != (last["version"], last["info"]["status"]):
            out.append("helm status %s/%s != ours %s/%s" % (status["version"], status["info"]["status"],
                                                            last["version"], last["info"]["status"]))
    return out


def record_row(row):
    """Append one matrix row where the report script collects them (RELIABILITY_ROWS), if it asked."""
    path = os.environ.get("RELIABILITY_ROWS")
    if path:
        with open(path, "a") as fh:
            fh.write(json.dumps(row) + "\n")
