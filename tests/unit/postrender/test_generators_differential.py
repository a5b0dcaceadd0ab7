"""configMapGenerator / secretGenerator: hash suffixes, behaviors, options and reference
rewriting, ours against the pinned kustomize over corpus chart output."""
import pytest

from ansible_collections.helmless.core.plugins.module_utils.postrender import PostRenderError
from ansible_collections.helmless.core.plugins.module_utils.postrender.yamlio import load_all
from kustomize_oracle import assert_same_objects, chart_manifest, kustomize_build, ours

# Make the podinfo Deployment refer to generated objects in every way kustomize rewrites.
USE_GENERATED = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: rel-podinfo, namespace: ns}
spec:
  template:
    spec:
      imagePullSecrets: [{name: pull}]
      initContainers:
      - name: init
        image: busybox
        envFrom: [{configMapRef: {name: app-env}}]
      containers:
      - name: podinfo
        envFrom: [{configMapRef: {name: app-env}}, {secretRef: {name: creds}}]
        env:
        - name: FROM_CM
          valueFrom: {configMapKeyRef: {name: app-config, key: app.properties}}
        - name: FROM_SECRET
          valueFrom: {secretKeyRef: {name: creds, key: password}}
      volumes:
      - {name: cfg, configMap: {name: app-config}}
      - {name: sec, secret: {secretName: creds}}
      - name: all
        projected:
          sources:
          - configMap: {name: app-env}
          - secret: {name: creds}
