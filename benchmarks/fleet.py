#!/usr/bin/env python3
"""Fleet throughput: one cluster's releases run several at a time, and many inventory hosts with forks.

One cluster (``concurrency``): 40 releases into one namespace, each ``wait: true`` on a Deployment whose pod
the test cluster makes Ready 3 to 7 s after it is created (5 s +-2 s: kwok's pod-ready delay annotations,
scripts/controlplane.d), installed, re-run unchanged (a no-op), then upgraded (a new pod each). Peers, all
measured in the same run: the ``releases`` module with ``concurrency: 1`` (one after another) and
``concurrency: 8``; ``helmfile sync --concurrency 8`` driving the real helm v4 CLI (helmfile and helm built
by scripts/controlplane build); a ``kubernetes.core.helm`` loop (6.6.0, driving helm v4). Prints wall time
and releases per minute per phase, and the ratios next to their targets. ``--models`` also times the ways
``releases`` can spread 8 releases in flight (threads of one process, processes of one thread, processes of
several threads: ansible/workers.py), while waiting and for releases that never wait (CPU-bound).

Many hosts (``hosts``): 8 inventory hosts (each its own kubeconfig context and namespace on the local
control plane), 5 releases each (40), ``forks: 4``: ``roles/releases`` installs them, then the same play runs
again (every release a no-op), all with one 20-object chart unless ``--chart`` names another.
kubernetes.core.helm runs the same releases as one looped task per host: the newest (the ``ansible``
package's 6.6.0, driving the real helm v4 binary), the peer of the target, and 6.2.0 driving helm v3, a
second row (benchmarks/release.py's PEERS). Prints releases per minute for the install, the re-run and both,
and the ratio ours / kubernetes.core.helm next to its target, in the same run. The same loop with ``ping``
for a module measures Ansible's own floor per release (fork, module transfer, templating the item), which
no module can go below: where the target is missed, it says whether the floor or a module dominates.

    python3 benchmarks/fleet.py [--only concurrency|hosts] [--models] [--quick]
                                [--releases-in-cluster 40] [--hosts 8] [--releases 5] [--forks 4] [--chart DIR]

It starts its own control plane (``HELMLESS_CONTROLPLANE_DIR``, default a directory of its own) unless one
runs there, and refuses one whose pods are Ready at once despite the delay annotations.
"""
import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
import uuid

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from release import COLLECTIONS, PEERS, _link_collection, peer_env, peer_label, tool, write_chart  # noqa: E402

ROOT = os.path.dirname(HERE)
TARGET = 2.0  # releases per minute, ours / kubernetes.core.helm


def release_scoped_chart(work, objects):
    """release.py's generated chart with object names prefixed by the release name (5 per namespace)."""
    path = write_chart(work, objects)
    template = os.path.join(path, "templates", "objects.yaml")
    with open(template) as handle:
        text = handle.read()
    for kind in ("cm-", "svc-", "app-"):
        text = text.replace("  name: " + kind, "  name: {{ $.Release.Name }}-" + kind)
    with open(template, "w") as handle:
        handle.write(text)
    return path


def fleet_kubeconfig(admin, hosts, path):
    """The admin kubeconfig with one context per host (same cluster and user, its own namespace)."""
    with open(admin) as handle:
        config = yaml.safe_load(handle)
    base = next(c for c in config["contexts"] if c["name"] == config["current-context"])["context"]
    config["contexts"] = [{"name": "fleet-%d" % i, "context": dict(base, namespace=ns)} for i, ns in enumerate(hosts)]
    config["current-context"] = "fleet-0"
    with open(path, "w") as handle:
        yaml.safe_dump(config, handle)
    return path


def write_inventory(path, namespaces):
    hosts = {"fleet-%d" % i: {"kube_context": "fleet-%d" % i, "fleet_namespace": ns}
             for i, ns in enumerate(namespaces)}
    with open(path, "w") as handle:
        yaml.safe_dump({"all": {"hosts": hosts, "vars": {"ansible_connection": "local",
                                                         "ansible_python_interpreter": sys.executable}}}, handle)
    return path


