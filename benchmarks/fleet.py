#!/usr/bin/env python3
"""Fleet throughput: many releases across many inventory hosts with forks, ours vs kubernetes.core.helm.

8 inventory hosts (each its own kubeconfig context and namespace on the local control plane), 5
releases each (40), ``forks: 4``: ``roles/releases`` installs them, then the same play runs again
(every release a no-op), all with one 20-object chart unless ``--chart`` names another. kubernetes.core.helm runs
the same releases as one looped task per host: the newest (the ``ansible`` package's 6.6.0, driving the real helm
v4 binary), the peer of the target, and 6.2.0 driving helm v3, a second row (benchmarks/release.py's PEERS).
Prints releases per minute for the install, the re-run and both, and the ratio ours / kubernetes.core.helm next
to its target, in the same run. The same loop with ``ping`` for a
module measures Ansible's own floor per release (fork, module transfer, templating the item), which
no module can go below: where the target is missed, it says whether the floor or a module dominates.

    python3 benchmarks/fleet.py [--quick] [--hosts 8] [--releases 5] [--forks 4] [--chart DIR]
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
    parser.add_argument("--quick", action="store_true", help="4 hosts x 2 releases, forks 4")
    parser.add_argument("--hosts", type=int, default=8)
    parser.add_argument("--releases", type=int, default=5, help="releases per host")
    parser.add_argument("--forks", type=int, default=4)
    parser.add_argument("--chart", help="chart directory (default: a generated 20-object chart; corpus charts "
                                         "with random names, e.g. podinfo's test hooks, upgrade on every run)")
    args = parser.parse_args()
    if args.quick:
        args.hosts, args.releases = 4, 2
    _link_collection()
    sys.path.insert(0, os.path.join(ROOT, "scripts", "controlplane.d"))
    import cp_build  # noqa: E402
    import cp_run  # noqa: E402

    was_running = bool(cp_run.running(cp_run.default_dir()))
    admin = cp_run.start(cp_run.default_dir())["kubeconfig"]
    try:
        measure(args, admin, cp_build.binaries())
    finally:
        if not was_running:
            cp_run.stop(cp_run.default_dir())


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


if __name__ == "__main__":
    main()
