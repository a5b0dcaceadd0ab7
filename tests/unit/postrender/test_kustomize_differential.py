"""Our native kustomize against the real one (the kustomize CLI at KUSTOMIZE_VERSION) over corpus charts.

Each case renders a corpus chart with the Helm oracle, runs the same kustomization fields
through ``kustomize build`` and through ``postrender.run``, and compares the parsed objects.
"""
import os
import re

import pytest
import yaml

from kustomize_oracle import CORPUS, assert_same_objects, chart_manifest, kustomize_build, ours

# Charts covering the special cases: StatefulSets with volumeClaimTemplates, webhooks and
# kube-system RBAC, admission hooks, cross-namespace service accounts, CRDs, test hooks.
MEDIUM = ["bitnami-redis", "cert-manager", "ingress-nginx", "istiod", "opentelemetry-kube-stack", "podinfo"]

TRANSFORMERS = {
    "namePrefix": {"namePrefix": "team-"},
    "nameSuffix": {"nameSuffix": "-blue"},
    "namespace": {"namespace": "apps"},
    "commonLabels": {"commonLabels": {"team": "payments", "tier": "web"}},
    "labels-plain": {"labels": [{"pairs": {"team": "payments"}}]},
    "labels-selectors": {"labels": [{"pairs": {"team": "payments"}, "includeSelectors": True}]},
    "labels-templates": {"labels": [{"pairs": {"team": "payments"}, "includeTemplates": True}]},
    "labels-fields": {"labels": [{"pairs": {"extra": "yes-please"}, "fields": [
        {"path": "spec/template/spec/nodeSelector", "kind": "Deployment", "create": True}]}]},
    "commonAnnotations": {"commonAnnotations": {"owner": "sre", "ticket": "1234"}},
    "images": {"images": [
        {"name": "ghcr.io/stefanprodan/podinfo", "newTag": "6.0.0"},
        {"name": "docker.io/grafana/grafana", "newName": "mirror.local/grafana"},
        {"name": "registry.k8s.io/ingress-nginx/controller", "newTag": "v9.9.9"},
        {"name": "quay.io/prometheus/prometheus", "digest": "sha256:0123456789abcdef"},
        {"name": "hashicorp/vault", "newName": "mirror.local/vault", "newTag": "1.0"}]},
    "prefix-suffix-namespace": {"namePrefix": "a-", "nameSuffix": "-z", "namespace": "other"},
}

COMBINED = {"namePrefix": "pre-", "nameSuffix": "-suf", "namespace": "target",
            "commonLabels": {"team": "core"}, "commonAnnotations": {"owner": "me"},
            "labels": [{"pairs": {"env": "prod"}, "includeTemplates": True}]}


def _check(tmp_path, chart, cfg):
    manifest = chart_manifest(chart)
    expected = kustomize_build(tmp_path, manifest, cfg)
    assert_same_objects(ours(manifest, [{"kustomize": cfg}], cwd=str(tmp_path)), expected)


@pytest.mark.parametrize("chart", MEDIUM)
@pytest.mark.parametrize("name", sorted(TRANSFORMERS))
def test_each_builtin_transformer_matches_kustomize(tmp_path, name, chart):
    _check(tmp_path, chart, TRANSFORMERS[name])


@pytest.mark.parametrize("chart", CORPUS)
def test_combined_transformers_match_kustomize_on_every_corpus_chart(tmp_path, chart):
    _check(tmp_path, chart, COMBINED)


@pytest.mark.parametrize("chart", ["podinfo", "grafana"])
def test_replicas_match_kustomize(tmp_path, chart):
    _check(tmp_path, chart, {"replicas": [{"name": "rel-" + chart, "count": 4}]})


def test_replicas_naming_nothing_is_an_error_like_kustomize(tmp_path):
    from ansible_collections.helmless.core.plugins.module_utils.postrender import PostRenderError
    with pytest.raises(PostRenderError, match="resource with name nope does not match"):
        ours(chart_manifest("podinfo"), [{"kustomize": {"replicas": [{"name": "nope", "count": 2}]}}])


# Hand-written objects covering kustomize's special cases that the corpus charts miss: the
# Namespace object, APIService and CRD conversion services, (Cluster)RoleBinding subjects of
# every kind, webhook services, Ingress backends, HPA targets, PVC/StorageClass/PriorityClass
# references and a custom resource.
REFERENCE_OBJECTS = os.path.join(os.path.dirname(__file__), "reference_objects.yaml")


