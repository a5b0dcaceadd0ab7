#!/usr/bin/env python3
"""Release operations on the local control plane: helmless.core vs the helm CLI vs kubernetes.core.helm.

For a ~50-object and a ~300-object chart, in the same run: a no-op rerun and a real upgrade (one value
changed in every object), each the median of N rounds in which every side runs once in turn: as Ansible
tasks (ansible-playbook wall time of a playbook of that one task) for the collections, as one process
for our engine, and as a `helm upgrade` process for the CLI; plus the number of API requests our no-op makes.
The peer every kubernetes.core ratio and target is judged on is the one a user picks today: the kubernetes.core
of the newest `ansible` package (6.6.0, Helm 4 support since 6.4) driving the helm v4 binary; kubernetes.core
6.2.0 driving helm v3, the peer of earlier runs, is a second, labelled column. Each comes from its `ansible`
PyPI package (extracted, not installed) and runs the real helm binary built by scripts/controlplane, without the
helm-diff plugin (not built: the Go module proxy refuses it; kubernetes.core.helm then decides idempotence from
the stored values and chart).

Then the per-task cost Ansible users pay most often: the marginal cost of one more no-op task in a
playbook ((N tasks - 1 task) / (N - 1), same run) for ours, both kubernetes.core.helm and ``ping``, and the
module's own cost (marginal minus ping's), ours / kubernetes.core.helm; and module start,
``ansible -m helmless.core.template`` on the demo chart minus ``ansible -m ping``. The persistent
caches (~/.cache/helmless.core) are warmed by the first run of each, as on any controller.

A no-op on the SQL storage driver (a local PostgreSQL) is timed against a no-op on Secrets, same run.

The largest corpus chart, kong-operator (a 7 MB manifest, mostly CRDs): a ``template`` task against ``helm
template``, and the install, a no-op rerun and an upgrade of one value as ``release`` tasks against the helm CLI,
each task's time minus a ``ping`` task's (Ansible's own cost of a task), median of N rounds.

    python3 benchmarks/release.py [-n 3] [--objects 50,300] [--tasks 11] [--no-marginal] [--no-sql] [--no-large]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COLLECTIONS = os.path.join(ROOT, ".build", "collections")
CACHE = os.path.join(os.path.expanduser("~"), ".cache", "helmless-bench")
# The kubernetes.core peers: the ansible package bundling each, and the helm binary (scripts/controlplane) it drives.
PEERS = {"kcore": {"ansible": "14.5.0", "collection": "6.6.0", "helm": "helm4"},
         "kcore62": {"ansible": "12.3.0", "collection": "6.2.0", "helm": "helm3"}}
UPGRADE_TARGET_OBJECTS = 300  # the upgrade target is set for a release of this many objects (or more)
TARGETS = {"noop_vs_kubernetes_core": 0.8, "upgrade_vs_helm": 0.4, "module_cost_vs_kubernetes_core": 0.5,
           "module_start_s": 0.15, "large_template_vs_helm": 1.0, "large_release_vs_helm": 0.5}
LARGE = "kong-operator"  # the corpus chart with the largest manifest


def _link_collection():
    link = os.path.join(COLLECTIONS, "ansible_collections", "helmless", "core")
    if not os.path.islink(link):
        os.makedirs(os.path.dirname(link), exist_ok=True)
        os.symlink(ROOT, link)


def kubernetes_core(peer="kcore"):
    """Path holding ansible_collections/kubernetes/core of ``peer`` from its ansible wheel (downloaded once)."""
    package, version = PEERS[peer]["ansible"], PEERS[peer]["collection"]
    base = os.path.join(CACHE, "ansible-%s" % package)
    manifest = os.path.join(base, "ansible_collections", "kubernetes", "core", "MANIFEST.json")
    if not os.path.exists(manifest):
        os.makedirs(base, exist_ok=True)
        # the newest ansible package wants Python 3.12 to install; its kubernetes.core runs on any controller
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--ignore-requires-python",
                        "ansible==%s" % package, "-d", CACHE], check=True)
        wheel = os.path.join(CACHE, "ansible-%s-py3-none-any.whl" % package)
        with zipfile.ZipFile(wheel) as zf:
            zf.extractall(base, [n for n in zf.namelist() if n.startswith("ansible_collections/kubernetes/core/")])
    with open(manifest) as fh:
        found = json.load(fh)["collection_info"]["version"]
    if found != version:
        raise SystemExit("ansible %s bundles kubernetes.core %s, not %s" % (package, found, version))
    return base


def helm_versions():
    """``{"helm3": "v3...", "helm4": "v4..."}`` from scripts/versions.env."""
    with open(os.path.join(ROOT, "scripts", "versions.env")) as fh:
        pinned = dict(line.strip().split("=", 1) for line in fh if "=" in line and not line.startswith("#"))
    return {"helm3": pinned["HELM3_VERSION"], "helm4": pinned["HELM4_VERSION"]}


def peer_label(peer, short=False):
    """``kubernetes.core 6.6.0 + helm v4.3.2`` (or ``k.core 6.6+h4`` for a column)."""
    spec = PEERS[peer]
    if short:
        return "k.core %s+h%s" % (spec["collection"].rsplit(".", 1)[0], spec["helm"][-1])
    return "kubernetes.core %s (ansible %s) + helm %s" % (
        spec["collection"], spec["ansible"], helm_versions()[spec["helm"]])


def peer_env(env, peer):
    """``env`` with only ``peer``'s kubernetes.core (and ours) on the collections path."""
    return dict(env, ANSIBLE_COLLECTIONS_PATH="%s:%s" % (COLLECTIONS, kubernetes_core(peer)))


