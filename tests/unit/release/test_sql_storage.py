"""The SQL storage driver against a real PostgreSQL (scripts/postgres): what it writes and when, how it
survives a cut connection, a restarted server and a statement timeout, and what its errors say.

Row-for-row equality with Helm's own driver is shown with the helm CLIs in
tests/integration/test_sql_storage_interop.py.
"""
import threading

import psycopg
import pytest

from ansible_collections.helmless.core.plugins.module_utils.release.codec import decode_release, encode_release
from ansible_collections.helmless.core.plugins.module_utils.release.drivers import open_storage
from ansible_collections.helmless.core.plugins.module_utils.release.model import chart_record, release_record
from ansible_collections.helmless.core.plugins.module_utils.release.sql import SqlStorage
from ansible_collections.helmless.core.plugins.module_utils.release.storage import ReleaseExists, StorageError

from postgres_fixtures import postgres, sql_database  # noqa: F401  (fixtures)


def _record(version, status="deployed", name="web", namespace="apps", labels=None, value="v"):
    rel = release_record(name, namespace, version, chart_record({"name": "demo", "version": "0.1.0"}),
                         {"value": value}, "---\n# Source: demo/templates/a.yaml\nkind: ConfigMap\n", [], status,
                         "Install complete", "2026-01-01T00:00:00Z", "2026-01-01T00:00:%02dZ" % version)
    rel["_labels"] = dict(labels or {})
    return rel


def _rows(url, sql):
    with psycopg.connect(url) as conn:
        return conn.execute(sql).fetchall()


def _tables(url):
    return sorted(r[0] for r in _rows(url, "SELECT tablename FROM pg_tables WHERE schemaname = 'public'"))


def test_reading_an_empty_database_creates_nothing_in_it(sql_database):
    storage = open_storage(None, "apps", "sql", sql_database)
    assert storage.history("web") == [] and storage.list_all() == [] and storage.get("web", 1) is None
    assert _tables(sql_database) == []


def test_the_first_write_creates_helms_tables_and_records_its_two_migrations(sql_database):
    open_storage(None, "apps", "sql", sql_database).create(_record(1))
    assert _tables(sql_database) == ["custom_labels_v1", "gorp_migrations", "releases_v1"]
    assert sorted(r[0] for r in _rows(sql_database, "SELECT id FROM gorp_migrations")) == ["custom_labels", "init"]


def test_a_revision_is_one_row_whose_body_is_the_records_helm_encoding(sql_database):
    rel = _record(1, labels={"team": "blue"})
    open_storage(None, "apps", "sql", sql_database).create(rel)
    rows = _rows(sql_database, "SELECT key, type, body, name, namespace, version, status, owner, modifiedAt "
                               "FROM releases_v1")
    body = encode_release({k: v for k, v in rel.items() if k != "_labels"})
    assert rows == [("sh.helm.release.v1.web.v1", "helm.sh/release.v1", body, "web", "apps", 1, "deployed", "helm", 0)]
    assert decode_release(rows[0][2])["config"] == {"value": "v"}
    assert _rows(sql_database, "SELECT releaseKey, releaseNamespace, key, value FROM custom_labels_v1") == [
        ("sh.helm.release.v1.web.v1", "apps", "team", "blue")]


def test_history_reads_labels_and_keeps_to_its_namespace(sql_database):
    open_storage(None, "apps", "sql", sql_database).create(_record(1, labels={"team": "blue"}))
    open_storage(None, "other", "sql", sql_database).create(_record(1, namespace="other"))
    history = open_storage(None, "apps", "sql", sql_database).history("web")
    assert [(r["version"], r["namespace"]) for r in history] == [(1, "apps")]
    labels = history[0]["_labels"]
    assert {k: labels[k] for k in ("team", "name", "owner", "status", "version")} == {
        "team": "blue", "name": "web", "owner": "helm", "status": "deployed", "version": "1"}
    assert [r["name"] for r in open_storage(None, "apps", "sql", sql_database).list_all("team=blue")] == ["web"]
    assert open_storage(None, "apps", "sql", sql_database).list_all("team=red") == []


