"""The SQL storage driver with the real helm v4 and v3 CLIs on one PostgreSQL database: the same schema and
migration records, each side reading and operating on the other's releases, labels, history_max pruning and
Helm's row-level security per namespace; and every module of ours on it."""
import copy
import json

import psycopg
import pytest

from ansible_collections.helmless.core.plugins.module_utils.ansible.batch import run_releases
from ansible_collections.helmless.core.plugins.module_utils.ansible.options import CONNECTION, RELEASE_TEST
from ansible_collections.helmless.core.plugins.module_utils.ansible.runner import (
    ModuleFailure, run_info, run_release, run_release_test, run_rollback)
from ansible_collections.helmless.core.plugins.module_utils.actions.operations import ReleaseEngine
from ansible_collections.helmless.core.plugins.module_utils.errors import HelmlessError

from postgres_fixtures import postgres, sql_database  # noqa: F401  (fixtures)
from test_release_support import client_for, module_params, write_chart

TEST_POD = json.dumps({"apiVersion": "v1", "kind": "Pod", "metadata": {
    "name": "smoke-test", "annotations": {"helm.sh/hook": "test"}},
    "spec": {"restartPolicy": "Never", "containers": [{"name": "t", "image": "busybox", "command": ["true"]}]}})


def _chart(tmp_path, version="0.1.0", test=False):
    templates = {"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-cm\ndata:\n"
                            "  k: {{ .Values.k | quote }}\n"}
    if test:
        templates["test.yaml"] = TEST_POD
    return write_chart(tmp_path / version, templates, values={"k": "v1"}, version=version)


def _sql_helm(helm, url):
    out = copy.copy(helm)
    out.env = dict(helm.env, HELM_DRIVER="sql", HELM_DRIVER_SQL_CONNECTION_STRING=url)
    return out


def _json(helm, *args):
    return json.loads(helm.run(*args, "-o", "json").stdout)


def _params(kubeconfig, namespace, url, chart=None, table="release", **kw):
    return module_params(table, name="rel", namespace=namespace, kubeconfig=kubeconfig, chart_ref=chart,
                         storage_driver="sql", sql_connection_string=url, **kw) if table == "release" else \
        module_params(table, name="rel", namespace=namespace, kubeconfig=kubeconfig, storage_driver="sql",
                      sql_connection_string=url, **kw)


def _engine(kubeconfig, namespace, url, name="rel"):
    return ReleaseEngine(client_for(kubeconfig), name, namespace, "sql", sql_connection=url)


def _rows(url, where="true"):
    """Every stored row as it is (body included), to show what a step wrote or did not."""
    with psycopg.connect(url) as conn:
        return conn.execute("SELECT key, namespace, version, status, owner, createdAt, modifiedAt, body FROM "
                            "releases_v1 WHERE %s ORDER BY namespace, version" % where).fetchall()


def _statuses(url, namespace):
    return [(r[2], r[3]) for r in _rows(url, "namespace = '%s'" % namespace)]


def _release_secrets(kubeconfig, namespace):
    return client_for(kubeconfig).list("v1", "Secret", namespace, "owner=helm")


@pytest.mark.parametrize("which", ["helm4", "helm3"])
def test_helm_and_we_create_the_same_schema_and_migration_records_and_each_finds_the_others(
        request, postgres, kubeconfig, namespace, which):
    helm = request.getfixturevalue(which)
    theirs, ours = postgres.new_database(), postgres.new_database()
    _sql_helm(helm, postgres.url(theirs)).run("list", "-n", namespace)
    _engine(kubeconfig, namespace, postgres.url(ours)).storage.create(_record_for(namespace))
    assert postgres.schema(ours) == postgres.schema(theirs)
    migrations = "SELECT id, applied_at FROM gorp_migrations ORDER BY id"
    applied = {db: postgres.psql(migrations, db) for db in (theirs, ours)}
    ids = {db: [line.split("|")[0] for line in text.splitlines()] for db, text in applied.items()}
    assert ids[ours] == ids[theirs] == ["custom_labels", "init"]
    _sql_helm(helm, postgres.url(ours)).run("list", "-n", namespace)
    _engine(kubeconfig, namespace, postgres.url(theirs)).storage.create(_record_for(namespace))
    assert {db: postgres.psql(migrations, db) for db in (theirs, ours)} == applied  # nobody migrated again


