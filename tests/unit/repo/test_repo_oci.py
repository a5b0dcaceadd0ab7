"""Charts from an OCI registry (pushed there by real Helm) pick the version Helm pulls, arrive
byte-identical and render like the local chart."""
import hashlib
import os

import pytest

from ansible_collections.helmless.core.plugins.module_utils.render import render_release
from ansible_collections.helmless.core.plugins.module_utils.repo import RepoError, locate_chart
from ocikit import oci_registry  # noqa: F401 - fixture
from repokit import fetch, helm_home, write_chart  # noqa: F401 - fixture

VERSIONS = ["0.9.0", "1.0.0", "1.0.3", "1.2.0", "2.0.0-rc.1", "1.2.0+build.7"]
CONSTRAINTS = [None, "~1.0", "^1", ">=2.0.0-0", "1.0.0", "<1.2.0", "1.2.0+build.7"]


@pytest.fixture
def pushed(oci_registry, tmp_path, helm_home):
    from helm_oracle import package, push
    for version in VERSIONS:
        src = write_chart(tmp_path / "src" / version, "demo", version)
        archive = package(src, str(tmp_path / "pkg"))
        push(archive, "oci://%s/charts" % oci_registry, plain_http=True)
    return "oci://%s/charts/demo" % oci_registry


def _helm_pull(tmp_path, ref, constraint):
    from helm_oracle import pull
    dest = tmp_path / ("pull-%s" % hashlib.sha1(repr(constraint).encode()).hexdigest())
    dest.mkdir()
    pull(ref, version=constraint, destination=str(dest), plain_http=True)
    (archive,) = os.listdir(str(dest))
    return archive, (dest / archive).read_bytes()


@pytest.mark.parametrize("constraint", CONSTRAINTS)
def test_oci_chart_version_picks_what_helm_pull_picks(pushed, tmp_path, constraint):
    archive, data = _helm_pull(tmp_path, pushed, constraint)
    located = locate_chart(pushed, constraint, plain_http=True)
    assert "demo-%s.tgz" % located.version == archive
    assert open(located.path, "rb").read() == data


def test_oci_chart_renders_like_the_local_chart_and_a_tag_in_the_reference_works(pushed, tmp_path):
    from helm_oracle import Chart
    path, want = fetch({"chart_ref": pushed + ":1.0.3", "plain_http": True})
    assert want is None
    ours = render_release(path, name="web", namespace="apps", values={})
    assert ours.rendered == Chart.load(str(tmp_path / "src" / "1.0.3" / "demo")).render({}, name="web", namespace="apps")


def test_oci_errors_name_the_reference(pushed):
    with pytest.raises(RepoError) as err:
        locate_chart(pushed, "9.9.9", plain_http=True)
    assert "9.9.9" in str(err.value) and pushed in str(err.value)
    with pytest.raises(RepoError) as err:
        locate_chart(pushed.replace("/demo", "/nothing"), None, plain_http=True)
    assert "/v2/charts/nothing/tags/list" in str(err.value)


def test_oci_dependencies_match_helm_dependency_update(pushed, tmp_path):
    from helm_oracle import dependency_update as helm_dependency_update
    from ansible_collections.helmless.core.plugins.module_utils.repo import dependency_update
    import yaml
    repository = pushed.rsplit("/", 1)[0]
    deps = [{"name": "demo", "version": "~1.0", "repository": repository}]
    ours = write_chart(tmp_path / "ours", "parent", "1.0.0", deps=deps)
    helms = write_chart(tmp_path / "helm", "parent", "1.0.0", deps=deps)
    helm_dependency_update(helms, plain_http=True)
    dependency_update(ours, plain_http=True)
    assert os.listdir(os.path.join(ours, "charts")) == os.listdir(os.path.join(helms, "charts"))
    (name,) = os.listdir(os.path.join(ours, "charts"))
    assert open(os.path.join(ours, "charts", name), "rb").read() == \
        open(os.path.join(helms, "charts", name), "rb").read()
    lock = [yaml.safe_load(open(os.path.join(path, "Chart.lock"))) for path in (ours, helms)]
    for item in lock:
        item.pop("generated")
    assert lock[0] == lock[1]


def test_oci_registries_behind_token_auth_take_repo_username_and_password(pushed, oci_registry, tmp_path):
    from helm_oracle import pull, registry_login
    from ocikit import TokenAuthProxy
    proxy = TokenAuthProxy(oci_registry, "robot", "t0ken-pass")
    try:
        ref = pushed.replace(oci_registry, proxy.address)
        (tmp_path / "helm").mkdir()
        registry_login(proxy.address, "robot", "t0ken-pass", str(tmp_path / "registry.json"), plain_http=True)
        pull(ref, str(tmp_path / "helm"), version="^1", plain_http=True, registry_config=str(tmp_path / "registry.json"))
        (archive,) = os.listdir(str(tmp_path / "helm"))
        options = {"chart_ref": ref, "chart_version": "^1", "plain_http": True}
        with pytest.raises(RepoError) as err:
            fetch(options)
        assert "401" in str(err.value)
        path, _ = fetch(dict(options, repo_username="robot", repo_password="t0ken-pass"))
        assert open(path, "rb").read() == (tmp_path / "helm" / archive).read_bytes()
    finally:
        proxy.close()
