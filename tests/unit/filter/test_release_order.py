import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.helmless.core.plugins.filter.releases import release_order

pytestmark = pytest.mark.ansible_core  # scripts/test runs this file on every ansible-core series


def names(releases):
    return [r["name"] for r in releases]


def test_releases_follow_the_releases_they_need():
    rels = [{"name": "app", "needs": ["db", "cache"]}, {"name": "db"}, {"name": "cache", "needs": ["db"]}]
    assert names(release_order(rels)) == ["db", "cache", "app"]


def test_order_is_stable_where_needs_allow():
    rels = [{"name": "c"}, {"name": "a"}, {"name": "b"}]
    assert names(release_order(rels)) == ["c", "a", "b"]


def test_reverse_puts_dependants_first():
    rels = [{"name": "app", "needs": ["db"]}, {"name": "db"}]
    assert names(release_order(rels, reverse=True)) == ["app", "db"]


def test_defaults_fill_missing_keys_only():
    out = release_order([{"name": "a", "namespace": "x"}, {"name": "b"}], {"namespace": "d", "state": "present"})
    assert [(r["namespace"], r["state"]) for r in out] == [("x", "present"), ("d", "present")]


def test_a_release_is_present_when_neither_it_nor_the_defaults_name_a_state():
    out = release_order([{"name": "a"}, {"name": "b", "state": "absent"}], {"namespace": "apps"})
    assert [r["state"] for r in out] == ["present", "absent"]


def test_needs_by_namespace_and_name_disambiguates():
    rels = [{"name": "db", "namespace": "a"}, {"name": "db", "namespace": "b"},
            {"name": "app", "namespace": "a", "needs": ["b/db"]}]
    out = release_order(rels)
    assert [(r["namespace"], r["name"]) for r in out] == [("a", "db"), ("b", "db"), ("a", "app")]


@pytest.mark.parametrize("rels, message", [
    ([{"name": "a", "needs": ["b"]}, {"name": "b", "needs": ["a"]}], "dependency cycle: default/a -> default/b -> default/a"),
    ([{"name": "a", "needs": ["nope"]}], "needs nope, which is not defined"),
    ([{"name": "db", "namespace": "x"}, {"name": "db", "namespace": "y"}, {"name": "a", "needs": ["db"]}], "is ambiguous"),
    ([{"name": "a"}, {"name": "a"}], "defined twice: default/a"),
    ([{"namespace": "x"}], "needs a 'name'"),
])
def test_bad_release_lists_are_refused_with_a_clear_error(rels, message):
    with pytest.raises(AnsibleFilterError, match=message.replace("(", r"\(").replace(")", r"\)")):
        release_order(rels)
