"""Coalesced values, .Chart, .Release and subchart scopes compared with what Helm's templates see."""

import os

import helm_oracle
import pytest

import corpuskit
from chartkit import oracle_scopes, our_scopes, probed_copy, write_chart
from ansible_collections.helmless.core.plugins.module_utils.chart import load_chart
from ansible_collections.helmless.core.plugins.module_utils.chart.errors import ValuesError
from ansible_collections.helmless.core.plugins.module_utils.chart.values import (
    Values, coalesce_tables, coalesce_values, merge_values)

VALUES_DIR = corpuskit.VALUES
CORPUS = corpuskit.names()


def _cases():
    cases = []
    for name in CORPUS:
        cases.append((name, None))
        for fname in sorted(os.listdir(VALUES_DIR)):
            if fname.startswith(name + "-") and fname.endswith(".yaml"):
                rest = fname[len(name) + 1:]
                if not any(fname.startswith(other + "-") and len(other) > len(name) for other in CORPUS):
                    cases.append((name, rest))
    return cases


def _user_values(name, rest):
    if rest is None:
        return {}
    with open(os.path.join(VALUES_DIR, name + "-" + rest)) as handle:
        return helm_oracle.values_from_yaml(handle.read())


@pytest.mark.parametrize("name,values_file", _cases())
def test_corpus_values_and_scopes_match_helm(tmp_path, name, values_file):
    path = probed_copy(corpuskit.unpack(name, tmp_path / "corpus"), tmp_path)
    user = _user_values(name, values_file)
    expected = oracle_scopes(path, user)
    warnings = []
    assert our_scopes(path, user, warnings) == expected


def test_string_over_a_default_table_keeps_the_user_value_and_warns(tmp_path):
    path = probed_copy(corpuskit.unpack("jenkins", tmp_path / "corpus"), tmp_path)
    user = _user_values("jenkins", "ci-other.yaml")
    warnings = []
    scopes = our_scopes(path, user, warnings)
    assert scopes == oracle_scopes(path, user)
    assert scopes["jenkins"]["values"]["controller"]["containerSecurityContext"] == ""
    assert any(w.startswith("warning: cannot overwrite table with non table for jenkins.controller."
                            "containerSecurityContext") for w in warnings)


def _family(tmp_path, parent_values="", sub_values="", deps="", sub_chart=None, extra=None):
    files = {
        "values.yaml": parent_values,
        "charts/sub/Chart.yaml": sub_chart or "apiVersion: v2\nname: sub\nversion: 1.0.0\n",
        "charts/sub/values.yaml": sub_values,
    }
    files.update(extra or {})
    chart_yaml = "apiVersion: v2\nname: p\nversion: 1.0.0\n" + deps
    return probed_copy(write_chart(tmp_path / "src", "p", chart_yaml, files), tmp_path)


COALESCE_CASES = {
    "user null deletes a default": ("a: 1\nb: {c: 2, d: 3}\n", "", {"a": None, "b": {"c": None}}),
    "user null for an unknown key stays": ("a: 1\n", "", {"zz": None}),
    "default null stays in the root": ("a: null\nb: {c: null}\n", "", {}),
    "default null in a subchart is dropped": ("", "x: null\ny: {z: null, w: 1}\n", {}),
    "parent sets subchart values": ("sub: {x: 2, n: {m: 1}}\n", "x: 1\nn: {k: 2}\n", {"sub": {"n": {"k": 3}}}),
    "user null removes subchart default": ("", "x: 1\ny: 2\n", {"sub": {"x": None}}),
    "parent null removes subchart default": ("sub: {x: null}\n", "x: 1\ny: 2\n", {}),
    "globals flow down, parent wins": ("global: {g: 1, t: {a: 1}}\n", "global: {g: 2, h: 3, t: {b: 2}}\n",
                                        {"global": {"u": 5}}),
    "user globals reach subcharts": ("", "global: {g: 2}\n", {"global": {"g": 9, "t": {"x": 1}}}),
    "table over scalar is skipped": ("a: 1\n", "", {"a": {"b": 1}}),
    "scalar over table is kept": ("a: {b: 1}\n", "", {"a": "x"}),
    "lists are replaced": ("l: [1, 2, 3]\nm: {l: [a]}\n", "", {"l": [9], "m": {"l": []}}),
    "subchart key that is not a table": ("", "s: 1\n", {"sub": {"s": 2}}),
    "yaml 1.1 booleans and numbers": ("y: 1\non: 2\nn: 0777\nh: 0x1F\nf: 1.10\nbig: 9007199254740993\n", "", {}),
    "global that is not a table": ("global: 5\n", "global: {a: 1}\n", {}),
    "parent null for the subchart table": ("sub: null\n", "x: 1\n", {}),
    "user null for the subchart table": ("sub: {x: 2}\n", "x: 1\n", {"sub": None}),
    "null globals": ("global: null\n", "global: {a: 1}\n", {}),
    "subchart global that is not a table": ("global: {a: 1}\n", "global: 3\n", {}),
    "nested globals merge both ways": ("global: {t: {a: 1, n: {x: 1}}}\n", "global: {t: {b: 2, n: {y: 2}}}\n",
                                       {"global": {"t": {"n": {"z": 3}}}}),
}


