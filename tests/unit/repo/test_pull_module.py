"""The pull module (kubernetes.core.helm_pull drop-in) writes what real Helm's ``helm pull`` writes, run the
way Ansible runs it; the expected archives and trees come from the real helm CLI (helm pull) at test time."""
import json
import os

import pytest

from ocikit import oci_registry  # noqa: F401 - fixture
from repokit import env, helm_home, publish, run_module, run_playbook, serve  # noqa: F401 - fixtures

pytestmark = pytest.mark.ansible_core  # scripts/test runs this file on every ansible-core series

CHARTS = [("demo", "1.0.0"), ("demo", "1.1.0"), ("demo", "2.0.0"), ("demo", "2.1.0-rc.1")]


@pytest.fixture
def repo(tmp_path, serve):
    publish(str(tmp_path / "repo"), str(tmp_path / "src"), CHARTS)
    return serve(tmp_path / "repo", credentials=("deploy", "hunter2-secret"))


def _module(args, env, tmp_path, check_mode=False):
    return run_module("pull", args, env, tmp_path, check_mode)[0]


def _tree(root):
    """{relative path: bytes} of every file under root."""
    out = {}
    for base, _dirs, names in os.walk(str(root)):
        for name in names:
            full = os.path.join(base, name)
            with open(full, "rb") as handle:
                out[os.path.relpath(full, str(root))] = handle.read()
    return out


def _helm_pull(tmp_path, chart_ref, **kwargs):
    """What real Helm writes for this pull: {relative path: bytes} of a fresh destination."""
    from helm_oracle import pull
    dest = tmp_path / ("helm-%d" % len(list(tmp_path.glob("helm-*"))))
    dest.mkdir()
    pull(chart_ref, destination=str(dest), **kwargs)
    return _tree(dest)


def _access(repo):
    return {"repo_url": repo.url, "repo_username": "deploy", "repo_password": "hunter2-secret"}


# Helm's CLI turns --devel without --version into the constraint ">0.0.0-0".
@pytest.mark.parametrize("constraint, devel", [("1.1.0", False), ("^1.0.0", False), ("<2.0.0 >1.0.0", False),
                                               (None, False), (None, True)])
def test_pull_writes_the_archive_helm_pull_writes_and_is_idempotent(repo, env, tmp_path, constraint, devel):
    expected = _helm_pull(tmp_path, "demo", repo_url=repo.url, username="deploy", password="hunter2-secret",
                          version=constraint or (">0.0.0-0" if devel else None))
    dest = tmp_path / "charts"
    args = dict(_access(repo), chart_ref="demo", destination=str(dest), chart_devel=devel)
    if constraint:
        args["chart_version"] = constraint

    checked = _module(args, env, tmp_path, check_mode=True)
    assert checked["changed"] is True and not checked.get("failed"), checked
    assert not dest.exists()

    result = _module(args, env, tmp_path)
    assert result["changed"] is True and not result.get("failed"), result
    assert _tree(dest) == expected
    (name,) = expected
    assert result["path"] == str(dest / name)
    assert name == "%s-%s.tgz" % (result["chart"], result["version"])
    import hashlib
    assert result["digest"] == hashlib.sha256(expected[name]).hexdigest()

    again = _module(args, env, tmp_path)
    assert again["changed"] is False and _tree(dest) == expected, again
    assert _module(args, env, tmp_path, check_mode=True)["changed"] is False


def test_untar_chart_lays_out_the_files_as_helm_pull_untar(repo, env, tmp_path):
    expected = _helm_pull(tmp_path, "demo", repo_url=repo.url, username="deploy", password="hunter2-secret",
                          version="1.0.0", untar=True)
    dest = tmp_path / "charts"
    args = dict(_access(repo), chart_ref="demo", version="1.0.0", destination=str(dest), untar_chart=True)
    assert _module(args, env, tmp_path, check_mode=True)["changed"] is True and not dest.exists()

    result = _module(args, env, tmp_path)
    assert result["changed"] is True and result["path"] == str(dest / "demo"), result
    assert _tree(dest) == expected
    assert _module(args, env, tmp_path)["changed"] is False

    # Another version replaces the directory (Helm would refuse); it then matches Helm's tree of that version.
    newer = _helm_pull(tmp_path, "demo", repo_url=repo.url, username="deploy", password="hunter2-secret",
                       version="2.0.0", untar=True)
    (dest / "demo" / "stray.txt").write_text("not from the chart")
    assert _module(dict(args, version="2.0.0"), env, tmp_path)["changed"] is True
    assert _tree(dest) == newer