def test_an_update_rewrites_body_status_and_modified_time_but_not_the_labels(sql_database):
    storage = open_storage(None, "apps", "sql", sql_database)
    rel = _record(1, status="pending-install", labels={"team": "blue"})
    storage.create(rel)
    assert storage.unsettled == {("web", 1)}
    rel["info"]["status"] = "deployed"
    storage.update(rel)
    assert storage.unsettled == set()
    (status, modified), = _rows(sql_database, "SELECT status, modifiedAt FROM releases_v1")
    assert status == "deployed" and modified > 0
    assert storage.history("web")[0]["info"]["status"] == "deployed"
    assert _rows(sql_database, "SELECT key, value FROM custom_labels_v1") == [("team", "blue")]


def test_updating_a_revision_that_is_not_stored_fails_naming_it(sql_database):
    storage = open_storage(None, "apps", "sql", sql_database)
    storage.create(_record(1))
    with pytest.raises(StorageError, match=r"update release sh\.helm\.release\.v1\.web\.v2: no such row"):
        storage.update(_record(2))


def test_a_revision_already_stored_or_older_than_the_newest_is_refused(sql_database):
    storage = open_storage(None, "apps", "sql", sql_database)
    storage.create(_record(1, status="superseded"))
    storage.create(_record(2))
    with pytest.raises(ReleaseExists):
        storage.create(_record(2, value="another controller's"))
    with pytest.raises(ReleaseExists):
        storage.create(_record(1, value="stale"))
    assert [r["version"] for r in storage.history("web", refresh=True)] == [1, 2]


def test_a_create_repeated_after_its_commit_was_lost_is_recognised_as_its_own(sql_database):
    storage = open_storage(None, "apps", "sql", sql_database)
    rel = _record(1)
    storage.create(rel)
    storage.create(dict(rel))  # what a retry after a lost COMMIT answer sends
    assert [r["version"] for r in storage.history("web", refresh=True)] == [1]