def tool(name):
    """An Ansible command of the Python running this benchmark (its venv's), else the one on PATH."""
    path = os.path.join(os.path.dirname(sys.executable), name)
    return path if os.path.exists(path) else name


def write_chart(root, objects):
    """A chart of ``objects`` objects: ConfigMaps, Services and Deployments in a 3:1:1 mix."""
    path = os.path.join(root, "bench%d" % objects)
    os.makedirs(os.path.join(path, "templates"), exist_ok=True)
    with open(os.path.join(path, "Chart.yaml"), "w") as fh:
        fh.write("apiVersion: v2\nname: bench%d\nversion: 0.1.0\nappVersion: \"1\"\n" % objects)
    with open(os.path.join(path, "values.yaml"), "w") as fh:
        fh.write("rev: \"1\"\ncount: %d\n" % (objects // 5))
    with open(os.path.join(path, "templates", "objects.yaml"), "w") as fh:
        fh.write("""{{- range $i := until (int .Values.count) }}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: cm-{{ $i }}-a
data:
  rev: {{ $.Values.rev | quote }}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: cm-{{ $i }}-b
data:
  rev: {{ $.Values.rev | quote }}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: cm-{{ $i }}-c
data:
  rev: {{ $.Values.rev | quote }}
---
apiVersion: v1
kind: Service
metadata:
  name: svc-{{ $i }}
  labels:
    rev: {{ $.Values.rev | quote }}
spec:
  selector:
    app: app-{{ $i }}
  ports:
  - port: 80
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: app-{{ $i }}
spec:
  replicas: 1
  selector:
    matchLabels:
      app: app-{{ $i }}
  template:
    metadata:
      labels:
        app: app-{{ $i }}
    spec:
      containers:
      - name: app
        image: nginx:1
        env:
        - name: REV
          value: {{ $.Values.rev | quote }}
{{- end }}
""")
    return path


def playbook(path, module, release, namespace, chart, rev, kubeconfig, helm):
    """A playbook of the one task measured; its result is read from the ``minimal`` callback's output, so no
    second task (a ``copy`` of the registered result cost ~1.2 s here, half of a no-op playbook) sits in the
    timed run of either side."""
    extra = ""
    if module == "kubernetes.core.helm":
        extra = "        binary_path: %s\n" % helm
    with open(path, "w") as fh:
        fh.write("""- hosts: localhost
  connection: local
  gather_facts: false
  tasks:
    - %s:
        name: %s
        namespace: %s
        chart_ref: %s
        kubeconfig: %s
        values:
          rev: "%s"
%s""" % (module, release, namespace, chart, kubeconfig, rev, extra))


def run_playbook(path, env):
    start = time.perf_counter()
    proc = subprocess.run([tool("ansible-playbook"), "-i", "localhost,", "-e",
                           "ansible_python_interpreter=" + sys.executable, path],
                          env=dict(env, ANSIBLE_STDOUT_CALLBACK="minimal"), capture_output=True, text=True)
    took = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit("playbook failed:\n%s%s" % (proc.stdout[-3000:], proc.stderr[-2000:]))
    # minimal prints "localhost | SUCCESS => {result as JSON}" for the task
    return took, json.JSONDecoder().raw_decode(proc.stdout, proc.stdout.index("{"))[0]


_DIRECT = """import json, sys
sys.path.insert(0, %r)
from ansible_collections.helmless.core.plugins.module_utils.ansible.options import CONNECTION, RELEASE
from ansible_collections.helmless.core.plugins.module_utils.ansible.runner import freeze_imports, run_release
params = {k: o.get("default") for t in (CONNECTION, RELEASE) for k, o in t.items()}
params.update(json.loads(sys.argv[1]))
freeze_imports()  # as run_module does in the module's process
result, _ = run_release(params)
print(json.dumps({"changed": result["changed"], "api_requests": result["api_requests"]}))
"""


def direct(release, namespace, chart, rev, kubeconfig, **storage):
    """The engine as one process (what `helm upgrade` is), without Ansible's own overhead: run_release with
    the garbage-collector policy of the module's process (runner.run_module freezes the imports first)."""
    params = dict({"release_name": release, "release_namespace": namespace, "chart_ref": chart,
                   "kubeconfig": kubeconfig, "release_values": {"rev": str(rev)}}, **storage)
    return [sys.executable, "-c", _DIRECT % COLLECTIONS, json.dumps(params)]


def timed(cmd, env):
    return timed_run(cmd, env)[0]


def timed_run(cmd, env):
    """(seconds, CompletedProcess) of ``cmd``, which must succeed."""
    start = time.perf_counter()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    took = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit("%s failed:\n%s%s" % (" ".join(cmd), proc.stdout[-3000:], proc.stderr[-2000:]))
    return took, proc


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=3, help="runs per measurement (median)")
    parser.add_argument("--objects", default="50,300", help="the generated charts' sizes ('' for none)")
    parser.add_argument("--no-kubernetes-core", action="store_true", help="skip kubernetes.core.helm")
    parser.add_argument("--tasks", type=int, default=11, help="tasks in the marginal-cost playbook")
    parser.add_argument("--no-marginal", action="store_true", help="skip the per-task and module-start measures")
    parser.add_argument("--no-sql", action="store_true", help="skip the no-op on the SQL driver against Secrets")
    parser.add_argument("--no-large", action="store_true", help="skip the large chart (%s) against helm" % LARGE)
    args = parser.parse_args()
    _link_collection()
    sys.path.insert(0, os.path.join(ROOT, "scripts", "controlplane.d"))
    import cp_build  # noqa: E402
    import cp_run  # noqa: E402

    was_running = bool(cp_run.running(cp_run.default_dir()))
    kubeconfig = cp_run.start(cp_run.default_dir())["kubeconfig"]
    try:
        measure(args, kubeconfig, cp_build.binaries())
    finally:
        if not was_running:
            cp_run.stop(cp_run.default_dir())


def measure(args, kubeconfig, bins):
    work = tempfile.mkdtemp(prefix="helmless-bench-")
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=COLLECTIONS,
               KUBECONFIG=kubeconfig, HELM_PLUGINS=os.path.join(work, "plugins"), ANSIBLE_STDOUT_CALLBACK="default",
               HELM_CONFIG_HOME=os.path.join(work, "hc"), HELM_CACHE_HOME=os.path.join(work, "hcache"),
               HELM_DATA_HOME=os.path.join(work, "hd"), ANSIBLE_LOCALHOST_WARNING="false")
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as a user's Python: our engine's .pyc files are kept
    from kubernetes import client, config
    core = client.CoreV1Api(config.new_client_from_config(config_file=kubeconfig))
    rows = []
    for objects in [int(x) for x in args.objects.split(",") if x]:
        chart = write_chart(work, objects)
        spaces = {}
        peers = () if args.no_kubernetes_core else tuple(PEERS)
        for who in ("ours", "helm") + peers:
            spaces[who] = "bench-%s-%s" % (who, uuid.uuid4().hex[:6])
            core.create_namespace({"metadata": {"name": spaces[who]}})
        pb = {who: os.path.join(work, "%s-%d.yml" % (who, objects)) for who in ("ours",) + peers}
        envs = dict({"ours": env}, **{peer: peer_env(env, peer) for peer in peers})
        spaces["direct"] = "bench-direct-%s" % uuid.uuid4().hex[:6]
        core.create_namespace({"metadata": {"name": spaces["direct"]}})
        helm = [bins["helm4"], "upgrade", "--install", "bench", chart, "-n", spaces["helm"]]

        def step(who, rev, changes):
            """One timed run of ``who`` with value ``rev``: (seconds, our API requests or None)."""
            if who in pb:
                module = "helmless.core.release" if who == "ours" else "kubernetes.core.helm"
                playbook(pb[who], module, "bench", spaces[who], chart, rev, kubeconfig,
                         bins[PEERS[who]["helm"]] if who in PEERS else None)
                took, result = run_playbook(pb[who], envs[who])
                assert bool(result.get("changed")) is changes, "%s: %s" % (
                    who, "the upgrade reported no change" if changes else "the no-op reported a change")
                return took, result.get("api_requests", {}).get("total")
            if who == "direct":
                return timed(direct("bench", spaces["direct"], chart, rev, kubeconfig), env), None
            return timed(helm + ["--set", "rev=%d" % rev], env), None

        # Every side in turn in each round, so a slow spell of the machine falls on all of them.
        everyone = ("ours",) + peers + ("direct", "helm")
        for who in everyone:
            step(who, 1, True)  # install
        noop, upgrade, requests = {who: [] for who in everyone}, {who: [] for who in everyone}, None
        for _ in range(args.n):
            for who in everyone:
                took, count = step(who, 1, False)
                noop[who].append(took)
                requests = count if who == "ours" else requests
        for i in range(args.n):
            for who in everyone:
                upgrade[who].append(step(who, i + 2, True)[0])
        noop = {who: statistics.median(times) for who, times in noop.items()}
        upgrade = {who: statistics.median(times) for who, times in upgrade.items()}
        rows.append((objects, noop, upgrade, requests))
        for ns in spaces.values():
            core.delete_namespace(ns)
    if rows:
        report(args, rows)
    if not args.no_sql and args.objects:
        sql_noop(args, env, kubeconfig, work, core)
    if not args.no_large:
        large_chart(args, env, kubeconfig, bins, work, core)
    if not args.no_marginal:
        marginal(args, env, kubeconfig, bins, work, core)


