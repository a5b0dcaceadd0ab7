"""The field-level plan (plan/changes.py): changed fields as JSON pointers, their causes, immutable fields."""
from ansible_collections.helmless.core.plugins.module_utils.plan.changes import (causes, field_changes, immutable,
                                                                                 pointer, refusal_fields,
                                                                                 requested_changes)


def _deploy(replicas=1, image="nginx:1", env=None, labels=None):
    container = {"name": "app", "image": image, "env": env or []}
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "labels": labels or {}},
            "spec": {"replicas": replicas, "template": {"spec": {"containers": [{"name": "side", "image": "b"},
                                                                                container]}}},
            "status": {"replicas": replicas}}


def test_changed_fields_are_json_pointers_with_before_and_after_and_status_is_left_out():
    before = _deploy(labels={"a/b": "1", "gone": "x"})
    after = _deploy(replicas=2, image="nginx:2", labels={"a/b": "2", "new~": "y"})
    assert field_changes(before, after) == [
        {"op": "replace", "path": "/metadata/labels/a~1b", "before": "1", "after": "2"},
        {"op": "remove", "path": "/metadata/labels/gone", "before": "x"},
        {"op": "add", "path": "/metadata/labels/new~0", "after": "y"},
        {"op": "replace", "path": "/spec/replicas", "before": 1, "after": 2},
        {"op": "replace", "path": "/spec/template/spec/containers/1/image", "before": "nginx:1", "after": "nginx:2"}]


def test_named_list_items_are_matched_by_name_and_other_lists_change_as_a_whole():
    before = _deploy(env=[{"name": "A", "value": "1"}, {"name": "B", "value": "2"}])
    after = _deploy(env=[{"name": "C", "value": "3"}, {"name": "A", "value": "9"}])
    assert field_changes(before, after) == [
        {"op": "add", "path": "/spec/template/spec/containers/1/env/0", "after": {"name": "C", "value": "3"}},
        {"op": "replace", "path": "/spec/template/spec/containers/1/env/1/value", "before": "1", "after": "9"},
        {"op": "remove", "path": "/spec/template/spec/containers/1/env/1", "before": {"name": "B", "value": "2"}}]
    assert field_changes({"args": ["a"]}, {"args": ["a", "b"]}) == [
        {"op": "replace", "path": "/args", "before": ["a"], "after": ["a", "b"]}]
    assert field_changes({"n": 1}, {"n": 1.0}) == [{"op": "replace", "path": "/n", "before": 1, "after": 1.0}]


def test_a_field_the_chart_changed_is_the_charts_one_put_back_by_hand_is_drift_else_the_servers():
    previous, target = _deploy(replicas=1), _deploy(replicas=2)
    live = _deploy(replicas=1, image="hand-edited")
    after = _deploy(replicas=2, labels={"added-by": "server"})
    fields = causes(field_changes(live, after), previous, target, after)
    assert {f["path"]: f["cause"] for f in fields} == {
        "/spec/replicas": "chart", "/spec/template/spec/containers/1/image": "drift",
        "/metadata/labels/added-by": "server"}
    assert [f["cause"] for f in causes(field_changes(live, after), None, target, after)] == ["chart"] * 3


def test_immutable_fields_by_kind():
    assert immutable("Deployment", "/spec/selector/matchLabels/app")
    assert not immutable("Deployment", "/spec/replicas")
    assert immutable("StatefulSet", "/spec/volumeClaimTemplates/0/spec")
    assert not immutable("StatefulSet", "/spec/template/spec/containers/0/image")
    assert immutable("Job", "/spec/template/spec/containers/0/image")
    assert immutable("Service", "/spec/clusterIP") and not immutable("Service", "/spec/ports/0/port")
    assert immutable("ConfigMap", "/data/k", {"immutable": True}) and not immutable("ConfigMap", "/data/k", {})


def test_a_refused_request_lists_what_it_asks_for_and_the_fields_the_server_names():
    live = _deploy(labels={"keep": "1"})
    request = {"metadata": {"name": "web"}, "spec": {"selector": {"matchLabels": {"app": "x"}}}}
    assert requested_changes(live, request) == [
        {"op": "add", "path": "/spec/selector", "after": {"matchLabels": {"app": "x"}}}]
    body = '{"kind": "Status", "details": {"causes": [{"field": "spec.selector"}, {"field": "spec.ports[0].nodePort"}]}}'
    assert refusal_fields(body) == ["/spec/ports/0/nodePort", "/spec/selector"]
    assert refusal_fields("not json") == []
    assert pointer(("a/b", "c~d", 0)) == "/a~1b/c~0d/0"