@pytest.mark.parametrize("cfg", [
    {"namespace": "new"}, {"namePrefix": "p-"}, {"nameSuffix": "-s"},
    {"namePrefix": "p-", "namespace": "new", "nameSuffix": "-s"},
    {"commonLabels": {"a": "b"}, "commonAnnotations": {"c": "d"}},
    {"images": [{"name": "nginx", "newTag": "2.0"}]},
    {"replicas": [{"name": "sts", "count": 2}]},
], ids=lambda cfg: "+".join(sorted(cfg)))
def test_reference_rewriting_special_cases_match_kustomize(tmp_path, cfg):
    with open(REFERENCE_OBJECTS) as fh:
        manifest = fh.read()
    expected = kustomize_build(tmp_path, manifest, cfg)
    assert_same_objects(ours(manifest, [{"kustomize": cfg}]), expected)


def test_a_kustomization_file_is_read_with_files_relative_to_it(tmp_path):
    manifest = chart_manifest("podinfo")
    cfg = {"namePrefix": "f-", "configMapGenerator": [{"name": "from-file", "files": ["data.txt"]}],
           "patches": [{"path": "patch.yaml"}]}
    expected_dir = tmp_path / "expected"
    expected_dir.mkdir()
    overlay = tmp_path / "overlay"
    overlay.mkdir()
    for directory in (expected_dir, overlay):
        (directory / "data.txt").write_text("hello\n")
        (directory / "patch.yaml").write_text(
            "apiVersion: v1\nkind: Service\nmetadata: {name: rel-podinfo, namespace: ns}\n"
            "spec: {sessionAffinity: ClientIP}\n")
    expected = kustomize_build(expected_dir, manifest, cfg)
    (overlay / "kustomization.yaml").write_text(yaml.safe_dump(cfg))
    assert_same_objects(ours(manifest, [{"kustomize": "overlay"}], cwd=str(tmp_path)), expected)
    assert_same_objects(ours(manifest, [{"kustomize": str(overlay / "kustomization.yaml")}]), expected)


def test_two_objects_with_one_id_are_refused_as_kustomize_does(tmp_path):
    from ansible_collections.helmless.core.plugins.module_utils.postrender import PostRenderError
    manifest = ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: default}\n---\n"
                "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n")
    with pytest.raises(AssertionError, match="already registered id"):
        kustomize_build(tmp_path, manifest, {})
    with pytest.raises(PostRenderError, match="already registered id: v1 ConfigMap -/a"):
        ours(manifest, [{"kustomize": {}}])


def test_list_objects_are_flattened_and_their_items_keep_the_template(tmp_path):
    manifest = ("---\n# Source: c/templates/lists.yaml\napiVersion: v1\nkind: List\nitems:\n"
                "- {apiVersion: v1, kind: ConfigMap, metadata: {name: one}}\n"
                "- {apiVersion: v1, kind: ConfigMap, metadata: {name: two}}\n"
                "---\n# Source: c/templates/more.yaml\napiVersion: v1\nkind: ConfigMapList\nitems:\n"
                "- {apiVersion: v1, kind: ConfigMap, metadata: {name: three}}\n")
    cfg = {"namePrefix": "p-"}
    assert_same_objects(ours(manifest, [{"kustomize": cfg}]), kustomize_build(tmp_path, manifest, cfg))
    from ansible_collections.helmless.core.plugins.module_utils.postrender import run
    text = run(manifest, [{"kustomize": cfg}])
    assert text.count("# Source: c/templates/lists.yaml\n") == 2 and text.count("# Source: c/templates/more.yaml\n") == 1


@pytest.mark.parametrize("chart", ["cert-manager", "jenkins", "kube-prometheus-stack", "kubernetes-dashboard",
                                   "prometheus"])
def test_retagging_every_image_of_a_chart_matches_kustomize(tmp_path, chart):
    manifest = chart_manifest(chart)
    images = set(re.findall(r'(?m)^\s*-?\s*image:\s*"?([^"\s]+)"?\s*$', manifest))
    names = sorted({i.split("@")[0].rsplit(":", 1)[0] if ":" in i.split("@")[0].split("/")[-1]
                    else i.split("@")[0] for i in images})
    assert names
    forms = [lambda n: {"name": n, "newName": n + "-mirror", "newTag": "t1"},
             lambda n: {"name": n, "digest": "sha256:" + "a" * 64},
             lambda n: {"name": n, "newTag": "t2"}]
    cfg = {"images": [forms[k % 3](n) for k, n in enumerate(names)]}
    assert_same_objects(ours(manifest, [{"kustomize": cfg}]), kustomize_build(tmp_path, manifest, cfg))
