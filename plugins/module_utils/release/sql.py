"""Helm's SQL storage driver: release records in PostgreSQL, row for row as Helm writes them.

Helm (pkg/storage/driver/sql.go) keeps one row per revision in ``releases_v1`` (key
``sh.helm.release.v1.<name>.v<N>`` and namespace; the body is the same base64 gzip JSON a ConfigMap
holds; name, version, status, owner and createdAt/modifiedAt as columns) and the release's own labels
in ``custom_labels_v1``. Its migrator (sql-migrate) records the migrations ``custom_labels`` and
``init`` in ``gorp_migrations``; we create and record exactly those, so either side finds the other's
database set up. The connection string is libpq's (URL or key=value), as lib/pq reads it for Helm.

What we add to Helm's driver, invisible in the rows: writes are transactions under an advisory lock
per release (a revision is stored only if no newer one is), the schema is only created by a write (a
read, and so check mode, never writes), and a write cut by a dropped connection, a restarted server
or a statement timeout is retried on a new connection, recognising its own committed row.
"""
import os
import threading
import time

from .codec import ReleaseDecodeError, decode_release, encode_release
from .model import PENDING, status
from .storage import SYSTEM_LABELS, ReleaseExists, Storage, StorageError, least_recent, release_key

CONNECTION_ENV = "HELM_DRIVER_SQL_CONNECTION_STRING"
RECORD_TYPE = "helm.sh/release.v1"
OWNER = "helm"
# lib/pq (Helm's PostgreSQL driver, v1.12) requires TLS unless the connection string says otherwise;
# libpq would only prefer it. The same string must reach the same server the same way.
LIBPQ_DEFAULTS = {"sslmode": "require", "connect_timeout": "10"}
RETRY_SECONDS = 30.0

# sql-migrate applies a MemoryMigrationSource sorted by id: custom_labels before init.
MIGRATIONS = (
    ("custom_labels", (
        "CREATE TABLE custom_labels_v1 (releaseKey VARCHAR(64), releaseNamespace VARCHAR(67), "
        "key VARCHAR(317), value VARCHAR(63))",
        "CREATE INDEX ON custom_labels_v1 (releaseKey, releaseNamespace)",
        "GRANT ALL ON custom_labels_v1 TO PUBLIC",
        "ALTER TABLE custom_labels_v1 ENABLE ROW LEVEL SECURITY")),
    ("init", (
        "CREATE TABLE releases_v1 (key VARCHAR(90), type VARCHAR(64) NOT NULL, body TEXT NOT NULL, "
        "name VARCHAR(64) NOT NULL, namespace VARCHAR(64) NOT NULL, version INTEGER NOT NULL, "
        "status TEXT NOT NULL, owner TEXT NOT NULL, createdAt INTEGER NOT NULL, "
        "modifiedAt INTEGER NOT NULL DEFAULT 0, PRIMARY KEY(key, namespace))",
        "CREATE INDEX ON releases_v1 (key, namespace)",
        "CREATE INDEX ON releases_v1 (version)",
        "CREATE INDEX ON releases_v1 (status)",
        "CREATE INDEX ON releases_v1 (owner)",
        "CREATE INDEX ON releases_v1 (createdAt)",
        "CREATE INDEX ON releases_v1 (modifiedAt)",
        "GRANT ALL ON releases_v1 TO PUBLIC",
        "ALTER TABLE releases_v1 ENABLE ROW LEVEL SECURITY")),
)
# gorp's CreateTablesIfNotExists for sql-migrate's MigrationRecord on PostgreSQL.
MIGRATION_TABLE = ('CREATE TABLE IF NOT EXISTS "gorp_migrations" ("id" text not null primary key, '
                   '"applied_at" timestamp with time zone)')
# Messages of a connection attempt that may succeed a moment later (server restarting, network blip).
_TRANSIENT_CONNECT = ("Connection refused", "starting up", "shutting down", "in recovery mode", "timeout expired",
                      "Connection reset", "server closed the connection", "terminating connection")

_connections = {}  # (conninfo, thread) → open connection: the tasks of one `releases` run share it
_schema_ready = set()  # conninfo whose migrations this process has seen applied


