#!/usr/bin/env python3
"""Render time of every corpus chart, ours against real Helm 4 (helm_python) in the same run.

For each chart: the median of N renders, each of a freshly loaded chart, load time excluded
(as SOURCES.md measures the oracle). Ours runs in a fresh process per chart and reports its
module import time, its first render ("cold": what one Ansible task pays besides imports,
no parse cache warm) and the median of the others ("warm"), with both ratios. Charts whose default values fail by design use
their first values file. Prints the table with the geometric mean, then the peak RSS of one
render of the largest chart, each side in a fresh process.

    python3 benchmarks/render.py [-n 5] [chart ...]
"""
import argparse
import glob
import math
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.environ.get("HELMLESS_SHARED", os.path.join(os.path.dirname(ROOT), "shared"))
CHARTS = os.path.join(SHARED, "charts")
COLLECTIONS = os.path.join(ROOT, ".build", "collections")
LARGEST = "kube-prometheus-stack"


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
    return sorted(d for d in os.listdir(CHARTS)
                  if os.path.isfile(os.path.join(CHARTS, d, "Chart.yaml")))


def _values_for(chart):
    """Default values, unless the oracle refuses them; then the first values file."""
    from helm_python import Chart, HelmError
    try:
        Chart.load(os.path.join(CHARTS, chart)).render({}, name="rel", namespace="ns")
        return None
    except HelmError:
        files = sorted(glob.glob(os.path.join(CHARTS, "values", chart + "-*.yaml")))
        return files[0] if files else None


def _time_oracle(chart, values_path, runs):
    from helm_python import Chart, values_from_yaml
    values = {}
    if values_path:
        with open(values_path) as handle:
            values = values_from_yaml(handle.read()) or {}
    times = []
    for _ in range(runs):
        loaded = Chart.load(os.path.join(CHARTS, chart))
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
engine.base_funcs()
imports = time.perf_counter() - start
times = []
for _ in range(%(runs)d):
    loaded = load_chart(%(chart)r)
    start = time.perf_counter()
    render_release(loaded, name="rel", namespace="ns", values_files=%(files)r)
    times.append(time.perf_counter() - start)
print(json.dumps([imports] + times))
"""


def _time_ours(chart, values_path, runs):
    """(imports, cold, warm) seconds, measured in a fresh interpreter."""
    code = _TIME_CHILD % {"collections": COLLECTIONS, "chart": os.path.join(CHARTS, chart),
                          "runs": max(runs, 2), "files": [values_path] if values_path else []}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError((out.stderr.strip().splitlines() or ["failed"])[-1])
    times = __import__("json").loads(out.stdout.strip().splitlines()[-1])
    return times[0], times[1], statistics.median(times[2:])


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
    code = _RSS_CHILD % {"collections": COLLECTIONS, "chart": os.path.join(CHARTS, chart),
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
    print("%-26s %9s %9s %10s %10s %6s %6s" % ("chart", "helm ms", "import ms", "ours cold",
                                                "ours warm", "cold×", "warm×"))
    for chart in args.charts or charts():
        values = _values_for(chart)
        helm = _time_oracle(chart, values, args.runs)
        try:
            imports, cold, warm = _time_ours(chart, values, args.runs)
        except Exception as exc:  # a chart we cannot render yet is reported, not fatal
            print("%-26s %9.1f  error: %s" % (chart, helm * 1e3, str(exc)[:60]))
            continue
        rows.append((chart, helm, cold, warm))
        print("%-26s %9.1f %9.0f %10.1f %10.1f %6.1f %6.1f" % (
            chart, helm * 1e3, imports * 1e3, cold * 1e3, warm * 1e3, cold / helm, warm / helm))
        sys.stdout.flush()
    if rows:
        geo = math.exp(sum(math.log(c / h) for _, h, c, _ in rows) / len(rows))
        geo_warm = math.exp(sum(math.log(w / h) for _, h, _, w in rows) / len(rows))
        print("geometric mean of ours/helm: cold %.1f, warm %.1f" % (geo, geo_warm))
    helm_rss, our_rss = peak_rss_mib("helm", LARGEST), peak_rss_mib("ours", LARGEST)
    fmt = lambda v: "%.0f MiB" % v if v is not None else "error"  # noqa: E731
    print("peak RSS rendering %s: helm %s, ours %s" % (LARGEST, fmt(helm_rss), fmt(our_rss)))


if __name__ == "__main__":
    main()
