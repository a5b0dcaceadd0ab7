"""Two or more controllers on one release: the loser says who holds the release and since when, and no
revision number is ever used twice."""
import re
import threading

import pytest

from ansible_collections.helmless.core.plugins.module_utils.actions.base import OperationError
from ansible_collections.helmless.core.plugins.module_utils.release.lease import Lease

from test_release_support import client_for, configmap, engine_for, literal_input, opts


def _statuses(kubeconfig, namespace):
    return [(r["version"], r["info"]["status"]) for r in engine_for(kubeconfig, namespace).history()]


def test_the_loser_names_the_holder_and_since_when(kubeconfig, namespace):
    engine_for(kubeconfig, namespace).present(literal_input([configmap("a", {"k": "v1"})]), opts())
    with Lease(client_for(kubeconfig), namespace, "rel") as held:
        since = held._obj["spec"]["acquireTime"]
        with pytest.raises(OperationError) as err:
            engine_for(kubeconfig, namespace).present(literal_input([configmap("a", {"k": "v2"})]), opts())
    assert str(err.value).startswith("another operation (install/upgrade/rollback) is in progress: held by %s since %s"
                                     % (held.identity, since)), err.value
    assert _statuses(kubeconfig, namespace) == [(1, "deployed")]


@pytest.mark.parametrize("operation", ["upgrade", "rollback", "uninstall"])
def test_an_operation_that_finished_while_another_planned_makes_it_plan_again(kubeconfig, namespace, operation):
    engine_for(kubeconfig, namespace).present(literal_input([configmap("a", {"k": "v1"})]), opts())
    engine_for(kubeconfig, namespace).present(literal_input([configmap("a", {"k": "v2"})]), opts())
    loser, winner = engine_for(kubeconfig, namespace), engine_for(kubeconfig, namespace)
    real_lease = loser._lease

    def lease_after_the_winner(o):  # the winner runs a whole upgrade between the loser's plan and lease
        winner.present(literal_input([configmap("a", {"k": "winner"})]), opts())
        return real_lease(o)
    loser._lease = lease_after_the_winner
    if operation == "upgrade":
        loser.present(literal_input([configmap("a", {"k": "loser"})]), opts())
        expected = [(1, "superseded"), (2, "superseded"), (3, "superseded"), (4, "deployed")]
        assert client_for(kubeconfig).get("v1", "ConfigMap", "a", namespace)["data"] == {"k": "loser"}
    elif operation == "rollback":
        loser.rollback(1, opts())
        expected = [(1, "superseded"), (2, "superseded"), (3, "superseded"), (4, "deployed")]
        assert client_for(kubeconfig).get("v1", "ConfigMap", "a", namespace)["data"] == {"k": "v1"}
    else:
        loser.absent(opts(purge=False))
        expected = [(1, "superseded"), (2, "superseded"), (3, "uninstalled")]
        assert client_for(kubeconfig).get("v1", "ConfigMap", "a", namespace) is None
    assert _statuses(kubeconfig, namespace) == expected


def test_racing_controllers_never_duplicate_a_revision(kubeconfig, namespace):
    engine_for(kubeconfig, namespace).present(literal_input([configmap("a", {"k": "start"})]), opts())
    results, start = {}, threading.Barrier(4)

    def controller(i):
        start.wait()
        try:
            engine_for(kubeconfig, namespace).present(literal_input([configmap("a", {"k": "c%d" % i})]), opts())
            results[i] = "ok"
        except OperationError as exc:
            results[i] = str(exc)
    threads = [threading.Thread(target=controller, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for outcome in results.values():
        assert outcome == "ok" or re.match(r"another operation \(install/upgrade/rollback\) is in progress: held by "
                                           r"\S+ since \S+", outcome), outcome
    history = engine_for(kubeconfig, namespace).history()
    versions = [r["version"] for r in history]
    assert versions == list(range(1, len(history) + 1)) and len(history) == 1 + list(results.values()).count("ok")
    assert [r["info"]["status"] for r in history].count("deployed") == 1 and history[-1]["info"]["status"] == "deployed"
    winner = re.search(r"k: (c\d)", history[-1]["manifest"]).group(1)
    assert client_for(kubeconfig).get("v1", "ConfigMap", "a", namespace)["data"] == {"k": winner}