def _record_for(namespace):
    from ansible_collections.helmless.core.plugins.module_utils.release.model import chart_record, release_record
    rel = release_record("probe", namespace, 1, chart_record({"apiVersion": "v2", "name": "demo", "version": "0.1.0"}),
                         {}, "", [], "deployed", "Install complete", "2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z")
    rel["_labels"] = {}
    return rel


@pytest.mark.parametrize("which", ["helm4", "helm3"])
def test_helm_installs_we_upgrade_our_rerun_changes_nothing_and_helm_rolls_back_our_revision(
        request, tmp_path, kubeconfig, namespace, sql_database, which):
    helm = _sql_helm(request.getfixturevalue(which), sql_database)
    chart = _chart(tmp_path)
    helm.run("install", "rel", chart, "-n", namespace)
    upgraded, _ = run_release(_params(kubeconfig, namespace, sql_database, chart, release_values={"k": "v2"}))
    assert upgraded["changed"] and upgraded["status"]["revision"] == "2"
    before = _rows(sql_database)
    again, _ = run_release(_params(kubeconfig, namespace, sql_database, chart, release_values={"k": "v2"}))
    assert not again["changed"] and _rows(sql_database) == before
    history = _json(helm, "history", "rel", "-n", namespace)
    assert [(h["revision"], h["status"], h["description"]) for h in history] == [
        (1, "superseded", "Install complete"), (2, "deployed", "Upgrade complete")]
    assert _json(helm, "get", "values", "rel", "-n", namespace) == {"k": "v2"}
    helm.run("rollback", "rel", "1", "-n", namespace)
    client = client_for(kubeconfig)
    assert client.get("v1", "ConfigMap", "rel-cm", namespace)["data"] == {"k": "v1"}
    info, _ = run_info(_params(kubeconfig, namespace, sql_database, release_state=[]))
    assert (info["status"]["revision"], info["status"]["status"]) == ("3", "deployed")
    assert _statuses(sql_database, namespace) == [(1, "superseded"), (2, "superseded"), (3, "deployed")]
    assert _release_secrets(kubeconfig, namespace) == []


@pytest.mark.parametrize("which", ["helm4", "helm3"])
def test_we_install_helm_upgrades_we_roll_back_and_helm_uninstalls(request, tmp_path, kubeconfig, namespace,
                                                                   sql_database, which):
    helm = _sql_helm(request.getfixturevalue(which), sql_database)
    chart = _chart(tmp_path)
    run_release(_params(kubeconfig, namespace, sql_database, chart))
    helm.run("upgrade", "rel", _chart(tmp_path, "0.2.0"), "-n", namespace, "--set", "k=v9")
    client = client_for(kubeconfig)
    assert client.get("v1", "ConfigMap", "rel-cm", namespace)["data"] == {"k": "v9"}
    rolled, _ = run_rollback(_params(kubeconfig, namespace, sql_database, table="rollback", revision=1))
    assert rolled["changed"] and client.get("v1", "ConfigMap", "rel-cm", namespace)["data"] == {"k": "v1"}
    history = _json(helm, "history", "rel", "-n", namespace)
    assert [(h["revision"], h["status"]) for h in history] == [(1, "superseded"), (2, "superseded"), (3, "deployed")]
    assert history[-1]["description"] == "Rollback to 1"
    helm.run("uninstall", "rel", "-n", namespace)
    assert client.get("v1", "ConfigMap", "rel-cm", namespace) is None
    assert _rows(sql_database) == [] and _release_secrets(kubeconfig, namespace) == []


def test_labels_are_stored_alike_and_each_side_selects_by_the_others(tmp_path, kubeconfig, namespace,
                                                                     reference_namespace, sql_database, helm4):
    helm = _sql_helm(helm4, sql_database)
    chart = _chart(tmp_path)
    helm.run("install", "rel", chart, "-n", reference_namespace, "--labels", "team=blue,tier=web")
    run_release(_params(kubeconfig, namespace, sql_database, chart, labels={"team": "blue", "tier": "web"}))
    with psycopg.connect(sql_database) as conn:
        rows = conn.execute("SELECT releaseNamespace, releaseKey, key, value FROM custom_labels_v1 "
                            "ORDER BY releaseNamespace, key").fetchall()
    theirs = [r[1:] for r in rows if r[0] == reference_namespace]
    assert theirs == [("sh.helm.release.v1.rel.v1", "team", "blue"), ("sh.helm.release.v1.rel.v1", "tier", "web")]
    assert [r[1:] for r in rows if r[0] == namespace] == theirs
    assert [r["name"] for r in _json(helm, "list", "-n", namespace, "-l", "team=blue")] == ["rel"]
    assert _json(helm, "list", "-n", namespace, "-l", "team=red") == []
    listed, _ = run_info(_params(kubeconfig, reference_namespace, sql_database, release_name=None,
                                 selector="tier=web", release_state=[]))
    assert [r["name"] for r in listed["releases"]] == ["rel"]