def test_a_missing_version_fails_naming_it_and_leaves_the_destination_empty(repo, env, tmp_path):
    dest = tmp_path / "charts"
    dest.mkdir()
    for untar in (False, True):
        result = _module(dict(_access(repo), chart_ref="demo", chart_version="9.9.9", destination=str(dest),
                              untar_chart=untar), env, tmp_path)
        assert result["failed"] is True
        assert '"demo"' in result["msg"] and "9.9.9" in result["msg"] and repo.url in result["msg"], result
        assert "Traceback" not in json.dumps(result)
        assert os.listdir(str(dest)) == []


def test_provenance_options_on_an_unsigned_chart_fail_as_helm_and_write_nothing(repo, env, tmp_path):
    dest = tmp_path / "charts"
    for option in ("verify_chart", "provenance"):
        result = _module(dict(_access(repo), chart_ref="demo", destination=str(dest), **{option: True}),
                         env, tmp_path)
        assert result["failed"] is True and result["msg"].startswith('failed to fetch provenance "'), result
        assert ".tgz.prov" in result["msg"] and "404" in result["msg"], result
        assert not dest.exists()


def test_a_pull_from_an_oci_registry_writes_what_helm_pull_writes(oci_registry, repo, env, tmp_path, helm_home):
    from helm_oracle import push
    for version in ("1.0.0", "1.1.0"):
        push(str(tmp_path / "repo" / ("demo-%s.tgz" % version)), "oci://%s/charts" % oci_registry, plain_http=True)
    ref = "oci://%s/charts/demo" % oci_registry
    expected = _helm_pull(tmp_path, ref, version="~1.0", plain_http=True)
    dest = tmp_path / "charts"
    args = {"chart_ref": ref, "chart_version": "~1.0", "destination": str(dest), "plain_http": True}
    result = _module(args, env, tmp_path)
    assert result["changed"] is True and (result["chart"], result["version"]) == ("demo", "1.0.0"), result
    assert _tree(dest) == expected
    assert _module(args, env, tmp_path)["changed"] is False


def test_playbook_pulls_with_the_fqcn_from_a_named_repository(repo, env, tmp_path):
    expected = _helm_pull(tmp_path, "demo", repo_url=repo.url, username="deploy", password="hunter2-secret")
    dest = tmp_path / "charts"
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
    - helmless.core.pull:
        chart_ref: charts/demo
        destination: {dest}
        binary_path: /usr/local/bin/helm
      register: first
    - helmless.core.pull:
        chart_ref: charts/demo
        destination: {dest}
      register: second
    - ansible.builtin.assert:
        that:
          - first is changed
          - second is not changed
          - first.chart == 'demo'
