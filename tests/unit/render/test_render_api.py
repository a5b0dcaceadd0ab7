"""render_release: user values in Helm's order, the stored config, post-rendering, lookup."""
import pytest

from ansible_collections.helmless.core.plugins.module_utils.chart.errors import ValuesError
from ansible_collections.helmless.core.plugins.module_utils.render import (
    RenderError, merge_user_values, render_release,
)

FILES = {
    "Chart.yaml": "apiVersion: v2\nname: app\nversion: 0.1.0\n",
    "values.yaml": "a: default\nb: default\n",
    "templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-cm\n"
                         "data:\n  a: {{ .Values.a | quote }}\n  b: {{ .Values.b | quote }}\n"
                         "  found: {{ (lookup \"v1\" \"Secret\" \"ns\" \"s\").data | toJson | quote }}\n",
}


@pytest.fixture
def chart(tmp_path):
    for rel, text in FILES.items():
        path = tmp_path / "app" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return str(tmp_path / "app")


def test_values_files_then_values_then_set_groups_in_helms_order(tmp_path):
    vf = tmp_path / "v.yaml"
    vf.write_text("a: file\nb: file\nc: file\n")
    config = merge_user_values(
        {"b": "dict"}, [str(vf)],
        [{"value": "a=literal", "value_type": "literal"}, {"value": "a=raw"},
         {"value": 'c={"k": 1}', "value_type": "json"}, {"value": "c.k=2", "value_type": "string"}])
    assert config == {"a": "literal", "b": "dict", "c": {"k": "2"}}


def test_the_stored_config_is_what_the_user_supplied_not_the_chart_defaults(chart):
    result = render_release(chart, name="r", namespace="ns", values={"a": "mine"})
    assert result.values == {"a": "mine"}
    assert [r["metadata"]["name"] for r in result.resources] == ["r-cm"]


def test_lookup_is_answered_by_the_callable_given(chart):
    calls = []

    def lookup(api_version, kind, namespace, name):
        calls.append((api_version, kind, namespace, name))
        return {"data": {"x": "eQ=="}}
    result = render_release(chart, name="r", namespace="ns", lookup=lookup)
    assert calls == [("v1", "Secret", "ns", "s")]
    assert '  found: "{\\"x\\":\\"eQ==\\"}"' in result.manifest


def test_post_renderers_apply_before_sorting_and_keep_source_paths(chart):
    result = render_release(chart, name="r", namespace="ns",
                            post_renderer=[{"kustomize": {"namePrefix": "p-"}}])
    assert result.resources[0]["metadata"]["name"] == "p-r-cm"
    assert result.manifest.startswith("---\n# Source: app/templates/cm.yaml\n")


def test_a_bad_set_expression_is_a_values_error(chart):
    with pytest.raises(RenderError) as err:
        render_release(chart, name="r", namespace="ns", set_values=["a"])
    assert err.value.kind == "values"


def test_values_that_replace_a_table_with_a_scalar_are_reported_as_helm_logs_them(chart, tmp_path):
    with open(chart + "/values.yaml", "a") as handle:
        handle.write("outer:\n  table:\n    k: v\n")
    result = render_release(chart, name="r", namespace="ns", values={"outer": {"table": "scalar"}})
    assert result.warnings == ["warning: cannot overwrite table with non table for app.outer.table (map[k:v])"]


def test_skip_schema_validation_renders_what_helm_renders_for_the_chart_without_its_schema(chart, tmp_path):
    import os
    import shutil

    from helm_oracle import Chart

    with open(os.path.join(chart, "values.schema.json"), "w") as fh:
        fh.write('{"type": "object", "properties": {"a": {"type": "integer"}}}')
    with pytest.raises(RenderError, match="at '/a': got string, want integer"):
        render_release(chart, name="r", namespace="ns", values={"a": "text"})
    result = render_release(chart, name="r", namespace="ns", values={"a": "text"}, skip_schema_validation=True)
    bare = str(tmp_path / "bare")
    shutil.copytree(chart, bare)
    os.remove(os.path.join(bare, "values.schema.json"))
    expected = Chart.load(bare).render({"a": "text"}, name="r", namespace="ns")
    assert result.rendered["app/templates/cm.yaml"] == expected["app/templates/cm.yaml"]