def write_plays(work, kubeconfig, chart, releases, bins):
    """The fleet play for ours, each kubernetes.core.helm peer and the floor (``ping`` over the same loop)."""
    items = "[%s]" % ", ".join(
        "{'name': 'rel-%d', 'chart': '%s', 'namespace': fleet_namespace, 'values': {'rev': '1'}}"
        % (i, chart) for i in range(releases))
    ours = [{"name": "fleet (helmless.core)", "hosts": "all", "gather_facts": False,
             "module_defaults": {"group/helmless.core.helm": {"kubeconfig": kubeconfig,
                                                              "context": "{{ kube_context }}"}},
             "roles": [{"role": "helmless.core.releases",
                        "vars": {"helmless_releases": "{{ %s }}" % items,
                                 "helmless_release_defaults": {"state": "present", "create_namespace": True}}}]}]
    plays = {"ours": ours}
    for peer in PEERS:
        plays[peer] = [{"name": "fleet (kubernetes.core.helm)", "hosts": "all", "gather_facts": False, "tasks": [
            {"name": "Install or upgrade releases", "kubernetes.core.helm": {
                "name": "{{ item.name }}", "release_namespace": "{{ item.namespace }}", "chart_ref": "{{ item.chart }}",
                "release_values": "{{ item['values'] }}", "create_namespace": True, "kubeconfig": kubeconfig,
                "context": "{{ kube_context }}", "binary_path": bins[PEERS[peer]["helm"]]},
             "loop": "{{ %s }}" % items, "loop_control": {"label": "{{ item.namespace }}/{{ item.name }}"}}]}]
    floor = [{"name": "fleet (ping)", "hosts": "all", "gather_facts": False, "tasks": [
        {"name": "Ping once per release", "ansible.builtin.ping": {"data": "{{ item.name }}"},
         "loop": "{{ %s }}" % items, "loop_control": {"label": "{{ item.namespace }}/{{ item.name }}"}}]}]
    paths = {}
    plays["floor"] = floor
    for who, play in plays.items():
        paths[who] = os.path.join(work, "fleet-%s.yml" % who)
        with open(paths[who], "w") as handle:
            yaml.safe_dump(play, handle, sort_keys=False)
    return paths


