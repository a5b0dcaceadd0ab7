#!/usr/bin/env python3
"""Render time of every corpus chart, ours against real Helm 4 (helm_python) in the same run.

For each chart: the median of N renders, each of a freshly loaded chart, load time excluded
(as SOURCES.md measures the oracle). Ours runs in three fresh processes per chart against a persistent
cache directory of their own: the first shows the first render with nothing cached ("cold": what the
first Ansible task on a controller pays besides imports); the second the first render of the same inputs
in a fresh process ("cached": a playbook rerun, which the output cache answers for a chart whose output
its inputs alone decide, the parse and document caches for the others), and the median of its other
renders ("warm", in-process caches warm); the third the first render of the chart as another release
("seen": a chart seen before, new inputs: the parse and document caches only). Ratios to Helm for each,
geometric means next to their targets. Charts whose default values fail by design use their first values
file. Then the peak RSS of one render of the largest chart, each side in a fresh process.

    python3 benchmarks/render.py [-n 5] [chart ...]
"""
import argparse
import glob
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

COLLECTIONS = os.path.join(ROOT, ".build", "collections")
LARGEST = "kube-prometheus-stack"
TARGETS = {"cold": 2.5, "cached": 1.2}


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
    """Default values, unless the oracle refuses them; then the first values file."""
    from helm_python import Chart, HelmError
    try:
        Chart.load(corpuskit.archive(chart)).render({}, name="rel", namespace="ns")
        return None
    except HelmError:
        files = sorted(glob.glob(os.path.join(corpuskit.VALUES, chart + "-*.yaml")))
        return files[0] if files else None


def _time_oracle(chart, values_path, runs):
    from helm_python import Chart, values_from_yaml
    values = {}
    if values_path:
        with open(values_path) as handle:
            values = values_from_yaml(handle.read()) or {}
    times = []
    for _ in range(runs):
        loaded = Chart.load(corpuskit.archive(chart))
        start = time.perf_counter()
        loaded.render(values, name="rel", namespace="ns")
        times.append(time.perf_counter() - start)
    return statistics.median(times)


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


def _time_ours(chart, values_path, runs):
    """(imports, cold, cached, seen, warm) seconds: three fresh interpreters sharing a new cache directory.

    The first renders with nothing cached (cold); the second renders the same inputs again (cached: the
    output cache answers when the chart's output is its inputs' alone, else the parse and document caches
    do), then the median of its further renders (warm); the third renders the chart as another release
    (seen: a chart seen before, with new inputs, so only the parse and document caches answer)."""
    cache = tempfile.mkdtemp(prefix="helmless-render-cache-")
    env = dict(os.environ, HELMLESS_CACHE_DIR=cache)
    env.pop("HELMLESS_CACHE", None)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as a user's Python (and release.py): .pyc files are kept
    try:
        found = []
        for name, count in (("rel", 1), ("rel", max(runs, 2)), ("other", 1)):
            code = _TIME_CHILD % {"collections": COLLECTIONS, "chart": corpuskit.archive(chart), "name": name,
                                  "runs": count, "files": [values_path] if values_path else []}
            out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
            if out.returncode != 0:
                raise RuntimeError((out.stderr.strip().splitlines() or ["failed"])[-1])
            found.append(__import__("json").loads(out.stdout.strip().splitlines()[-1]))
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    (_, cold), (imports, cached, *rest), (_, seen) = found
    return imports, cold, cached, seen, statistics.median(rest)


_RSS_CHILD = r"""
import sys
sys.path.insert(0, %(collections)r)
chart = %(chart)r
if %(side)r == "helm":
    from helm_python import Chart
    Chart.load(chart).render({}, name="rel", namespace="ns")
else:
    from ansible_collections.helmless.core.plugins.module_utils.render import render_release
    render_release(chart, name="rel", namespace="ns")
# VmHWM belongs to this process image (ru_maxrss can carry the parent's peak over exec).
print([l.split()[1] for l in open("/proc/self/status") if l.startswith("VmHWM")][0])
"""


def peak_rss_mib(side, chart):
    code = _RSS_CHILD % {"collections": COLLECTIONS, "chart": corpuskit.archive(chart),
                         "side": side}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
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
    print("%-26s %9s %9s %10s %11s %10s %10s %6s %7s %6s %6s" % (
        "chart", "helm ms", "import ms", "ours cold", "ours cached", "ours seen", "ours warm", "cold×", "cached×",
        "seen×", "warm×"))
    for chart in args.charts or charts():
        values = _values_for(chart)
        helm = _time_oracle(chart, values, args.runs)
        try:
            imports, cold, cached, seen, warm = _time_ours(chart, values, args.runs)
        except Exception as exc:  # a chart we cannot render yet is reported, not fatal
            print("%-26s %9.1f  error: %s" % (chart, helm * 1e3, str(exc)[:60]))
            continue
        rows.append((helm, cold, cached, seen, warm))
        print("%-26s %9.1f %9.0f %10.1f %11.1f %10.1f %10.1f %6.1f %7.1f %6.1f %6.1f" % (
            chart, helm * 1e3, imports * 1e3, cold * 1e3, cached * 1e3, seen * 1e3, warm * 1e3, cold / helm,
            cached / helm, seen / helm, warm / helm))
        sys.stdout.flush()
    if rows:
        geo = [math.exp(sum(math.log(r[i] / r[0]) for r in rows) / len(rows)) for i in (1, 2, 3, 4)]
        print("geometric mean of ours/helm: cold %.2f (target <= %.1f), cached %.2f (target <= %.1f), seen %.2f, "
              "warm %.2f" % (geo[0], TARGETS["cold"], geo[1], TARGETS["cached"], geo[2], geo[3]))
        if geo[0] > TARGETS["cold"] or geo[1] > TARGETS["cached"]:
            print("missed: cold = lexing + parsing + compiling every template to closures (plus writing the parse "
                  "cache); cached and seen = decoding stored trees + compiling them to closures + executing (cached "
                  "only for charts calling random, clock or DNS functions); see cProfile of render_release")
    helm_rss, our_rss = peak_rss_mib("helm", LARGEST), peak_rss_mib("ours", LARGEST)
    fmt = lambda v: "%.0f MiB" % v if v is not None else "error"  # noqa: E731
    print("peak RSS rendering %s: helm %s, ours %s" % (LARGEST, fmt(helm_rss), fmt(our_rss)))


if __name__ == "__main__":
    main()
