#!/usr/bin/env python3
"""Render time of every corpus chart, ours against real Helm 4 at HELM4_VERSION in the same run.

For each chart: the median of N rounds, each rendering a freshly loaded chart on Helm's side and then
on ours, load time excluded (as SOURCES.md measures the oracle). Helm's side is timed inside the oracle (scripts/oracle, Go):
the work ``render_release`` does, which is what ``helm template`` does (action.Install with a client
dry run: values, templates, notes, manifests split, parsed and sorted); its engine alone is printed
beside. Ours runs in fresh processes, each chart against cache directories
of its own: "first", the first render on a controller that never ran a task (nothing cached at all);
then, with only the compiled regexes a controller keeps after its first task (the demo chart rendered
once), "cold": the first render of a chart new to the controller; "cached": the first render of the same
inputs in a fresh process (a playbook rerun, which the output cache answers for a chart whose output its
inputs alone decide, the parse and document caches for the others), and "warm", that process's other
renders; "seen": the first render of the chart as another release (a chart seen before, new inputs: the
parse and document caches only). Each of ours is the median over N such rounds, each round with new cache
directories. Ratios to Helm for each, geometric means next to their targets. Charts whose default values
fail by design use their first values file. Then the peak RSS of one render of the largest chart, each side
in a fresh process: ours as a chart new to the controller, then as a rerun.

    python3 benchmarks/render.py [-n 5] [chart ...]
"""
import argparse
import glob
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "unit"))
import corpuskit  # noqa: E402  (the chart corpus, tests/corpus)
import helm_oracle  # noqa: E402  (Helm at HELM4_VERSION, scripts/oracle)

COLLECTIONS = os.path.join(ROOT, ".build", "collections")
LARGEST = "kube-prometheus-stack"
DEMO = os.path.join(ROOT, "playbooks", "charts", "webapp")
TARGETS = {"cold": 2.0, "cached": 1.2}


def _setup_import():
    link = os.path.join(COLLECTIONS, "ansible_collections", "helmless", "core")
    if not os.path.islink(link):
        os.makedirs(os.path.dirname(link), exist_ok=True)
        try:
            os.symlink(ROOT, link)
        except FileExistsError:
            pass
    if COLLECTIONS not in sys.path:
        sys.path.insert(0, COLLECTIONS)


def charts():
    return corpuskit.names()


def _values_for(chart):
    """Default values, unless Helm refuses them; then the first values file."""
    try:
        helm_oracle.install(corpuskit.archive(chart), {}, name="rel", namespace="ns")
        return None
    except helm_oracle.HelmError:
        files = sorted(glob.glob(os.path.join(corpuskit.VALUES, chart + "-*.yaml")))
        return files[0] if files else None


HELM_BURST = 3


def _time_helm(chart, values_path):
    """(template, render) seconds of one round, timed inside the Helm oracle at the pinned version, chart load
    excluded: ``template`` the work of ``render_release`` (``helm template``: action.Install, client dry-run:
    values, render, notes, manifests sorted and parsed), ``render`` pkg/engine alone (values and templates
    only). Each is the median of a burst of HELM_BURST runs in the oracle's warm process, as Helm was timed
    before its runs were spread over the rounds."""
    fields = {"chart": corpuskit.archive(chart), "name": "rel", "namespace": "ns", "runs": HELM_BURST,
              "values_files": [values_path] if values_path else []}
    return tuple(statistics.median(helm_oracle.call(op, **fields)["seconds"]) for op in ("install", "render"))


_TIME_CHILD = r"""
import sys, time, json
sys.path.insert(0, %(collections)r)
start = time.perf_counter()
from ansible_collections.helmless.core.plugins.module_utils.chart.loader import load_chart
from ansible_collections.helmless.core.plugins.module_utils.chart import schema
from ansible_collections.helmless.core.plugins.module_utils.render import render_release, engine
from ansible_collections.helmless.core.plugins.module_utils.chart import capabilities, dependencies, values, strvals
from ansible_collections.helmless.core.plugins.module_utils import semver
from ansible_collections.helmless.core.plugins.module_utils.gotemplate import builtins
from ansible_collections.helmless.core.plugins.module_utils import codecache
from ansible_collections.helmless.core.plugins.module_utils.goyaml import loader
from ansible_collections.helmless.core.plugins.module_utils.funcs.sprig import gotime, math as sprig_math
import uuid
engine.base_funcs()
loader._bind()  # PyYAML, for documents the document cache does not hold
gotime.local()  # zoneinfo and the local zone, for templates that read the clock
sprig_math._decimal()  # decimal, for the float math functions
imports = time.perf_counter() - start  # every module a render loads lazily, so renders time no import
times = []
for _ in range(%(runs)d):
    loaded = load_chart(%(chart)r)
    start = time.perf_counter()
    render_release(loaded, name=%(name)r, namespace="ns", values_files=%(files)r)
    times.append(time.perf_counter() - start)
print(json.dumps([imports] + times))
"""


