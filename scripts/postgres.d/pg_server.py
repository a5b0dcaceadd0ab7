"""A throwaway PostgreSQL server on 127.0.0.1 for the SQL storage driver's tests and the demo.

Debian's ``postgresql`` package provides the server (installed with apt-get when its binaries are
missing). The cluster lives in one directory: ``data/`` (initdb), ``socket/``, ``log``, ``state.json``
(port, superuser password, URL). The server refuses to run as root, so as root it runs as the
package's ``postgres`` user. Connections over TCP need the password (scram-sha-256), so tests see
the same authentication a real database asks for.
"""
import glob
import json
import os
import pwd
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import time

HOST = "127.0.0.1"
SUPERUSER = "postgres"


class PostgresError(Exception):
    pass


def default_dir():
    return os.environ.get("HELMLESS_POSTGRES_DIR") or os.path.join(
        tempfile.gettempdir(), "helmless-postgres-%d" % os.getuid())


def _bin_dir():
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/postgres"), key=lambda p: int(p.split("/")[-3]))
    return os.path.dirname(found[-1]) if found else None


def server_binaries():
    """The newest installed server's bin dir, installing Debian's ``postgresql`` when there is none."""
    found = _bin_dir()
    if found:
        return found
    if os.geteuid() != 0:
        raise PostgresError("no PostgreSQL server under /usr/lib/postgresql/*/bin: install Debian's postgresql "
                            "package (apt-get install postgresql)")
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    install = ["apt-get", "install", "-y", "-q", "--no-install-recommends", "postgresql"]
    if subprocess.run(install, env=env, capture_output=True).returncode != 0:
        subprocess.run(["apt-get", "update", "-q"], env=env, capture_output=True, check=False)
        proc = subprocess.run(install, env=env, capture_output=True, text=True)
        if proc.returncode != 0:
            raise PostgresError("apt-get install postgresql failed:\n%s" % proc.stderr[-2000:])
    found = _bin_dir()
    if not found:
        raise PostgresError("apt-get installed postgresql but no server is under /usr/lib/postgresql/*/bin")
    return found


def _owner():
    """(uid, gid) the server runs as: ourselves, or the ``postgres`` user when we are root."""
    if os.geteuid() != 0:
        return None
    try:
        entry = pwd.getpwnam("postgres")
    except KeyError as exc:
        raise PostgresError("running as root needs the postgres user (Debian's postgresql package creates it)") from exc
    return entry.pw_uid, entry.pw_gid


def _run(argv, owner, **kwargs):
    def demote():
        os.setgid(owner[1])
        os.setuid(owner[0])
    return subprocess.run(argv, preexec_fn=demote if owner else None, capture_output=True, text=True, **kwargs)


def _free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def _state(directory):
    try:
        with open(os.path.join(directory, "state.json")) as fh:
            return json.load(fh)
    except (OSError, ValueError):
        return None


def url(state, database=None, user=None, password=None):
    """A libpq URL for the server (sslmode=disable: the throwaway server has no certificate)."""
    return "postgresql://%s:%s@%s:%d/%s?sslmode=disable" % (
        user or SUPERUSER, password or state["password"], HOST, state["port"], database or "postgres")


def running(directory=None):
    """The state of the server in ``directory`` if it answers, else None."""
    directory = directory or default_dir()
    state = _state(directory)
    if not state:
        return None
    proc = subprocess.run([os.path.join(state["bin"], "pg_isready"), "-h", HOST, "-p", str(state["port"])],
                          capture_output=True, check=False)
    return state if proc.returncode == 0 else None


