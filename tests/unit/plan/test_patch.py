"""Patch computation against an OpenAPI v3 fragment shaped like the API server's."""
from ansible_collections.helmless.core.plugins.module_utils.kube.openapi import PatchMeta
from ansible_collections.helmless.core.plugins.module_utils.plan.patch import drift, three_way, two_way

SCHEMAS = {
    "io.k8s.api.apps.v1.Deployment": {"properties": {
        "spec": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.apps.v1.DeploymentSpec"}]}}},
    "io.k8s.api.apps.v1.DeploymentSpec": {"properties": {
        "replicas": {"type": "integer"},
        "template": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.core.v1.PodTemplateSpec"}]}}},
    "io.k8s.api.core.v1.PodTemplateSpec": {"properties": {
        "spec": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.core.v1.PodSpec"}]}}},
    "io.k8s.api.core.v1.PodSpec": {"properties": {
        "containers": {"type": "array", "items": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.core.v1.Container"}]},
                       "x-kubernetes-patch-merge-key": "name", "x-kubernetes-patch-strategy": "merge"},
        "finalizers": {"type": "array", "items": {"type": "string"}, "x-kubernetes-patch-strategy": "merge"},
        "args": {"type": "array", "items": {"type": "string"}}}},
    "io.k8s.api.core.v1.Container": {"properties": {"name": {"type": "string"}, "image": {"type": "string"}}},
}
META = PatchMeta(SCHEMAS, SCHEMAS["io.k8s.api.apps.v1.Deployment"])


def deploy(replicas=1, containers=(("app", "a:1"),), **spec):
    pod = {"containers": [{"name": n, "image": i} for n, i in containers]}
    pod.update(spec)
    return {"spec": {"replicas": replicas, "template": {"spec": pod}}}


def test_chart_delta_patch_contains_only_what_the_chart_changed():
    assert two_way(deploy(), deploy()) == {}
    assert two_way(deploy(), deploy(replicas=2), META) == {"spec": {"replicas": 2}}


def test_containers_merge_by_name_and_removed_ones_are_deleted_with_a_directive():
    old = deploy(containers=(("app", "a:1"), ("gone", "g:1")))
    new = deploy(containers=(("app", "a:2"),))
    patch = two_way(old, new, META)
    assert patch == {"spec": {"template": {"spec": {"containers": [
        {"name": "app", "image": "a:2"}, {"name": "gone", "$patch": "delete"}]}}}}


def test_without_a_schema_lists_are_replaced_as_json_merge_patch():
    old, new = {"a": [1, 2], "b": {"c": 1}}, {"a": [1], "b": {}}
    assert two_way(old, new) == {"a": [1], "b": {"c": None}}


def test_primitive_merge_lists_use_delete_from_primitive_list():
    patch = two_way(deploy(finalizers=["x", "y"]), deploy(finalizers=["y", "z"]), META)
    assert patch["spec"]["template"]["spec"] == {"finalizers": ["z"], "$deleteFromPrimitiveList/finalizers": ["x"]}


def test_helm3_three_way_reverts_hand_edits_but_keeps_added_sidecars():
    original = deploy()
    live = deploy(replicas=10, containers=(("app", "a:1"), ("sidecar", "s:1")))
    assert three_way(original, deploy(), live, META) == {"spec": {"replicas": 1}}


def test_helm3_three_way_deletes_fields_the_chart_dropped():
    original = deploy(args=["x"])
    patch = three_way(original, deploy(), deploy(args=["x"]), META)
    assert patch == {"spec": {"template": {"spec": {"args": None}}}}


def test_drift_lists_paths_where_live_differs_from_the_release():
    live = deploy(replicas=10, containers=(("app", "a:9"), ("sidecar", "s")))
    assert drift(deploy(), live, META) == ["spec.replicas", "spec.template.spec.containers[name=app].image"]
    assert drift(deploy(), deploy(), META) == []
