"""Ignore rules (plan/ignore.py): JSON pointers, Flux's target selectors, pinning to live, field ownership."""
import pytest

from ansible_collections.helmless.core.plugins.module_utils.plan.ignore import (IgnoreError, compile_rules, differing,
                                                                                owns, parse_pointer, pinned,
                                                                                unowned_left_out, whole)


def _deploy(replicas=2, labels=None, annotations=None, namespace="apps"):
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": namespace, "labels": labels or {},
                         "annotations": annotations or {}},
            "spec": {"replicas": replicas, "template": {"spec": {"containers": [{"name": "app", "image": "a:1"}]}}}}


def test_pointers_parse_as_rfc_6901_says():
    assert parse_pointer("") == ()
    assert parse_pointer("/spec/replicas") == ("spec", "replicas")
    assert parse_pointer("/metadata/annotations/a~1b~0c") == ("metadata", "annotations", "a/b~c")
    assert parse_pointer("/webhooks/0/clientConfig/caBundle") == ("webhooks", "0", "clientConfig", "caBundle")
    for bad in ("spec/replicas", "/a/~2", "/a~"):
        with pytest.raises(ValueError):
            parse_pointer(bad)


@pytest.mark.parametrize("rules, message", [
    ([{"paths": ["/spec/replicas", "spec/x"]}],
     'ignore[0].paths[1]: "spec/x" is not a JSON pointer (RFC 6901): it must be "" (the whole object) or start with "/"'),
    ([{"paths": ["/a"]}, {"paths": []}], "ignore[1].paths: a list of one or more JSON pointers (RFC 6901) is required"),
    ([{"paths": "/spec/replicas"}], "ignore[0].paths: a list of one or more JSON pointers (RFC 6901) is required"),
    ([{"paths": ["/a"], "target": {"kind": "Deploy(ment"}}],
     "ignore[0].target.kind: error parsing regexp: missing closing ): `^(?:Deploy(ment)$`"),
    ([{"paths": ["/a"], "target": {"label_selector": "app in (a"}}],
     'ignore[0].target.label_selector: invalid label selector "app in (a"'),
    ([{"paths": ["/a"], "target": {"kinds": "x"}}],
     "ignore[0].target: unknown field(s) kinds (known: group, version, kind, name, namespace, label_selector, "
     "annotation_selector)"),
])
def test_a_bad_rule_is_refused_naming_the_rule_and_its_field(rules, message):
    with pytest.raises(IgnoreError) as info:
        compile_rules(rules)
    assert str(info.value) == message


def test_targets_match_as_fluxs_anchored_regular_expressions_and_selectors():
    rules = compile_rules([
        {"paths": ["/spec/replicas"], "target": {"group": "app", "kind": "Deployment|StatefulSet"}},
        {"paths": ["/spec/a"], "target": {"group": "apps", "kind": "Deploy"}},
        {"paths": ["/spec/b"], "target": {"version": "v1", "name": "w.*", "namespace": "apps",
                                          "label_selector": "tier in (web,api),!legacy",
                                          "annotation_selector": "owner=team-a"}},
        {"paths": ["/spec/c"]},
    ])
    obj = _deploy(labels={"tier": "web"}, annotations={"owner": "team-a"})
    assert [text for text, _tokens in rules.for_object(obj, "apps")] == ["/spec/b", "/spec/c"]
    assert [text for text, _tokens in rules.for_object(_deploy(labels={"tier": "db"}), "apps")] == ["/spec/c"]
    anchored = compile_rules([{"paths": ["/x"], "target": {"group": "apps", "kind": "Deployment|StatefulSet"}}])
    assert anchored.for_object(obj, "other") == [("/x", ("x",))]
    assert not compile_rules([])


def test_pinning_puts_the_live_value_in_and_leaves_out_what_live_lacks():
    paths = compile_rules([{"paths": ["/spec/replicas", "/metadata/annotations/injected",
                                      "/spec/template/spec/containers/1", "/spec/gone"]}]).for_object({}, "")
    chart = _deploy(replicas=2)
    chart["spec"]["gone"] = "chart"
    live = _deploy(replicas=5, annotations={"injected": "yes"})
    live["spec"]["template"]["spec"]["containers"].append({"name": "sidecar", "image": "s:1"})
    out = pinned(chart, live, paths)
    assert out["spec"]["replicas"] == 5
    assert out["metadata"]["annotations"] == {"injected": "yes"}
    assert [c["name"] for c in out["spec"]["template"]["spec"]["containers"]] == ["app", "sidecar"]
    assert "gone" not in out["spec"]
    assert chart["spec"]["replicas"] == 2 and "gone" in chart["spec"]  # the chart's object is not touched
    assert differing(chart, live, paths) == ["/spec/replicas", "/metadata/annotations/injected",
                                             "/spec/template/spec/containers/1", "/spec/gone"]
    assert whole(compile_rules([{"paths": [""]}]).for_object({}, "")) and not whole(paths)


def test_field_ownership_is_read_through_map_keys_and_list_item_keys():
    live = {"spec": {"replicas": 5, "template": {"spec": {"containers": [{"name": "app", "image": "a:1"}]}},
                     "strategy": {"type": "Recreate"}}}
    owned = {"f:spec": {"f:template": {"f:spec": {"f:containers": {
        'k:{"name":"app"}': {".": {}, "f:image": {}, "f:name": {}}}}}, "f:strategy": {}}}
    assert owns(owned, live, ("spec", "template", "spec", "containers", "0", "image"))
    assert owns(owned, live, ("spec", "strategy", "type"))  # owned as a whole
    assert not owns(owned, live, ("spec", "replicas"))
    assert not owns({}, live, ("spec", "replicas"))
    paths = [("/spec/replicas", ("spec", "replicas")), ("/spec/strategy/type", ("spec", "strategy", "type"))]
    body = {"spec": {"replicas": 5, "strategy": {"type": "Recreate"}}}
    assert unowned_left_out(body, live, paths, owned) == {"spec": {"strategy": {"type": "Recreate"}}}


def test_fluxs_camel_case_selector_names_are_read_as_the_options_they_alias():
    rules = compile_rules([{"paths": ["/a"], "target": {"labelSelector": "tier=web", "label_selector": None}}])
    assert rules.for_object(_deploy(labels={"tier": "web"}), "apps") == [("/a", ("a",))]
    assert rules.for_object(_deploy(labels={"tier": "db"}), "apps") == []


def test_an_ignored_secret_key_is_not_sent_as_string_data_either():
    paths = compile_rules([{"paths": ["/data/token"]}]).for_object({}, "")
    chart = {"kind": "Secret", "stringData": {"token": "chart", "other": "x"}}
    live = {"kind": "Secret", "data": {"token": "bGl2ZQ==", "other": "eA=="}}
    assert pinned(chart, live, paths) == {"kind": "Secret", "stringData": {"other": "x"}}
    folded = {"kind": "Secret", "data": {"token": "Y2hhcnQ=", "other": "eA=="}}  # the planner's view of it
    assert pinned(folded, live, paths) == {"kind": "Secret", "data": {"token": "bGl2ZQ==", "other": "eA=="}}