def start(directory=None):
    """Start (or reuse) a server in ``directory``; returns its state (``url``, ``port``, ``password``, ``dir``)."""
    directory = os.path.abspath(directory or default_dir())
    state = running(directory)
    if state:
        return state
    bindir = server_binaries()
    owner = _owner()
    if os.path.isdir(directory):
        stop(directory)
    os.makedirs(directory, mode=0o700)
    data, sock = os.path.join(directory, "data"), os.path.join(directory, "socket")
    os.makedirs(sock)
    password = secrets.token_hex(12)
    pwfile = os.path.join(directory, "pwfile")
    with open(pwfile, "w") as fh:
        fh.write(password + "\n")
    if owner:
        for path in (directory, sock, pwfile):
            os.chown(path, *owner)
    proc = _run([os.path.join(bindir, "initdb"), "-D", data, "-U", SUPERUSER, "--pwfile", pwfile,
                 "--auth-host=scram-sha-256", "--auth-local=trust", "-E", "UTF8", "--locale=C.UTF-8"], owner)
    os.unlink(pwfile)
    if proc.returncode != 0:
        raise PostgresError("initdb failed:\n%s%s" % (proc.stdout[-1500:], proc.stderr[-1500:]))
    port = _free_port()
    state = {"dir": directory, "bin": bindir, "port": port, "password": password, "socket": sock}
    _write_state(state)
    _pg_ctl_start(state, owner)
    state["url"] = url(state)
    _write_state(state)
    return state


def _write_state(state):
    path = os.path.join(state["dir"], "state.json")
    with open(path, "w") as fh:
        json.dump(state, fh, indent=1)
    os.chmod(path, 0o600)


def _pg_ctl_start(state, owner):
    log = os.path.join(state["dir"], "log")
    options = "-h %s -p %d -k %s -c fsync=off -c full_page_writes=off -c max_connections=200" % (
        HOST, state["port"], state["socket"])
    proc = _run([os.path.join(state["bin"], "pg_ctl"), "start", "-w", "-t", "60", "-D",
                 os.path.join(state["dir"], "data"), "-l", log, "-o", options], owner)
    if proc.returncode != 0:
        tail = ""
        if os.path.exists(log):
            with open(log) as fh:
                tail = fh.read()[-2000:]
        raise PostgresError("postgres did not start:\n%s%s%s" % (proc.stdout[-1000:], proc.stderr[-1000:], tail))


def restart(directory=None, down=0.0):
    """Stop the server abruptly (``immediate``: every session is cut) and start it again on the same port."""
    state = _state(directory or default_dir())
    if not state:
        raise PostgresError("no server in %s" % (directory or default_dir()))
    owner = _owner()
    _run([os.path.join(state["bin"], "pg_ctl"), "stop", "-w", "-m", "immediate", "-D",
          os.path.join(state["dir"], "data")], owner)
    if down:
        time.sleep(down)
    _pg_ctl_start(state, owner)


def stop(directory=None):
    """Stop the server (fast shutdown) and remove its directory."""
    directory = directory or default_dir()
    state = _state(directory)
    data = os.path.join(directory, "data")
    if state and os.path.isdir(data):
        proc = _run([os.path.join(state["bin"], "pg_ctl"), "stop", "-w", "-t", "30", "-m", "fast", "-D", data],
                    _owner())
        if proc.returncode != 0:
            _kill_postmaster(data)
    shutil.rmtree(directory, ignore_errors=True)


def _kill_postmaster(data):
    try:
        with open(os.path.join(data, "postmaster.pid")) as fh:
            pid = int(fh.readline())
        os.kill(pid, signal.SIGQUIT)
    except (OSError, ValueError):
        pass


def psql(state, sql, database="postgres", user=None, password=None):
    """Run ``sql`` with the psql client; returns its stdout (unaligned, tuples only)."""
    env = dict(os.environ, PGPASSWORD=password or state["password"])
    proc = subprocess.run([os.path.join(state["bin"], "psql"), "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1",
                           "-h", HOST, "-p", str(state["port"]), "-U", user or SUPERUSER, "-d", database,
                           "-c", sql], env=env, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise PostgresError("psql: %s" % proc.stderr.strip())
    return proc.stdout