def report(args, rows):
    """The generated charts' table: no-op and upgrade, ours against both peers and the helm CLI."""
    print("Ansible task = ansible-playbook wall time of one task; engine = the same call as one process;")
    print("%s = %s (the peer of every target); %s = %s; helm CLI = helm %s"
          % (peer_label("kcore", True), peer_label("kcore"), peer_label("kcore62", True), peer_label("kcore62"),
             helm_versions()["helm4"]))
    print("%-8s %-8s %10s %14s %14s %10s %10s %9s %9s %9s   %s" % (
        "objects", "op", "ours task", peer_label("kcore", True), peer_label("kcore62", True), "ours eng", "helm CLI",
        "task/kc", "task/kc6.2", "eng/helm", "requests(no-op)"))
    for objects, noop, upgrade, requests in rows:
        for op, t in (("no-op", noop), ("upgrade", upgrade)):
            for peer in PEERS:
                t.setdefault(peer, float("nan"))
            print("%-8d %-8s %10.2f %14.2f %14.2f %10.2f %10.2f %9.2f %10.2f %9.2f   %s" % (
                objects, op, t["ours"], t["kcore"], t["kcore62"], t["direct"], t["helm"], t["ours"] / t["kcore"],
                t["ours"] / t["kcore62"], t["direct"] / t["helm"],
                "%d (target <= %d)" % (requests, objects + 3) if op == "no-op" else ""))
    print("targets: no-op task <= %.1fx %s, upgrade engine <= %.1fx helm CLI (%d objects and more)"
          % (TARGETS["noop_vs_kubernetes_core"], peer_label("kcore", True), TARGETS["upgrade_vs_helm"],
             UPGRADE_TARGET_OBJECTS))
    if any(t["direct"] / t["helm"] > TARGETS["upgrade_vs_helm"]
           for objects, _n, t, _r in rows if objects >= UPGRADE_TARGET_OBJECTS):
        print("missed (upgrade): the engine sends every planned write as a server dry run before the first real "
              "one (a refused object leaves the cluster untouched), so the API server does each change twice; "
              "helm applies directly")
    if any(t["ours"] / t["kcore"] > TARGETS["noop_vs_kubernetes_core"] for _o, t, _u, _r in rows):
        print("missed (no-op task): ansible-playbook's own start and the task's fork dominate both sides; see the "
              "marginal cost below")