def test_racing_writers_of_one_revision_store_it_once(sql_database):
    open_storage(None, "apps", "sql", sql_database).create(_record(1))
    start, results = threading.Barrier(6), []

    def writer(i):
        start.wait()
        try:
            open_storage(None, "apps", "sql", sql_database).create(_record(2, value="writer %d" % i))
            results.append("stored")
        except ReleaseExists:
            results.append("refused")
    threads = [threading.Thread(target=writer, args=(i,)) for i in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == ["refused"] * 5 + ["stored"]
    assert [r["version"] for r in open_storage(None, "apps", "sql", sql_database).history("web")] == [1, 2]


def test_history_max_deletes_the_oldest_revisions_but_the_last_deployed_one(sql_database):
    storage = open_storage(None, "apps", "sql", sql_database)
    storage.create(_record(1, status="superseded", labels={"team": "blue"}))
    storage.create(_record(2, status="deployed"))
    storage.create(_record(3, status="failed"))
    storage.create(_record(4, status="failed"), history_max=2)
    assert [r["version"] for r in storage.history("web", refresh=True)] == [2, 4]
    assert _rows(sql_database, "SELECT count(*) FROM custom_labels_v1") == [(0,)]


def test_writes_reconnect_after_the_server_cut_every_session(postgres, sql_database):
    storage = open_storage(None, "apps", "sql", sql_database)
    storage.create(_record(1, status="pending-install"))
    postgres.restart()
    rel = _record(1)
    storage.update(rel)
    assert storage.history("web", refresh=True)[0]["info"]["status"] == "deployed"


def test_a_statement_timeout_is_retried_until_the_table_is_free(sql_database):
    url = sql_database + "&options=-c%20statement_timeout%3D300"
    storage = open_storage(None, "apps", "sql", url)
    storage.create(_record(1, status="pending-install"))
    locked, release = threading.Event(), threading.Event()

    def hold_the_table():
        with psycopg.connect(sql_database) as conn:
            conn.execute("LOCK TABLE releases_v1 IN ACCESS EXCLUSIVE MODE")
            locked.set()
            release.wait(30)
    holder = threading.Thread(target=hold_the_table)
    holder.start()
    locked.wait(10)
    threading.Timer(1.5, release.set).start()  # the lock outlives several 300 ms statement timeouts
    storage.update(_record(1))
    holder.join()
    assert storage.history("web", refresh=True)[0]["info"]["status"] == "deployed"


def test_a_statement_timeout_that_does_not_end_fails_naming_the_database(postgres, sql_database):
    database = sql_database.rsplit("/", 1)[1].split("?")[0]
    storage = SqlStorage("apps", sql_database + "&options=-c%20statement_timeout%3D200", retry_seconds=1)
    storage.create(_record(1, status="pending-install"))
    with psycopg.connect(sql_database) as conn:
        conn.execute("LOCK TABLE releases_v1 IN ACCESS EXCLUSIVE MODE")
        with pytest.raises(StorageError) as err:
            storage.update(_record(1))
    assert str(err.value).startswith("sql storage (host 127.0.0.1 port %d, database %s): update release "
                                     "sh.helm.release.v1.web.v1: " % (postgres.port, database)), err.value
    assert "statement timeout" in str(err.value)


def test_a_wrong_password_fails_at_once_naming_host_and_database_but_not_the_password(postgres, sql_database):
    database = sql_database.rsplit("/", 1)[1].split("?")[0]
    url = postgres.url(database, password="not-the-password-123")
    with pytest.raises(StorageError) as err:
        open_storage(None, "apps", "sql", url).create(_record(1))
    message = str(err.value)
    assert message.startswith("sql storage (host 127.0.0.1 port %d, database %s): create release "
                              % (postgres.port, database)), message
    assert "password authentication failed" in message and "not-the-password-123" not in message


def test_without_sslmode_tls_is_required_as_helms_driver_requires_it(postgres, sql_database):
    url = sql_database.replace("?sslmode=disable", "")
    with pytest.raises(StorageError) as err:
        open_storage(None, "apps", "sql", url).history("web")
    assert "SSL" in str(err.value) and postgres.password not in str(err.value)


def test_the_connection_string_comes_from_helms_variable(monkeypatch, sql_database):
    monkeypatch.setenv("HELM_DRIVER_SQL_CONNECTION_STRING", sql_database)
    open_storage(None, "apps", "sql").create(_record(1))
    assert [r["version"] for r in open_storage(None, "apps", "sql", sql_database).history("web")] == [1]
    monkeypatch.delenv("HELM_DRIVER_SQL_CONNECTION_STRING")
    with pytest.raises(StorageError, match="set HELM_DRIVER_SQL_CONNECTION_STRING or the sql_connection_string"):
        open_storage(None, "apps", "sql")


def test_a_role_limited_to_one_namespace_by_row_level_security_sees_and_writes_only_it(postgres, sql_database):
    open_storage(None, "apps", "sql", sql_database).create(_record(1, labels={"team": "blue"}))
    open_storage(None, "other", "sql", sql_database).create(_record(1, namespace="other"))
    database = sql_database.rsplit("/", 1)[1].split("?")[0]
    role = "apps_" + database  # roles are the server's, not the database's
    for sql in ("CREATE ROLE %s LOGIN PASSWORD 'apps-pw'",
                "GRANT SELECT ON gorp_migrations TO %s",
                "CREATE POLICY apps_only ON releases_v1 FOR ALL TO %s USING (namespace = 'apps')",
                "CREATE POLICY apps_only ON custom_labels_v1 FOR ALL TO %s USING (releaseNamespace = 'apps')"):
        postgres.psql(sql % role, database)
    limited = postgres.url(database, user=role, password="apps-pw")
    storage = open_storage(None, "apps", "sql", limited)
    assert [r["version"] for r in storage.history("web")] == [1]
    storage.create(_record(2))
    assert [r["version"] for r in storage.history("web", refresh=True)] == [1, 2]
    outsider = open_storage(None, "other", "sql", limited)
    assert outsider.history("web") == [] and outsider.list_all() == []
    with pytest.raises(StorageError, match="row-level security"):
        outsider.create(_record(2, namespace="other"))
    with pytest.raises(StorageError, match="no such row"):
        outsider.update(_record(1, namespace="other"))
    assert [r["version"] for r in open_storage(None, "other", "sql", sql_database).history("web")] == [1]


def test_a_key_value_connection_string_reaches_the_same_database_as_the_url(postgres, sql_database):
    database = sql_database.rsplit("/", 1)[1].split("?")[0]
    keywords = "host=127.0.0.1 port=%d dbname=%s user=postgres password=%s sslmode=disable" % (
        postgres.port, database, postgres.password)
    open_storage(None, "apps", "sql", keywords).create(_record(1))
    assert [r["version"] for r in open_storage(None, "apps", "sql", sql_database).history("web")] == [1]
