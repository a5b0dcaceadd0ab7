"""Every retry path of the kube client, through the fault proxy in front of the real API server.

Each test injects one kind of fault on the wire and shows from the proxy's log what the client sent: a
test fails when the retry (or, for unsafe writes, the refusal to retry) is removed.
"""
import threading
import time

import pytest

from ansible_collections.helmless.core.plugins.module_utils.kube.client import KubeClient
from ansible_collections.helmless.core.plugins.module_utils.kube.config import load_connection
from ansible_collections.helmless.core.plugins.module_utils.kube.errors import ApiError, ResponseLost, Unreachable
from ansible_collections.helmless.core.plugins.module_utils.release.lease import Lease, lease_name

from faultproxy import burst, faultproxy  # noqa: F401 (fixture)

CM = r"/api/v1/namespaces/[^/]+/configmaps"


def _client(proxy, **kw):
    client = KubeClient(load_connection(proxy.kubeconfig()), **kw)
    client.discovery.resource("v1", "ConfigMap")  # discovery before any rule, so rules meet only our calls
    client.discovery.resource("coordination.k8s.io/v1", "Lease")
    return client


def _cm(name, **data):
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data}


@pytest.fixture
def seeded(faultproxy, namespace):
    client = _client(faultproxy)
    client.create(_cm("seed", k="v"), namespace)
    return client


def test_a_429_is_retried_after_the_delay_its_retry_after_names(faultproxy, seeded, namespace):
    faultproxy.add("status", method="GET", path=CM + "/seed$", status=429, retry_after=2, schedule=burst(0, 1))
    assert seeded.get("v1", "ConfigMap", "seed", namespace)["data"] == {"k": "v"}
    gets = faultproxy.entries("GET", CM + "/seed")
    assert [e["status"] for e in gets] == [429, 200]
    assert gets[1]["t"] - gets[0]["t"] >= 2, "the resend did not wait for Retry-After"
    assert seeded.retried == [("GET", "/api/v1/namespaces/%s/configmaps/seed" % namespace, "HTTP 429")]


def test_a_429_on_a_create_is_resent_as_the_server_did_not_process_it(faultproxy, seeded, namespace):
    faultproxy.add("status", method="POST", path=CM, status=429, retry_after=1, schedule=burst(0, 2))
    seeded.create(_cm("throttled", k="v"), namespace)
    assert [e["status"] for e in faultproxy.entries("POST", CM)][1:] == [429, 429, 201]  # after the seed's


@pytest.mark.parametrize("status", [500, 502, 503, 504])
def test_a_5xx_on_a_read_is_retried(faultproxy, seeded, namespace, status):
    faultproxy.add("status", method="GET", path=CM + "/seed$", status=status, schedule=burst(0, 2))
    assert seeded.get("v1", "ConfigMap", "seed", namespace)["data"] == {"k": "v"}
    assert [e["status"] for e in faultproxy.entries("GET", CM + "/seed")] == [status, status, 200]


@pytest.mark.parametrize("action", ["reset", "reset_mid_body", "stall"])
def test_a_read_whose_connection_breaks_is_retried(faultproxy, namespace, action):
    client = _client(faultproxy, timeout=2)
    client.create(_cm("seed", k="v" * 4096), namespace)
    faultproxy.add(action, method="GET", path=CM + "/seed$", seconds=4, schedule=burst(0, 1))
    assert client.get("v1", "ConfigMap", "seed", namespace)["data"] == {"k": "v" * 4096}
    assert len(faultproxy.entries("GET", CM + "/seed")) == 2
    assert [r[2] for r in client.retried] == ["connection lost"]


def test_retries_end_with_an_error_naming_the_request_and_the_server(faultproxy, seeded, namespace):
    faultproxy.add("status", method="GET", path=CM + "/seed$", status=503)
    seeded.retries = 2
    with pytest.raises(ApiError, match=r"GET /api/v1/namespaces/%s/configmaps/seed: injected fault: 503 \(HTTP 503\)"
                       % namespace):
        seeded.get("v1", "ConfigMap", "seed", namespace)
    assert len(faultproxy.entries("GET", CM + "/seed")) == 3
    faultproxy.clear()
    faultproxy.add("reset", method="GET", path=CM + "/seed$")
    with pytest.raises(Unreachable, match="GET /api/v1/namespaces/%s/configmaps/seed" % namespace):
        seeded.get("v1", "ConfigMap", "seed", namespace)


def test_a_create_whose_answer_was_lost_is_resent_once_and_resolved_to_the_object_it_made(faultproxy, seeded,
                                                                                          namespace):
    faultproxy.add("lose_response", method="POST", path=CM, schedule=burst(0, 1))
    made = seeded.create(_cm("lost", k="v"), namespace)
    assert made["metadata"]["name"] == "lost" and made["data"] == {"k": "v"}
    assert [e["status"] for e in faultproxy.entries("POST", CM)][1:] == [201, 409]  # after the seed's
    assert [r[0] for r in seeded.retried] == ["POST"]


