"""helmless.core.releases as a fleet: a graph run several at a time, selection, pruning, install_only.

The releases wait for Deployments whose pods the test cluster makes Ready only after a delay (kwok's
``pod-ready.stage.kwok.x-k8s.io/delay`` annotation, scripts/controlplane.d), so releases that run at the
same time overlap as they would on a real cluster. Which ran at the same time is read from the order of
the task's ``progress`` lines (a release's start before another's end), never from durations.
"""
import base64
import copy
import os
import re
import uuid

import pytest
import yaml
from ansible.module_utils.common.arg_spec import ArgumentSpecValidator
from kubernetes import client

from ansible_collections.helmless.core.plugins.module_utils.ansible.batch import run_releases
from ansible_collections.helmless.core.plugins.module_utils.ansible.options import (CONNECTION, RELEASE, RELEASES,
                                                                                    argument_spec)
from ansible_collections.helmless.core.plugins.module_utils.ansible.runner import ModuleFailure, run_release

from test_release_support import engine_for, write_chart

TEMPLATES = {
    "deploy.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}\nspec:\n"
                   "  replicas: 1\n  selector:\n    matchLabels: {app: {{ .Release.Name }}}\n  template:\n"
                   "    metadata:\n      labels: {app: {{ .Release.Name }}}\n"
                   "      annotations: {pod-ready.stage.kwok.x-k8s.io/delay: {{ .Values.delay | quote }}}\n"
                   "    spec:\n      containers:\n      - name: app\n        image: \"busybox:{{ .Values.tag }}\"\n",
    "cm.yaml": "{{- if .Values.fail }}{{ fail \"this release fails on purpose\" }}{{ end }}\n"
               "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\ndata:\n"
               "  tag: {{ .Values.tag | quote }}\n",
}


@pytest.fixture(scope="module")
def chart(tmp_path_factory):
    return write_chart(tmp_path_factory.mktemp("fleet"), TEMPLATES, values={"delay": "0s", "tag": "1", "fail": False},
                       name="app")


@pytest.fixture
def namespaces(kube_client):
    """Fresh namespace names (the releases create them); each deleted afterwards."""
    made = []

    def make():
        made.append("fleet-" + uuid.uuid4().hex[:8])
        return made[-1]
    yield make
    core = client.CoreV1Api(kube_client)
    for name in made:
        try:
            core.delete_namespace(name)
        except client.ApiException:
            pass


def release(name, chart, namespace, delay="1s", **more):
    return dict({"name": name, "namespace": namespace, "chart": chart, "create_namespace": True, "wait": True,
                 "wait_timeout": "2m", "values": {"delay": delay, "tag": "1"}}, **more)


def params(kubeconfig, releases, **task):
    """The options as AnsibleModule validates them (defaults, aliases)."""
    checked = ArgumentSpecValidator(argument_spec(CONNECTION, RELEASES)).validate(
        dict(task, releases=copy.deepcopy(releases), kubeconfig=kubeconfig))
    assert not checked.error_messages, checked.error_messages
    return checked.validated_parameters


def run(kubeconfig, releases, check=False, diff=False, fails=False, processes=None, **task):
    """(result, warnings) of a releases task; a failed task's result carries its message as ``msg``.
    ``processes``: worker processes to fork (default: as the module decides)."""
    try:
        result, warnings = run_releases(params(kubeconfig, releases, **task), check, diff, processes=processes)
    except ModuleFailure as exc:
        assert fails, "the task failed: %s" % exc
        return dict(exc.result, msg=str(exc)), exc.warnings
    assert not fails, "the task succeeded"
    return result, warnings


def progress(result):
    """The task's progress lines without their time stamps."""
    return [line.split(" ", 1)[1] for line in result["progress"]]


def ended(lines, key):
    return next(i for i, line in enumerate(lines) if re.match(r"(changed|ok|failed) %s in " % re.escape(key), line))