def sql_noop(args, env, kubeconfig, work, core):
    """A no-op on the SQL driver (a local PostgreSQL, scripts/postgres) against a no-op on Secrets: the engine
    as one process each, in turn, round by round, on the first --objects chart."""
    sys.path.insert(0, os.path.join(ROOT, "scripts", "postgres.d"))
    import pg_server  # noqa: E402

    pg_dir = os.path.join(tempfile.gettempdir(), "helmless-bench-pg-%s" % uuid.uuid4().hex[:6])
    url = pg_server.start(pg_dir)["url"]
    objects = int(args.objects.split(",")[0])
    chart = write_chart(work, objects)
    sides = {"secrets": {}, "sql": {"storage_driver": "sql", "sql_connection_string": url}}
    spaces = {side: "bench-%s-%s" % (side, uuid.uuid4().hex[:6]) for side in sides}
    try:
        for side, ns in spaces.items():
            core.create_namespace({"metadata": {"name": ns}})
            timed(direct("bench", ns, chart, 1, kubeconfig, **sides[side]), env)  # install
        took = {side: [] for side in sides}
        for _ in range(args.n):
            for side, ns in spaces.items():
                start = time.perf_counter()
                out = subprocess.run(direct("bench", ns, chart, 1, kubeconfig, **sides[side]), env=env,
                                     capture_output=True, text=True, check=True).stdout
                took[side].append(time.perf_counter() - start)
                assert not json.loads(out)["changed"], "the no-op on %s reported a change" % side
        noop = {side: statistics.median(times) for side, times in took.items()}
        print("\nno-op engine (%d objects), median of %d: Secrets %.3f s, SQL (PostgreSQL) %.3f s, sql/secrets %.2f"
              % (objects, args.n, noop["secrets"], noop["sql"], noop["sql"] / noop["secrets"]))
    finally:
        for ns in spaces.values():
            core.delete_namespace(ns)
        pg_server.stop(pg_dir)


