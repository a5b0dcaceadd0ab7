"""The repository module (kubernetes.core.helm_repository drop-in) and repository charts through the
template module, run the way Ansible runs them."""
import os

import pytest
import yaml

from repokit import env, helm_home, publish, run_module, run_playbook, serve, write_chart  # noqa: F401 - fixtures

pytestmark = pytest.mark.ansible_core  # scripts/test runs this file on every ansible-core series


@pytest.fixture
def repo(tmp_path, serve):
    publish(str(tmp_path / "repo"), str(tmp_path / "src"), [("demo", "1.0.0"), ("demo", "1.1.0"),
                                                            ("demo", "2.0.0")])
    return serve(tmp_path / "repo", credentials=("deploy", "hunter2-secret"))


_module = run_module


def _repositories(env):
    return yaml.safe_load(open(os.path.join(env["HELM_CONFIG_HOME"], "repositories.yaml")))["repositories"]


def test_repository_module_adds_idempotently_checks_and_removes(repo, env, tmp_path):
    add = {"name": "charts", "repo_url": repo.url, "repo_username": "deploy", "repo_password": "hunter2-secret"}
    result, _ = _module("repository", add, env, tmp_path, check_mode=True)
    assert result["changed"] and not result.get("failed"), result
    assert not os.path.exists(os.path.join(env["HELM_CONFIG_HOME"], "repositories.yaml"))

    result, raw = _module("repository", add, env, tmp_path)
    assert result["changed"] and not result.get("failed"), result
    assert "hunter2-secret" not in raw
    (entry,) = _repositories(env)
    assert (entry["name"], entry["url"], entry["username"], entry["password"]) == \
        ("charts", repo.url, "deploy", "hunter2-secret")
    index = os.path.join(env["HELM_CACHE_HOME"], "repository", "charts-index.yaml")
    assert open(index, "rb").read() == (tmp_path / "repo" / "index.yaml").read_bytes()

    assert _module("repository", add, env, tmp_path)[0]["changed"] is False
    assert _module("repository", dict(add, force_update=True), env, tmp_path)[0]["changed"] is True
    assert _module("repository", dict(add, repo_password="rotated-pass"), env, tmp_path,
                   check_mode=True)[0]["changed"] is True

    moved, _ = _module("repository", dict(add, repo_url=repo.url + "/other"), env, tmp_path)
    assert moved["failed"] and "charts" in moved["msg"] and repo.url + "/other" in moved["msg"]

    removed, _ = _module("repository", {"name": "charts", "state": "absent"}, env, tmp_path)
    assert removed["changed"] and _repositories(env) == [] and not os.path.exists(index)
    assert _module("repository", {"name": "charts", "state": "absent"}, env, tmp_path)[0]["changed"] is False


def test_repository_module_fails_clearly_on_an_unreachable_repository(repo, env, tmp_path):
    result, _ = _module("repository", {"name": "charts", "repo_url": repo.url}, env, tmp_path)
    assert result["failed"]
    assert result["msg"].startswith('looks like "%s" is not a valid chart repository' % repo.url)
    assert "401" in result["msg"]
    assert not os.path.exists(os.path.join(env["HELM_CONFIG_HOME"], "repositories.yaml"))


def _oracle(path, values):
    from helm_oracle import Chart, Config
    return Config(storage_driver="memory").install(Chart.load(path), "web", values, namespace="apps",
                                                   dry_run="client")["manifest"]


def test_playbook_adds_a_repository_and_renders_repo_charts_like_the_local_charts(repo, env, tmp_path):
    parent = write_chart(tmp_path / "app", "app", "0.1.0", deps=[
        {"name": "demo", "version": "^1", "repository": "@charts"}])
    dest = tmp_path / "manifests"
    dest.mkdir()
    playbook = tmp_path / "play.yml"
    playbook.write_text("""
- hosts: localhost
  gather_facts: false
  tasks:
    - helmless.core.repository:
        name: charts
        repo_url: {url}
        repo_username: deploy
        repo_password: hunter2-secret
    - helmless.core.template:
        chart_ref: charts/demo
        chart_version: "~1.0"
        name: web
        namespace: apps
        values: {{greeting: hi}}
        extra_results: [manifest]
      register: named
    - helmless.core.template:
        chart_ref: demo
        chart_repo_url: {url}
        repo_username: deploy
        repo_password: hunter2-secret
        name: web
        namespace: apps
        extra_results: [manifest]
      register: by_url
    - helmless.core.template:
        chart_ref: {parent}
        dependency_update: true
        name: web
        namespace: apps
        extra_results: [manifest]
      register: with_deps
    - ansible.builtin.copy:
        dest: "{dest}/{{{{ item.0 }}}}.yaml"
        content: "{{{{ item.1.manifest }}}}"
      loop: "{{{{ [['named', named], ['by_url', by_url], ['with_deps', with_deps]] }}}}"
""".format(url=repo.url, parent=parent, dest=dest))
    proc = run_playbook(playbook, env, tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "hunter2-secret" not in proc.stdout
    src = tmp_path / "src"
    assert (dest / "named.yaml").read_text() == _oracle(str(src / "demo-1.0.0" / "demo"), {"greeting": "hi"})
    assert (dest / "by_url.yaml").read_text() == _oracle(str(src / "demo-2.0.0" / "demo"), {})
    assert os.listdir(os.path.join(parent, "charts")) == ["demo-1.1.0.tgz"]
    assert (dest / "with_deps.yaml").read_text() == _oracle(parent, {})


def test_a_password_in_the_repository_url_is_in_no_result_message_or_command(serve, env, tmp_path, helm_home):
    from ansible_collections.helmless.core.plugins.module_utils.ansible.runner import ModuleFailure, run_repository
    server = serve(tmp_path / "empty")
    url = server.url.replace("://", "://deploy:url-pass-53cr3t@") + "/charts"
    with pytest.raises(ModuleFailure) as info:
        run_repository({"repo_name": "charts", "repo_url": url})
    assert "looks like" in str(info.value) and "deploy:" in info.value.result["command"]
    assert "url-pass-53cr3t" not in str(info.value) + repr(info.value.result)
    result, raw = _module("repository", {"name": "charts", "repo_url": url}, env, tmp_path)
    assert result["failed"] and "url-pass-53cr3t" not in raw