def test_a_create_met_by_someone_elses_object_after_a_lost_answer_is_not_taken_for_ours(faultproxy, seeded,
                                                                                        namespace):
    faultproxy.add("status", method="POST", path=CM, status=502, schedule=burst(0, 1))  # not forwarded
    other = KubeClient(seeded.connection, field_manager="someone-else")
    other.create(_cm("contested", k="theirs"), namespace)
    with pytest.raises(ApiError, match="already exists"):
        seeded.create(_cm("contested", k="ours"), namespace)
    assert seeded.get("v1", "ConfigMap", "contested", namespace)["data"] == {"k": "theirs"}


@pytest.mark.parametrize("verb", ["replace", "merge", "strategic", "apply", "delete"])
def test_an_idempotent_write_whose_answer_was_lost_is_resent(faultproxy, seeded, namespace, verb):
    method = {"replace": "PUT", "delete": "DELETE"}.get(verb, "PATCH")
    faultproxy.add("lose_response", method=method, path=CM + "/seed$", schedule=burst(0, 1))
    if verb == "replace":
        live = seeded.get("v1", "ConfigMap", "seed", namespace)
        live["data"] = {"k": "replaced"}
        del live["metadata"]["resourceVersion"]
        seeded.replace(live, namespace)
    elif verb == "delete":
        assert seeded.delete("v1", "ConfigMap", "seed", namespace) is False  # the resend found it gone
    elif verb == "apply":
        seeded.patch("v1", "ConfigMap", "seed", namespace, _cm("seed", k=verb), "apply", force=True)
    else:
        seeded.patch("v1", "ConfigMap", "seed", namespace, {"data": {"k": verb}}, verb)
    assert len(faultproxy.entries(method, CM + "/seed")) == 2
    live = seeded.get("v1", "ConfigMap", "seed", namespace)
    assert live is None if verb == "delete" else live["data"] == {"k": "replaced" if verb == "replace" else verb}


def test_a_json_patch_whose_answer_was_lost_is_not_resent(faultproxy, seeded, namespace):
    seeded.patch("v1", "ConfigMap", "seed", namespace, {"metadata": {"finalizers": ["example.com/a"]}}, "merge")
    faultproxy.add("lose_response", method="PATCH", path=CM + "/seed$", schedule=burst(0, 1))
    with pytest.raises(ResponseLost, match="may have been applied"):  # appending twice would differ
        seeded.patch("v1", "ConfigMap", "seed", namespace,
                     [{"op": "add", "path": "/metadata/finalizers/-", "value": "example.com/b"}], "json")
    assert len(faultproxy.entries("PATCH", CM + "/seed")) == 2  # the setup patch and the lost one: no resend
    live = seeded.get("v1", "ConfigMap", "seed", namespace)
    assert live["metadata"]["finalizers"] == ["example.com/a", "example.com/b"]
    seeded.patch("v1", "ConfigMap", "seed", namespace, {"metadata": {"finalizers": None}}, "merge")


def test_a_lease_renewal_whose_answer_was_lost_keeps_the_lease(faultproxy, seeded, namespace):
    path = r"/leases/" + lease_name("rel")
    faultproxy.add("lose_response", method="PUT", path=path, schedule=burst(0, 1))
    lease = Lease(seeded, namespace, "rel", duration=3).acquire()
    try:
        deadline = time.monotonic() + 60
        while len(faultproxy.entries("PUT", path)) < 5 and time.monotonic() < deadline:
            time.sleep(0.2)
        statuses = [e["status"] for e in faultproxy.entries("PUT", path)]
        assert statuses[:2] == [200, 409] and statuses[2:] == [200] * (len(statuses) - 2), statuses
        live = seeded.get("coordination.k8s.io/v1", "Lease", lease_name("rel"), namespace)
        assert live["spec"]["holderIdentity"] == lease.identity
    finally:
        lease.release_lease()


def test_concurrent_reads_through_a_flaky_server_all_succeed(faultproxy, seeded, namespace):
    faultproxy.add("status", method="GET", path=CM + "/seed$", status=503, schedule=lambda i, t: i % 3 == 0, limit=4)
    faultproxy.add("reset", method="GET", path=CM + "/seed$", schedule=lambda i, t: i % 3 == 1, limit=4)
    seeded.retries = 9  # more than the 8 faults, so no thread can run out whatever the interleaving
    results = []

    def read():
        results.append(seeded.get("v1", "ConfigMap", "seed", namespace)["data"])
    threads = [threading.Thread(target=read) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == [{"k": "v"}] * 8