VALUES_FILES = {"bad syntax": "a: [1\n", "a list document": "a: 1\n---\n- x\n",
                "documents merge": "a: {b: 1}\n---\na: {c: 2}\nb: x\n", "empty": "", "only a comment": "# c\n",
                "null document": "---\n~\n---\na: 1\n", "missing": None}


@pytest.mark.parametrize("case", sorted(VALUES_FILES))
def test_values_files_are_read_as_the_helm_cli_reads_f(chart, tmp_path, case):
    import helm_oracle
    path = tmp_path / "user.yaml"
    if VALUES_FILES[case] is not None:
        path.write_text(VALUES_FILES[case])
    (tmp_path / "app" / "templates" / "v.yaml").write_text("v: {{ toJson .Values | quote }}\n")
    try:
        expected = helm_oracle.render(chart, values_files=[path], name="rel", namespace="ns")
    except helm_oracle.HelmError as exc:
        expected = str(exc)
    try:
        got = render_release(chart, values_files=[str(path)], name="rel", namespace="ns").rendered
    except RenderError as exc:
        got = str(exc)
    assert got == expected


SETS = {
    "groups apply in the CLI's order": [("raw", "a=1"), ("string", "a=2"), ("json", 'a={"x":1}'), ("literal", "b=x,y")],
    "later raw wins": [("raw", "a.b=1,a.c=2"), ("raw", "a.b=3")],
    "json object form": [("json", '{"a": {"b": [1, 2]}}'), ("raw", "a.c=true")],
    "list index": [("raw", "l[1]=x"), ("string", "l[0]=007")],
    "file value": [("file", "f={FILE}")],
    "bad raw": [("raw", "a[x]=1")],
    "bad json": [("json", "a={")],
    "bad string": [("string", "a")],
    "bad literal": [("literal", "a[0")],
    "missing file": [("file", "f={MISSING}")],
}
_FLAG = {"raw": "set", "string": "set_string", "json": "set_json", "file": "set_file", "literal": "set_literal"}


@pytest.mark.parametrize("case", sorted(SETS))
def test_set_values_merge_as_the_helm_cli_merges_its_set_flags(chart, tmp_path, case):
    import helm_oracle
    (tmp_path / "in.txt").write_text("from a file\n")
    (tmp_path / "user.yaml").write_text("a: {keep: 1}\nb: file\n")
    (tmp_path / "app" / "templates" / "v.yaml").write_text("v: {{ toJson .Values | quote }}\n")
    sets = [(kind, expr.replace("{FILE}", str(tmp_path / "in.txt")).replace("{MISSING}", str(tmp_path / "no")))
            for kind, expr in SETS[case]]
    flags = {}
    for kind, expr in sets:
        flags.setdefault(_FLAG[kind], []).append(expr)
    try:
        expected = helm_oracle.render(chart, values_files=[tmp_path / "user.yaml"], name="rel", namespace="ns",
                                      **flags)
    except helm_oracle.HelmError as exc:
        expected = str(exc)
    try:
        got = render_release(chart, values=merge_user_values(None, [str(tmp_path / "user.yaml")], [
            {"value": expr, "value_type": kind} for kind, expr in sets]), name="rel", namespace="ns").rendered
    except (RenderError, ValuesError) as exc:
        got = str(exc)
    assert got == expected


def test_crd_files_read_as_text_chart_first_then_subcharts_each_time_asked(chart, tmp_path):
    from ansible_collections.helmless.core.plugins.module_utils.actions.inputs import from_render
    crd = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: %s\n"
    for rel, text in {"app/crds/a.yaml": crd % "as.example.com", "app/crds/notes.txt": "not a CRD\n",
                      "app/charts/sub/Chart.yaml": "apiVersion: v2\nname: sub\nversion: 0.1.0\n",
                      "app/charts/sub/crds/b.yml": crd % "bs.example.com"}.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    expected = [("app/crds/a.yaml", crd % "as.example.com"), ("app/charts/sub/crds/b.yml", crd % "bs.example.com")]
    result = render_release(chart, name="r", namespace="ns")
    assert list(result.crds) == expected and list(result.crds) == expected  # read twice, same texts
    assert len(result.crds) == 2 and result.crds[-1] == expected[-1] and result.crds[:1] == expected[:1]
    assert list(from_render(result).crds) == expected
    assert "crds" not in result.manifest
    with_crds = render_release(chart, name="r", namespace="ns", include_crds=True).manifest
    assert with_crds.index("as.example.com") < with_crds.index("bs.example.com") < with_crds.index("r-cm")
