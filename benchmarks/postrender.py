"""Post-render cost on the largest corpus chart: ours vs ``kustomize build`` (the kustomize CLI at
KUSTOMIZE_VERSION, built by ``scripts/controlplane build``) on the same input.

Run: ``python3 benchmarks/postrender.py [chart] [repeats]`` (default kube-prometheus-stack, 5).
Both sides get the same rendered manifest and the same kustomization; kustomize's time includes
its process start, ours includes parsing the stream and writing it back out, which is the
whole cost the render pipeline pays.
"""
import os
import subprocess
import sys
import tempfile
import time

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.join(ROOT, "tests"), os.path.join(ROOT, "tests", "unit"), os.path.join(ROOT, "tests", "unit", "postrender")]
import conftest  # noqa: E402,F401  (makes ansible_collections.helmless.core and tests/unit importable)
from kustomize_oracle import kustomize  # noqa: E402
from ansible_collections.helmless.core.plugins.module_utils.postrender import run  # noqa: E402
from ansible_collections.helmless.core.plugins.module_utils.postrender.yamlio import load_all  # noqa: E402

CASES = {
    "identity (parse + emit)": {},
    "namePrefix+namespace+labels": {"namePrefix": "p-", "namespace": "apps",
                                    "commonLabels": {"team": "core"},
                                    "commonAnnotations": {"owner": "sre"}},
    "patches (SMP + JSON6902)": {"patches": [
        {"target": {"kind": "Deployment"},
         "patch": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\nspec:\n  template:\n"
                  "    spec:\n      tolerations: [{key: k, operator: Exists}]\n"},
        {"target": {"kind": "Service"}, "patch": "- {op: add, path: /metadata/labels/svc, value: 'yes'}\n"}]},
    "generators + images": {"configMapGenerator": [{"name": "cfg", "literals": ["a=b"]}],
                            "secretGenerator": [{"name": "sec", "literals": ["a=b"]}],
                            "images": [{"name": "quay.io/prometheus/prometheus", "newTag": "v9"}]},
}


def manifest_for(chart):
    from helm_python import Chart
    import corpuskit
    files = Chart.load(corpuskit.archive(chart)).render({}, name="rel", namespace="ns")
    return "".join("---\n# Source: %s\n%s\n" % (n, t) for n, t in sorted(files.items())
                   if not n.endswith("NOTES.txt") and t.strip())


def best_of(repeats, fn):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main():
    chart = sys.argv[1] if len(sys.argv) > 1 else "kube-prometheus-stack"
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    manifest = manifest_for(chart)
    print("chart %s: %d bytes, %d documents; best of %d runs" % (
        chart, len(manifest), len(load_all(manifest)), repeats))
    print("%-30s %12s %12s %8s" % ("case", "ours (s)", "kustomize (s)", "ratio"))
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "chart.yaml"), "w") as fh:
            fh.write(manifest)
        for name, cfg in CASES.items():
            kust = dict(cfg, resources=["chart.yaml"])
            with open(os.path.join(tmp, "kustomization.yaml"), "w") as fh:
                yaml.safe_dump(kust, fh)
            ours = best_of(repeats, lambda: run(manifest, [{"kustomize": cfg}], cwd=tmp))
            theirs = best_of(repeats, lambda: subprocess.run(
                [kustomize(), "build", tmp], check=True, capture_output=True))
            print("%-30s %12.3f %12.3f %7.2fx" % (name, ours, theirs, ours / theirs))


if __name__ == "__main__":
    main()