def run(play, inventory, forks, env):
    """(wall seconds, CPU seconds of ansible-playbook and everything it ran)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run([tool("ansible-playbook"), "-i", inventory, "-f", str(forks), play], env=env,
                          capture_output=True, text=True)
    took = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit("%s failed:\n%s%s" % (play, proc.stdout[-4000:], proc.stderr[-2000:]))
    return took, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=("concurrency", "hosts"), help="run only this part")
    parser.add_argument("--models", action="store_true", help="also time threads, processes and both")
    parser.add_argument("--quick", action="store_true", help="10 releases in one cluster; 4 hosts x 2 releases")
    parser.add_argument("--releases-in-cluster", type=int, default=40)
    parser.add_argument("--hosts", type=int, default=8)
    parser.add_argument("--releases", type=int, default=5, help="releases per host")
    parser.add_argument("--forks", type=int, default=4)
    parser.add_argument("--chart", help="chart directory of the hosts part (default: a generated 20-object chart; "
                                         "corpus charts with random names, e.g. podinfo's test hooks, upgrade on "
                                         "every run)")
    args = parser.parse_args()
    if args.quick:
        args.hosts, args.releases, args.releases_in_cluster = 4, 2, 10
    _link_collection()
    sys.path.insert(0, os.path.join(ROOT, "scripts", "controlplane.d"))
    import cp_build  # noqa: E402
    import cp_run  # noqa: E402

    where = os.environ.get("HELMLESS_CONTROLPLANE_DIR") or os.path.join(tempfile.gettempdir(),
                                                                         "helmless-fleet-bench-%d" % os.getuid())
    was_running = bool(cp_run.running(where))
    admin = cp_run.start(where)["kubeconfig"]
    try:
        if args.only != "hosts":
            concurrency(args, admin, cp_build.binaries())
        if args.only != "concurrency":
            measure(args, admin, cp_build.binaries())
    finally:
        if not was_running:
            cp_run.stop(where)


def measure(args, admin, bins):
    from kubernetes import client, config

    work = tempfile.mkdtemp(prefix="helmless-fleet-")
    args.chart = args.chart or release_scoped_chart(work, 20)
    core = client.CoreV1Api(config.new_client_from_config(config_file=admin))
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=COLLECTIONS, ANSIBLE_LOCALHOST_WARNING="false",
               ANSIBLE_HOST_KEY_CHECKING="false",
               HELM_CONFIG_HOME=os.path.join(work, "hc"), HELM_CACHE_HOME=os.path.join(work, "hcache"),
               HELM_DATA_HOME=os.path.join(work, "hd"))
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as a user's Python: our engine's .pyc files are kept
    total = args.hosts * args.releases
    times, cpu, spaces = {}, {}, []
    for who in ("ours",) + tuple(PEERS) + ("floor",):
        namespaces = ["fleet-%s-%d-%s" % (who, i, uuid.uuid4().hex[:5]) for i in range(args.hosts)]
        if who != "floor":  # ping creates nothing
            spaces.extend(namespaces)
        kubeconfig = fleet_kubeconfig(admin, namespaces, os.path.join(work, "kubeconfig-%s" % who))
        inventory = write_inventory(os.path.join(work, "inventory-%s.yml" % who), namespaces)
        play = write_plays(work, kubeconfig, args.chart, args.releases, bins)[who]
        side_env = peer_env(env, who) if who in PEERS else env
        runs = [run(play, inventory, args.forks, side_env) for _ in range(1 if who == "floor" else 2)]
        times[who] = tuple(r[0] for r in runs)
        cpu[who] = tuple(r[1] for r in runs)
    for ns in spaces:
        core.delete_namespace(ns)
    floor_wall, floor_cpu = times.pop("floor")[0] / total, cpu.pop("floor")[0] / total
    per_minute = {who: (total * 60 / t[0], total * 60 / t[1], 2 * total * 60 / (t[0] + t[1]))
                  for who, t in times.items()}
    print("fleet: %d hosts x %d releases (%s), forks %d; wall seconds and releases per minute"
          % (args.hosts, args.releases, os.path.basename(args.chart.rstrip("/")), args.forks))
    for peer in PEERS:
        print("%s = %s" % (peer_label(peer, True), peer_label(peer)))
    print("%-22s %9s %9s %11s %11s %11s %14s" % ("", "install s", "re-run s", "install/min", "re-run/min",
                                                 "both/min", "CPU s/release"))
    for who in ("ours",) + tuple(PEERS):
        print("%-22s %9.1f %9.1f %11.1f %11.1f %11.1f %14.2f" % (
            (peer_label(who, True) if who in PEERS else "helmless.core",) + times[who] + per_minute[who]
            + (sum(cpu[who]) / (2 * total),)))
    for peer in PEERS:
        ratios = [per_minute["ours"][i] / per_minute[peer][i] for i in range(3)]
        print("%-22s %9s %9s %10.2fx %10.2fx %10.2fx   %s" % (
            ("ours / " + peer_label(peer, True), "", "") + tuple(ratios)
            + ("(target >= %.1fx)" % TARGET if peer == "kcore" else "",)))
    ratios = [per_minute["ours"][i] / per_minute["kcore"][i] for i in range(3)]
    print("CPU seconds per release (controller, modules, helm) decide throughput once forks exceed cores (%d here)"
          % os.cpu_count())
    print(dominates(ratios[2], floor_wall, floor_cpu, {w: sum(t) / (2 * total) for w, t in times.items()},
                    {w: sum(c) / (2 * total) for w, c in cpu.items()}))


def dominates(ratio, floor_wall, floor_cpu, wall, cpu):
    """Ansible's floor against each module's own share, per release; what keeps the ratio from its target."""
    own = {w: wall[w] - floor_wall for w in wall}
    own_cpu = {w: cpu[w] - floor_cpu for w in cpu}
    text = ("per release: Ansible floor (ping over the same loop) %.2f s wall, %.2f CPU s; above it ours %.2f s "
            "wall / %.2f CPU s, %s %.2f s / %.2f CPU s"
            % (floor_wall, floor_cpu, own["ours"], own_cpu["ours"], peer_label("kcore", True), own["kcore"],
               own_cpu["kcore"]))
    if ratio >= TARGET:
        return text
    best = wall["kcore"] / floor_wall  # ours costing nothing above the floor
    if best < TARGET:
        return text + ("\nmissed: Ansible's own floor dominates: even a module costing nothing would reach only %.2fx"
                       % best)
    return text + ("\nmissed: our module's own cost dominates: %.2fx needs ours <= %.2f s above the floor"
                   % (TARGET, (wall["kcore"] / TARGET) - floor_wall))

# --- one cluster, several releases at a time -------------------------------------------------------------

CONCURRENCY = 8
# conc 8 / sequential (each phase); conc 8 / helmfile releases per minute (each phase); the no-op re-run's
# wall time against helmfile's, which runs helm for every release
TARGETS = {"sequential": 5.0, "helmfile": 1.5, "noop_time_vs_helmfile": 0.5}
PHASES = (("install", "1"), ("re-run", "1"), ("upgrade", "2"))
SLOW = """apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}
data:
  tag: {{ .Values.tag | quote }}
