"""Field ownership helpers: chart-delta's apply body over server-side apply, and Helm 4's managedFields upgrade."""
import copy

from ansible_collections.helmless.core.plugins.module_utils.plan.fields import (
    keep_theirs, owned_fields, upgrade_patch, upgraded_managed_fields)


def _deployment(image="nginx:1", replicas=1):
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "labels": {"a": "1"}},
            "spec": {"replicas": replicas, "template": {"spec": {"containers": [
                {"name": "app", "image": image, "ports": [{"containerPort": 80}]}]}}}}


# what the API server records for helm after a kubectl scale took spec.replicas over
_HELM_OWNS = {"f:metadata": {"f:labels": {".": {}, "f:a": {}}},
              "f:spec": {"f:template": {"f:spec": {"f:containers": {'k:{"name":"app"}': {
                  ".": {}, "f:name": {}, "f:image": {},
                  "f:ports": {'k:{"containerPort":80,"protocol":"TCP"}': {".": {}, "f:containerPort": {}}}}}}}}}


def test_a_field_the_chart_did_not_change_and_someone_else_owns_is_left_out():
    body = keep_theirs(_deployment(), _deployment(image="nginx:2"), _HELM_OWNS)
    assert "replicas" not in body["spec"]
    container = body["spec"]["template"]["spec"]["containers"][0]
    assert container == {"name": "app", "image": "nginx:2", "ports": [{"containerPort": 80}]}


def test_a_field_the_chart_changed_is_sent_whoever_owns_it():
    body = keep_theirs(_deployment(replicas=1), _deployment(replicas=3), _HELM_OWNS)
    assert body["spec"]["replicas"] == 3


def test_fields_we_still_own_are_sent_even_when_unchanged_so_apply_keeps_them():
    owned = copy.deepcopy(_HELM_OWNS)
    owned["f:spec"]["f:replicas"] = {}
    assert keep_theirs(_deployment(), _deployment(), owned) == _deployment()


def test_with_no_entry_of_ours_only_identity_and_the_chart_changes_remain():
    body = keep_theirs(_deployment(), _deployment(image="nginx:2"), owned_fields({"metadata": {}}, "helm"))
    # with no ownership to read the list's keys from, a changed list goes whole
    assert body == {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
                    "spec": {"template": {"spec": {"containers": [
                        {"name": "app", "image": "nginx:2", "ports": [{"containerPort": 80}]}]}}}}


def _entry(manager, operation, fields, api_version="v1", subresource=None):
    entry = {"manager": manager, "operation": operation, "apiVersion": api_version, "fieldsType": "FieldsV1",
             "fieldsV1": fields}
    if subresource:
        entry["subresource"] = subresource
    return entry


def test_a_client_side_entry_folds_into_the_apply_entry_of_the_same_manager():
    live = {"metadata": {"resourceVersion": "7", "managedFields": [
        _entry("helm", "Apply", {"f:data": {".": {}, "f:a": {}}}),
        _entry("helm", "Update", {"f:data": {".": {}, "f:b": {}}, "f:metadata": {"f:labels": {}}}),
        _entry("kubectl", "Update", {"f:data": {"f:c": {}}}),
        _entry("helm", "Update", {"f:status": {}}, subresource="status")]}}
    fields = upgraded_managed_fields(live, "helm")
    assert [(e["manager"], e["operation"], e.get("subresource")) for e in fields] == [
        ("helm", "Apply", None), ("kubectl", "Update", None), ("helm", "Update", "status")]
    assert fields[0]["fieldsV1"] == {"f:data": {".": {}, "f:a": {}, "f:b": {}}, "f:metadata": {"f:labels": {}}}
    assert upgrade_patch(live, "helm")[1] == {"op": "replace", "path": "/metadata/resourceVersion", "value": "7"}


def test_a_lone_client_side_entry_becomes_the_apply_entry_and_nothing_else_needs_no_patch():
    live = {"metadata": {"resourceVersion": "3", "managedFields": [_entry("helm", "Update", {"f:data": {}})]}}
    assert upgraded_managed_fields(live, "helm") == [_entry("helm", "Apply", {"f:data": {}})]
    applied = {"metadata": {"resourceVersion": "3", "managedFields": [_entry("helm", "Apply", {"f:data": {}})]}}
    assert upgrade_patch(applied, "helm") is None
