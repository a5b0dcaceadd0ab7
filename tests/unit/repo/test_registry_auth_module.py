"""The registry_auth module (kubernetes.core.helm_registry_auth drop-in) stores what real Helm's ``helm registry
login`` stores, and OCI pulls without credentials in the task use that login, as Helm's do. The expected
config files and archives come from the real helm CLI (helm registry login/logout, helm pull) at test time; the registry
is a real one (go-containerregistry) behind a Docker token-auth front."""
import json
import os
import shutil

import pytest

from ocikit import TokenAuthProxy, oci_registry  # noqa: F401 - fixture
from repokit import env, run_module, run_playbook, write_chart  # noqa: F401 - fixture

USER, PASSWORD = "robot", "t0ken-pass&<x>"
# A config file someone already has: another registry's login and a key Helm does not know.
EXISTING = """{"credsStore": "", "auths": { "other.example:5000": {"auth": "b3RoZXI6c2VjcmV0", "email": "x"} },
  "experimental": {"enabled": true, "note": "a<b & c>d, caf\\u00e9 \u00e9", "ratio": 2.50, "list": [1, [], {}]}}"""


@pytest.fixture
def front(oci_registry, tmp_path):
    """A registry holding demo 1.0.0 (pushed by Helm) that only answers with a token for USER/PASSWORD."""
    from helm_oracle import package, push
    archive = package(write_chart(tmp_path / "src", "demo", "1.0.0"), str(tmp_path / "pkg"))
    push(archive, "oci://%s/charts" % oci_registry, plain_http=True)
    proxy = TokenAuthProxy(oci_registry, USER, PASSWORD)
    try:
        yield proxy
    finally:
        proxy.close()


def _config(env):
    return os.path.join(env["HELM_CONFIG_HOME"], "registry", "config.json")


def _run(name, args, env, tmp_path, check_mode=False):
    return run_module(name, args, env, tmp_path, check_mode)[0]


def _login(front, env, tmp_path, password=PASSWORD, check_mode=False, **extra):
    args = dict({"host": front.address, "username": USER, "password": password, "plain_http": True}, **extra)
    return _run("registry_auth", args, env, tmp_path, check_mode)


def _helm_config(tmp_path, action, address, start=None):
    """The config file Helm's registry client leaves after ``action`` ('login' or 'logout'), from ``start``."""
    from helm_oracle import registry_login, registry_logout
    path = tmp_path / ("helm-%s.json" % action)
    if start is not None:
        path.write_bytes(start)
    if action == "login":
        registry_login(address, USER, PASSWORD, str(path), plain_http=True)
    else:
        registry_logout(address, str(path))
    return path.read_bytes(), os.stat(str(path)).st_mode & 0o777


def _seed(env, content=EXISTING):
    path = _config(env)
    os.makedirs(os.path.dirname(path))
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(content)
    with open(path, "rb") as handle:
        return handle.read()


def _helm_pull(tmp_path, ref, address):
    from helm_oracle import pull, registry_login
    dest = tmp_path / "helm-pull"
    dest.mkdir()
    registry_login(address, USER, PASSWORD, str(tmp_path / "helm-pull.json"), plain_http=True)
    pull(ref, str(dest), plain_http=True, registry_config=str(tmp_path / "helm-pull.json"))
    (archive,) = os.listdir(str(dest))
    return archive, (dest / archive).read_bytes()


def test_login_writes_the_config_helm_registry_login_writes(front, env, tmp_path):
    start = _seed(env)
    expected, mode = _helm_config(tmp_path, "login", front.address, start)
    result = _login(front, env, tmp_path)
    assert result["changed"] is True and not result.get("failed"), result
    assert result["stdout"] == "Login Succeeded\n"
    with open(_config(env), "rb") as handle:
        assert handle.read() == expected
    assert os.stat(_config(env)).st_mode & 0o777 == mode == 0o600
    assert PASSWORD not in json.dumps(result)