---
apiVersion: v1
kind: Service
metadata:
  name: {{ .Release.Name }}
spec:
  selector:
    app: {{ .Release.Name }}
  ports:
  - port: 80
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}
spec:
  replicas: 1
  selector:
    matchLabels:
      app: {{ .Release.Name }}
  template:
    metadata:
      labels:
        app: {{ .Release.Name }}
      annotations:
        pod-ready.stage.kwok.x-k8s.io/delay: 3s
        pod-ready.stage.kwok.x-k8s.io/jitter-delay: 7s
    spec:
      containers:
      - name: app
        image: nginx:1
        env:
        - name: TAG
          value: {{ .Values.tag | quote }}
"""


def slow_charts(work, count):
    """``count`` charts (slow-0 ...), each a Deployment (its pod Ready 3 to 7 s after creation), a Service
    and a ConfigMap. One chart directory per release, as a fleet of different applications has: helmfile
    runs the releases of one local chart one at a time (its per-chart operation lock)."""
    paths = []
    for i in range(count):
        path = os.path.join(work, "slow-%d" % i)
        os.makedirs(os.path.join(path, "templates"))
        with open(os.path.join(path, "Chart.yaml"), "w") as handle:
            handle.write("apiVersion: v2\nname: slow-%d\nversion: 0.1.0\n" % i)
        with open(os.path.join(path, "values.yaml"), "w") as handle:
            handle.write("tag: \"1\"\n")
        with open(os.path.join(path, "templates", "app.yaml"), "w") as handle:
            handle.write(SLOW)
        paths.append(path)
    return paths


def _items(charts, namespace, tag):
    return [{"name": "rel-%d" % i, "namespace": namespace, "chart": chart, "values": {"tag": tag, "rev": tag}}
            for i, chart in enumerate(charts)]


def _write(path, doc):
    with open(path, "w") as handle:
        yaml.safe_dump(doc, handle, sort_keys=False)
    return path


def ours_command(work, kubeconfig, items, concurrency):
    play = [{"name": "fleet (helmless.core.releases)", "hosts": "localhost", "connection": "local",
             "gather_facts": False, "tasks": [{"name": "releases", "helmless.core.releases": {
                 "kubeconfig": kubeconfig, "concurrency": concurrency,
                 "releases": [dict(i, create_namespace=True, wait=True, wait_timeout="5m") for i in items]}}]}]
    path = _write(os.path.join(work, "ours-%d.yml" % concurrency), play)
    return [tool("ansible-playbook"), "-i", "localhost,", "-e", "ansible_python_interpreter=" + sys.executable, path]


def kcore_command(work, kubeconfig, items, helm):
    play = [{"name": "fleet (kubernetes.core.helm)", "hosts": "localhost", "connection": "local",
             "gather_facts": False, "tasks": [{"name": "releases", "kubernetes.core.helm": {
                 "name": "{{ item.name }}", "release_namespace": "{{ item.namespace }}",
                 "chart_ref": "{{ item.chart }}", "release_values": "{{ item['values'] }}", "create_namespace": True,
                 "wait": True, "wait_timeout": "5m", "kubeconfig": kubeconfig, "binary_path": helm},
                 "loop": items, "loop_control": {"label": "{{ item.namespace }}/{{ item.name }}"}}]}]
    path = _write(os.path.join(work, "kcore.yml"), play)
    return [tool("ansible-playbook"), "-i", "localhost,", "-e", "ansible_python_interpreter=" + sys.executable, path]


def helmfile_command(work, items, bins):
    """``helmfile sync --concurrency 8`` of the same releases (wait, as ours), driving the helm4 CLI."""
    doc = {"helmDefaults": {"wait": True, "timeout": 300, "createNamespace": True},
           "releases": [{"name": i["name"], "namespace": i["namespace"], "chart": i["chart"],
                         "values": [i["values"]]} for i in items]}
    path = _write(os.path.join(work, "helmfile.yaml"), doc)
    return [bins["helmfile"], "--helm-binary", bins["helm4"], "--file", path, "sync",
            "--concurrency", str(CONCURRENCY)]


def timed_run(cmd, env):
    start = time.perf_counter()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    took = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit("%s failed:\n%s%s" % (" ".join(cmd[:3]), proc.stdout[-4000:], proc.stderr[-3000:]))
    return took


def _delayed(core, namespace):
    """Seconds between a pod's creation and its Ready condition (the control plane's delay at work)."""
    pod = core.list_namespaced_pod(namespace).items[0]
    ready = next(c for c in pod.status.conditions if c.type == "Ready")
    return (ready.last_transition_time - pod.metadata.creation_timestamp).total_seconds()


def concurrency(args, admin, bins):
    from kubernetes import client, config

    if not os.path.exists(bins["helmfile"]):
        raise SystemExit("helmfile is not built (%s): run scripts/controlplane build helmfile" % bins["helmfile"])
    work = tempfile.mkdtemp(prefix="helmless-fleet-concurrency-")
    charts = slow_charts(work, args.releases_in_cluster)
    core = client.CoreV1Api(config.new_client_from_config(config_file=admin))
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=COLLECTIONS, ANSIBLE_LOCALHOST_WARNING="false",
               KUBECONFIG=admin, HELM_CONFIG_HOME=os.path.join(work, "hc"),
               HELM_CACHE_HOME=os.path.join(work, "hcache"), HELM_DATA_HOME=os.path.join(work, "hd"),
               HELM_PLUGINS=os.path.join(work, "plugins"))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    count = args.releases_in_cluster
    peers = {"sequential": lambda items: (ours_command(work, admin, items, 1), env),
             "concurrent": lambda items: (ours_command(work, admin, items, CONCURRENCY), env),
             "helmfile": lambda items: (helmfile_command(work, items, bins), env),
             "kcore": lambda items: (kcore_command(work, admin, items, bins[PEERS["kcore"]["helm"]]),
                                     peer_env(env, "kcore"))}
    times, spaces = {}, []
    for who, command in peers.items():
        namespace = "conc-%s-%s" % (who, uuid.uuid4().hex[:5])
        spaces.append(namespace)
        times[who] = []
        for phase, tag in PHASES:
            times[who].append(timed_run(*command(_items(charts, namespace, tag))))
            if phase == "install" and _delayed(core, namespace) < 2.9:
                raise SystemExit("pods became Ready at once: the control plane has no pod-ready delay Stage (one "
                                 "started from older scripts/controlplane.d?); stop it and run again")
    if args.models:
        models = measure_models(admin, {"waiting": charts, "cpu": [release_scoped_chart(work, 50)] * count}, spaces)
    for namespace in spaces:
        core.delete_namespace(namespace)
    print_concurrency(count, times, bins)
    if args.models:
        print_models(count, models)


def print_concurrency(count, times, bins):
    labels = {"sequential": "releases, concurrency 1", "concurrent": "releases, concurrency %d" % CONCURRENCY,
              "helmfile": "helmfile sync --conc %d" % CONCURRENCY, "kcore": peer_label("kcore", True) + " loop"}
    print("fleet in one cluster: %d releases, wait: true, each pod Ready 5 s +-2 s after creation; %s; %s = %s"
          % (count, _helmfile_version(bins), peer_label("kcore", True), peer_label("kcore")))
    print("%-28s %9s %9s %9s %12s %12s %12s" % ("", "install s", "re-run s", "upgrade s", "install/min",
                                                 "re-run/min", "upgrade/min"))
    for who, label in labels.items():
        print("%-28s %9.1f %9.1f %9.1f %12.1f %12.1f %12.1f" % ((label,) + tuple(times[who])
                                                               + tuple(count * 60 / t for t in times[who])))
    ours = times["concurrent"]
    rows = [("concurrency %d / sequential" % CONCURRENCY, [s / o for s, o in zip(times["sequential"], ours)],
             "(target >= %.1fx each)" % TARGETS["sequential"]),
            ("concurrency %d / helmfile" % CONCURRENCY, [h / o for h, o in zip(times["helmfile"], ours)],
             "(target >= %.1fx each; re-run time <= %.1fx helmfile's: %.2fx)" % (
                 TARGETS["helmfile"], TARGETS["noop_time_vs_helmfile"], ours[1] / times["helmfile"][1])),
            ("concurrency %d / kcore loop" % CONCURRENCY, [k / o for k, o in zip(times["kcore"], ours)], "")]
    print("releases per minute, ratio   %9s %9s %9s" % ("install", "re-run", "upgrade"))
    for label, ratios, target in rows:
        print("%-28s %8.2fx %8.2fx %8.2fx   %s" % ((label,) + tuple(ratios) + (target,)))
    missed = ["%s %s" % (phase, label.split(" / ")[1]) for label, ratios, _t in rows[:2]
              for (phase, _tag), ratio in zip(PHASES, ratios)
              if ratio < TARGETS["sequential" if "sequential" in label else "helmfile"]]
    if ours[1] / times["helmfile"][1] > TARGETS["noop_time_vs_helmfile"]:
        missed.append("re-run time vs helmfile")
    print("targets: %s" % ("all met" if not missed else "missed: " + ", ".join(missed)))
    for line in why_missed(count, times, missed):
        print("  " + line)


def pods_floor(count, trials=2000):
    """Mean seconds ``count`` releases take ``CONCURRENCY`` at a time when each costs nothing but its pod's
    delay (uniform 3 to 7 s, started as slots free up): no tool can be faster (simulated, fixed seed)."""
    import heapq
    import random
    rng, total = random.Random(0), 0.0
    for _ in range(trials):
        slots = [0.0] * CONCURRENCY
        for _release in range(count):
            heapq.heappush(slots, heapq.heappop(slots) + rng.uniform(3, 7))
        total += max(slots)
    return total / trials


def why_missed(count, times, missed):
    """What keeps each missed ratio from its target, from the same run's figures."""
    floor = pods_floor(count)
    for phase, index in (("install", 0), ("upgrade", 2)):
        if "%s helmfile" % phase in missed:
            yield ("%s: the pods alone take %.1f s at %d at a time (the releases costing nothing else); helmfile "
                   "took %.1f s, ours %.1f s: %.1fx helmfile's releases per minute needs ours at %.1f s"
                   % (phase, floor, CONCURRENCY, times["helmfile"][index], times["concurrent"][index],
                      TARGETS["helmfile"], times["helmfile"][index] / TARGETS["helmfile"]))
    if "re-run sequential" in missed:
        yield ("re-run: a no-op waits for nothing on this cluster, so running 8 at a time has nothing to overlap: "
               "one after another took %.1f s, Ansible's start included" % times["sequential"][1])