def overlapped(lines, first, second):
    """Whether ``second`` started before ``first`` ended."""
    return lines.index("start " + second) < ended(lines, first)


def outcome(result, namespace, created=False):
    """What a run reports, namespace-independent: per release its state, message and status, and the diffs.

    ``created``: the run created the namespace. Releases into a namespace that does not exist yet each plan
    its creation until one of them has created it: which of them show it depends on which ran first, so a
    real run's diffs are compared without it (check mode creates nothing: every one of them shows it)."""
    def same(text):
        return text.replace(namespace, "NS") if isinstance(text, str) else text

    def shown(part):
        text = same(part["prepared"])
        if created:
            text = re.sub(r"Plan: .*", "Plan", re.sub(r"NS, Namespace \(v1\) has been added:\n.*?\n(?=NS, )", "",
                                                       text, flags=re.S))
        return text
    rows = [(same(r["release"]), r.get("changed"), bool(r.get("failed")), bool(r.get("skipped")), same(r.get("msg")),
             (r.get("status") or {}).get("status"), (r.get("status") or {}).get("revision")) for r in result["results"]]
    return rows, [shown(part) for part in result.get("diff", [])]


def cluster(kubeconfig, kube_client, namespace, names):
    """Per release its revisions (version, status, labels) and objects (ConfigMap data, Deployment image)."""
    core, apps = client.CoreV1Api(kube_client), client.AppsV1Api(kube_client)
    maps = {c.metadata.name: c.data for c in core.list_namespaced_config_map(namespace).items
            if c.metadata.name in names}
    images = {d.metadata.name: d.spec.template.spec.containers[0].image
              for d in apps.list_namespaced_deployment(namespace).items}
    records = {name: [(r["version"], r["info"]["status"], {k: v for k, v in r["_labels"].items()
                                                          if k not in ("createdAt", "modifiedAt")})
                      for r in engine_for(kubeconfig, namespace, name).history()] for name in names}
    return maps, images, records


# A fleet with a dependency graph: db <- api <- web, db <- worker; broken (fails) <- report; cache alone.
def graph(chart, namespace):
    return [release("web", chart, namespace, needs=["api"], labels={"tier": "front"}),
            release("report", chart, namespace, needs=["broken"]),
            release("api", chart, namespace, needs=["db"], labels={"tier": "back"}),
            release("cache", chart, namespace, delay="2s"),
            release("broken", chart, namespace, values={"delay": "0s", "tag": "1", "fail": True}),
            release("worker", chart, namespace, needs=["db"]),
            release("db", chart, namespace, delay="2s", labels={"tier": "data"})]


NAMES = ("web", "report", "api", "cache", "broken", "worker", "db")


