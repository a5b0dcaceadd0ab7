"""A matrix of strategic-merge and JSON 6902 patches, ours against the pinned kustomize."""
import pytest

from ansible_collections.helmless.core.plugins.module_utils.postrender import PostRenderError
from kustomize_oracle import assert_same_objects, chart_manifest, kustomize_build, ours

SIDECAR = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: rel-podinfo, namespace: ns}
spec:
  template:
    spec:
      containers:
      - name: sidecar
        image: busybox:1.36
        args: [sleep, infinity]
      - name: podinfo
        env:
        - {name: PODINFO_UI_COLOR, value: "#000000"}
        - {name: EXTRA, value: "1"}
        ports:
        - {containerPort: 9797, $patch: delete}
        - {containerPort: 8080, name: extra}
        volumeMounts:
        - {name: cache, mountPath: /cache}
      volumes:
      - {name: cache, emptyDir: {medium: Memory}}
"""

PATCHES = {
    "smp-sidecar-env-ports-volumes": ("podinfo", {"patches": [{"patch": SIDECAR}]}),
    "smp-null-deletes-field": ("podinfo", {"patches": [{"patch": (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: rel-podinfo, namespace: ns}\n"
        "spec:\n  strategy: null\n  template:\n    metadata:\n      annotations:\n"
        "        prometheus.io/port: null\n")}]}),
    "smp-delete-object": ("podinfo", {"patches": [{"patch": (
        "apiVersion: v1\nkind: Service\nmetadata: {name: rel-podinfo, namespace: ns}\n$patch: delete\n")}]}),
    "smp-replace-map": ("podinfo", {"patches": [{"patch": (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: rel-podinfo, namespace: ns}\n"
        "spec:\n  template:\n    spec:\n      containers:\n      - name: podinfo\n"
        "        resources:\n          $patch: replace\n          limits: {memory: 1Gi}\n")}]}),
    "smp-replace-list": ("podinfo", {"patches": [{"patch": (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: rel-podinfo, namespace: ns}\n"
        "spec:\n  template:\n    spec:\n      volumes:\n      - $patch: replace\n"
        "      - {name: data, emptyDir: {sizeLimit: 1Gi}}\n")}]}),
    "smp-service-ports-merge-by-port": ("podinfo", {"patches": [{"patch": (
        "apiVersion: v1\nkind: Service\nmetadata: {name: rel-podinfo, namespace: ns}\n"
        "spec:\n  type: NodePort\n  ports:\n  - {port: 9898, nodePort: 30080}\n"
        "  - {port: 7000, name: new, targetPort: 7000}\n")}]}),
    "smp-target-label-selector": ("ingress-nginx", {"patches": [{
        "target": {"kind": "Deployment", "labelSelector": "app.kubernetes.io/component=controller"},
        "patch": ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: ignored}\n"
                  "spec:\n  template:\n    spec:\n      tolerations:\n"
                  "      - {key: dedicated, operator: Exists, effect: NoSchedule}\n")}]}),
    "smp-target-name-regex-all-services": ("prometheus", {"patches": [{
        "target": {"kind": "Service", "name": "rel-.*"},
        "patch": "apiVersion: v1\nkind: Service\nmetadata:\n  name: x\n  annotations: {scraped: 'no'}\n"}]}),
    "smp-target-group-version": ("kube-prometheus-stack", {"patches": [{
        "target": {"group": "monitoring.coreos.com", "version": "v1", "kind": "ServiceMonitor"},
        "patch": ("apiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\nmetadata: {name: x}\n"
                  "spec:\n  jobLabel: team\n  endpoints:\n  - {port: http, interval: 5s}\n")}]}),
    "smp-target-annotation-selector": ("podinfo", {"patches": [{
        "target": {"annotationSelector": "helm.sh/hook in (test-success,test)"},
        "patch": "apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\n  labels: {hooked: 'true'}\n"}]}),
    "smp-target-namespace": ("cert-manager", {"patches": [{
        "target": {"namespace": "kube-system"},
        "patch": "apiVersion: v1\nkind: Any\nmetadata:\n  name: x\n  labels: {system: 'true'}\n"}]}),
    "smp-multi-document": ("grafana", {"patches": [{"patch": (
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: rel-grafana, namespace: ns}\ndata: {added: v}\n"
        "---\napiVersion: v1\nkind: Service\nmetadata: {name: rel-grafana, namespace: ns}\n"
        "spec: {sessionAffinity: ClientIP}\n")}]}),
    "json6902-ops": ("podinfo", {"patches": [{
        "target": {"kind": "Deployment", "name": "rel-podinfo"},
        "patch": """