""".format(url=repo.url, dest=dest))
    proc = run_playbook(playbook, env, tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "hunter2-secret" not in proc.stdout
    assert "binary_path is ignored" in proc.stdout + proc.stderr
    assert _tree(dest) == expected


def test_a_chart_url_is_written_under_its_file_name_like_helm_pull(repo, env, tmp_path):
    url = repo.url + "/demo-1.1.0.tgz"
    expected = _helm_pull(tmp_path, url, username="deploy", password="hunter2-secret")
    dest = tmp_path / "charts"
    args = {"chart_ref": url, "destination": str(dest), "username": "deploy", "password": "hunter2-secret"}
    result = _module(args, env, tmp_path)
    assert result["changed"] is True and not result.get("failed"), result
    assert _tree(dest) == expected
    assert _module(args, env, tmp_path)["changed"] is False


def test_an_archive_reaching_outside_its_chart_directory_fails_as_in_helm_and_writes_nothing(repo, env, tmp_path):
    import io
    import tarfile
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name, body in (("demo/Chart.yaml", b"apiVersion: v2\nname: demo\nversion: 0.1.0\n"),
                           ("demo/../../escaped.txt", b"outside")):
            info = tarfile.TarInfo(name)
            info.size = len(body)
            tar.addfile(info, io.BytesIO(body))
    (tmp_path / "repo" / "evil-0.1.0.tgz").write_bytes(buf.getvalue())
    url = repo.url + "/evil-0.1.0.tgz"
    from helm_oracle import pull
    helm_dest = tmp_path / "helm"
    helm_dest.mkdir()
    with pytest.raises(Exception) as helm_error:
        pull(url, destination=str(helm_dest), untar=True, username="deploy", password="hunter2-secret")
    dest = tmp_path / "charts"
    dest.mkdir()
    result = _module({"chart_ref": url, "destination": str(dest), "untar_chart": True, "username": "deploy",
                      "password": "hunter2-secret"}, env, tmp_path)
    assert result["failed"] is True and str(helm_error.value) in result["msg"], result
    # Helm leaves the downloaded archive behind; a failed pull here leaves nothing.
    assert os.listdir(str(dest)) == [] and not (tmp_path / "escaped.txt").exists()


def test_force_downloads_the_chart_again_and_writes_it_even_when_it_is_there(repo, env, tmp_path):
    expected = _helm_pull(tmp_path, "demo", repo_url=repo.url, username="deploy", password="hunter2-secret",
                          version="1.0.0")
    dest = tmp_path / "charts"
    args = dict(_access(repo), chart_ref="demo", chart_version="1.0.0", destination=str(dest))

    def downloads():
        return len([path for path, _auth in repo.requests if path.endswith("/demo-1.0.0.tgz")])

    assert _module(args, env, tmp_path)["changed"] is True and _tree(dest) == expected
    first = downloads()
    assert _module(args, env, tmp_path)["changed"] is False and downloads() == first  # Helm's content cache

    archive = dest / "demo-1.0.0.tgz"
    archive.write_bytes(b"edited by hand")
    checked = _module(dict(args, force=True), env, tmp_path, check_mode=True)
    assert checked["changed"] is True and archive.read_bytes() == b"edited by hand"
    forced = _module(dict(args, force=True), env, tmp_path)
    assert forced["changed"] is True and not forced.get("failed"), forced
    assert downloads() == first + 2 and _tree(dest) == expected  # fetched again (check mode too), written
    assert _module(dict(args, force=True), env, tmp_path)["changed"] is True  # as helm_pull: always a change

    untar = dict(args, untar_chart=True)
    assert _module(untar, env, tmp_path)["changed"] is True
    assert _module(untar, env, tmp_path)["changed"] is False
    assert _module(dict(untar, force=True), env, tmp_path)["changed"] is True  # the directory written again


def test_kubernetes_core_helm_pull_force_tasks_pass_with_the_fqcn_changed(oci_registry, repo, env, tmp_path,
                                                                          helm_home):
    """kubernetes.core 6.6.0's own helm_pull force tasks (its integration target), on a local OCI registry."""
    from helm_oracle import push
    for version in ("1.0.0", "1.1.0"):
        push(str(tmp_path / "repo" / ("demo-%s.tgz" % version)), "oci://%s/charts" % oci_registry, plain_http=True)
    playbook = tmp_path / "force.yml"
    playbook.write_text("""
- hosts: localhost
  gather_facts: false
  vars:
    destination: {dest}
    ref: oci://{registry}/charts/demo
  tasks:
    - name: Download chart (first time)
      helmless.core.pull: {{chart_ref: "{{{{ ref }}}}", destination: "{{{{ destination }}}}", chart_version: "1.0.0",
                           plain_http: true}}
      register: _result_first
    - name: Download chart (second time - should be idempotent)
      helmless.core.pull: {{chart_ref: "{{{{ ref }}}}", destination: "{{{{ destination }}}}", chart_version: "1.0.0",
                           plain_http: true}}
      register: _result_second
    - name: Download chart with force=true (should always download)
      helmless.core.pull: {{chart_ref: "{{{{ ref }}}}", destination: "{{{{ destination }}}}", chart_version: "1.0.0",
                           plain_http: true, force: true}}
      register: _result_force
    - name: Download and untar chart with force=true (should remove existing directory and re-extract)
      helmless.core.pull: {{chart_ref: "{{{{ ref }}}}", destination: "{{{{ destination }}}}/untar_test",
                           chart_version: "1.1.0", untar_chart: true, plain_http: true, force: true}}
      register: _result_untar_force
    - stat:
        path: "{{{{ destination }}}}/untar_test/demo"
      register: _chart_after_force
    - assert:
        that:
          - _result_first is changed
          - _result_second is not changed
          - _result_force is changed
          - _result_untar_force is changed
          - _chart_after_force.stat.exists
          - _chart_after_force.stat.isdir
""".format(dest=tmp_path / "charts", registry=oci_registry))
    proc = run_playbook(playbook, env, tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "failed=0" in proc.stdout