def _psycopg():
    """psycopg 3, imported only when a task uses the SQL driver (no other driver needs it)."""
    try:
        import psycopg
    except ImportError as exc:
        raise StorageError("the sql storage driver needs psycopg 3 on the controller (pip install "
                           "'psycopg[binary]'): %s" % exc) from exc
    return psycopg


class SqlTarget:
    """A connection string, completed with lib/pq's defaults, and how errors name it (never the password)."""

    def __init__(self, conninfo):
        if not conninfo:
            raise StorageError("storage driver sql needs a connection string: set %s or the "
                               "sql_connection_string option" % CONNECTION_ENV)
        parse = _psycopg().conninfo
        try:
            params = parse.conninfo_to_dict(conninfo)
        except Exception as exc:  # psycopg.ProgrammingError; its text never holds the password
            raise StorageError("storage driver sql: the connection string cannot be parsed (%s)"
                               % _scrub(str(exc), conninfo)) from exc
        for key, value in LIBPQ_DEFAULTS.items():
            if key not in params and not (key == "sslmode" and os.environ.get("PGSSLMODE")):
                params[key] = value
        self.password = params.get("password") or ""
        self.conninfo = parse.make_conninfo(**params)
        host = params.get("host") or os.environ.get("PGHOST") or "localhost"
        port = params.get("port") or os.environ.get("PGPORT") or "5432"
        database = params.get("dbname") or os.environ.get("PGDATABASE") or params.get("user") or "?"
        self.where = "host %s port %s, database %s" % (host, port, database)

    def error(self, what, exc):
        text = " ".join(str(exc).split())
        for secret in (self.password, self.conninfo):
            if secret:
                text = text.replace(secret, "***")
        return StorageError("sql storage (%s): %s: %s" % (self.where, what, text))


def _scrub(text, conninfo):
    return text.replace(conninfo, "***")


