"""Charts from chart repositories pick the version Helm picks, arrive byte-identical and render as
the local chart does; credentials, digests and errors behave as Helm's getter and downloader."""
import hashlib
import os

import pytest
import yaml

from ansible_collections.helmless.core.plugins.module_utils.render import render_release
from ansible_collections.helmless.core.plugins.module_utils.repo import (
    Access, RepoError, add_repository, locate_chart, make_entry)
from repokit import fetch, helm_home, publish, serve, write_chart  # noqa: F401 - fixtures

VERSIONS = [("demo", "1.0.0"), ("demo", "1.0.3"), ("demo", "1.2.0"), ("demo", "2.0.0-rc.1"), ("demo", "0.9.0"),
            ("other", "0.1.0")]
CONSTRAINTS = [None, "~1.0", "^1", ">=2.0.0-0", "1.0.0", "1.2.x", "<1.2.0", "2.0.0-rc.1", ">0.1, <1.0.3", "*"]


@pytest.fixture
def repo(tmp_path, serve, helm_home):
    publish(str(tmp_path / "repo"), str(tmp_path / "src"), VERSIONS)
    return serve(tmp_path / "repo")


def _helm_pick(tmp_path, url, name, constraint):
    from helm_oracle import pull
    dest = tmp_path / ("pull-%s" % hashlib.sha1(repr(constraint).encode()).hexdigest())
    dest.mkdir()
    pull(name, repo_url=url, version=constraint, destination=str(dest))
    (archive,) = os.listdir(str(dest))
    return archive, (dest / archive).read_bytes()


@pytest.mark.parametrize("constraint", CONSTRAINTS)
def test_chart_version_constraint_picks_what_helm_pull_picks(repo, tmp_path, constraint):
    archive, data = _helm_pick(tmp_path, repo.url, "demo", constraint)
    located = locate_chart("demo", constraint, repo.url)
    assert "demo-%s.tgz" % located.version == archive
    with open(located.path, "rb") as handle:
        assert handle.read() == data


def test_pulled_chart_renders_like_the_local_chart(repo, tmp_path):
    path, _ = fetch({"chart_ref": "demo", "chart_repo_url": repo.url, "chart_version": "~1.0"})
    local = str(tmp_path / "src" / "demo-1.0.3" / "demo")
    ours = render_release(path, name="web", namespace="apps", values={"greeting": "hi"})
    from helm_oracle import Chart
    assert ours.rendered == Chart.load(local).render({"greeting": "hi"}, name="web", namespace="apps")


def test_archives_are_cached_by_digest_and_reused_without_downloading(repo, helm_home):
    first = locate_chart("demo", "1.2.0", repo.url)
    with open(first.path, "rb") as handle:
        digest = hashlib.sha256(handle.read()).hexdigest()
    assert first.path == os.path.join(str(helm_home / "cache" / "content"), digest[:2], digest + ".chart")
    before = len(repo.requests)
    again = locate_chart("demo", "1.2.0", repo.url)
    assert again.path == first.path
    assert [p for p, _ in repo.requests[before:]] == ["/index.yaml"]


def test_a_download_that_does_not_match_the_index_digest_fails(repo, tmp_path):
    with open(str(tmp_path / "repo" / "demo-1.2.0.tgz"), "ab") as handle:
        handle.write(b"tampered")
    with pytest.raises(RepoError) as err:
        locate_chart("demo", "1.2.0", repo.url)
    assert "digest mismatch" in str(err.value)
    assert "demo-1.2.0.tgz" in str(err.value) and '"1.2.0"' in str(err.value)


@pytest.mark.parametrize("name,version,suffix", [("demo", "9.9.9", ""), ("nope", None, ""), ("demo", None, "/nope")])
def test_errors_name_the_chart_version_and_repository_as_helm_does(repo, tmp_path, name, version, suffix):
    from helm_oracle import pull
    dest = tmp_path / "pull"
    dest.mkdir()
    with pytest.raises(Exception) as helm:
        pull(name, repo_url=repo.url + suffix, version=version, destination=str(dest))
    with pytest.raises(RepoError) as ours:
        locate_chart(name, version, repo.url + suffix)
    assert str(ours.value).replace("File not found", "") == str(helm.value).replace("File not found", "")


def test_credentials_are_sent_to_the_repository_host_only(tmp_path, serve, helm_home):
    publish(str(tmp_path / "files"), str(tmp_path / "src"), [("demo", "1.0.0")])
    files = serve(tmp_path / "files")
    index_dir = tmp_path / "index"
    index_dir.mkdir()
    index = yaml.safe_load((tmp_path / "files" / "index.yaml").read_text())
    index["entries"]["demo"][0]["urls"] = [files.url + "/demo-1.0.0.tgz"]
    (index_dir / "index.yaml").write_text(yaml.safe_dump(index))
    repo = serve(index_dir, credentials=("user", "s3cret"))
    with pytest.raises(RepoError) as err:
        locate_chart("demo", None, repo.url)
    assert "401" in str(err.value) and repo.url in str(err.value)
    locate_chart("demo", None, repo.url, Access(username="user", password="s3cret"))
    assert files.requests[-1][1] is None
    assert repo.requests[-1][1] is not None
    os.unlink(locate_chart("demo", None, repo.url, Access(username="user", password="s3cret")).path)
    locate_chart("demo", None, repo.url, Access(username="user", password="s3cret", pass_credentials=True))
    assert files.requests[-1][1] == repo.requests[-1][1]


def test_a_chart_url_is_downloaded_directly(repo, tmp_path):
    located = locate_chart(repo.url + "/demo-1.0.3.tgz")
    with open(located.path, "rb") as handle:
        assert handle.read() == (tmp_path / "repo" / "demo-1.0.3.tgz").read_bytes()


def test_repo_name_slash_chart_uses_the_repositories_file_and_its_cached_index(repo, tmp_path, helm_home):
    with pytest.raises(RepoError) as err:
        locate_chart("charts/demo")
    assert 'no repo named "charts"' in str(err.value)
    add_repository(make_entry("charts", repo.url))
    archive, data = _helm_pick(tmp_path, repo.url, "demo", "^1")
    located = locate_chart("charts/demo", "^1")
    assert "demo-%s.tgz" % located.version == archive
    with open(located.path, "rb") as handle:
        assert handle.read() == data
    publish(str(tmp_path / "repo"), str(tmp_path / "src2"), [("demo", "1.9.0")])
    assert locate_chart("charts/demo", "^1").version == located.version
    assert locate_chart("charts/demo", "^1", update_repo_cache=True).version == "1.9.0"


def test_local_charts_keep_the_exact_version_check_and_bad_references_fail_clearly(tmp_path, helm_home):
    local = write_chart(tmp_path, "mine", "1.0.0")
    assert fetch({"chart_ref": local, "chart_version": "2.0.0"}) == (local, "2.0.0")
    for ref, text in [("./missing", 'path "./missing" not found'), ("plain", "repo_name/chart_name"),
                      ("ftp://example.com/x.tgz", "unsupported scheme ftp")]:
        with pytest.raises(RepoError) as err:
            locate_chart(ref)
        assert text in str(err.value)