def test_a_fleet_ends_the_same_and_reports_in_list_order_at_any_concurrency(kubeconfig, kube_client, chart,
                                                                            namespaces):
    seen = {}
    for concurrency, processes in ((1, None), (4, None), (4, 2)):  # one after another; threads; processes
        namespace = namespaces()
        releases = graph(chart, namespace)
        task = dict(concurrency=concurrency, processes=processes, fleet="shop", fails=True)
        preview = run(kubeconfig, releases, check=True, diff=True, **task)[0]
        applied = run(kubeconfig, releases, diff=True, **task)[0]
        again = run(kubeconfig, releases, **task)[0]
        seen[concurrency, processes] = (outcome(preview, namespace), outcome(applied, namespace, created=True),
                                        outcome(again, namespace), cluster(kubeconfig, kube_client, namespace, NAMES),
                                        progress(applied), namespace)

    (preview, applied, again, state, _lines, namespace) = seen[1, None]
    for other in ((4, None), (4, 2)):
        for index, what in enumerate(("preview", "results and diffs", "re-run", "cluster and records")):
            assert seen[other][index] == seen[1, None][index], (other, what)  # the same at any concurrency
    assert [row[:4] for row in applied[0]] == [
        ("NS/web", True, False, False), ("NS/report", False, False, True), ("NS/api", True, False, False),
        ("NS/cache", True, False, False), ("NS/broken", None, True, False), ("NS/worker", True, False, False),
        ("NS/db", True, False, False)]
    assert applied[0][1][4] == "skipped: it needs broken, which did not succeed"
    assert "this release fails on purpose" in applied[0][4][4]
    assert [part.split("\n", 1)[0] for part in preview[1]] == [
        "Release NS/%s:" % name for name in ("web", "api", "cache", "worker", "db")]
    assert all("NS, Namespace (v1) has been added:" in part for part in preview[1])
    assert [row[1] for row in again[0]] == [False, False, False, False, None, False, False]
    maps, images, records = state
    assert sorted(maps) == ["api", "cache", "db", "web", "worker"]
    assert records["report"] == records["broken"] == []
    assert {name: [(v, s) for v, s, _labels in records[name]] for name in ("web", "api", "db")} == {
        name: [(1, "deployed")] for name in ("web", "api", "db")}
    assert records["web"][0][2] == {"name": "web", "owner": "helm", "status": "deployed", "version": "1",
                                    "tier": "front", "fleet": "shop"}

    for lines, namespace in (one[4:] for one in seen.values()):  # each starts once what it needs ended
        for dependant, need in (("web", "api"), ("api", "db"), ("worker", "db"), ("web", "db")):
            assert ended(lines, "%s/%s" % (namespace, need)) < lines.index("start %s/%s" % (namespace, dependant))
    sequential, ns1 = seen[1, None][4:]
    assert not overlapped(sequential, ns1 + "/cache", ns1 + "/db")
    for concurrent, ns4 in (seen[4, None][4:], seen[4, 2][4:]):
        assert overlapped(concurrent, ns4 + "/cache", ns4 + "/db")  # independent releases ran at the same time
        assert "skip %s/report: it needs broken, which did not succeed" % ns4 in concurrent


def test_a_cycle_or_an_unknown_need_is_refused_before_anything_is_written(kubeconfig, kube_client, chart,
                                                                         namespaces):
    namespace = namespaces()
    cyclic = [release("a", chart, namespace, needs=["c"]), release("b", chart, namespace, needs=["a"]),
              release("c", chart, namespace, needs=["b"])]
    failed = run(kubeconfig, cyclic, fails=True)[0]
    assert failed["msg"] == "releases: needs cycle: {0}/a -> {0}/c -> {0}/b -> {0}/a".format(namespace)
    unknown = [release("a", chart, namespace), release("b", chart, namespace, needs=["nothere"])]
    failed = run(kubeconfig, unknown, fails=True)[0]
    assert failed["msg"] == "releases: %s/b needs nothere, which is not in releases" % namespace
    assert namespace not in [n.metadata.name for n in client.CoreV1Api(kube_client).list_namespace().items]


def test_select_runs_the_matching_releases_and_requires_their_unselected_needs_deployed(kubeconfig, kube_client,
                                                                                       chart, namespaces):
    namespace, other = namespaces(), namespaces()
    releases = [release("db", chart, namespace, delay="0s", labels={"tier": "data"}),
                release("api", chart, namespace, delay="0s", needs=["db"], labels={"tier": "back"}),
                release("web", chart, other, delay="0s", needs=[namespace + "/api"], labels={"tier": "front"})]
    result = run(kubeconfig, releases, fails=True, select="tier in (back,front)")[0]
    assert [(r["release"], r.get("skipped"), r["msg"]) for r in result["results"]] == [
        (namespace + "/api", True, "skipped: it needs db, which was not selected and has no deployed revision"),
        (other + "/web", True, "skipped: it needs %s/api, which did not succeed" % namespace)]
    assert engine_for(kubeconfig, namespace, "db").history() == []

    run(kubeconfig, releases[:1])
    for r in releases:
        r["values"]["tag"] = "2"
    preview = run(kubeconfig, releases, check=True, diff=True, select=["name=api", "tier=front"])[0]
    assert [(r["release"], r["changed"]) for r in preview["results"]] == [(namespace + "/api", True),
                                                                        (other + "/web", True)]
    assert [p["prepared"].split("\n", 1)[0] for p in preview["diff"]] == [
        "Release %s/api:" % namespace, "Release %s/web:" % other]
    result = run(kubeconfig, releases, select="name=api")[0]
    assert [(r["release"], r["changed"], r["status"]["revision"]) for r in result["results"]] == [
        (namespace + "/api", True, "1")]
    core = client.CoreV1Api(kube_client)
    assert core.read_namespaced_config_map("db", namespace).data == {"tag": "1"}  # selected out: left as it was
    assert core.read_namespaced_config_map("api", namespace).data == {"tag": "2"}


