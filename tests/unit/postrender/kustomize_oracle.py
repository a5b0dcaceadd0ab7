"""Test helpers: corpus chart output from the Helm oracle, and the real kustomize over it (the kustomize CLI at
KUSTOMIZE_VERSION, scripts/versions.env, built by ``scripts/controlplane build``)."""
import functools
import os
import re
import subprocess

import yaml

import corpuskit
from helm_oracle import cp_build  # where the build puts binaries
from ansible_collections.helmless.core.plugins.module_utils.postrender import run
from ansible_collections.helmless.core.plugins.module_utils.postrender.yamlio import load_all

# Corpus charts that render with default values.
CORPUS = ["argo-cd", "bitnami-nginx", "bitnami-postgresql", "bitnami-redis", "bitnami-wordpress",
          "cert-manager", "external-secrets", "fluent-bit", "grafana", "ingress-nginx", "istiod",
          "jenkins", "kube-prometheus-stack", "kubernetes-dashboard", "metrics-server", "nats",
          "opentelemetry-kube-stack", "podinfo", "prometheus", "traefik", "vault"]


# Helm's releaseutil.SplitManifests separator.
_HELM_SEPARATOR = re.compile(r"(?:^|\s*\n)---\s*")


@functools.lru_cache(maxsize=None)
def chart_manifest(chart):
    """The chart's manifest as Helm writes it: every document split out of its template,
    trimmed, as ``---`` + ``# Source: <template>`` + document; NOTES left out."""
    from helm_oracle import Chart
    files = Chart.load(corpuskit.archive(chart)).render({}, name="rel", namespace="ns")
    out = []
    for name in sorted(files):
        if name.endswith("NOTES.txt") or os.path.basename(name).startswith("_"):
            continue
        for doc in _HELM_SEPARATOR.split(files[name].strip()):
            if doc.strip():
                out.append("---\n# Source: %s\n%s\n" % (name, doc.strip()))
    return "".join(out)


def kustomize():
    """The pinned kustomize binary; not built is an error, never a fallback to another kustomize."""
    path = cp_build.binaries()["kustomize"]
    if not os.access(path, os.X_OK):
        raise RuntimeError("kustomize is not built (%s): run scripts/controlplane build" % path)
    return path


def kustomize_build(tmp_path, manifest, kustomization, plugins=False, env=None):
    """Objects ``kustomize build`` makes from ``manifest`` plus the kustomization fields."""
    (tmp_path / "chart.yaml").write_text(manifest)
    kust = dict(kustomization)
    kust["resources"] = ["chart.yaml"] + list(kust.get("resources") or [])
    (tmp_path / "kustomization.yaml").write_text(yaml.safe_dump(kust))
    cmd = [kustomize(), "build", str(tmp_path)]
    if plugins:
        cmd.append("--enable-alpha-plugins")
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    if proc.returncode != 0:
        raise AssertionError("kustomize build failed: " + proc.stderr)
    return load_all(proc.stdout)


def ours(manifest, renderers, **kw):
    return load_all(run(manifest, renderers, **kw))


def keyed(objs):
    result = {}
    for obj in objs:
        meta = obj.get("metadata") or {}
        key = (obj.get("kind"), meta.get("namespace") or "", meta.get("name"))
        assert key not in result, "duplicate object %s" % (key,)
        result[key] = obj
    return result


def first_difference(a, b, path=""):
    """A short description of where two parsed objects differ (for assertion messages)."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b), key=str):
            if key not in a or key not in b:
                return "%s/%s: %r vs %r" % (path, key, a.get(key, "<missing>"), b.get(key, "<missing>"))
            diff = first_difference(a[key], b[key], "%s/%s" % (path, key))
            if diff:
                return diff
        return None
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            diff = first_difference(x, y, "%s[%d]" % (path, i))
            if diff:
                return diff
        return None
    return None if a == b else "%s: %.300r vs %.300r" % (path, a, b)


def assert_same_objects(mine, theirs):
    mine, theirs = keyed(mine), keyed(theirs)
    assert sorted(mine, key=str) == sorted(theirs, key=str), (
        "only ours: %s; only kustomize: %s" % (sorted(set(mine) - set(theirs), key=str)[:5],
                                               sorted(set(theirs) - set(mine), key=str)[:5]))
    diffs = ["%s: %s" % (key, first_difference(mine[key], theirs[key]))
             for key in mine if mine[key] != theirs[key]]
    assert not diffs, "%d objects differ (ours vs kustomize):\n%s" % (len(diffs), "\n".join(diffs[:8]))