def _run_child(chart, name, runs, values_path, cache):
    code = _TIME_CHILD % {"collections": COLLECTIONS, "chart": chart, "name": name, "runs": runs,
                          "files": [values_path] if values_path else []}
    env = dict(os.environ, HELMLESS_CACHE_DIR=cache)
    env.pop("HELMLESS_CACHE", None)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as a user's Python (and release.py): .pyc files are kept
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    if out.returncode != 0:
        raise RuntimeError((out.stderr.strip().splitlines() or ["failed"])[-1])
    return json.loads(out.stdout.strip().splitlines()[-1])


def controller_regexes():
    """The compiled-regex table a controller has after its first task (the demo chart rendered once): the
    engine's own patterns, whichever chart; a corpus chart's own patterns (regexMatch...) stay new."""
    cache = tempfile.mkdtemp(prefix="helmless-render-controller-")
    _run_child(DEMO, "demo", 1, None, cache)
    return os.path.join(cache, "regexes")


def _time_chart(chart, values_path, runs, regexes):
    """(helm, helm engine, imports, first, cold, cached, seen, warm) seconds, each the median over ``runs``
    rounds, Helm's and ours in turn in each round: a slow spell of this shared machine then falls on both
    sides' samples instead of on one side's (timed one after the other, a chart's ratio moved by up to 2x
    between runs, and the cold geometric mean by 0.2). Ours are fresh interpreters (a first or cold render
    happens once per cache directory, so one sample each would be all the machine's noise).

    Each round of ours: ``first``, the first render on a controller that never ran a task (an empty cache directory:
    the engine's own regexes compile too). Then three processes sharing a new cache directory that holds only
    ``regexes`` (controller_regexes): the first renders the chart with nothing of it cached (cold: a chart
    new to the controller); the second renders the same inputs again (cached: the output cache answers when
    the chart's output is its inputs' alone, else the parse and document caches do), then its further renders
    (warm); the third renders the chart as another release (seen: a chart seen before, with new inputs, so
    only the parse and document caches answer)."""
    archive = corpuskit.archive(chart)
    samples = {key: [] for key in ("helm", "engine", "imports", "first", "cold", "cached", "seen", "warm")}
    for _ in range(max(runs, 1)):
        helm, engine_only = _time_helm(chart, values_path)
        samples["helm"].append(helm)
        samples["engine"].append(engine_only)
        empty = tempfile.mkdtemp(prefix="helmless-render-empty-")
        cache = tempfile.mkdtemp(prefix="helmless-render-cache-")
        try:
            (_, first) = _run_child(archive, "rel", 1, values_path, empty)
            shutil.copytree(regexes, os.path.join(cache, "regexes"))
            found = [_run_child(archive, name, count, values_path, cache)
                     for name, count in (("rel", 1), ("rel", 3), ("other", 1))]
        finally:
            shutil.rmtree(cache, ignore_errors=True)
            shutil.rmtree(empty, ignore_errors=True)
        (_, cold), (imports, cached, *rest), (_, seen) = found
        for key, value in (("imports", imports), ("first", first), ("cold", cold), ("cached", cached),
                           ("seen", seen)):
            samples[key].append(value)
        samples["warm"] += rest
    return tuple(statistics.median(samples[key]) for key in samples)


_RSS_CHILD = r"""
import sys
sys.path.insert(0, %(collections)r)
from ansible_collections.helmless.core.plugins.module_utils.render import render_release
render_release(%(chart)r, name="rel", namespace="ns")
# VmHWM belongs to this process image (ru_maxrss can carry the parent's peak over exec).
print([l.split()[1] for l in open("/proc/self/status") if l.startswith("VmHWM")][0])
"""


def _vm_hwm_kib(status_path):
    with open(status_path) as handle:
        return int([line.split()[1] for line in handle if line.startswith("VmHWM")][0])


