"""A task loads only the code its options need: every task pays its imports, in a fresh process.

A local chart with local values files never loads the repository code (HTTP, TLS, OCI, index files):
neither ``template`` nor ``release`` (they share ``ChartSource.local`` and the values-files step)."""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
_CHILD = r"""
import json, sys
sys.path.insert(0, %(collections)r)
from ansible_collections.helmless.core.plugins.module_utils.ansible.options import TEMPLATE
from ansible_collections.helmless.core.plugins.module_utils.ansible.runner import run_template_task
params = {k: o.get("default") for k, o in TEMPLATE.items()}
params.update(%(options)r)
try:
    stdout = run_template_task(params)[0]["stdout"]
except Exception as exc:  # the failure is reported with what was loaded
    stdout = "error: %%s" %% exc
prefix = "ansible_collections.helmless.core.plugins.module_utils."
print(json.dumps({"stdout": stdout,
                  "loaded": sorted(m[len(prefix):] for m in sys.modules if m.startswith(prefix)),
                  "libraries": sorted(sys.modules)}))
"""


def _template_in_child(options):
    code = _CHILD % {"collections": os.path.join(ROOT, ".build", "collections"), "options": options}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env=dict(os.environ, HELMLESS_CACHE="off"))
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_a_local_chart_with_local_values_files_loads_no_repository_code(tmp_path):
    values = tmp_path / "values.yaml"
    values.write_text("replicaCount: 3\n")
    found = _template_in_child({"chart_ref": os.path.join(ROOT, "playbooks", "charts", "webapp"),
                                "release_name": "r", "release_namespace": "ns", "values_files": [str(values)]})
    assert "replicas: 3" in found["stdout"]
    assert [m for m in found["loaded"] if m == "repo" or m.startswith("repo.")] == []
    assert {"urllib.request", "http.client", "ssl", "cryptography"}.isdisjoint(found["libraries"])


def test_a_chart_to_fetch_loads_the_repository_code(tmp_path):
    found = _template_in_child({"chart_ref": "stable/nothing", "release_name": "r"})
    assert found["stdout"].startswith("error: ")
    assert "repo.locate" in found["loaded"]