def test_prune_uninstalls_the_fleets_unlisted_releases_first_in_check_mode_and_for_real(kubeconfig, kube_client,
                                                                                      chart, namespaces):
    namespace, elsewhere = namespaces(), namespaces()
    fleet = [release(name, chart, namespace, delay="0s", labels={"tier": tier})
             for name, tier in (("a", "x"), ("b", "x"), ("c", "y"), ("d", "y"), ("e", "y"))]
    run(kubeconfig, fleet, fleet="shop")
    left = dict(fleet[4], labels={"fleet": "null"})  # its next revision leaves the fleet ("null" removes a label)
    run(kubeconfig, [left])
    run(kubeconfig, [release("away", chart, elsewhere, delay="0s")], fleet="shop")
    run(kubeconfig, [release("other", chart, namespace, delay="0s")], fleet="another")
    run(kubeconfig, [release("loose", chart, namespace, delay="0s")])
    kept = fleet[:1] + fleet[2:3]  # b, d and e are no longer listed

    result = run(kubeconfig, kept, fleet="shop")[0]  # without prune nothing is uninstalled
    assert [r["release"] for r in result["results"]] == [namespace + "/a", namespace + "/c"]
    preview = run(kubeconfig, kept, check=True, diff=True, fleet="shop", prune=True)[0]
    assert [(r["release"], r["changed"], r.get("pruned")) for r in preview["results"]] == [
        (namespace + "/b", True, True), (namespace + "/d", True, True),
        (namespace + "/a", False, None), (namespace + "/c", False, None)]
    assert [p["prepared"].split("\n", 1)[0] for p in preview["diff"]] == [
        "Release %s/b:" % namespace, "Release %s/d:" % namespace]
    assert "%s, b, ConfigMap (v1) has been removed:" % namespace in preview["diff"][0]["prepared"]
    assert engine_for(kubeconfig, namespace, "b").history() != []  # check mode removed nothing

    selected = run(kubeconfig, kept, fleet="shop", prune=True, select="tier=y")[0]
    assert [(r["release"], r.get("pruned")) for r in selected["results"]] == [(namespace + "/d", True),
                                                                             (namespace + "/c", None)]
    pruned = run(kubeconfig, kept, fleet="shop", prune=True)[0]
    assert [(r["release"], r["changed"], r.get("pruned")) for r in pruned["results"]] == [
        (namespace + "/b", True, True), (namespace + "/a", False, None), (namespace + "/c", False, None)]
    assert [name for name in ("a", "b", "c", "d", "e", "other", "loose")
            if engine_for(kubeconfig, namespace, name).history()] == ["a", "c", "e", "other", "loose"]
    assert engine_for(kubeconfig, elsewhere, "away").history() != []  # a namespace the task does not touch
    names = [c.metadata.name for c in client.CoreV1Api(kube_client).list_namespaced_config_map(namespace).items]
    assert "b" not in names and "d" not in names and "a" in names