def peak_rss_mib(side, chart, cache=None):
    """Peak RSS of one ``helm template``-like render of ``chart`` with default values, in a fresh process;
    ours with the cache directory ``cache``."""
    if side == "helm":  # a fresh oracle answering one install request, read before it exits
        proc = subprocess.Popen([helm_oracle.BINARY], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL)
        try:
            request = {"op": "install", "chart": corpuskit.archive(chart), "name": "rel", "namespace": "ns"}
            proc.stdin.write((json.dumps(request) + "\n").encode())
            proc.stdin.flush()
            if "ok" not in json.loads(proc.stdout.readline() or "{}"):
                return None
            return _vm_hwm_kib("/proc/%d/status" % proc.pid) / 1024.0
        finally:
            proc.stdin.close()
            proc.wait()
    code = _RSS_CHILD % {"collections": COLLECTIONS, "chart": corpuskit.archive(chart)}
    env = dict(os.environ, HELMLESS_CACHE_DIR=cache)
    env.pop("HELMLESS_CACHE", None)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    if out.returncode != 0:
        return None
    return int(out.stdout.strip().splitlines()[-1]) / 1024.0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-n", "--runs", type=int, default=5)
    parser.add_argument("charts", nargs="*")
    args = parser.parse_args(argv)
    _setup_import()
    rows = []
    regexes = controller_regexes()
    print("%-26s %9s %9s %9s %10s %10s %11s %10s %10s %6s %6s %7s %6s %6s" % (
        "chart", "helm ms", "engine ms", "import ms", "ours first", "ours cold", "ours cached", "ours seen",
        "ours warm", "first×", "cold×", "cached×", "seen×", "warm×"))
    for chart in args.charts or charts():
        values = _values_for(chart)
        try:
            helm, engine_only, imports, first, cold, cached, seen, warm = _time_chart(chart, values, args.runs,
                                                                                     regexes)
        except Exception as exc:  # a chart we cannot render yet is reported, not fatal
            print("%-26s error: %s" % (chart, str(exc)[:70]))
            continue
        rows.append((helm, cold, cached, seen, warm, first, engine_only))
        print("%-26s %9.1f %9.1f %9.0f %10.1f %10.1f %11.1f %10.1f %10.1f %6.1f %6.1f %7.1f %6.1f %6.1f" % (
            chart, helm * 1e3, engine_only * 1e3, imports * 1e3, first * 1e3, cold * 1e3, cached * 1e3,
            seen * 1e3, warm * 1e3, first / helm, cold / helm, cached / helm, seen / helm, warm / helm))
        sys.stdout.flush()
    if rows:
        geo = [math.exp(sum(math.log(r[i] / r[0]) for r in rows) / len(rows)) for i in (1, 2, 3, 4, 5)]
        print("helm: Helm %s's `helm template` work in-process (action.Install, client dry-run), as render_release "
              "does; engine: its pkg/engine alone" % helm_oracle.HELM_VERSION)
        print("geometric mean of ours/helm: cold %.2f (target <= %.1f), cached %.2f (target <= %.1f), seen %.2f, "
              "warm %.2f; first task on a controller %.2f"
              % (geo[0], TARGETS["cold"], geo[1], TARGETS["cached"], geo[2], geo[3], geo[4]))
        engine_geo = [math.exp(sum(math.log(r[i] / r[6]) for r in rows) / len(rows)) for i in (1, 2)]
        print("against Helm's engine alone (ours still sorting and parsing manifests): cold %.2f, cached %.2f"
              % tuple(engine_geo))
        if geo[0] > TARGETS["cold"] or geo[1] > TARGETS["cached"]:
            print("missed: cold = lexing + parsing + compiling every template to closures (plus writing the parse "
                  "cache) and decoding every new manifest; cached and seen = decoding stored trees + compiling "
                  "them to closures + executing (cached only for charts calling random, clock or DNS functions); "
                  "see cProfile of render_release")
    # Ours as a chart new to the controller (its cache holding the regexes only: the render writes the parse,
    # document and output caches), then as a rerun (reading them).
    cache = tempfile.mkdtemp(prefix="helmless-render-rss-")
    try:
        shutil.copytree(regexes, os.path.join(cache, "regexes"))
        helm_rss = peak_rss_mib("helm", LARGEST)
        new_rss, rerun_rss = peak_rss_mib("ours", LARGEST, cache), peak_rss_mib("ours", LARGEST, cache)
    finally:
        shutil.rmtree(cache, ignore_errors=True)

    def fmt(mib):
        return "%.0f MiB" % mib if mib is not None else "error"
    print("peak RSS rendering %s: helm %s, ours %s as a chart new to the controller, %s rerun (target <= helm)"
          % (LARGEST, fmt(helm_rss), fmt(new_rss), fmt(rerun_rss)))


if __name__ == "__main__":
    main()
