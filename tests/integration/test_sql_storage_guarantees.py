"""Our guarantees on the SQL driver: racing controllers never lose or duplicate a revision, even without
the per-release Lease (namespace RBAC without leases: the database's transactions alone), and an
operation whose process died mid-way is recovered by the next run once its lease has expired."""
import json
import os
import re
import subprocess
import sys
import textwrap
import threading
import time

import pytest

from ansible_collections.helmless.core.plugins.module_utils.actions.base import OperationError
from ansible_collections.helmless.core.plugins.module_utils.actions.operations import ReleaseEngine
from ansible_collections.helmless.core.plugins.module_utils.release.lease import lease_state

from postgres_fixtures import postgres, sql_database  # noqa: F401  (fixtures)
from test_release_support import client_for, configmap, job, literal_input, opts

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NO_LEASES = [{"apiGroups": [""], "resources": ["configmaps", "secrets"], "verbs": ["*"]}]


def _engine(kubeconfig, namespace, url):
    return ReleaseEngine(client_for(kubeconfig), "rel", namespace, "sql", sql_connection=url)


def _race(kubeconfig, namespace, url, controllers=4):
    results, start = {}, threading.Barrier(controllers)

    def controller(i):
        start.wait()
        try:
            _engine(kubeconfig, namespace, url).present(literal_input([configmap("a", {"k": "c%d" % i})]), opts())
            results[i] = "ok"
        except OperationError as exc:
            results[i] = str(exc)
    threads = [threading.Thread(target=controller, args=(i,)) for i in range(controllers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def _check_race(kubeconfig, namespace, url, results, refused):
    for outcome in results.values():
        assert outcome == "ok" or re.search(refused, outcome), outcome
    history = _engine(kubeconfig, namespace, url).history()
    versions = [r["version"] for r in history]
    assert versions == list(range(1, len(history) + 1)) and len(history) == 1 + list(results.values()).count("ok")
    assert [r["info"]["status"] for r in history].count("deployed") == 1 and history[-1]["info"]["status"] == "deployed"
    winner = re.search(r"k: (c\d)", history[-1]["manifest"]).group(1)
    assert client_for(kubeconfig).get("v1", "ConfigMap", "a", namespace)["data"] == {"k": winner}


def test_racing_controllers_on_sql_never_duplicate_a_revision(kubeconfig, namespace, sql_database):
    _engine(kubeconfig, namespace, sql_database).present(literal_input([configmap("a", {"k": "start"})]), opts())
    results = _race(kubeconfig, namespace, sql_database)
    _check_race(kubeconfig, namespace, sql_database, results, r"another operation \(install/upgrade/rollback\) is in "
                                                              r"progress|already exists")


def test_without_lease_rights_the_databases_transactions_alone_keep_revisions_whole(
        kubeconfig, namespace, sql_database, limited_kubeconfig):
    limited = limited_kubeconfig(namespace, NO_LEASES)
    _engine(limited, namespace, sql_database).present(literal_input([configmap("a", {"k": "start"})]), opts())
    assert lease_state(client_for(kubeconfig), namespace, "rel")[0] is None  # no Lease could guard the race
    results = _race(limited, namespace, sql_database, controllers=6)
    _check_race(limited, namespace, sql_database, results, r"revision \d+ already exists|another operation")


def test_an_upgrade_whose_process_died_mid_way_is_recovered_by_the_next_run(tmp_path, kubeconfig, namespace,
                                                                            sql_database, helm4):
    _engine(kubeconfig, namespace, sql_database).present(literal_input([configmap("a", {"k": "v1"})]), opts())
    script = textwrap.dedent("""
        import os, sys
        sys.path.insert(0, %(collections)r)
        sys.path.insert(0, %(tests)r)
        from ansible_collections.helmless.core.plugins.module_utils.actions import hooks
        from ansible_collections.helmless.core.plugins.module_utils.actions.operations import ReleaseEngine
        from test_release_support import client_for, configmap, job, literal_input, opts
        hooks.HookRunner.run = lambda self, rel, event: os._exit(9)  # the process dies in its pre-upgrade hook
        ReleaseEngine(client_for(%(kubeconfig)r), "rel", %(namespace)r, "sql", sql_connection=%(url)r).present(
            literal_input([configmap("a", {"k": "v2"})], hooks=[job("pre", ["pre-upgrade"])]), opts(lease_duration=2))
    """) % {"collections": os.path.join(ROOT, ".build", "collections"), "tests": os.path.dirname(__file__),
            "kubeconfig": kubeconfig, "namespace": namespace, "url": sql_database}
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 9, proc.stderr[-3000:]
    history = _engine(kubeconfig, namespace, sql_database).history()
    assert [(r["version"], r["info"]["status"]) for r in history] == [(1, "deployed"), (2, "pending-upgrade")]
    deadline = time.monotonic() + 30
    while not lease_state(client_for(kubeconfig), namespace, "rel")[1] and time.monotonic() < deadline:
        time.sleep(0.5)
    _engine(kubeconfig, namespace, sql_database).present(
        literal_input([configmap("a", {"k": "v2"})], hooks=[job("pre", ["pre-upgrade"])]), opts(wait=False))
    history = _engine(kubeconfig, namespace, sql_database).history()
    assert [(r["version"], r["info"]["status"]) for r in history] == [(1, "superseded"), (2, "failed"), (3, "deployed")]
    assert "operation interrupted" in history[1]["info"]["description"]
    helm4.env.update(HELM_DRIVER="sql", HELM_DRIVER_SQL_CONNECTION_STRING=sql_database)
    theirs = json.loads(helm4.run("history", "rel", "-n", namespace, "-o", "json").stdout)
    assert [(h["revision"], h["status"]) for h in theirs] == [(1, "superseded"), (2, "failed"), (3, "deployed")]
    assert client_for(kubeconfig).get("v1", "ConfigMap", "a", namespace)["data"] == {"k": "v2"}


def test_a_revision_helm_stores_between_our_check_and_our_insert_is_refused_as_already_existing(postgres,
                                                                                                  sql_database):
    from ansible_collections.helmless.core.plugins.module_utils.release.codec import encode_release
    from ansible_collections.helmless.core.plugins.module_utils.release.drivers import open_storage
    from ansible_collections.helmless.core.plugins.module_utils.release.model import chart_record, release_record
    from ansible_collections.helmless.core.plugins.module_utils.release.storage import ReleaseExists
    from pgfaultproxy import PgFaultProxy

    def record(version, value):
        rel = release_record("web", "apps", version, chart_record({"name": "demo", "version": "0.1.0"}),
                             {"v": value}, "", [], "deployed", "Install complete", "t", "t")
        rel["_labels"] = {}
        return rel
    open_storage(None, "apps", "sql", sql_database).create(record(1, "ours"))
    theirs = record(2, "helm's")
    theirs["info"]["status"] = "pending-upgrade"
    helm_row = "INSERT INTO releases_v1 (key, type, body, name, namespace, version, status, owner, createdAt) " \
               "VALUES ('sh.helm.release.v1.web.v2', 'helm.sh/release.v1', '%s', 'web', 'apps', 2, 'pending-upgrade', " \
               "'helm', 1)" % encode_release({k: v for k, v in theirs.items() if k != "_labels"})
    proxy = PgFaultProxy(postgres.port).start()
    try:  # helm takes no lock: its row lands after our check, just before our INSERT
        proxy.add("INSERT INTO releases_v1", "helm-inserts", call=lambda: postgres.psql(
            helm_row, sql_database.rsplit("/", 1)[1].split("?")[0]))
        with pytest.raises(ReleaseExists, match="release web revision 2 already exists"):
            open_storage(None, "apps", "sql", proxy.url(sql_database)).create(record(2, "ours"))
    finally:
        proxy.stop()
    assert proxy.faults()
    stored = open_storage(None, "apps", "sql", sql_database).history("web")
    assert [(r["version"], r["info"]["status"], r["config"]) for r in stored] == [
        (1, "deployed", {"v": "ours"}), (2, "pending-upgrade", {"v": "helm's"})]