def _helmfile_version(bins):
    out = subprocess.run([bins["helmfile"], "--version"], capture_output=True, text=True).stdout.split()
    return "helmfile %s driving helm %s" % (out[-1] if out else "?", os.path.basename(
        os.path.dirname(os.path.dirname(bins["helm4"]))).split("-", 1)[-1])


# --- how releases spreads its work: threads, processes, both ----------------------------------------------

def measure_models(admin, charts, spaces):
    """Wall seconds per phase of run_releases at concurrency 8 with 1 process (8 threads), 8 processes (one
    thread each) and 2 processes (4 threads each): releases that wait for slow pods, and releases of a
    50-object chart that do not wait (CPU)."""
    sys.path.insert(0, COLLECTIONS)
    from ansible.module_utils.common.arg_spec import ArgumentSpecValidator
    from ansible_collections.helmless.core.plugins.module_utils.ansible.batch import run_releases
    from ansible_collections.helmless.core.plugins.module_utils.ansible.options import (CONNECTION, RELEASES,
                                                                                        argument_spec)
    validator = ArgumentSpecValidator(argument_spec(CONNECTION, RELEASES))
    out = {}
    for load, wait in (("waiting", True), ("cpu", False)):
        for processes in (1, CONCURRENCY, 2):
            namespace = "models-%s-%d-%s" % (load, processes, uuid.uuid4().hex[:5])
            spaces.append(namespace)
            walls = []
            for _phase, tag in PHASES:
                items = [dict(i, create_namespace=True, wait=wait, wait_timeout="5m")
                         for i in _items(charts[load], namespace, tag)]
                params = validator.validate({"kubeconfig": admin, "concurrency": CONCURRENCY,
                                             "releases": items}).validated_parameters
                before = _cpu()
                start = time.perf_counter()
                run_releases(params, processes=processes)
                walls.append((time.perf_counter() - start, _cpu() - before))
            out[(load, processes)] = walls
    return out


def _cpu():
    """CPU seconds of this process and of the worker processes it has waited for."""
    mine, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return mine.ru_utime + mine.ru_stime + children.ru_utime + children.ru_stime


def print_models(count, models):
    print("releases at concurrency %d, %d releases, by model (wall s: install, re-run, upgrade; %d cores)"
          % (CONCURRENCY, count, os.cpu_count()))
    print("%-8s %-26s %8s %8s %8s   %s" % ("load", "model", "install", "re-run", "upgrade",
                                          "CPU s of the releases task (cores busy): install, re-run, upgrade"))
    names = {1: "1 process x 8 threads", CONCURRENCY: "8 processes x 1 thread", 2: "2 processes x 4 threads"}
    for (load, processes), walls in sorted(models.items()):
        print("%-8s %-26s %8.1f %8.1f %8.1f   %s" % ((load, names[processes]) + tuple(w for w, _c in walls) + (
            ", ".join("%.1f (%.2f)" % (c, c / w) for w, c in walls),)))


if __name__ == "__main__":
    main()
