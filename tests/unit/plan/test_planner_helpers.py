"""Pure helpers of the planner: how Secrets are compared and what counts as already applied."""
from ansible_collections.helmless.core.plugins.module_utils.plan.planner import _subset, normalized, secret_view


def test_secret_string_data_is_compared_as_the_base64_data_the_api_stores():
    view = secret_view({"kind": "Secret", "data": {"a": "YQ=="}, "stringData": {"b": "b", "n": None}})
    assert view == {"kind": "Secret", "data": {"a": "YQ==", "b": "Yg==", "n": ""}}
    assert secret_view({"kind": "ConfigMap", "stringData": {"x": "y"}})["stringData"] == {"x": "y"}


def test_an_object_is_applied_when_every_field_it_sets_is_live():
    live = {"spec": {"replicas": 1, "template": {"x": [1, 2]}, "extra": True}}
    assert _subset({"spec": {"replicas": 1, "template": {"x": [1, 2]}}}, live)
    assert not _subset({"spec": {"replicas": 2}}, live)
    assert not _subset({"spec": {"template": {"x": [1]}}}, live)


def test_server_bookkeeping_and_status_are_ignored_when_comparing():
    a = {"kind": "X", "metadata": {"name": "n", "resourceVersion": "1", "managedFields": []}, "status": {"a": 1}}
    b = {"kind": "X", "metadata": {"name": "n", "resourceVersion": "2", "generation": 3}}
    assert normalized(a) == normalized(b)