"""

GENERATORS = {
    "literals-envs-files": {
        "configMapGenerator": [
            {"name": "app-env", "namespace": "ns", "envs": ["app.env"], "literals": ["MODE=prod"]},
            {"name": "app-config", "namespace": "ns", "files": ["app.properties", "renamed.bin=blob.bin"]}],
        "secretGenerator": [
            {"name": "creds", "namespace": "ns", "literals": ["password=s3cr=t", "user='quoted'"]},
            {"name": "pull", "namespace": "ns", "type": "kubernetes.io/dockerconfigjson",
             "files": [".dockerconfigjson=docker.json"]}],
        "patches": [{"patch": USE_GENERATED}]},
    "with-prefix-namespace-labels": {
        "namePrefix": "x-", "namespace": "apps", "commonLabels": {"team": "core"},
        "configMapGenerator": [{"name": "app-env", "namespace": "ns", "literals": ["A=1"]},
                               {"name": "app-config", "namespace": "ns", "literals": ["app.properties=k=v"]}],
        "secretGenerator": [{"name": "creds", "namespace": "ns", "literals": ["password=p"]},
                            {"name": "pull", "namespace": "ns", "literals": ["x=y"]}],
        "patches": [{"patch": USE_GENERATED}]},
    "options-and-generatorOptions": {
        "generatorOptions": {"labels": {"generated": "true"}, "annotations": {"note": "gen"}},
        "configMapGenerator": [
            {"name": "plain", "literals": ["a=b"], "options": {"disableNameSuffixHash": True}},
            {"name": "labelled", "literals": ["a=b"],
             "options": {"labels": {"extra": "1"}, "annotations": {"more": "2"}, "immutable": True}}],
        "secretGenerator": [{"name": "s", "literals": ["a=b"], "options": {"disableNameSuffixHash": True}}]},
    "no-hash-globally": {
        "generatorOptions": {"disableNameSuffixHash": True},
        "configMapGenerator": [{"name": "app-env", "namespace": "ns", "literals": ["A=1"]}],
        "secretGenerator": [{"name": "creds", "namespace": "ns", "literals": ["password=p"]}]},
    "merge-and-replace-chart-objects": {
        "namePrefix": "p-",
        "configMapGenerator": [{"name": "rel-grafana", "namespace": "ns", "behavior": "merge",
                                "literals": ["extra=1"], "options": {"labels": {"lab": "val"}}}],
        "secretGenerator": [{"name": "rel-grafana", "namespace": "ns", "behavior": "replace",
                             "literals": ["admin-user=root"], "options": {"annotations": {"a": "b"}}}]},
    "env-and-literal-edge-cases": {
        "configMapGenerator": [
            {"name": "edge-env", "envs": ["edge.env"]},
            {"name": "edge-literals", "literals": ["a= spaced", "b=\"dq\"", "c='sq'", "d=", "e=x=y", " f =v"]},
            {"name": "empty-cm"}],
        "secretGenerator": [{"name": "edge-secret", "envs": ["edge.env"]}, {"name": "empty-secret"}]},
    "special-characters-in-hash": {
        "configMapGenerator": [{"name": "html", "literals": ["x=<a href=\"&\">", "u=ünïcödé"]}]},
}


def _write_inputs(tmp_path):
    (tmp_path / "app.env").write_text("# comment\nLOG_LEVEL=debug\n\nGREETING=hello world\n")
    (tmp_path / "app.properties").write_text("key=value\nother=1\n")
    (tmp_path / "blob.bin").write_bytes(bytes(range(256)))
    (tmp_path / "docker.json").write_text('{"auths": {}}')
    (tmp_path / "edge.env").write_text("# c\nA=1\nB = two \nC=\"quoted\"\nD='single'\nE=with=equals\n"
                                       "  F=indented\nG=\nexport H=x\n")


@pytest.mark.parametrize("name", sorted(GENERATORS))
def test_generator_matches_kustomize(tmp_path, name):
    _write_inputs(tmp_path)
    chart = "grafana" if name.startswith("merge") else "podinfo"
    manifest = chart_manifest(chart)
    cfg = GENERATORS[name]
    expected = kustomize_build(tmp_path, manifest, cfg)
    assert_same_objects(ours(manifest, [{"kustomize": cfg}], cwd=str(tmp_path)), expected)


def test_generated_names_are_rewritten_in_references():
    manifest = chart_manifest("podinfo")
    out = ours(manifest, [{"kustomize": GENERATORS["with-prefix-namespace-labels"]}])
    deploy = next(o for o in out if o["kind"] == "Deployment")
    cm = next(o["metadata"]["name"] for o in out if o["kind"] == "ConfigMap" and "app-env" in o["metadata"]["name"])
    assert cm.startswith("x-app-env-") and len(cm) == len("x-app-env-") + 10
    assert deploy["spec"]["template"]["spec"]["containers"][0]["envFrom"][0]["configMapRef"]["name"] == cm


def test_generator_creating_an_existing_object_is_an_error():
    with pytest.raises(PostRenderError, match="already exists"):
        ours(chart_manifest("grafana"), [{"kustomize": {
            "configMapGenerator": [{"name": "rel-grafana", "namespace": "ns", "literals": ["a=b"]}]}}])


def test_merging_into_a_missing_object_is_an_error():
    with pytest.raises(PostRenderError, match="cannot merge or replace"):
        ours(chart_manifest("grafana"), [{"kustomize": {
            "configMapGenerator": [{"name": "absent", "behavior": "merge", "literals": ["a=b"]}]}}])


def test_missing_generator_file_names_the_generator_and_file(tmp_path):
    with pytest.raises(PostRenderError, match="configMapGenerator cfg: file nope.txt"):
        ours(chart_manifest("podinfo"), [{"kustomize": {
            "configMapGenerator": [{"name": "cfg", "files": ["nope.txt"]}]}}], cwd=str(tmp_path))


@pytest.mark.parametrize("chart", ["bitnami-redis", "istiod", "jenkins", "kube-prometheus-stack",
                                   "kubernetes-dashboard"])
def test_merging_into_every_chart_configmap_and_replacing_every_secret_matches_kustomize(tmp_path, chart):
    manifest = chart_manifest(chart)

    def gen(obj, behavior):
        spec = {"name": obj["metadata"]["name"], "behavior": behavior, "literals": ["added=1"]}
        if obj["metadata"].get("namespace"):
            spec["namespace"] = obj["metadata"]["namespace"]
        return spec
    objs = load_all(manifest)
    cfg = {"namePrefix": "x-", "namespace": "moved",
           "configMapGenerator": [gen(o, "merge") for o in objs if o["kind"] == "ConfigMap"]
           + [{"name": "brand-new", "literals": ["a=b"]}],
           "secretGenerator": [gen(o, "replace") for o in objs if o["kind"] == "Secret"]}
    expected = kustomize_build(tmp_path, manifest, cfg)
    assert_same_objects(ours(manifest, [{"kustomize": cfg}]), expected)