def _task_playbook(path, module, params):
    with open(path, "w") as fh:
        fh.write("- hosts: localhost\n  connection: local\n  gather_facts: false\n  tasks:\n    - %s: %s\n"
                 % (module, json.dumps(params)))
    return path


def _changed(cmd, env):
    """(seconds, whether the task changed) of a playbook of one task, as the default callback reports it."""
    took, proc = timed_run(cmd, env)
    return took, " changed=1 " in proc.stdout


def large_chart(args, env, kubeconfig, bins, work, core):
    """The largest corpus chart, task minus ping against the helm CLI. Its CRDs are cluster-scoped objects of one
    release at a time, so each round runs helm's install, no-op, upgrade and uninstall, then ours, each side in a
    new namespace, what the uninstall keeps deleted before the other side installs."""
    sys.path.insert(0, os.path.join(ROOT, "tests", "unit"))
    import corpuskit  # noqa: E402  (the chart corpus, tests/corpus)
    from kubernetes import client, config
    api = config.new_client_from_config(config_file=kubeconfig)
    # the cluster-scoped kinds of the chart that an uninstall keeps (helm.sh/resource-policy: keep)
    kinds = [(client.ApiextensionsV1Api(api), "custom_resource_definition"),
             (client.AdmissionregistrationV1Api(api), "validating_admission_policy_binding"),
             (client.AdmissionregistrationV1Api(api), "validating_admission_policy")]

    def listed(group, kind):
        return {item.metadata.name: item.metadata.annotations or {} for item in getattr(group, "list_" + kind)().items}
    # what was there before this benchmark, but what a release named kong left (an interrupted run's)
    before = {kind: {name for name, notes in listed(group, kind).items()
                     if notes.get("meta.helm.sh/release-name") != "kong"} for group, kind in kinds}

    def names(group, kind):
        """The objects of ``kind`` an uninstall left (the chart's crds/ too, which Helm does not mark)."""
        return set(listed(group, kind)) - before[kind]
    chart = corpuskit.archive(LARGE)
    play = [tool("ansible-playbook"), "-i", "localhost,", "-e", "ansible_python_interpreter=" + sys.executable]
    env = dict(env, ANSIBLE_STDOUT_CALLBACK="default")
    ping = _task_playbook(os.path.join(work, "large-ping.yml"), "ansible.builtin.ping", {})
    ours_template = _task_playbook(os.path.join(work, "large-template.yml"), "helmless.core.template",
                                   {"chart_ref": chart, "release_name": "kong", "release_namespace": "kong"})
    helm_template = [bins["helm4"], "template", "kong", chart, "--namespace", "kong"]

    def kept_gone():
        """Delete what an uninstall keeps (CRDs, admission policies), so each install creates it."""
        deadline = time.time() + 900  # the API server finalizes 80 CRDs one by one: minutes on a busy machine
        for group, kind in kinds:
            for name in names(group, kind):
                getattr(group, "delete_" + kind)(name)
        for group, kind in kinds:
            while names(group, kind):
                if time.time() > deadline:
                    raise SystemExit("%s's %s objects were not deleted within 900 s" % (LARGE, kind))
                time.sleep(1)

    def release_task(ns, values, state="present"):
        params = {"name": "kong", "namespace": ns, "chart_ref": chart, "kubeconfig": kubeconfig, "values": values,
                  "state": state, "wait": state == "absent"}
        return play + [_task_playbook(os.path.join(work, "large-release.yml"), "helmless.core.release", params)]

    steps = (("install", {}, True), ("no-op", {}, False), ("upgrade", {"podAnnotations": {"bench": "2"}}, True))
    times = {key: [] for key in ["ping", "template", "helm template"] + [op for op, _v, _c in steps] +
             ["helm " + op for op, _v, _c in steps]}
    kept_gone()
    timed(play + [ours_template], env)  # the controller's caches warmed, as on any controller
    for _ in range(args.n):
        times["ping"].append(timed(play + [ping], env))
        times["helm template"].append(timed(helm_template, env))
        times["template"].append(timed(play + [ours_template], env))
        ns = "bench-large-helm-%s" % uuid.uuid4().hex[:6]
        core.create_namespace({"metadata": {"name": ns}})
        for op, values, _changes in steps:
            flags = ["--set-string", "podAnnotations.bench=2"] if values else []
            times["helm " + op].append(timed([bins["helm4"], "upgrade", "--install", "kong", chart, "-n", ns] + flags,
                                             env))
        timed([bins["helm4"], "uninstall", "kong", "-n", ns, "--wait"], env)
        core.delete_namespace(ns)
        kept_gone()
        ns = "bench-large-ours-%s" % uuid.uuid4().hex[:6]
        core.create_namespace({"metadata": {"name": ns}})
        for op, values, changes in steps:
            took, changed = _changed(release_task(ns, values), env)
            assert changed is changes, "%s: the %s reported %s" % (LARGE, op, "a change" if changed else "no change")
            times[op].append(took)
        timed(release_task(ns, {}, "absent"), env)
        core.delete_namespace(ns)
        kept_gone()
    median = {key: statistics.median(values) for key, values in times.items()}
    print("\n%s (largest corpus chart), median of %d; task = ansible-playbook of that task minus one of ping "
          "(%.2f s):" % (LARGE, args.n, median["ping"]))
    print("%-9s %10s %10s %10s %8s %10s" % ("op", "ours task", "task-ping", "helm CLI", "ratio", "target"))
    for op, helm, target in [("template", "helm template", "large_template_vs_helm")] + [
            (op, "helm " + op, "large_release_vs_helm") for op, _v, _c in steps]:
        own = median[op] - median["ping"]
        print("%-9s %10.2f %10.2f %10.2f %7.2fx %9s%s" % (
            op, median[op], own, median[helm], own / median[helm], "<= %.1fx" % TARGETS[target],
            "  missed" if own / median[helm] > TARGETS[target] else ""))


