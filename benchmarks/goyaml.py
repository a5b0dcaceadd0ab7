#!/usr/bin/env python3
"""YAML/JSON layer alone on the corpus values files: ours against Helm 4 (helm_python).

For every values file of the corpus (``tests/corpus``: charts, subcharts, ``values/``) we time
``load_values`` + ``to_yaml`` / ``to_yaml_pretty`` / ``to_json`` of the result, and Helm
loading a chart whose values.yaml is that file and rendering ``toYaml .Values`` (etc.).
Helm's function time is its render time minus a render of an empty template. Reports
CPU seconds of this process for both (Helm runs in-process), medians of ``-n`` runs.

    python3 benchmarks/goyaml.py [-n 5]
"""
import argparse
import os
import statistics
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))
import conftest  # noqa: E402,F401  (makes ansible_collections.helmless.core and tests/unit importable)
import corpuskit  # noqa: E402
from ansible_collections.helmless.core.plugins.module_utils import goyaml  # noqa: E402

FUNCS = {"": None, "toYaml": goyaml.to_yaml, "toYamlPretty": goyaml.to_yaml_pretty, "toJson": goyaml.to_json}


def _texts():
    """The values files Helm reads (those under ``values/expected-errors/`` are refused by design)."""
    texts = corpuskit.values_texts()
    return [texts[k] for k in sorted(texts) if not k.startswith("values/expected-errors/")]


def _chart(tmp, i, text, func):
    root = os.path.join(tmp, "c%03d-%s" % (i, func or "none"))
    os.makedirs(os.path.join(root, "templates"))
    with open(os.path.join(root, "Chart.yaml"), "w") as fh:
        fh.write("apiVersion: v2\nname: c\nversion: 0.1.0\n")
    with open(os.path.join(root, "values.yaml"), "w") as fh:
        fh.write(text)
    with open(os.path.join(root, "templates", "t.txt"), "w") as fh:
        fh.write("{{ %s .Values }}" % func if func else "x")
    return root


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("-n", type=int, default=5)
    args = parser.parse_args()
    from helm_python import Chart
    texts = _texts()
    tmp = tempfile.mkdtemp(prefix="goyaml-bench-")
    roots = {f: [_chart(tmp, i, t, f) for i, t in enumerate(texts)] for f in FUNCS}

    helm = {}
    for f, dirs in roots.items():
        runs = []
        for _ in range(args.n):
            started = time.process_time()
            for d in dirs:
                with Chart.load(d) as chart:
                    chart.render({}, name="rel", namespace="ns")
            runs.append(time.process_time() - started)
        helm[f] = statistics.median(runs)

    ours = {}
    runs = []
    for _ in range(args.n):
        started = time.process_time()
        values = [goyaml.load_values(t) for t in texts]
        runs.append(time.process_time() - started)
    ours[""] = statistics.median(runs)
    for f, fn in FUNCS.items():
        if fn is None:
            continue
        runs = []
        for _ in range(args.n):
            started = time.process_time()
            for v in values:
                fn(v)
            runs.append(time.process_time() - started)
        ours[f] = statistics.median(runs)

    print("%d values files, %d bytes" % (len(texts), sum(len(t) for t in texts)))
    print("%-14s %10s %10s %7s" % ("step", "ours s", "helm s", "ratio"))
    rows = [("load (chart)", ours[""], helm[""])]
    rows += [(f, ours[f], max(helm[f] - helm[""], 1e-9)) for f in FUNCS if f]
    for name, o, h in rows:
        print("%-14s %10.3f %10.3f %7.1f" % (name, o, h, o / h))


if __name__ == "__main__":
    main()
