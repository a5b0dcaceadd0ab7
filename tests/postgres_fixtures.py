"""A real PostgreSQL for the SQL storage driver's tests (scripts/postgres; no tests here).

Each test process starts its own server (a second or two, Debian's postgresql installed by the script
when missing) in a fresh directory on loopback and stops it when the process ends; each test gets a
fresh database. Test modules import the fixtures: ``from postgres_fixtures import postgres, sql_database``.
"""
import atexit
import os
import subprocess
import sys
import tempfile
import uuid

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts", "postgres.d"))

import pg_server  # noqa: E402


class Postgres:
    """A running server: ``url(database, user, password)``, ``psql(sql, database)``, ``restart()``, ``dir``."""

    def __init__(self, state):
        self.state = state
        self.dir = state["dir"]
        self.port = state["port"]
        self.password = state["password"]

    def url(self, database="postgres", user=None, password=None):
        return pg_server.url(self.state, database, user, password)

    def psql(self, sql, database="postgres", user=None, password=None):
        return pg_server.psql(self.state, sql, database, user, password)

    def new_database(self):
        name = "t_" + uuid.uuid4().hex[:12]
        self.psql("CREATE DATABASE %s" % name)
        return name

    def drop_database(self, name):
        self.psql("DROP DATABASE IF EXISTS %s WITH (FORCE)" % name)

    def schema(self, database):
        """``pg_dump --schema-only`` of the database, without its comments: what a migration created."""
        proc = subprocess.run([os.path.join(self.state["bin"], "pg_dump"), "--schema-only", "-h", pg_server.HOST,
                               "-p", str(self.port), "-U", pg_server.SUPERUSER, database],
                              env=dict(os.environ, PGPASSWORD=self.password), capture_output=True, text=True,
                              check=True)
        return [line for line in proc.stdout.splitlines()  # \\restrict lines carry a random key per dump
                if line and not line.startswith(("--", "\\restrict", "\\unrestrict"))]

    def restart(self, down=0.0):
        pg_server.restart(self.dir, down)


_started = {}


def _stop_all():
    for directory in list(_started):
        pg_server.stop(directory)
        _started.pop(directory, None)


atexit.register(_stop_all)


@pytest.fixture(scope="session")
def postgres():
    """This test process's PostgreSQL server (``Postgres``)."""
    directory = os.path.join(tempfile.gettempdir(), "helmless-pg-%d-%s" % (os.getpid(), uuid.uuid4().hex[:6]))
    try:
        state = pg_server.start(directory)
    except pg_server.PostgresError as exc:
        pytest.fail("PostgreSQL did not start: %s" % exc, pytrace=False)
    _started[directory] = True
    yield Postgres(state)
    pg_server.stop(directory)
    _started.pop(directory, None)


@pytest.fixture
def sql_database(postgres):
    """The URL (superuser, sslmode=disable) of a fresh, empty database, dropped after the test."""
    name = postgres.new_database()
    yield postgres.url(name)
    postgres.drop_database(name)
