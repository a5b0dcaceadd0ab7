"""dependency_update puts in charts/ and Chart.lock what ``helm dependency update`` puts there."""
import os
import shutil

import pytest
import yaml

from ansible_collections.helmless.core.plugins.module_utils.repo import (
    RepoError, add_repository, dependency_update, make_entry)
from repokit import helm_home, publish, serve, write_chart  # noqa: F401 - fixtures

REMOTE = [("sub", "0.1.0"), ("sub", "0.2.0"), ("sub", "0.3.0-beta.1"), ("demo", "1.0.0"), ("demo", "1.0.5"),
          ("demo", "1.1.0")]
PARENT_TEMPLATES = {"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-parent\n"}


@pytest.fixture
def repo(tmp_path, serve, helm_home):
    publish(str(tmp_path / "repo"), str(tmp_path / "src"), REMOTE)
    return serve(tmp_path / "repo")


def _parent(root, deps):
    path = write_chart(root, "parent", "1.0.0", templates=PARENT_TEMPLATES, deps=deps)
    write_chart(os.path.join(str(root), "parent", "libs"), "local", "0.4.0")
    return path


def _helm(path):
    from helm_oracle import dependency_update as helm_dependency_update
    helm_dependency_update(path)


def _lock(path):
    lock = yaml.safe_load(open(os.path.join(path, "Chart.lock")).read())
    lock.pop("generated")
    return lock


def _render(path):
    from helm_oracle import Chart
    return Chart.load(path).render({}, name="rel", namespace="ns")


def _same_as_helm(ours, helms):
    assert sorted(os.listdir(os.path.join(ours, "charts"))) == sorted(os.listdir(os.path.join(helms, "charts")))
    assert _lock(ours) == _lock(helms)
    assert _render(ours) == _render(helms)


def test_url_and_file_dependencies_match_helm_dependency_update(repo, tmp_path):
    deps = [{"name": "sub", "version": ">=0.1.0", "repository": repo.url},
            {"name": "demo", "version": "~1.0.0", "repository": repo.url, "alias": "d2", "condition": "d2.on"},
            {"name": "local", "version": "0.x", "repository": "file://libs/local"}]
    ours, helms = _parent(tmp_path / "ours", deps), _parent(tmp_path / "helm", deps)
    _helm(helms)
    assert dependency_update(ours)
    _same_as_helm(ours, helms)
    for name in ("sub-0.2.0.tgz", "demo-1.0.5.tgz"):
        assert open(os.path.join(ours, "charts", name), "rb").read() == \
            open(os.path.join(helms, "charts", name), "rb").read()


@pytest.mark.parametrize("form", ["@charts", "alias:charts"])
def test_repository_names_resolve_through_the_repositories_file(repo, tmp_path, form):
    """Helm replaces @name by the repository URL before hashing, so the lock equals the URL form's."""
    add_repository(make_entry("charts", repo.url))
    ours = _parent(tmp_path / "ours", [{"name": "sub", "version": "^0.1", "repository": form}])
    helms = _parent(tmp_path / "helm", [{"name": "sub", "version": "^0.1", "repository": repo.url}])
    _helm(helms)
    dependency_update(ours)
    _same_as_helm(ours, helms)


def test_a_second_update_keeps_the_lock_and_a_new_constraint_replaces_the_old_archive(repo, tmp_path):
    deps = [{"name": "sub", "version": "0.1.0", "repository": repo.url}]
    ours, helms = _parent(tmp_path / "ours", deps), _parent(tmp_path / "helm", deps)
    dependency_update(ours)
    first = open(os.path.join(ours, "Chart.lock")).read()
    dependency_update(ours)
    assert open(os.path.join(ours, "Chart.lock")).read() == first
    for path in (ours, helms):
        meta = yaml.safe_load(open(os.path.join(path, "Chart.yaml")))
        meta["dependencies"][0]["version"] = "0.2.0"
        yaml.safe_dump(meta, open(os.path.join(path, "Chart.yaml"), "w"))
    shutil.copytree(os.path.join(ours, "charts"), os.path.join(helms, "charts"))
    _helm(helms)
    dependency_update(ours)
    _same_as_helm(ours, helms)
    assert os.listdir(os.path.join(ours, "charts")) == ["sub-0.2.0.tgz"]


@pytest.mark.parametrize("dep", [
    {"name": "sub", "version": "9.x", "repository": "REPO"},
    {"name": "nosuch", "version": "1.0.0", "repository": "REPO"},
    {"name": "sub", "version": "0.1.0", "repository": "@unknown"},
    {"name": "sub", "version": "0.1.0", "repository": "stable"},
])
def test_unresolvable_dependencies_fail_with_helms_message_and_touch_nothing(repo, tmp_path, dep):
    dep = dict(dep, repository=dep["repository"].replace("REPO", repo.url))
    ours, helms = _parent(tmp_path / "ours", [dep]), _parent(tmp_path / "helm", [dep])
    with pytest.raises(Exception) as helm:
        _helm(helms)
    with pytest.raises(RepoError) as err:
        dependency_update(ours)
    assert str(err.value) in str(helm.value)
    assert not os.path.exists(os.path.join(ours, "Chart.lock"))
    assert not os.path.exists(os.path.join(ours, "charts"))


@pytest.mark.parametrize("constraint", ["0.4.0", "^0.4", "1.x"])
def test_vendored_dependencies_without_a_repository_are_checked_like_helm_does(repo, tmp_path, constraint):
    deps = [{"name": "local", "version": constraint, "repository": ""},
            {"name": "sub", "version": "0.1.0", "repository": repo.url}]
    ours, helms = _parent(tmp_path / "ours", deps), _parent(tmp_path / "helm", deps)
    for path in (ours, helms):
        shutil.copytree(os.path.join(path, "libs", "local"), os.path.join(path, "charts", "local"))
    try:
        _helm(helms)
    except Exception as exc:  # Helm refuses: so must we, with its message, leaving charts/ as it was
        with pytest.raises(RepoError) as err:
            dependency_update(ours)
        assert str(err.value) in str(exc)
        assert os.listdir(os.path.join(ours, "charts")) == ["local"]
        return
    dependency_update(ours)
    _same_as_helm(ours, helms)


def test_a_chart_without_dependencies_is_left_alone_with_kubernetes_cores_warning(tmp_path):
    from ansible_collections.helmless.core.plugins.module_utils.ansible.request import chart_source
    from ansible_collections.helmless.core.plugins.module_utils.render.template import TemplateRequest, run_template

    chart = write_chart(tmp_path, "plain", "1.0.0", templates=PARENT_TEMPLATES)
    _result, warnings = run_template(TemplateRequest(chart_source({"chart_ref": chart, "dependency_update": True})))
    assert warnings == ["There is no dependencies block defined in Chart.yaml. Dependency update will not be "
                        "performed. Please consider add dependencies block or disable dependency_update to remove "
                        "this warning."]
    assert not os.path.exists(os.path.join(chart, "Chart.lock"))
