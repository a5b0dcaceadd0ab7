"""Docker credential helpers (``credsStore``, per-registry ``credHelpers``) for OCI registries, as Helm uses them:
``docker-credential-<name> get|store|erase`` from PATH. The helper is a small program written here (it keeps
its credentials in a JSON file beside it); the registry is a real one behind a token-auth front, and the real
helm v4 CLI pulls with the same config and helper, so the protocol is checked against Helm itself."""
import glob
import json
import os
import stat
import subprocess
import sys

import pytest

from ocikit import TokenAuthProxy, oci_registry  # noqa: F401 - fixture
from repokit import env, run_module, write_chart  # noqa: F401 - fixture

USER, PASSWORD = "robot", "t0ken-pass"
HELPER = """#!{python}
import json, os, sys
store = os.path.join(os.path.dirname(os.path.abspath(__file__)), "{name}.json")
mode = os.environ.get("HELPER_MODE", "ok")
if mode == "fail":
    print("keychain locked"); sys.exit(3)
if mode == "garbage" and sys.argv[1] == "get":
    print("<<not json>>"); sys.exit(0)
data = json.load(open(store)) if os.path.exists(store) else {{}}
request = sys.stdin.read()
with open(store + ".log", "a") as log:
    log.write(sys.argv[1] + " " + (request if sys.argv[1] != "store" else json.loads(request)["ServerURL"]) + "\\n")
if sys.argv[1] == "get":
    if request not in data:
        print("credentials not found in native keychain"); sys.exit(1)
    print(json.dumps({{"ServerURL": request, "Username": data[request][0], "Secret": data[request][1]}}))
elif sys.argv[1] == "store":
    item = json.loads(request)
    data[item["ServerURL"]] = [item["Username"], item["Secret"]]
    json.dump(data, open(store, "w"))
elif sys.argv[1] == "erase":
    if request not in data:
        print("credentials not found in native keychain"); sys.exit(1)
    del data[request]
    json.dump(data, open(store, "w"))
"""


@pytest.fixture
def front(oci_registry, tmp_path):
    """A registry holding demo 1.0.0 (pushed by Helm) that only answers with a token for USER/PASSWORD."""
    from helm_oracle import package, push
    archive = package(write_chart(tmp_path / "src", "demo", "1.0.0"), destination=str(tmp_path / "pkg"))
    push(archive, "oci://%s/charts" % oci_registry, plain_http=True)
    proxy = TokenAuthProxy(oci_registry, USER, PASSWORD)
    try:
        yield proxy
    finally:
        proxy.close()


@pytest.fixture
def helpers(tmp_path, env):
    """Writes helper programs into a bin directory put first on the module's PATH; returns (env, make)."""
    bindir = tmp_path / "bin"
    bindir.mkdir()

    def make(name, holds=None):
        path = bindir / ("docker-credential-" + name)
        path.write_text(HELPER.format(python=sys.executable, name=name))
        path.chmod(path.stat().st_mode | stat.S_IXUSR)
        if holds:
            (bindir / (name + ".json")).write_text(json.dumps(holds))
        return bindir / (name + ".json")
    return dict(env, PATH=str(bindir) + os.pathsep + os.environ["PATH"]), make


def _config(env, content):
    path = os.path.join(env["HELM_CONFIG_HOME"], "registry", "config.json")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as handle:
        json.dump(content, handle)
    return path


def _pull(front, env, tmp_path, dest="charts"):
    args = {"chart_ref": "oci://%s/charts/demo" % front.address, "chart_version": "1.0.0",
            "destination": str(tmp_path / dest), "plain_http": True}
    return run_module("pull", args, env, tmp_path)[0]


def _helm4():
    found = glob.glob(os.path.expanduser("~/.cache/helmless/helm4-*/**/helm"), recursive=True)
    assert found, "helm v4 CLI is not built: run scripts/controlplane build"
    return found[0]


def test_pulls_use_the_credsstore_helper_as_helm_does(front, helpers, tmp_path):
    env, make = helpers
    make("vault", {front.address: [USER, PASSWORD]})
    _config(env, {"auths": {}, "credsStore": "vault"})
    result = _pull(front, env, tmp_path)
    assert result.get("changed") and not result.get("failed"), result
    (tmp_path / "helm").mkdir()
    helm = subprocess.run([_helm4(), "pull", "oci://%s/charts/demo" % front.address, "--version", "1.0.0",
                           "--plain-http", "--destination", str(tmp_path / "helm")], env=env, capture_output=True,
                          text=True)
    assert helm.returncode == 0, helm.stderr
    assert (tmp_path / "helm" / "demo-1.0.0.tgz").read_bytes() == (tmp_path / "charts" / "demo-1.0.0.tgz").read_bytes()


def test_a_per_registry_credhelper_wins_over_credsstore_and_over_auths(front, helpers, tmp_path):
    env, make = helpers
    make("wrong", {front.address: [USER, "nope"]})
    make("ecr", {front.address: [USER, PASSWORD]})
    _config(env, {"auths": {front.address: {"auth": "eDp5"}}, "credsStore": "wrong",
                  "credHelpers": {front.address: "ecr"}})
    result = _pull(front, env, tmp_path)
    assert not result.get("failed"), result


def test_a_helper_that_fails_or_prints_garbage_fails_naming_it(front, helpers, tmp_path):
    env, make = helpers
    make("vault", {front.address: [USER, PASSWORD]})
    _config(env, {"credsStore": "vault"})
    failed = _pull(front, dict(env, HELPER_MODE="fail"), tmp_path)
    assert failed["failed"] and "docker-credential-vault get exited with status 3" in failed["msg"], failed["msg"]
    assert "keychain locked" in failed["msg"]
    garbage = _pull(front, dict(env, HELPER_MODE="garbage"), tmp_path)
    assert garbage["failed"] and "docker-credential-vault" in garbage["msg"] and "JSON" in garbage["msg"], garbage
    _config(env, {"credsStore": "absent"})
    missing = _pull(front, env, tmp_path)
    assert missing["failed"] and "docker-credential-absent" in missing["msg"] and "PATH" in missing["msg"]
    assert not (tmp_path / "charts").exists()


def test_login_and_logout_go_through_the_helper_and_leave_auths_alone(front, helpers, tmp_path):
    env, make = helpers
    store = make("vault")
    path = _config(env, {"auths": {}, "credsStore": "vault"})
    with open(path, "rb") as handle:
        before = handle.read()
    args = {"host": front.address, "username": USER, "password": PASSWORD, "plain_http": True}
    first = run_module("registry_auth", args, env, tmp_path)[0]
    again = run_module("registry_auth", args, env, tmp_path)[0]
    assert first["changed"] and not again["changed"], (first, again)
    assert json.loads(store.read_text()) == {front.address: [USER, PASSWORD]}
    with open(path, "rb") as handle:
        assert handle.read() == before  # the password is not in the file
    assert not _pull(front, env, tmp_path).get("failed")
    out = run_module("registry_auth", {"host": front.address, "state": "absent"}, env, tmp_path)[0]
    assert out["changed"] and json.loads(store.read_text()) == {}
