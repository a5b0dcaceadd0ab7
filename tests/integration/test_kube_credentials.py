"""Exec credential plugins whose token starts failing mid-run: the plugin is asked again, once, as
client-go does; and no credential ever shows in an error."""
import os
import stat
import sys

import pytest

from ansible_collections.helmless.core.plugins.module_utils.actions.operations import ReleaseEngine
from ansible_collections.helmless.core.plugins.module_utils.kube.client import KubeClient
from ansible_collections.helmless.core.plugins.module_utils.kube.config import load_connection
from ansible_collections.helmless.core.plugins.module_utils.kube.errors import ApiError

from faultproxy import burst, faultproxy  # noqa: F401 (fixture)
from test_release_support import configmap, literal_input, opts

PLUGIN = """#!%s
import json, os
path = os.environ["COUNTER"]
n = int(open(path).read()) + 1 if os.path.exists(path) else 1
open(path, "w").write(str(n))
print(json.dumps({"apiVersion": "client.authentication.k8s.io/v1", "kind": "ExecCredential",
                  "status": {"token": "secret-token-%%d" %% n}}))
"""


def _plugin(tmp_path):
    path = tmp_path / "credential-plugin"
    path.write_text(PLUGIN % sys.executable)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    counter = tmp_path / "runs"
    return {"apiVersion": "client.authentication.k8s.io/v1", "command": str(path),
            "env": [{"name": "COUNTER", "value": str(counter)}], "interactiveMode": "Never"}, counter


def test_a_token_that_expires_mid_run_is_refreshed_once_and_the_run_completes(faultproxy, namespace, tmp_path):
    exec_config, counter = _plugin(tmp_path)
    client = KubeClient(load_connection(faultproxy.kubeconfig(exec_config=exec_config)))
    engine = ReleaseEngine(client, "rel", namespace)
    # the first token is accepted for 5 requests, then refused for good (it "expired")
    faultproxy.add("unauthorized", token="secret-token-1", schedule=burst(5, 10 ** 6))
    out = engine.present(literal_input([configmap("cm%d" % i, {"k": "v"}) for i in range(5)]), opts())
    assert out.release["info"]["status"] == "deployed"
    assert counter.read_text() == "2"  # the plugin ran twice: at the start and after the first 401
    refused = sorted((e["method"], e["path"].split("?")[0]) for e in faultproxy.entries() if e["status"] == 401)
    assert refused  # (parallel reads may all meet the expired token: each is resent once)
    assert sorted(r[:2] for r in client.retried if r[2] == "HTTP 401, credentials refreshed") == refused


def test_a_plugin_whose_new_token_is_refused_too_fails_without_showing_either(faultproxy, namespace, tmp_path):
    exec_config, counter = _plugin(tmp_path)
    client = KubeClient(load_connection(faultproxy.kubeconfig(exec_config=exec_config)))
    faultproxy.add("unauthorized", path="/configmaps")
    with pytest.raises(ApiError) as err:
        client.get("v1", "ConfigMap", "x", namespace)
    assert err.value.status == 401
    assert counter.read_text() == "2"  # refreshed once, not in a loop
    assert "secret-token" not in str(err.value)
