"""Executable post-renderers (Helm's contract), chaining, and the ``# Source:`` round trip."""
import os
import stat

import pytest

from ansible_collections.helmless.core.plugins.module_utils.postrender import (
    FILENAME_ANNOTATION, PostRenderError, run, run_files)
from ansible_collections.helmless.core.plugins.module_utils.postrender.yamlio import load_all
from kustomize_oracle import chart_manifest, keyed


def _script(tmp_path, name, body):
    path = tmp_path / name
    path.write_text(body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


PY_ANNOTATE = """#!/usr/bin/env python3
import sys, yaml
docs = [d for d in yaml.safe_load_all(sys.stdin) if d]
for d in docs:
    d["metadata"].setdefault("annotations", {})["seen-by"] = "python " + " ".join(sys.argv[1:])
yaml.safe_dump_all(docs, sys.stdout)
"""


def test_a_shell_renderer_edits_the_stream(tmp_path):
    sed = _script(tmp_path, "relabel.sh",
                  "#!/bin/sh\nexec sed 's/managed-by: Helm/managed-by: Platform/'\n")
    out = load_all(run(chart_manifest("podinfo"), [sed]))
    assert {o["metadata"]["labels"]["app.kubernetes.io/managed-by"] for o in out} == {"Platform"}


def test_a_python_renderer_gets_its_args(tmp_path):
    py = _script(tmp_path, "annotate.py", PY_ANNOTATE)
    out = load_all(run(chart_manifest("podinfo"), [{"exec": py, "args": ["--env", "prod"]}]))
    assert {o["metadata"]["annotations"]["seen-by"] for o in out} == {"python --env prod"}


def test_a_bare_command_is_found_on_path_and_cat_changes_nothing():
    manifest = chart_manifest("grafana")
    assert keyed(load_all(run(manifest, ["cat"]))) == keyed(load_all(manifest))


def test_a_relative_renderer_path_resolves_against_cwd(tmp_path):
    _script(tmp_path, "id.sh", "#!/bin/sh\ncat\n")
    assert load_all(run(chart_manifest("podinfo"), ["./id.sh"], cwd=str(tmp_path)))


def test_a_failing_renderer_reports_name_exit_code_and_stderr(tmp_path):
    bad = _script(tmp_path, "fail.sh", "#!/bin/sh\necho 'kustomize: boom' >&2\nexit 3\n")
    with pytest.raises(PostRenderError) as err:
        run(chart_manifest("podinfo"), [bad])
    assert "fail.sh" in str(err.value) and "code 3" in str(err.value) and "kustomize: boom" in str(err.value)


@pytest.mark.parametrize("garbage,message", [
    ("key: [unclosed\n  - : :\n", "not valid YAML"),
    ("just some words\n", "not a Kubernetes object"),
    ("- a\n- b\n", "not a Kubernetes object"),
])
def test_a_renderer_printing_garbage_is_an_error(tmp_path, garbage, message):
    (tmp_path / "out.txt").write_text(garbage)
    bad = _script(tmp_path, "garbage.sh", "#!/bin/sh\ncat >/dev/null\ncat %s\n" % (tmp_path / "out.txt"))
    with pytest.raises(PostRenderError, match=message) as err:
        run(chart_manifest("podinfo"), [bad])
    assert "garbage.sh" in str(err.value)


def test_a_missing_or_non_executable_renderer_is_an_error(tmp_path):
    (tmp_path / "plain.sh").write_text("#!/bin/sh\ncat\n")
    for path in (str(tmp_path / "absent.sh"), str(tmp_path / "plain.sh")):
        with pytest.raises(PostRenderError, match="no executable"):
            run(chart_manifest("podinfo"), [path])


def test_renderers_see_the_helm4_filename_annotation(tmp_path):
    count = _script(tmp_path, "count.sh",
                    "#!/bin/sh\ntee %s\n" % (tmp_path / "seen.yaml"))
    manifest = chart_manifest("podinfo")
    out = run(manifest, [count])
    seen = load_all((tmp_path / "seen.yaml").read_text())
    assert {o["metadata"]["annotations"][FILENAME_ANNOTATION] for o in seen} >= {
        "podinfo/templates/deployment.yaml", "podinfo/templates/service.yaml"}
    assert FILENAME_ANNOTATION not in out


def test_renderers_apply_in_order(tmp_path):
    py = _script(tmp_path, "annotate.py", PY_ANNOTATE)
    out = load_all(run(chart_manifest("podinfo"), [
        {"kustomize": {"namePrefix": "a-"}}, {"exec": py, "args": ["after"]},
        {"kustomize": {"commonAnnotations": {"seen-by": "kustomize"}}}]))
    assert all(o["metadata"]["name"].startswith("a-") for o in out)
    assert {o["metadata"]["annotations"]["seen-by"] for o in out} == {"kustomize"}


def test_source_comments_survive_and_new_objects_are_named_as_helm_does(tmp_path):
    add = _script(tmp_path, "add.sh", "#!/bin/sh\ncat\necho '---'\n"
                  "printf 'apiVersion: v1\\nkind: ConfigMap\\nmetadata:\\n  name: extra\\n'\n")
    text = run(chart_manifest("podinfo"), [add, {"kustomize": {"namePrefix": "x-"}}])
    docs = [d for d in text.split("---\n") if d.strip()]
    assert docs[0].startswith("# Source: podinfo/templates/deployment.yaml\n")
    assert "name: x-rel-podinfo\n" in docs[0]
    last = docs[-1]
    assert last.startswith("# Source: generated-by-postrender-%d.yaml\n" % (len(docs) - 1))
    assert "name: x-extra" in last


def test_a_template_starting_with_a_separator_keeps_its_source():
    text = ("---\n# Source: c/templates/d.yaml\n\n---\napiVersion: v1\nkind: ConfigMap\n"
            "metadata:\n  name: a\n")
    assert run(text, [{"kustomize": {"nameSuffix": "-s"}}]).startswith(
        "---\n# Source: c/templates/d.yaml\napiVersion: v1\n")


def test_a_stream_without_source_comments_stays_without_them():
    out = run("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n", [{"kustomize": {"namePrefix": "p-"}}])
    assert "# Source" not in out and "name: p-a" in out and FILENAME_ANNOTATION not in out


def test_hooks_are_post_rendered_and_keep_their_hook_annotations():
    out = keyed(load_all(run(chart_manifest("podinfo"), [{"kustomize": {"namePrefix": "p-"}}])))
    hooks = [o for o in out.values() if "helm.sh/hook" in o["metadata"].get("annotations", {})]
    assert len(hooks) == 3
    for hook in hooks:
        assert hook["metadata"]["name"].startswith("p-")
        assert hook["metadata"]["annotations"]["helm.sh/hook"] == "test-success"
        assert hook["metadata"]["annotations"]["helm.sh/hook-delete-policy"]


def test_run_files_regroups_by_template_like_helm4():
    files = {"c/templates/a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\n"
                                   "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n",
             "c/templates/_helpers.tpl": "", "c/templates/empty.yaml": "\n",
             "c/templates/b.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n  name: b\n"}
    out = run_files(files, [{"kustomize": {"namePrefix": "p-",
                                            "configMapGenerator": [{"name": "gen", "literals": ["a=b"]}]}}])
    assert sorted(out) == ["c/templates/a.yaml", "c/templates/b.yaml", "generated-by-postrender-3.yaml"]
    assert [d["metadata"]["name"] for d in load_all(out["c/templates/a.yaml"])] == ["p-a", "p-s"]
    assert FILENAME_ANNOTATION not in "".join(out.values())


def test_no_renderers_leaves_the_objects_alone():
    manifest = chart_manifest("podinfo")
    assert keyed(load_all(run(manifest, []))) == keyed(load_all(manifest))


def test_unknown_kustomize_fields_are_named():
    with pytest.raises(PostRenderError, match="unsupported field.*helmCharts"):
        run(chart_manifest("podinfo"), [{"kustomize": {"helmCharts": []}}])


def test_an_unrecognised_item_is_an_error():
    with pytest.raises(PostRenderError, match=r"post_renderer\[0\]: expected an executable"):
        run(chart_manifest("podinfo"), [{"frobnicate": True}])


def test_the_environment_is_left_unchanged(tmp_path):
    before = dict(os.environ)
    run(chart_manifest("podinfo"), ["cat"])
    assert dict(os.environ) == before
