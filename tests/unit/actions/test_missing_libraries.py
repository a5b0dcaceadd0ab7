"""A target without a required Python library gets Ansible's missing-library message, not a traceback."""
import http.server
import json
import os
import subprocess
import sys
import threading

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
COLLECTIONS = os.path.join(ROOT, ".build", "collections")
pytestmark = pytest.mark.ansible_core  # scripts/test runs this file on every ansible-core series

# Runs a module the way Ansible does (args file in argv[1]) with the named libraries unimportable.
_RUN_WITHOUT = """
import runpy, sys
for name in sys.argv[3].split(","):
    sys.modules[name] = None  # any import of it now raises ImportError
module, sys.argv = sys.argv[1], [sys.argv[1], sys.argv[2]]
runpy.run_module(module, run_name="__main__")
"""


def _run_without(libraries, module, args, tmp_path):
    args_file = tmp_path / "args.json"
    args_file.write_text(json.dumps({"ANSIBLE_MODULE_ARGS": args}))
    env = dict(os.environ, PYTHONPATH=COLLECTIONS + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run(
        [sys.executable, "-c", _RUN_WITHOUT, "ansible_collections.helmless.core.plugins.modules." + module,
         str(args_file), ",".join(libraries)], capture_output=True, text=True, env=env, cwd=str(tmp_path))
    assert proc.stdout.strip(), proc.stderr
    return json.loads(proc.stdout)


@pytest.mark.parametrize("module, args", [
    ("template", {"chart_ref": "chart"}),
    ("release", {"name": "web", "namespace": "apps", "chart_ref": "chart"}),
    ("rollback", {"name": "web", "namespace": "apps"}),
    ("release_info", {"namespace": "apps"}),
    ("release_test", {"name": "web", "namespace": "apps"}),
    ("repository", {"name": "example", "url": "https://charts.example.com"}),
    ("pull", {"chart_ref": "demo", "repo_url": "https://charts.example.com", "destination": "charts"}),
])
def test_every_module_without_pyyaml_fails_naming_pyyaml(module, args, tmp_path):
    result = _run_without(["yaml"], module, args, tmp_path)
    assert result["failed"] is True
    assert result["msg"].startswith("Failed to import the required Python library (PyYAML) on ")
    assert "required to read charts, values and manifests" in result["msg"]


def test_a_library_only_some_charts_use_is_still_named_before_anything_runs(tmp_path):
    result = _run_without(["cryptography"], "template", {"chart_ref": "chart"}, tmp_path)
    assert result["failed"] is True
    assert result["msg"].startswith("Failed to import the required Python library (cryptography) on ")


def test_registry_auth_needs_no_third_party_library(tmp_path):
    """It gets as far as the registry (refused connection on a closed port), not a missing-library message."""
    args = {"host": "127.0.0.1:9", "username": "u", "password": "p", "plain_http": True}
    result = _run_without(["yaml", "jsonpatch", "jsonschema", "cryptography", "bcrypt"], "registry_auth", args, tmp_path)
    assert result["failed"] is True
    assert result["msg"].startswith('authenticating to "127.0.0.1:9": '), result["msg"]


class _Forbidding(http.server.BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 (http.server's naming)
        body = json.dumps({"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "Forbidden",
                           "message": "forbidden by the test server", "code": 403}).encode()
        self.send_response(403)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def test_the_cluster_modules_reach_the_api_server_without_urllib3(tmp_path):
    """The kube client is the standard library's http.client: without urllib3 a task still talks to the
    server (here one that refuses every request, so the error is the server's own)."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Forbidding)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        host = "http://127.0.0.1:%d" % server.server_address[1]
        result = _run_without(["urllib3"], "release_info", {"namespace": "apps", "host": host}, tmp_path)
    finally:
        server.shutdown()
    assert result["failed"] is True
    assert "forbidden by the test server" in result["msg"], result["msg"]