def _tasks_playbook(path, module, params, count):
    body = "".join("    - %s:\n%s" % (module, "".join("        %s: %s\n" % kv for kv in params.items()))
                   for _ in range(count))
    with open(path, "w") as fh:
        fh.write("- hosts: localhost\n  connection: local\n  gather_facts: false\n  tasks:\n" + body)
    return path


def _median_run(cmd, env, n):
    return statistics.median(timed(cmd, env) for _ in range(n))


def marginal(args, env, kubeconfig, bins, work, core):
    """Marginal no-op task cost per module, the modules measured in rounds, then module start, interleaved with ping."""
    play = [tool("ansible-playbook"), "-i", "localhost,", "-e", "ansible_python_interpreter=" + sys.executable]
    peers = () if args.no_kubernetes_core else tuple(PEERS)
    envs = dict({"ping": env, "ours": env}, **{peer: peer_env(env, peer) for peer in peers})
    print("\nper no-op task in a playbook of %d (marginal = (T%d - T1) / %d), seconds; own = marginal - ping's:" % (
        args.tasks, args.tasks, args.tasks - 1))
    print("%-8s %8s %8s %14s %14s %9s %14s %14s %9s" % (
        "objects", "ping", "ours", peer_label("kcore", True), peer_label("kcore62", True), "ours own",
        "kc own", "kc6.2 own", "own/kc"))
    for objects in [int(x) for x in args.objects.split(",")]:
        chart = write_chart(work, objects)
        spaces = {who: "bench-marg-%s-%s" % (who, uuid.uuid4().hex[:6]) for who in ("ours",) + peers}
        for ns in spaces.values():
            core.create_namespace({"metadata": {"name": ns}})
        common = {"chart_ref": chart, "kubeconfig": kubeconfig, "values": "{rev: '1'}"}
        modules = {"ping": ("ping", {}),
                   "ours": ("helmless.core.release", dict(common, name="bench", namespace=spaces["ours"]))}
        for peer in peers:
            modules[peer] = ("kubernetes.core.helm", dict(common, name="bench", release_namespace=spaces[peer],
                                                          binary_path=bins[PEERS[peer]["helm"]]))
        books = {}
        for who, (module, params) in modules.items():
            books[who] = [_tasks_playbook(os.path.join(work, "m-%s-%d.yml" % (who, count)), module, params, count)
                          for count in (1, args.tasks)]
            timed(play + [books[who][0]], envs[who])  # install, warm the caches
        times = {who: ([], []) for who in books}
        for _ in range(args.n):  # rounds over every module, so a slow spell of the machine hits them all
            for who, (one, many) in books.items():
                times[who][0].append(timed(play + [one], envs[who]))
                times[who][1].append(timed(play + [many], envs[who]))
        per = {who: (statistics.median(tn) - statistics.median(t1)) / (args.tasks - 1)
               for who, (t1, tn) in times.items()}
        for peer in PEERS:
            per.setdefault(peer, float("nan"))
        own = {who: per[who] - per["ping"] for who in ("ours",) + tuple(PEERS)}
        target = TARGETS["module_cost_vs_kubernetes_core"]
        if own["ours"] > 0 and own["kcore"] > 0:
            ratio = "%8.2fx   (target <= %.1fx)%s" % (
                own["ours"] / own["kcore"], target, _dominates(own["ours"] / own["kcore"] > target))
        else:  # a module's task no dearer than ping's: its own cost is below this run's noise, no ratio to give
            ratio = "     n/a   (a module's marginal is within ping's noise this run: rerun with a larger -n)"
        print("%-8d %8.3f %8.3f %14.3f %14.3f %9.3f %14.3f %14.3f %s" % (
            objects, per["ping"], per["ours"], per["kcore"], per["kcore62"], own["ours"], own["kcore"],
            own["kcore62"], ratio))
        for ns in spaces.values():
            core.delete_namespace(ns)
    adhoc = [tool("ansible"), "localhost", "-e", "ansible_python_interpreter=" + sys.executable]
    demo = os.path.join(ROOT, "playbooks", "charts", "webapp")
    template = adhoc + ["-m", "helmless.core.template", "-a", "chart_ref=" + demo]
    ping = adhoc + ["-m", "ping"]
    timed(template, env)
    starts, pings = [], []
    for _ in range(max(args.n, 3)):
        pings.append(timed(ping, env))
        starts.append(timed(template, env))
    delta = statistics.median(starts) - statistics.median(pings)
    print("\nmodule start: ansible -m helmless.core.template (demo chart) %.2f s - ansible -m ping %.2f s = %.2f s"
          "   (target <= %.2f s)" % (statistics.median(starts), statistics.median(pings), delta,
                                    TARGETS["module_start_s"]))


def _dominates(missed):
    if not missed:
        return ""
    return ("\n         missed: our task = imports (module_utils from the code cache) + kubeconfig + GET /version, "
            "the release Secret (gunzip + JSON), the render and one LIST per kind (a GET each below five objects); "
            "profile with cProfile on the AnsiballZ payload")


if __name__ == "__main__":
    main()