def test_install_only_installs_a_missing_release_and_leaves_a_deployed_one_as_it_is(kubeconfig, kube_client, chart,
                                                                                   namespaces):
    namespace = namespaces()
    core = client.CoreV1Api(kube_client)
    base = dict((k, copy.deepcopy(v.get("default"))) for table in (CONNECTION, RELEASE) for k, v in table.items())
    one = dict(base, kubeconfig=kubeconfig, release_name="solo", release_namespace=namespace, chart_ref=chart,
               create_namespace=True, install_only=True, release_values={"tag": "1"})
    installed = run_release(one)[0]
    assert installed["changed"] and installed["status"]["revision"] == "1"
    left = run_release(dict(one, release_values={"tag": "2"}), False, True)[0]
    assert not left["changed"] and left["status"]["revision"] == "1" and "diff" not in left
    assert core.read_namespaced_config_map("solo", namespace).data == {"tag": "1"}

    items = [release("solo", chart, namespace, delay="0s", install_only=True),
             release("fresh", chart, namespace, delay="0s", install_only=True)]
    items[0]["values"]["tag"] = "3"
    result = run(kubeconfig, items)[0]
    assert [(r["release"], r["changed"], r["status"]["revision"]) for r in result["results"]] == [
        (namespace + "/solo", False, "1"), (namespace + "/fresh", True, "1")]
    assert core.read_namespaced_config_map("solo", namespace).data == {"tag": "1"}
    assert len(engine_for(kubeconfig, namespace, "solo").history()) == 1


@pytest.mark.parametrize("processes", [1, 2], ids=["threads", "processes"])
def test_each_release_keeps_its_own_secret_masking_when_they_run_at_once(kubeconfig, namespaces, tmp_path,
                                                                         processes):
    namespace = namespaces()
    secret_chart = write_chart(tmp_path, dict(TEMPLATES, **{
        "secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata:\n  name: {{ .Release.Name }}\n"
                       "data:\n  password: {{ .Values.password | b64enc | quote }}\n"}),
        values={"delay": "0s", "tag": "1", "fail": False}, name="secretive")
    passwords = {"p%d" % i: "pw-%s" % os.urandom(6).hex() for i in range(4)}
    forms = {name: (pw, base64.b64encode(pw.encode()).decode()) for name, pw in passwords.items()}
    items = [dict(release(name, secret_chart, namespace, delay="0s"),
                  values={"delay": "0s", "tag": "1", "password": password},
                  show_secrets=name == "p0") for name, password in passwords.items()]
    result = run(kubeconfig, items, diff=True, processes=processes, concurrency=4)[0]
    shown = dict(zip(passwords, [p["prepared"] for p in result["diff"]]))
    for entry in result["results"]:
        name = entry["release"].split("/")[1]
        text = yaml.safe_dump(entry) + shown[name]
        assert any(form in text for form in forms[name]) is (name == "p0"), name  # show_secrets: its own only
        assert not any(form in text for other in passwords if other != name for form in forms[other]), name


def test_uninstalls_run_first_and_dependants_before_what_they_need(kubeconfig, chart, namespaces):
    namespace = namespaces()
    releases = [release("c", chart, namespace, delay="0s"), release("b", chart, namespace, delay="0s", needs=["a"]),
                release("a", chart, namespace, delay="0s")]
    run(kubeconfig, releases, concurrency=4)
    releases[0]["values"]["tag"] = "2"
    releases[1]["state"] = releases[2]["state"] = "absent"
    result = run(kubeconfig, releases, concurrency=4)[0]
    assert [(r["release"], r["changed"]) for r in result["results"]] == [
        (namespace + "/c", True), (namespace + "/b", True), (namespace + "/a", True)]
    lines = progress(result)
    assert ended(lines, namespace + "/b") < lines.index("start %s/a" % namespace)
    assert ended(lines, namespace + "/a") < lines.index("start %s/c" % namespace)
    assert [engine_for(kubeconfig, namespace, name).history() == [] for name in "abc"] == [True, True, False]