- {op: replace, path: /spec/replicas, value: 3}
- {op: add, path: /metadata/annotations, value: {a: b}}
- {op: add, path: /metadata/annotations/example.com~1team, value: core}
- {op: add, path: /spec/template/spec/containers/0/args, value: [--debug]}
- {op: add, path: /spec/template/spec/containers/0/env/-, value: {name: X, value: y}}
- {op: remove, path: /spec/template/spec/containers/0/livenessProbe}
- {op: copy, from: /spec/template/metadata/labels, path: /spec/template/metadata/annotations}
- {op: move, from: /spec/strategy, path: /spec/oldStrategy}
- {op: test, path: /spec/replicas, value: 3}
"""}]}),
    "json6902-json-syntax-all-services": ("vault", {"patches": [{
        "target": {"kind": "Service"},
        "patch": '[{"op": "add", "path": "/spec/ipFamilyPolicy", "value": "SingleStack"}]'}]}),
    "legacy-patchesStrategicMerge": ("grafana", {"patchesStrategicMerge": [
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: rel-grafana, namespace: ns}\n"
        "spec:\n  template:\n    spec:\n      securityContext: {runAsUser: 1234}\n"]}),
    "legacy-patchesJson6902": ("grafana", {"patchesJson6902": [{
        "target": {"group": "apps", "version": "v1", "kind": "Deployment", "name": "rel-grafana"},
        "patch": "- {op: replace, path: /spec/revisionHistoryLimit, value: 2}\n"}]}),
    "patches-then-prefix-and-namespace": ("jenkins", {
        "namePrefix": "x-", "namespace": "ci",
        "patches": [{"patch": ("apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: rel-jenkins, "
                               "namespace: ns}\nspec:\n  template:\n    spec:\n"
                               "      serviceAccountName: rel-jenkins\n")}]}),
    "json6902-then-labels-order": ("podinfo", {
        "commonLabels": {"c": "d"},
        "patchesJson6902": [{"target": {"kind": "Service", "name": "rel-podinfo"},
                             "patch": "- {op: add, path: /spec/selector/extra, value: v}\n"}]}),
    "patch-from-file": ("podinfo", {"patches": [{"path": "patch.yaml"}]}),
    "smp-delete-list-elements": ("podinfo", {"patches": [{"patch": (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: rel-podinfo, namespace: ns}\n"
        "spec:\n  template:\n    spec:\n      containers:\n      - name: podinfo\n"
        "        command: [a, b]\n        volumeMounts:\n        - {mountPath: /data, $patch: delete}\n"
        "      volumes:\n      - {name: data, $patch: delete}\n")}]}),
    "smp-unknown-directives-stay-literal": ("podinfo", {"patches": [{"patch": (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: rel-podinfo, namespace: ns, finalizers: [x]}\n"
        "spec:\n  strategy:\n    $retainKeys: [type]\n    type: Recreate\n  template:\n    spec:\n"
        "      $setElementOrder/containers: [{name: side}, {name: podinfo}]\n"
        "      containers:\n      - {name: side, image: x}\n")}]}),
    "smp-with-target-keeps-name-and-kind": ("podinfo", {"patches": [{
        "target": {"kind": "Deployment"},
        "patch": "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: whatever}\nspec: {replicas: 7}\n"}]}),
    "smp-allow-name-change": ("podinfo", {"patches": [{
        "options": {"allowNameChange": True}, "target": {"kind": "Service"},
        "patch": "apiVersion: v1\nkind: Service\nmetadata: {name: renamed}\n"}]}),
    "json6902-renames-and-rekinds": ("podinfo", {"patches": [
        {"target": {"kind": "Service"}, "patch": "- {op: replace, path: /metadata/name, value: renamed}"},
        {"target": {"kind": "Deployment"}, "patch": "- {op: replace, path: /kind, value: StatefulSet}"}]}),
    "crd-lists-by-name-heuristic": ("kube-prometheus-stack", {"patches": [{
        "target": {"kind": "Prometheus"},
        "patch": ("apiVersion: monitoring.coreos.com/v1\nkind: Prometheus\nmetadata: {name: x}\n"
                  "spec:\n  containers:\n  - {name: config-reloader, resources: {limits: {cpu: 1}}}\n"
                  "  - {name: extra, image: busybox}\n  tolerations: [{operator: Exists}]\n")}]}),
}


@pytest.mark.parametrize("name", sorted(PATCHES))
def test_patch_matches_kustomize(tmp_path, name):
    chart, cfg = PATCHES[name]
    (tmp_path / "patch.yaml").write_text(SIDECAR)
    manifest = chart_manifest(chart)
    expected = kustomize_build(tmp_path, manifest, cfg)
    assert_same_objects(ours(manifest, [{"kustomize": cfg}], cwd=str(tmp_path)), expected)


def test_strategic_merge_patch_without_a_matching_object_is_an_error():
    with pytest.raises(PostRenderError, match="no resource matches"):
        ours(chart_manifest("podinfo"), [{"kustomize": {"patches": [{"patch": (
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: absent}\n")}]}}])


def test_json6902_patch_without_target_is_an_error():
    with pytest.raises(PostRenderError, match="needs a target"):
        ours(chart_manifest("podinfo"), [{"kustomize": {"patches": [{"patch": "- {op: remove, path: /spec}"}]}}])


def test_failing_json6902_test_op_names_the_patch_and_object():
    with pytest.raises(PostRenderError, match=r"patches\[0\] on Deployment ns/rel-podinfo"):
        ours(chart_manifest("podinfo"), [{"kustomize": {"patches": [{
            "target": {"kind": "Deployment"}, "patch": "- {op: test, path: /spec/replicas, value: 99}"}]}}])


# One patch for every workload of a chart (kind given as a regex), plus a JSON patch on every
# Service: catches list merging and kyaml's handling of ``key:`` versus ``key: null``.
WORKLOAD_PATCH = {
    "patches": [
        {"target": {"kind": "Deployment|StatefulSet|DaemonSet"},
         "patch": ("apiVersion: apps/v1\nkind: Any\nmetadata: {name: any}\nspec:\n  template:\n"
                   "    metadata:\n      annotations: {patched: 'true'}\n    spec:\n"
                   "      tolerations: [{operator: Exists}]\n      containers:\n"
                   "      - {name: injected, image: busybox}\n      volumes:\n"
                   "      - {name: injected, emptyDir: {}}\n")},
        {"target": {"kind": "Service"}, "patch": "- {op: add, path: /metadata/labels/svc, value: '1'}"}],
    "images": [{"name": "busybox", "newTag": "1.36"}]}


@pytest.mark.parametrize("chart", ["bitnami-nginx", "bitnami-wordpress", "kubernetes-dashboard", "nats",
                                   "prometheus", "traefik", "kube-prometheus-stack"])
def test_a_patch_on_every_workload_matches_kustomize(tmp_path, chart):
    manifest = chart_manifest(chart)
    expected = kustomize_build(tmp_path, manifest, WORKLOAD_PATCH)
    assert_same_objects(ours(manifest, [{"kustomize": WORKLOAD_PATCH}]), expected)
