"""helm test's filter (``--filter name=…`` / ``!name=…``) and which hooks it keeps, as Helm 4.3's ReleaseTesting."""
import pytest

from ansible_collections.helmless.core.plugins.module_utils.actions.base import OperationError
from ansible_collections.helmless.core.plugins.module_utils.actions.testing import parse_filters, select

HOOKS = [{"name": n, "events": ["test"]} for n in ("a", "b", "c")] + [{"name": "pre", "events": ["pre-install"]}]


@pytest.mark.parametrize("filters, include, exclude", [
    (["name=a"], ["a"], []),
    (["name=a,name=b"], ["a", "b"], []),
    (["!name=a", "! name=b"], [], ["a", "b"]),
    (["name=a", "!name=b"], ["a"], ["b"]),
])
def test_filters_parse_as_helm_test_filter(filters, include, exclude):
    assert parse_filters(filters) == (include, exclude)


def test_a_filter_of_another_attribute_is_an_error_naming_it():
    with pytest.raises(OperationError, match='invalid test filter "kind=Pod"'):
        parse_filters(["kind=Pod"])


def test_excluded_hooks_are_kept_first_in_the_record_and_included_ones_run():
    skipped, kept = select(HOOKS, [], ["b"])
    assert [h["name"] for h in skipped] == ["b"] and [h["name"] for h in kept] == ["a", "c", "pre"]
    skipped, kept = select(HOOKS, ["c", "a"], [])
    assert [h["name"] for h in skipped] == ["b", "pre"] and [h["name"] for h in kept] == ["a", "c"]
    skipped, kept = select(HOOKS, ["a", "b"], ["b"])
    assert [h["name"] for h in skipped] == ["b", "c", "pre"] and [h["name"] for h in kept] == ["a"]