def test_a_basic_auth_registry_is_logged_in_like_helm_does(oci_registry, env, tmp_path):
    proxy = TokenAuthProxy(oci_registry, USER, PASSWORD, basic=True)
    try:
        expected = _helm_config(tmp_path, "login", proxy.address)[0]
        assert _login(proxy, env, tmp_path)["changed"] is True
        with open(_config(env), "rb") as handle:
            assert handle.read() == expected
        os.unlink(_config(env))
        assert "401" in _login(proxy, env, tmp_path, password="wrong")["msg"]
        assert not os.path.exists(_config(env))
    finally:
        proxy.close()


def test_login_into_no_config_creates_the_file_helm_creates(front, env, tmp_path):
    expected = _helm_config(tmp_path, "login", front.address)[0]
    assert _login(front, env, tmp_path)["changed"] is True
    with open(_config(env), "rb") as handle:
        assert handle.read() == expected


def test_wrong_credentials_fail_naming_the_host_and_the_answer_and_write_nothing(front, env, tmp_path):
    from helm_oracle import HelmError, registry_login
    with pytest.raises(HelmError):
        registry_login(front.address, USER, "wrong", str(tmp_path / "helm.json"), plain_http=True)
    result = _login(front, env, tmp_path, password="wrong")
    assert result.get("failed") is True
    assert front.address in result["msg"] and "401" in result["msg"]
    assert not os.path.exists(_config(env))
    start = _seed(env)
    assert _login(front, env, tmp_path, password="wrong").get("failed") is True
    with open(_config(env), "rb") as handle:
        assert handle.read() == start


def test_login_is_idempotent_still_checks_the_credentials_and_check_mode_writes_nothing(front, env, tmp_path):
    predicted = _login(front, env, tmp_path, check_mode=True)
    assert predicted["changed"] is True and not predicted.get("failed"), predicted
    assert not os.path.exists(_config(env))
    assert _login(front, env, tmp_path)["changed"] is True
    before = os.stat(_config(env))
    front.seen.clear()
    again = _login(front, env, tmp_path)
    assert again["changed"] is False and again["stdout"] == "Login Succeeded\n"
    assert ("/v2/", "Bearer granted") in front.seen  # checked against the registry again
    assert os.stat(_config(env)).st_ino == before.st_ino  # not rewritten
    assert _login(front, env, tmp_path, check_mode=True)["changed"] is False
    assert _login(front, env, tmp_path, password="wrong", check_mode=True).get("failed") is True


def test_logout_removes_the_entry_like_helm_registry_logout(front, env, tmp_path):
    start = _seed(env)
    logged_in = _helm_config(tmp_path, "login", front.address, start)[0]
    expected = _helm_config(tmp_path, "logout", front.address, logged_in)[0]
    assert _login(front, env, tmp_path)["changed"] is True
    args = {"host": front.address, "state": "absent"}
    assert _run("registry_auth", args, env, tmp_path, check_mode=True)["changed"] is True
    with open(_config(env), "rb") as handle:
        assert handle.read() == logged_in
    result = _run("registry_auth", args, env, tmp_path)
    assert result["changed"] is True and result["stdout"] == "Removing login credentials for %s\n" % front.address
    with open(_config(env), "rb") as handle:
        assert handle.read() == expected
    assert _run("registry_auth", args, env, tmp_path)["changed"] is False


def test_an_oci_pull_without_credentials_uses_the_stored_login(front, env, tmp_path):
    ref = "oci://%s/charts/demo" % front.address
    archive, data = _helm_pull(tmp_path, ref, front.address)
    args = {"chart_ref": ref, "destination": str(tmp_path / "charts"), "plain_http": True}
    refused = _run("pull", args, env, tmp_path)
    assert refused.get("failed") is True and "401" in refused["msg"]
    assert _login(front, env, tmp_path)["changed"] is True
    pulled = _run("pull", args, env, tmp_path)
    assert pulled["changed"] is True and not pulled.get("failed"), pulled
    assert (tmp_path / "charts" / archive).read_bytes() == data
    assert _run("registry_auth", {"host": front.address, "state": "absent"}, env, tmp_path)["changed"] is True
    shutil.rmtree(str(tmp_path / "charts"))
    assert _run("pull", args, env, tmp_path).get("failed") is True


