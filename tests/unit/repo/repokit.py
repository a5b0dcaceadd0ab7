"""Chart repositories for tests: small charts packaged and indexed by the real helm CLI at the pin,
served over HTTP from 127.0.0.1 on an ephemeral port, optionally behind Basic auth."""
import base64
import functools
import http.server
import json
import os
import ssl
import subprocess
import sys
import threading

import pytest

COLLECTIONS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))), ".build", "collections")


def write_chart(root, name, version, templates=None, deps=None, values="greeting: hello\n"):
    """A chart directory ``root/name``; ``deps`` are Chart.yaml dependency dicts."""
    import yaml
    path = os.path.join(str(root), name)
    os.makedirs(os.path.join(path, "templates"), exist_ok=True)
    meta = {"apiVersion": "v2", "name": name, "version": version}
    if deps:
        meta["dependencies"] = deps
    with open(os.path.join(path, "Chart.yaml"), "w") as handle:
        yaml.safe_dump(meta, handle, sort_keys=False)
    with open(os.path.join(path, "values.yaml"), "w") as handle:
        handle.write(values)
    templates = templates if templates is not None else {
        "cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-%s\ndata:\n"
                   "  chart: {{ .Chart.Name }}-{{ .Chart.Version }}\n  greeting: {{ .Values.greeting | quote }}\n"
                   % name}
    for rel, text in templates.items():
        with open(os.path.join(path, "templates", rel), "w") as handle:
            handle.write(text)
    return path


def publish(repo_dir, src_dir, charts):
    """Package ``(name, version)`` charts with Helm into ``repo_dir`` and index them (``helm repo index``)."""
    from helm_oracle import package, repo_index
    os.makedirs(repo_dir, exist_ok=True)
    for name, version in charts:
        package(write_chart(os.path.join(src_dir, "%s-%s" % (name, version)), name, version), repo_dir)
    repo_index(repo_dir)


class Server(object):
    """A static file server; ``requests`` records (path, Authorization header) per request."""

    def __init__(self, directory, credentials=None, tls=None):
        self.requests = []
        expected = None
        if credentials:
            expected = "Basic " + base64.b64encode(("%s:%s" % credentials).encode()).decode()
        server = self

        class Handler(http.server.SimpleHTTPRequestHandler):
            def do_GET(self):
                auth = self.headers.get("Authorization")
                server.requests.append((self.path, auth))
                if expected and auth != expected:
                    self.send_response(401)
                    self.send_header("WWW-Authenticate", 'Basic realm="charts"')
                    self.end_headers()
                    return
                super().do_GET()

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(
            ("127.0.0.1", 0), functools.partial(Handler, directory=str(directory)))
        scheme = "http"
        if tls:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(tls[0], tls[1])
            if len(tls) > 2:  # (cert, key, client CA): mutual TLS
                context.verify_mode = ssl.CERT_REQUIRED
                context.load_verify_locations(tls[2])
            self.httpd.socket = context.wrap_socket(self.httpd.socket, server_side=True)
            scheme = "https"
        self.url = "%s://127.0.0.1:%d" % (scheme, self.httpd.server_address[1])
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def self_signed(directory, stem="tls"):
    """A self-signed certificate for 127.0.0.1; returns (cert path, key path)."""
    import datetime
    import ipaddress
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(hours=1))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), True)
            .sign(key, hashes.SHA256()))
    cert_path, key_path = (os.path.join(str(directory), stem + ext) for ext in (".crt", ".key"))
    with open(cert_path, "wb") as handle:
        handle.write(cert.public_bytes(serialization.Encoding.PEM))
    with open(key_path, "wb") as handle:
        handle.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                       serialization.NoEncryption()))
    return cert_path, key_path


@pytest.fixture
def serve():
    servers = []

    def start(directory, credentials=None, tls=None):
        server = Server(directory, credentials, tls)
        servers.append(server)
        return server
    yield start
    for server in servers:
        server.close()


@pytest.fixture
def helm_home(tmp_path, monkeypatch):
    """Helm's config and caches under tmp_path (parallel-safe: nothing shared with the user's)."""
    home = tmp_path / "helmhome"
    monkeypatch.setenv("HELM_CONFIG_HOME", str(home / "config"))
    monkeypatch.setenv("HELM_CACHE_HOME", str(home / "cache"))
    monkeypatch.setenv("HELM_DATA_HOME", str(home / "data"))
    for name in ("HELM_REPOSITORY_CONFIG", "HELM_REPOSITORY_CACHE", "HELM_CONTENT_CACHE"):
        monkeypatch.delenv(name, raising=False)
    return home


@pytest.fixture
def env(tmp_path):
    """The environment a module runs in: the collection importable, Helm's and Docker's homes under tmp_path."""
    home = tmp_path / "helmhome"
    out = {k: v for k, v in os.environ.items() if not k.startswith("HELM_") and k != "DOCKER_CONFIG"}
    out.update(PYTHONPATH=COLLECTIONS + os.pathsep + os.environ.get("PYTHONPATH", ""),
               ANSIBLE_COLLECTIONS_PATH=COLLECTIONS, HELM_CONFIG_HOME=str(home / "config"),
               HELM_CACHE_HOME=str(home / "cache"), HOME=str(tmp_path))
    return out


def run_module(name, args, env, cwd, check_mode=False):
    """Run module ``name`` as Ansible runs it (args file in argv); returns (result, raw stdout)."""
    args_file = os.path.join(str(cwd), "args.json")
    with open(args_file, "w") as handle:
        json.dump({"ANSIBLE_MODULE_ARGS": dict(args, _ansible_check_mode=check_mode)}, handle)
    proc = subprocess.run([sys.executable, "-m", "ansible_collections.helmless.core.plugins.modules." + name,
                           args_file], capture_output=True, text=True, env=env, cwd=str(cwd))
    assert proc.stdout.strip(), proc.stderr
    return json.loads(proc.stdout), proc.stdout


def run_playbook(playbook, env, cwd):
    """``ansible-playbook`` on localhost with the test's Python; returns the CompletedProcess (text)."""
    return subprocess.run(["ansible-playbook", "-i", "localhost,", "-c", "local",
                           "-e", "ansible_python_interpreter=" + sys.executable, str(playbook)],
                          capture_output=True, text=True, env=env, cwd=str(cwd))


def fetch(options, warnings=None):
    """``repo.fetch_chart`` of the chart a task's options name (the source built as the modules build it)."""
    from ansible_collections.helmless.core.plugins.module_utils.ansible.request import chart_source
    from ansible_collections.helmless.core.plugins.module_utils.repo import fetch_chart
    return fetch_chart(chart_source(options), warnings)
