"""TLS options and the release module's ordering: a chart is fetched before the cluster is contacted."""
import socket

import pytest

from ansible_collections.helmless.core.plugins.module_utils.ansible.runner import ModuleFailure, run_release
from ansible_collections.helmless.core.plugins.module_utils.repo import RepoError
from repokit import fetch, helm_home, publish, self_signed, serve  # noqa: F401 - fixtures


@pytest.fixture
def tls_repo(tmp_path, serve, helm_home):
    publish(str(tmp_path / "repo"), str(tmp_path / "src"), [("demo", "1.0.0")])
    cert = self_signed(tmp_path)
    return serve(tmp_path / "repo", tls=cert), cert[0]


def test_https_repositories_need_a_trusted_certificate_ca_file_or_insecure_skip_tls_verify(tls_repo, tmp_path,
                                                                                           monkeypatch):
    server, ca_file = tls_repo
    options = {"chart_ref": "demo", "chart_repo_url": server.url}
    with pytest.raises(RepoError) as err:
        fetch(options)
    assert "CERTIFICATE_VERIFY_FAILED" in str(err.value) and server.url in str(err.value)
    expected = (tmp_path / "repo" / "demo-1.0.0.tgz").read_bytes()
    for n, extra in enumerate(({"ca_file": ca_file}, {"insecure_skip_tls_verify": True}, {"insecure_registry": True})):
        monkeypatch.setenv("HELM_CONTENT_CACHE", str(tmp_path / ("content%d" % n)))  # download every time
        path, _ = fetch(dict(options, **extra))
        assert open(path, "rb").read() == expected


def test_client_certificates_reach_a_mutual_tls_repository(tmp_path, serve, helm_home):
    publish(str(tmp_path / "repo"), str(tmp_path / "src"), [("demo", "1.0.0")])
    server_cert, server_key = self_signed(tmp_path, "server")
    client_cert, client_key = self_signed(tmp_path, "client")
    server = serve(tmp_path / "repo", tls=(server_cert, server_key, client_cert))
    options = {"chart_ref": "demo", "chart_repo_url": server.url, "ca_file": server_cert}
    with pytest.raises(RepoError):
        fetch(options)
    path, _ = fetch(dict(options, cert_file=client_cert, key_file=client_key))
    assert open(path, "rb").read() == (tmp_path / "repo" / "demo-1.0.0.tgz").read_bytes()


def test_a_failed_fetch_fails_the_release_before_the_cluster_is_contacted(tmp_path, serve, helm_home):
    from helm_oracle import pull
    publish(str(tmp_path / "repo"), str(tmp_path / "src"), [("demo", "1.0.0")])
    repo = serve(tmp_path / "repo")
    api = socket.socket()
    api.bind(("127.0.0.1", 0))
    api.listen(5)
    api.settimeout(0.2)
    kubeconfig = {"apiVersion": "v1", "kind": "Config", "current-context": "c",
                  "clusters": [{"name": "c", "cluster": {"server": "http://127.0.0.1:%d" % api.getsockname()[1]}}],
                  "users": [{"name": "u", "user": {"token": "t"}}],
                  "contexts": [{"name": "c", "context": {"cluster": "c", "user": "u"}}]}
    (tmp_path / "pull").mkdir()
    with pytest.raises(Exception) as helm:
        pull("demo", repo_url=repo.url, version="9.9.9", destination=str(tmp_path / "pull"))
    with pytest.raises(ModuleFailure) as err:
        run_release({"release_name": "web", "release_namespace": "apps", "chart_ref": "demo",
                     "chart_repo_url": repo.url, "chart_version": "9.9.9", "kubeconfig": kubeconfig})
    assert str(err.value) == str(helm.value)
    with pytest.raises(socket.timeout):
        api.accept()
    api.close()
