"""What helmless.core.releases refuses in its list before it reads or writes anything, and how it selects."""
import pytest

from ansible_collections.helmless.core.plugins.module_utils.ansible.batch import processes_for
from ansible_collections.helmless.core.plugins.module_utils.ansible.fleet import releases_of
from ansible_collections.helmless.core.plugins.module_utils.ansible.runner import ModuleFailure


def item(name, namespace="apps", **more):
    return dict({"release_name": name, "release_namespace": namespace, "release_state": "present",
                 "chart_ref": "./charts/" + name}, **more)


def refused(releases, **params):
    with pytest.raises(ModuleFailure) as exc:
        releases_of(dict(params, releases=releases))
    return str(exc.value)


def test_a_needs_cycle_is_refused_naming_the_releases_on_it():
    message = refused([item("web", needs=["api"]), item("api", needs=["db"]), item("db", needs=["apps/web"]),
                       item("cache")])
    assert message == "releases: needs cycle: apps/web -> apps/api -> apps/db -> apps/web"


def test_a_release_that_needs_itself_is_a_cycle():
    assert refused([item("web", needs=["web"])]) == "releases: needs cycle: apps/web -> apps/web"


def test_a_need_that_names_no_release_of_the_list_is_refused():
    assert refused([item("web", needs=["db"])]) == "releases: apps/web needs db, which is not in releases"
    assert refused([item("web", needs=["other/web"])]) == (
        "releases: apps/web needs other/web, which is not in releases")


def test_a_need_naming_releases_of_two_namespaces_is_refused_until_it_says_which():
    releases = [item("db", "a"), item("db", "b"), item("web", needs=["db"])]
    assert refused(releases) == "releases: apps/web needs db, which names a/db and b/db: write namespace/name"
    releases[2]["needs"] = ["b/db"]
    assert [(r.key, r.needs) for r in releases_of({"releases": releases})][2] == ("apps/web", [("b/db", "b/db")])


def test_an_install_that_needs_an_uninstall_is_refused():
    message = refused([item("db", release_state="absent"), item("web", needs=["db"])])
    assert message == "releases: apps/web needs apps/db, which this task uninstalls"


def test_an_uninstall_may_need_a_release_the_task_installs():
    releases = releases_of({"releases": [item("db"), item("old", release_state="absent", needs=["db"])]})
    assert [r.absent for r in releases] == [False, True]


def test_a_release_listed_twice_is_refused():
    assert refused([item("web"), item("web", chart_ref="./other")]) == "releases: apps/web is listed twice"


def select(releases, selector):
    return [r.name for r in releases_of({"releases": releases, "select": selector}) if r.selected]


FLEET = [item("web", labels={"tier": "front", "team": "shop"}), item("api", labels={"tier": "back"}),
         item("db", "data", labels={"tier": "back", "stateful": True}), item("old", release_state="absent")]


@pytest.mark.parametrize("selector, names", [
    ("tier=back", ["api", "db"]),
    ("tier!=back", ["web", "old"]),
    ("tier in (front,back),team", ["web"]),
    ("!tier", ["old"]),
    ("stateful=True", ["db"]),
    ("name=api", ["api"]),
    ("namespace=data", ["db"]),
    ("chart=web", ["web"]),
    (["name=web", "tier=back,namespace=apps"], ["web", "api"]),
])
def test_select_matches_the_labels_name_namespace_and_chart_and_any_of_a_list(selector, names):
    assert select(FLEET, selector) == names


def test_without_select_every_release_runs():
    assert select(FLEET, None) == ["web", "api", "db", "old"]


def test_a_malformed_selector_is_refused_naming_it():
    assert refused(FLEET, select="tier=(x") == (
        "select: invalid label selector 'tier=(x' (key=value, key!=value, key in (a,b), key notin (a,b), key, "
        "!key; comma-separated)")
    assert refused(FLEET, select=["tier=back", 3]) == "select: expected a label selector or a list of them, got 3"


def test_fleet_labels_every_release_to_install_and_no_uninstall():
    releases = releases_of({"releases": FLEET, "fleet": "shop"})
    assert [r.params.get("labels") for r in releases] == [
        {"tier": "front", "team": "shop", "fleet": "shop"}, {"tier": "back", "fleet": "shop"},
        {"tier": "back", "stateful": True, "fleet": "shop"}, None]
    assert FLEET[0]["labels"] == {"tier": "front", "team": "shop"}  # the task's own options are left as given


def test_an_item_labelled_with_another_fleet_is_refused():
    assert refused([item("web", labels={"fleet": "blue"})], fleet="green") == (
        "releases: apps/web: labels.fleet is 'blue', but the task's fleet is 'green'")
    releases_of({"releases": [item("web", labels={"fleet": "green"})], "fleet": "green"})


def test_prune_needs_a_fleet_and_a_fleet_must_be_a_label_value():
    assert refused([item("web")], prune=True) == "prune: needs fleet, the name of the set of releases to prune"
    assert refused([item("web")], fleet="shop floor").startswith("fleet: 'shop floor' is not a valid label value")
    assert refused([item("web")], fleet="x" * 64).startswith("fleet: '%s' is not a valid label value" % ("x" * 64))


@pytest.mark.parametrize("concurrency, jobs, cores, processes", [
    (1, 40, 8, 1), (4, 40, 2, 1), (8, 40, 2, 1), (64, 100, 2, 1), (8, 40, 16, 1), (32, 40, 16, 2),
    (64, 100, 4, 2), (64, 100, 16, 4), (64, 20, 16, 2),
])
def test_threads_share_processes_only_beyond_what_one_process_carries_on_half_the_cores(concurrency, jobs, cores,
                                                                                        processes):
    assert processes_for(concurrency, jobs, cores) == processes