def test_history_max_keeps_the_revisions_helm_keeps(tmp_path, kubeconfig, namespace, reference_namespace,
                                                    sql_database, helm4):
    helm = _sql_helm(helm4, sql_database)
    chart = _chart(tmp_path)
    helm.run("install", "rel", chart, "-n", reference_namespace)
    run_release(_params(kubeconfig, namespace, sql_database, chart))
    for i in range(2, 7):
        helm.run("upgrade", "rel", chart, "-n", reference_namespace, "--history-max", "3", "--set", "k=v%d" % i)
        run_release(_params(kubeconfig, namespace, sql_database, chart, history_max=3,
                            release_values={"k": "v%d" % i}))
    assert _statuses(sql_database, namespace) == _statuses(sql_database, reference_namespace)
    assert len(_statuses(sql_database, namespace)) == 3


@pytest.mark.parametrize("which", ["helm4", "helm3"])
def test_a_role_limited_to_one_namespace_as_helm_documents_sees_and_changes_only_it(
        request, tmp_path, postgres, kubeconfig, namespace, reference_namespace, sql_database, which):
    helm4 = request.getfixturevalue(which)
    chart = _chart(tmp_path)
    _sql_helm(helm4, sql_database).run("install", "rel", chart, "-n", reference_namespace)
    run_release(_params(kubeconfig, namespace, sql_database, chart))
    database = sql_database.rsplit("/", 1)[1].split("?")[0]
    role = "ns_" + database  # roles are the server's, not the database's
    postgres.psql("CREATE ROLE {0} LOGIN PASSWORD 'ns-pw'; GRANT SELECT ON gorp_migrations TO {0}; CREATE POLICY {0} "
                  "ON releases_v1 FOR ALL TO {0} USING (namespace = '{1}')".format(role, namespace), database)
    limited = postgres.url(database, user=role, password="ns-pw")
    helm = _sql_helm(helm4, limited)
    assert [r["name"] for r in _json(helm, "list", "-n", namespace)] == ["rel"]
    assert _json(helm, "list", "-n", reference_namespace) == []
    listed, _ = run_info(_params(kubeconfig, reference_namespace, limited, release_name=None, release_state=[]))
    assert listed["releases"] == []
    upgraded, _ = run_release(_params(kubeconfig, namespace, limited, chart, release_values={"k": "v2"}))
    assert upgraded["status"]["revision"] == "2"
    with pytest.raises(ModuleFailure) as err:
        run_release(_params(kubeconfig, reference_namespace, limited, chart, release_values={"k": "v2"}))
    assert "row-level security" in str(err.value)
    assert _statuses(sql_database, reference_namespace) == [(1, "deployed")]
    assert _statuses(sql_database, namespace) == [(1, "superseded"), (2, "deployed")]


