"""The planner reads many live objects of one kind with one LIST instead of a GET each, and plans exactly
what a GET each would have planned: drift, objects deleted by hand, objects the release does not own."""
import pytest

from ansible_collections.helmless.core.plugins.module_utils.plan import planner

from test_release_support import client_for, configmap, deployment, engine_for, literal_input, opts

COUNT = 8


def _objects_gets_and_lists(client, namespace):
    """(GETs of single ConfigMaps, LISTs of ConfigMaps) the client sent in ``namespace``."""
    base = "/api/v1/namespaces/%s/configmaps" % namespace
    gets = [p for m, p, _dry in client.requests if m == "GET" and p.startswith(base + "/")]
    lists = [p for m, p, _dry in client.requests if m == "GET" and p == base]
    return gets, lists


def _tamper(client, namespace):
    """Hand edits the next run must see: one object changed, one deleted."""
    live = client.get("v1", "ConfigMap", "cm-1", namespace)
    live["data"] = {"k": "edited"}
    client.replace(live, namespace)
    client.delete("v1", "ConfigMap", "cm-2", namespace)


def _rerun(kubeconfig, namespace, inp):
    """A check-mode rerun: it plans against the tampered objects and leaves them so."""
    engine = engine_for(kubeconfig, namespace)
    out = engine.present(inp, opts(check_mode=True))
    return out, engine.client


def _summary(out):
    return sorted((c.action, c.resource.kind, c.resource.name) for c in out.changes), sorted(
        (d["name"], tuple(d["drift"])) for d in out.drift)


@pytest.fixture
def tampered(kubeconfig, namespace):
    docs = [configmap("cm-%d" % i, {"k": "v%d" % i}) for i in range(COUNT)] + [deployment("web")]
    inp = literal_input(docs)
    assert engine_for(kubeconfig, namespace).present(inp, opts()).changed
    _tamper(client_for(kubeconfig), namespace)
    return inp


def test_a_rerun_reads_the_objects_of_a_kind_with_one_list_and_still_finds_their_drift(kubeconfig, namespace,
                                                                                       tampered):
    out, client = _rerun(kubeconfig, namespace, tampered)
    gets, lists = _objects_gets_and_lists(client, namespace)
    assert len(lists) == 1
    assert {g.rsplit("/", 1)[1] for g in gets} <= {"cm-1"}  # at most the drifted one, read again to plan it
    drift = {d["name"]: d["drift"] for d in out.drift}
    assert drift["cm-2"] == ["(object missing)"]
    assert drift["cm-1"] == ["data.k"]


def test_the_plan_from_one_list_is_the_plan_from_a_get_each(kubeconfig, namespace, tampered, monkeypatch):
    listed, _client = _rerun(kubeconfig, namespace, tampered)
    monkeypatch.setattr(planner, "LIST_AT", 10 ** 6)
    fetched, client = _rerun(kubeconfig, namespace, tampered)
    gets, lists = _objects_gets_and_lists(client, namespace)
    assert lists == [] and {g.rsplit("/", 1)[1] for g in gets} == {"cm-%d" % i for i in range(COUNT)}
    assert _summary(listed) == _summary(fetched)
    assert [_settled(c.before) for c in listed.changes] == [_settled(c.before) for c in fetched.changes]


def _settled(obj):
    """An object without what the controllers may still be changing between the two reruns (the Deployment's
    rollout: its status, and the resourceVersion and managedFields entry that come with each status write)."""
    if obj is None:
        return None
    meta = {k: v for k, v in obj["metadata"].items() if k not in ("resourceVersion", "managedFields")}
    return dict({k: v for k, v in obj.items() if k != "status"}, metadata=meta)


def test_a_namespace_crowded_with_other_objects_of_the_kind_is_read_with_a_get_each(kubeconfig, namespace,
                                                                                     tampered):
    client = client_for(kubeconfig)
    for i in range(110):
        client.create(configmap("other-%03d" % i, {"k": "v"}), namespace)
    out, used = _rerun(kubeconfig, namespace, tampered)
    gets, lists = _objects_gets_and_lists(used, namespace)
    assert len(lists) == 1  # one page showed the list is longer than it is worth
    assert {g.rsplit("/", 1)[1] for g in gets} == {"cm-%d" % i for i in range(COUNT)}
    assert {d["name"]: d["drift"] for d in out.drift}["cm-1"] == ["data.k"]