class SqlStorage:
    """Release records of one namespace in Helm's PostgreSQL tables (same interface as ``Storage``)."""

    kind = "SQL"

    def __init__(self, namespace, conninfo=None, retry_seconds=RETRY_SECONDS):
        self.namespace = namespace
        self.target = SqlTarget(conninfo if conninfo is not None else os.environ.get(CONNECTION_ENV))
        self.retry_seconds = retry_seconds
        self._history = {}
        self.unsettled = set()

    # ---- connection and retries --------------------------------------------------------------
    def _connection(self, psycopg):
        conn = _connections.get(self._slot())
        if conn is not None and not conn.closed and not conn.broken:
            return conn
        conn = psycopg.connect(self.target.conninfo, autocommit=True)
        _connections[self._slot()] = conn
        return conn

    def _slot(self):
        return self.target.conninfo, threading.get_ident()

    def _forget(self):
        conn = _connections.pop(self._slot(), None)
        if conn is not None:
            try:
                conn.close()
            except Exception:  # closing a dead connection: nothing left to do
                pass

    def _run(self, what, work, write=False):
        """``work(conn)``; a dropped connection, server restart or timeout is retried until retry_seconds."""
        psycopg = _psycopg()
        deadline = time.monotonic() + self.retry_seconds
        delay = 0.2
        while True:
            connected = False
            try:
                conn = self._connection(psycopg)
                connected = True
                if write:
                    self._ensure_schema(conn, psycopg)
                return work(conn)
            except psycopg.OperationalError as exc:
                transient = connected or any(text in str(exc) for text in _TRANSIENT_CONNECT)
                self._forget()
                if not transient or time.monotonic() + delay > deadline:
                    raise self.target.error(what, exc) from exc
            except psycopg.InterfaceError as exc:  # the connection was closed under us
                self._forget()
                if time.monotonic() + delay > deadline:
                    raise self.target.error(what, exc) from exc
            except psycopg.Error as exc:
                raise self.target.error(what, exc) from exc
            time.sleep(delay)
            delay = min(delay * 2, 2.0)

    def _ensure_schema(self, conn, psycopg):
        """Create what Helm's migrations create, once, as they would (only missing migrations run)."""
        if self.target.conninfo in _schema_ready:
            return
        if len(self._applied(conn, psycopg)) < len(MIGRATIONS):
            with conn.transaction():
                conn.execute("SELECT pg_advisory_xact_lock(hashtextextended('helmless.core/migrations', 0))")
                applied = self._applied(conn, psycopg)
                missing = [(mid, stmts) for mid, stmts in MIGRATIONS if mid not in applied]
                if missing:
                    conn.execute(MIGRATION_TABLE)
                for mid, statements in missing:
                    for statement in statements:
                        conn.execute(statement)
                    conn.execute('INSERT INTO "gorp_migrations" ("id", "applied_at") VALUES (%s, clock_timestamp())', (mid,))
        _schema_ready.add(self.target.conninfo)

    def _applied(self, conn, psycopg):
        if conn.execute("SELECT to_regclass('gorp_migrations')").fetchone()[0] is None:
            return set()
        try:
            rows = conn.execute('SELECT "id" FROM "gorp_migrations"').fetchall()
        except psycopg.errors.InsufficientPrivilege as exc:
            raise self.target.error("read gorp_migrations (Helm's migrations; grant SELECT on it to this role)",
                                    exc) from exc
        return {row[0] for row in rows} & {mid for mid, _stmts in MIGRATIONS}

    # ---- encoding -----------------------------------------------------------------------------
    def _decode(self, row, labels):
        key, body, created, modified = row
        release = decode_release(body)
        own = dict(labels.get(key) or {})
        own.update({"name": release.get("name", ""), "owner": OWNER, "status": status(release),
                    "version": str(release.get("version", 0)), "createdAt": str(created)})
        if modified:
            own["modifiedAt"] = str(modified)
        release["_labels"] = own
        return release

    def _select(self, conn, where, args):
        """Decoded revisions matching ``where`` in our namespace (undecodable rows skipped, as Helm)."""
        try:
            rows = conn.execute("SELECT key, body, createdAt, modifiedAt FROM releases_v1 WHERE %s AND namespace = %%s"
                                % where, args + (self.namespace,)).fetchall()
        except _psycopg().errors.UndefinedTable:
            return []  # no write yet created Helm's tables: nothing is stored
        labels = self._custom_labels(conn, [row[0] for row in rows])
        out = []
        for row in rows:
            try:
                out.append(self._decode(row, labels))
            except (ReleaseDecodeError, KeyError, TypeError):
                continue
        return out

    def _custom_labels(self, conn, keys):
        if not keys:
            return {}
        try:
            rows = conn.execute("SELECT releaseKey, key, value FROM custom_labels_v1 WHERE releaseNamespace = %s "
                                "AND releaseKey = ANY(%s)", (self.namespace, keys)).fetchall()
        except _psycopg().errors.UndefinedTable:
            return {}
        out = {}
        for rkey, key, value in rows:
            if key not in SYSTEM_LABELS:
                out.setdefault(rkey, {})[key] = value
        return out

    # ---- queries ------------------------------------------------------------------------------
    def history(self, name, refresh=False):
        """All stored revisions of ``name``, oldest first."""
        if name in self._history and not refresh:
            return list(self._history[name])
        out = self._run("read the history of release %s" % name,
                        lambda conn: self._select(conn, "name = %s AND owner = %s", (name, OWNER)))
        out.sort(key=lambda r: r.get("version", 0))
        self._history[name] = out
        return list(out)

    def list_all(self, label_selector="owner=helm"):
        """Every revision in the namespace whose labels (its own and Helm's) match the selector."""
        out = self._run("list releases", lambda conn: self._select(conn, "owner = %s", (OWNER,)))
        if label_selector == "owner=helm":
            return out
        from ..postrender.resources import selector_matches  # Kubernetes selector syntax, as `helm list -l`
        return [r for r in out if selector_matches(label_selector, {k: v for k, v in r["_labels"].items()
                                                                    if k not in ("createdAt", "modifiedAt")})]

    def get(self, name, version):
        for release in self.history(name):
            if release["version"] == version:
                return release
        return None

    @staticmethod
    def last(history):
        return history[-1] if history else None

    deployed = staticmethod(Storage.deployed)

    @staticmethod
    def check_size(release):
        """A row's body has no practical limit (TEXT): only the Secret and ConfigMap drivers have 1 MiB."""
        return len(encode_release({k: v for k, v in release.items() if not k.startswith("_")}))

    # ---- writes -------------------------------------------------------------------------------
    def _lock(self, conn, name):
        """Serialise our writers of one release (Helm takes no lock; its rows are not changed by this)."""
        conn.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))",
                     ("helmless.core/%s/%s" % (self.namespace, name),))

    def create(self, release, history_max=0):
        """Store a new revision, pruning to ``history_max`` first as Helm; refuse if it or a newer one exists."""
        name, version = release["name"], release["version"]
        key = release_key(name, version)
        body = encode_release({k: v for k, v in release.items() if not k.startswith("_")})
        custom = {k: str(v) for k, v in (release.get("_labels") or {}).items() if k not in SYSTEM_LABELS}
        created = int(time.time())

        def work(conn):
            with conn.transaction():
                self._lock(conn, name)
                rows = conn.execute("SELECT key, version, status, body FROM releases_v1 WHERE name = %s AND "
                                    "owner = %s AND namespace = %s ORDER BY version FOR UPDATE",
                                    (name, OWNER, self.namespace)).fetchall()
                if any(row[0] == key and row[3] == body for row in rows):
                    return  # our own insert, committed before its answer was lost
                if any(row[1] >= version for row in rows):
                    raise ReleaseExists("release %s revision %d already exists" % (name, version))
                if history_max and history_max > 0:
                    history = [{"version": row[1], "info": {"status": row[2]}} for row in rows]
                    self._delete_keys(conn, [release_key(name, v) for v in least_recent(history, history_max - 1)])
                try:
                    conn.execute("INSERT INTO releases_v1 (key, type, body, name, namespace, version, status, owner, "
                                 "createdAt) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)",
                                 (key, RECORD_TYPE, body, name, self.namespace, version, status(release), OWNER,
                                  created))
                except _psycopg().errors.UniqueViolation as exc:  # helm, which takes no lock, stored it meanwhile
                    raise ReleaseExists("release %s revision %d already exists" % (name, version)) from exc
                for label, value in custom.items():
                    conn.execute("INSERT INTO custom_labels_v1 (releaseKey, releaseNamespace, key, value) "
                                 "VALUES (%s, %s, %s, %s)", (key, self.namespace, label, value))
        self._run("create release %s" % key, work, write=True)
        release.setdefault("_labels", {})["createdAt"] = str(created)
        self._history.pop(name, None)
        self._settle(release)

    def _delete_keys(self, conn, keys):
        if keys:
            conn.execute("DELETE FROM releases_v1 WHERE key = ANY(%s) AND namespace = %s", (keys, self.namespace))
            conn.execute("DELETE FROM custom_labels_v1 WHERE releaseKey = ANY(%s) AND releaseNamespace = %s",
                         (keys, self.namespace))

    def _settle(self, release):
        key = (release["name"], release["version"])
        if status(release) in PENDING:
            self.unsettled.add(key)
        else:
            self.unsettled.discard(key)

    def update(self, release):
        """Rewrite a stored revision (body, status, modifiedAt); its custom labels stay, as Helm's Update."""
        key = release_key(release["name"], release["version"])
        body = encode_release({k: v for k, v in release.items() if not k.startswith("_")})

        def work(conn):
            cur = conn.execute("UPDATE releases_v1 SET body = %s, name = %s, version = %s, status = %s, owner = %s, "
                               "modifiedAt = %s WHERE key = %s AND namespace = %s",
                               (body, release["name"], release["version"], status(release), OWNER, int(time.time()),
                                key, self.namespace))
            return cur.rowcount
        if not self._run("update release %s" % key, work, write=True):
            raise StorageError("update release %s: no such row in releases_v1 for namespace %s (deleted, or "
                               "hidden from this database role)" % (key, self.namespace))
        self._history.pop(release["name"], None)
        self._settle(release)

    def delete(self, name, version):
        def work(conn):
            with conn.transaction():
                self._lock(conn, name)
                self._delete_keys(conn, [release_key(name, version)])
        self._run("delete release %s" % release_key(name, version), work, write=True)
        self._history.pop(name, None)
        self.unsettled.discard((name, version))

    def prune(self, name, keep):
        """Helm's removeLeastRecent: delete the oldest revisions except the last deployed one."""
        doomed = least_recent(self.history(name, refresh=True), keep)
        for version in doomed:
            self.delete(name, version)
        return doomed