def test_every_module_works_on_sql_and_check_mode_writes_nothing(postgres, tmp_path, kubeconfig, namespace):
    database = postgres.new_database()
    url = postgres.url(database)
    chart = _chart(tmp_path, test=True)
    preview, _ = run_release(_params(kubeconfig, namespace, url, chart), check_mode=True)
    assert preview["changed"] and postgres.psql("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'",
                                                database).strip() == "0"
    run_release(_params(kubeconfig, namespace, url, chart))
    before = _rows(url)
    preview, _ = run_release(_params(kubeconfig, namespace, url, chart, release_values={"k": "v2"}), check_mode=True)
    assert preview["changed"] and _rows(url) == before
    item = {k: v for k, v in module_params(name="rel", namespace=namespace, chart_ref=chart,
                                           release_values={"k": "v2"}).items() if k not in CONNECTION}
    batch, _ = run_releases(dict(module_params(kubeconfig=kubeconfig, storage_driver="sql", sql_connection_string=url),
                                 releases=[dict(item, needs=[])]))
    assert batch["results"][0]["status"]["revision"] == "2"
    params = {key: copy.deepcopy(opt.get("default")) for table in (CONNECTION, RELEASE_TEST) for key, opt in table.items()}
    params.update(kubeconfig=kubeconfig, release_name="rel", release_namespace=namespace, storage_driver="sql",
                  sql_connection_string=url)
    tested, _ = run_release_test(params)
    assert [t["phase"] for t in tested["tests"]] == ["Succeeded"]
    assert json.loads(json.dumps(ReleaseEngine(client_for(kubeconfig), "rel", namespace, "sql", sql_connection=url)
                                 .history()[-1]["hooks"][0]["last_run"]["phase"])) == "Succeeded"
    run_rollback(_params(kubeconfig, namespace, url, table="rollback", revision=1))
    run_release(_params(kubeconfig, namespace, url, chart, release_state="absent", purge=False))
    assert _statuses(url, namespace) == [(1, "superseded"), (2, "superseded"), (3, "uninstalled")]
    run_release(_params(kubeconfig, namespace, url, chart, release_state="absent"))
    assert _rows(url) == [] and _release_secrets(kubeconfig, namespace) == []
    postgres.drop_database(database)


def test_helm_and_we_refuse_a_connection_string_without_sslmode_to_a_server_without_tls(
        kubeconfig, namespace, sql_database, helm4, tmp_path):
    url = sql_database.replace("?sslmode=disable", "")
    proc = _sql_helm(helm4, url).run("list", "-n", namespace, check=False)
    assert proc.returncode != 0 and "SSL is not enabled on the server" in proc.stderr
    with pytest.raises(HelmlessError) as err:  # run_module reports it as the task's failure message
        run_release(_params(kubeconfig, namespace, url, _chart(tmp_path)))
    assert "SSL" in str(err.value) and "host 127.0.0.1" in str(err.value)
    assert client_for(kubeconfig).get("v1", "ConfigMap", "rel-cm", namespace) is None


def test_a_release_moved_from_secrets_to_sql_as_the_docs_say_is_the_same_release_to_helm_and_us(
        tmp_path, kubeconfig, namespace, sql_database, helm4):
    import base64
    chart = _chart(tmp_path)
    on_secrets = dict(_params(kubeconfig, namespace, sql_database, chart), storage_driver="secret")
    run_release(on_secrets)
    run_release(dict(on_secrets, release_values={"k": "v2"}, labels={"team": "blue"}))
    _engine(kubeconfig, namespace, sql_database).storage.create(_record_for(namespace))  # the tables exist
    client = client_for(kubeconfig)
    with psycopg.connect(sql_database) as conn:  # docs/storage-drivers.md, "Secrets to PostgreSQL"
        for secret in client.list("v1", "Secret", namespace, "owner=helm,name=rel"):
            labels = secret["metadata"]["labels"]
            key = secret["metadata"]["name"]
            conn.execute("INSERT INTO releases_v1 (key, type, body, name, namespace, version, status, owner, createdAt) "
                         "VALUES (%s, 'helm.sh/release.v1', %s, 'rel', %s, %s, %s, 'helm', %s)",
                         (key, base64.b64decode(secret["data"]["release"]).decode(), namespace, int(labels["version"]),
                          labels["status"], int(labels["createdAt"])))
            for label, value in labels.items():
                if label not in ("name", "owner", "status", "version", "createdAt", "modifiedAt"):
                    conn.execute("INSERT INTO custom_labels_v1 VALUES (%s, %s, %s, %s)", (key, namespace, label, value))
            client.delete("v1", "Secret", key, namespace)
    again, _ = run_release(_params(kubeconfig, namespace, sql_database, chart, release_values={"k": "v2"},
                                   labels={"team": "blue"}))
    assert not again["changed"]
    helm = _sql_helm(helm4, sql_database)
    assert [(h["revision"], h["status"]) for h in _json(helm, "history", "rel", "-n", namespace)] == [
        (1, "superseded"), (2, "deployed")]
    assert [r["name"] for r in _json(helm, "list", "-n", namespace, "-l", "team=blue")] == ["rel"]
    helm.run("rollback", "rel", "1", "-n", namespace)
    assert client.get("v1", "ConfigMap", "rel-cm", namespace)["data"] == {"k": "v1"}
    assert _release_secrets(kubeconfig, namespace) == []