def test_task_credentials_win_over_the_stored_login(front, env, tmp_path):
    ref = "oci://%s/charts/demo" % front.address
    assert _login(front, env, tmp_path)["changed"] is True
    args = {"chart_ref": ref, "destination": str(tmp_path / "charts"), "plain_http": True,
            "repo_username": USER, "repo_password": "wrong"}
    result = _run("pull", args, env, tmp_path)
    assert result.get("failed") is True and "401" in result["msg"]


def test_a_docker_login_is_the_fallback_as_in_helm(front, env, tmp_path):
    ref = "oci://%s/charts/demo" % front.address
    docker = tmp_path / "docker"
    docker.mkdir()
    (docker / "config.json").write_bytes(_helm_config(tmp_path, "login", front.address)[0])
    args = {"chart_ref": ref, "release_name": "web", "plain_http": True}
    assert _run("template", args, env, tmp_path).get("failed") is True
    result = _run("template", args, dict(env, DOCKER_CONFIG=str(docker)), tmp_path)
    assert not result.get("failed"), result
    (docker / "config.json").write_text("{not json")  # skipped, as Helm skips it: the registry refuses
    broken = _run("template", args, dict(env, DOCKER_CONFIG=str(docker)), tmp_path)
    assert broken.get("failed") is True and "401" in broken["msg"], broken
    from helm_oracle import Chart
    rendered = Chart.load(str(tmp_path / "src" / "demo")).render({}, name="web", namespace="default")
    assert rendered and all(text.strip() in result["stdout"] for text in rendered.values())


@pytest.mark.ansible_core
def test_playbook_logs_in_with_the_fqcn_and_pulls_with_the_login(front, env, tmp_path):
    ref = "oci://%s/charts/demo" % front.address
    archive, data = _helm_pull(tmp_path, ref, front.address)
    dest = tmp_path / "charts"
    playbook = tmp_path / "play.yml"
    playbook.write_text("""
- hosts: localhost
  gather_facts: false
  tasks:
    - helmless.core.registry_auth:
        host: {host}
        username: {user}
        password: "{password}"
        plain_http: true
        binary_path: /usr/local/bin/helm
      register: first
    - helmless.core.registry_auth:
        registry_url: {host}
        repo_username: {user}
        repo_password: "{password}"
        plain_http: true
      register: second
    - helmless.core.pull:
        chart_ref: {ref}
        destination: {dest}
        plain_http: true
    - ansible.builtin.assert:
        that:
          - first is changed
          - second is not changed
          - first.stdout_lines == ['Login Succeeded']
""".format(host=front.address, user=USER, password=PASSWORD, ref=ref, dest=dest))
    proc = run_playbook(playbook, env, tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "binary_path is ignored" in proc.stdout + proc.stderr
    assert (dest / archive).read_bytes() == data


def test_dependency_update_from_the_registry_uses_the_stored_login(front, env, tmp_path):
    repository = "oci://%s/charts" % front.address
    archive, data = _helm_pull(tmp_path, repository + "/demo", front.address)
    chart = write_chart(tmp_path / "parent", "parent", "1.0.0",
                        deps=[{"name": "demo", "version": "~1.0", "repository": repository}])
    args = {"chart_ref": chart, "dependency_update": True, "plain_http": True}
    refused = _run("template", args, env, tmp_path)
    assert refused.get("failed") is True and "401" in refused["msg"], refused
    assert _login(front, env, tmp_path)["changed"] is True
    result = _run("template", args, env, tmp_path)
    assert not result.get("failed"), result
    with open(os.path.join(chart, "charts", archive), "rb") as handle:
        assert handle.read() == data


def test_helm_registry_config_names_the_file_for_login_and_pull(front, env, tmp_path):
    custom = dict(env, HELM_REGISTRY_CONFIG=str(tmp_path / "elsewhere" / "registry.json"))
    assert _login(front, custom, tmp_path)["changed"] is True
    assert os.path.exists(custom["HELM_REGISTRY_CONFIG"]) and not os.path.exists(_config(env))
    args = {"chart_ref": "oci://%s/charts/demo" % front.address, "destination": str(tmp_path / "charts"),
            "plain_http": True}
    assert _run("pull", args, env, tmp_path).get("failed") is True
    assert not _run("pull", args, custom, tmp_path).get("failed")