@pytest.mark.parametrize("case", sorted(COALESCE_CASES))
def test_coalescing_matches_helm(tmp_path, case):
    parent, sub, user = COALESCE_CASES[case]
    path = _family(tmp_path, parent, sub)
    assert our_scopes(path, user) == oracle_scopes(path, user)


def test_coalescing_does_not_change_inputs(tmp_path):
    chart = load_chart(write_chart(tmp_path, files={"values.yaml": "a: {b: 1}\n"}))
    user = {"a": {"c": 2}}
    out = coalesce_values(chart, user)
    assert out == {"a": {"b": 1, "c": 2}} and user == {"a": {"c": 2}} and chart.values == {"a": {"b": 1}}
    assert isinstance(out, Values)


def test_merge_values_keeps_nulls(tmp_path):
    chart = load_chart(write_chart(tmp_path, files={"values.yaml": "a: 1\nb: 2\n"}))
    assert merge_values(chart, {"a": None}) == {"a": None, "b": 2}
    assert coalesce_values(chart, {"a": None}) == {"b": 2}


def test_subchart_values_that_are_not_a_table_fail(tmp_path):
    path = write_chart(tmp_path, "p", files={"charts/sub/Chart.yaml": "apiVersion: v2\nname: sub\nversion: 1.0.0\n"})
    with pytest.raises(ValuesError, match="type mismatch on sub"):
        coalesce_values(load_chart(path), {"sub": "x"})


def test_coalesce_tables_warns_instead_of_printing():
    warnings = []
    dst = {"a": "x", "b": {"c": 1}}
    coalesce_tables(dst, {"a": {"k": 1}, "b": 5}, warnings)
    assert dst == {"a": "x", "b": {"c": 1}}
    assert warnings == ["warning: cannot overwrite table with non table for a (map[k:1])",
                        "warning: destination for b is a table. Ignoring non-table value (5)"]


def test_values_methods_behave_like_helm(tmp_path):
    values = Values({"a": {"b": 1, "c": {"d": "x"}}, "s": "v"})
    assert values.Table("a.c") == {"d": "x"} and isinstance(values.Table("a"), Values)
    assert values.PathValue("a.b") == 1 and values.PathValue("s") == "v"
    for path in ("a.c", "a.zz", "zz.b"):
        with pytest.raises(ValuesError, match="is not a value"):
            values.PathValue(path)
    with pytest.raises(ValuesError, match='"s" is not a table'):
        values.Table("s")
    with pytest.raises(ValuesError, match="YAML path cannot be empty"):
        values.PathValue("")
    assert values.AsMap() is values
    assert values.go_method("Table") is not None and values.go_method("a") is None


def test_values_methods_render_like_helm(tmp_path):
    path = write_chart(tmp_path, files={
        "values.yaml": "a:\n  b: 1\n  c: {d: x}\nl: [1, two]\n",
        "templates/t.yaml": '{{ toJson (list (.Values.Table "a") (.Values.PathValue "a.b") .Values.AsMap) }}\n'
                            '{{ .Values.YAML }}'})
    from chartkit import render
    out = render(path)["c/templates/t.yaml"]
    import json
    first, yaml_text = out.split("\n", 1)
    values = coalesce_values(load_chart(path))
    assert json.loads(first) == json.loads(json.dumps([values.Table("a"), values.PathValue("a.b"), values.AsMap()]))
    assert values.YAML() == yaml_text


def test_user_values_apply_files_then_set_flags_in_helms_order(tmp_path):
    from ansible_collections.helmless.core.plugins.module_utils.chart.values import user_values
    first = tmp_path / "a.yaml"
    first.write_text("a: 1\nb: {c: 2, d: 3}\nl: [1]\n---\nz: 1\n")
    content = tmp_path / "content.txt"
    content.write_text("from file")
    out = user_values([str(first), {"b": {"d": 4}}], set_json=['j={"x":1}', 'a=10'], set_values=["a=5,s=7"],
                      set_string=["s=8"], set_file=["f=" + str(content)], set_literal=["s=lit,eral"])
    assert out == {"a": 5, "b": {"c": 2.0, "d": 4}, "l": [1.0], "z": 1.0, "j": {"x": 1.0}, "s": "lit,eral",
                   "f": "from file"}
    with pytest.raises(ValuesError, match=r"^failed parsing --set data: error parsing index"):
        user_values(set_values=["a[x]=1"])
    broken = tmp_path / "broken.yaml"
    broken.write_text("a: [\n")
    with pytest.raises(ValuesError, match="failed to parse .*broken.yaml"):
        user_values([str(broken)])
