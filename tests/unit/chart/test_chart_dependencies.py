"""Conditions, tags, aliases, import-values, globals and pruning compared with Helm's render."""

import pytest

from chartkit import add_probes, oracle_scopes, our_scopes, write_chart
from ansible_collections.helmless.core.plugins.module_utils.chart import load_chart
from ansible_collections.helmless.core.plugins.module_utils.chart.dependencies import (
    check_dependencies, process_dependencies)
from ansible_collections.helmless.core.plugins.module_utils.chart.errors import ValuesError


def _sub(name, version="1.0.0", values="", extra_chart="", files=None):
    out = {"charts/%s/Chart.yaml" % name: "apiVersion: v2\nname: %s\nversion: %s\n%s" % (name, version, extra_chart),
           "charts/%s/values.yaml" % name: values}
    for rel, content in (files or {}).items():
        out["charts/%s/%s" % (name, rel)] = content
    return out


def _parent(tmp_path, deps, values="", subs=()):
    files = {"values.yaml": values}
    for sub in subs:
        files.update(sub)
    chart_yaml = "apiVersion: v2\nname: p\nversion: 1.0.0\ndependencies:\n" + deps if deps else None
    return add_probes(write_chart(tmp_path, "p", chart_yaml, files))


def _same(path, values=None):
    warnings = []
    ours = our_scopes(path, values, warnings)
    assert ours == oracle_scopes(path, values)
    return ours, warnings


TWO = (_sub("a", values="x: 1\nenabled: true\n"), _sub("b", values="y: 2\n"))

CONDITION_CASES = {
    "false condition removes the subchart": ("- name: a\n  version: 1.0.0\n  condition: a.enabled\n"
                                            "- name: b\n  version: 1.0.0\n", "a: {enabled: false}\n", None),
    "user value re-enables": ("- name: a\n  version: 1.0.0\n  condition: a.enabled\n",
                              "a: {enabled: false}\n", {"a": {"enabled": True}}),
    "subchart default counts": ("- name: a\n  version: 1.0.0\n  condition: a.enabled\n", "", None),
    "first resolvable path wins": ("- name: a\n  version: 1.0.0\n  condition: missing.path,flags.a,flags.b\n",
                                   "flags: {a: false, b: true}\n", None),
    "non-bool condition is skipped": ("- name: a\n  version: 1.0.0\n  condition: flags.s,flags.b\n",
                                      "flags: {s: 'yes', b: false}\n", None),
    "unresolvable condition keeps it": ("- name: a\n  version: 1.0.0\n  condition: nope.nope\n", "", None),
    "table condition is not a value": ("- name: a\n  version: 1.0.0\n  condition: flags\n",
                                       "flags: {x: false}\n", None),
    "tag false disables": ("- name: a\n  version: 1.0.0\n  tags: [front]\n- name: b\n  version: 1.0.0\n"
                           "  tags: [back]\n", "tags: {front: false}\n", None),
    "any true tag enables": ("- name: a\n  version: 1.0.0\n  tags: [front, back]\n",
                             "tags: {front: false, back: true}\n", None),
    "condition beats tags": ("- name: a\n  version: 1.0.0\n  tags: [front]\n  condition: a.on\n",
                             "tags: {front: false}\na: {on: true}\n", None),
    "non-bool tag is ignored": ("- name: a\n  version: 1.0.0\n  tags: [front]\n", "tags: {front: 1}\n", None),
    "tags that are not a table": ("- name: a\n  version: 1.0.0\n  tags: [front]\n", "tags: [front]\n", None),
    "user tags disable": ("- name: a\n  version: 1.0.0\n  tags: [front]\n", "", {"tags": {"front": False}}),
    "undeclared subchart stays": ("- name: a\n  version: 1.0.0\n  condition: a.enabled\n",
                                  "a: {enabled: false}\n", None),
    "declared but missing subchart is ignored": ("- name: a\n  version: 1.0.0\n- name: zz\n  version: 1.0.0\n",
                                                 "", None),
    "version mismatch keeps the chart under its name": ("- name: a\n  version: ^2.0.0\n  condition: a.enabled\n",
                                                        "a: {enabled: false}\n", None),
    "version range matches": ("- name: a\n  version: '>=0.5.0 <2'\n  condition: a.enabled\n", "", None),
    "trimmed condition list": ("- name: a\n  version: 1.0.0\n  condition: ' flags.a '\n",
                               "flags: {a: false}\n", None),
}


@pytest.mark.parametrize("case", sorted(CONDITION_CASES))
def test_enabling_and_pruning_match_helm(tmp_path, case):
    deps, values, user = CONDITION_CASES[case]
    _same(_parent(tmp_path, deps, values, TWO), user)


def test_non_bool_condition_warns(tmp_path):
    deps, values, _user = CONDITION_CASES["non-bool condition is skipped"]
    _ours, warnings = _same(_parent(tmp_path, deps, values, TWO))
    assert "returned non-bool value path=flags.s chart=a" in warnings


def test_aliases_make_renamed_copies(tmp_path):
    deps = ("- name: a\n  version: 1.0.0\n  alias: first\n"
            "- name: a\n  version: 1.0.0\n  alias: second\n  condition: second.enabled\n"
            "- name: a\n  version: 1.0.0\n  alias: third\n  condition: third.enabled\n")
    values = "first: {x: 10}\nsecond: {enabled: true}\nthird: {enabled: false}\n"
    ours, _w = _same(_parent(tmp_path, deps, values, TWO))
    assert sorted(ours) == ["p", "p/charts/b", "p/charts/first", "p/charts/second"]


# Ranges where a chart-only semver copy once disagreed with Masterminds/semver (Helm's).
RANGE_CASES = [("=>1.2-0", "1.2.3"), ("=<1.20-0", "1.19.0"), ("==1.x", "1.2.3"), ("!=*", "1.2.3"),
               ("^*", "0.1.0"), ("^0.0.0", "0.1.0"), ("*-0", "1.2.3-alpha"), ("<=*", "2.0.0"),
               (">*", "1.0.0"), ("~0.0.0", "0.1.0")]


@pytest.mark.parametrize("constraint,version", RANGE_CASES)
def test_alias_applies_only_when_the_version_satisfies_the_range(tmp_path, constraint, version):
    deps = "- name: a\n  version: '%s'\n  alias: al\n" % constraint
    _same(_parent(tmp_path, deps, "", (_sub("a", version=version),)))


def test_alias_of_a_nested_umbrella(tmp_path):
    inner = {"charts/a/charts/c/Chart.yaml": "apiVersion: v2\nname: c\nversion: 1.0.0\n",
             "charts/a/charts/c/values.yaml": "z: 1\n"}
    sub = _sub("a", extra_chart="dependencies:\n- name: c\n  version: 1.0.0\n  condition: c.on\n",
               values="c: {on: true}\n")
    sub.update(inner)
    deps = "- name: a\n  version: 1.0.0\n  alias: one\n- name: a\n  version: 1.0.0\n  alias: two\n"
    _same(_parent(tmp_path, deps, "two: {c: {on: false}}\n", (sub,)))


GLOBAL_CASES = {
    "globals copied into every subchart": ("global: {region: eu, t: {a: 1}}\n", "global: {region: us, own: 1}\n"),
    "nested subcharts get globals": ("global: {g: 1}\n", "global: {g: 2}\n"),
}


@pytest.mark.parametrize("case", sorted(GLOBAL_CASES))
def test_globals_match_helm(tmp_path, case):
    parent_values, sub_values = GLOBAL_CASES[case]
    sub = _sub("a", values=sub_values, extra_chart="dependencies:\n- name: c\n  version: 1.0.0\n")
    sub.update(_sub("c", values="global: {deep: true}\n"))
    sub = {k.replace("charts/c/", "charts/a/charts/c/"): v for k, v in sub.items()}
    _same(_parent(tmp_path, "- name: a\n  version: 1.0.0\n", parent_values, (sub,)),
          {"global": {"user": "u"}})


IMPORT_CASES = {
    "string form imports exports": ("import-values: [data]\n", "exports: {data: {k: v, n: {m: 1}}}\n", ""),
    "map form imports a child table": ("import-values:\n  - child: conf\n    parent: imported\n",
                                       "conf: {a: 1, b: {c: 2}}\n", ""),
    "map form into the root": ("import-values:\n  - child: conf\n    parent: .\n", "conf: {a: 1}\n", ""),
    "nested parent path": ("import-values:\n  - child: conf.inner\n    parent: x.y.z\n",
                           "conf: {inner: {a: 1}}\n", ""),
    "parent values override imports": ("import-values: [data]\n", "exports: {data: {k: child, j: 1}}\n",
                                       "k: parent\n"),
    "missing child table is skipped": ("import-values: [nothere, data]\n", "exports: {data: {k: 1}}\n", ""),
    "scalar child is not a table": ("import-values:\n  - child: s\n    parent: p\n", "s: 1\n", ""),
    "map form without parent": ("import-values:\n  - child: conf\n", "conf: {a: 1}\n", ""),
}


@pytest.mark.parametrize("case", sorted(IMPORT_CASES))
def test_import_values_match_helm(tmp_path, case):
    imports, sub_values, parent_values = IMPORT_CASES[case]
    deps = "- name: a\n  version: 1.0.0\n  " + imports.replace("\n", "\n  ").rstrip() + "\n"
    _same(_parent(tmp_path, deps, parent_values, (_sub("a", values=sub_values),)))


def test_import_values_from_a_grandchild_chain(tmp_path):
    sub = _sub("a", values="exports: {fromA: {a: 1}}\n",
               extra_chart="dependencies:\n- name: c\n  version: 1.0.0\n  import-values: [fromC]\n")
    sub.update({"charts/a/charts/c/Chart.yaml": "apiVersion: v2\nname: c\nversion: 1.0.0\n",
                "charts/a/charts/c/values.yaml": "exports: {fromC: {c: 3}}\n"})
    deps = "- name: a\n  version: 1.0.0\n  import-values: [fromA]\n"
    _same(_parent(tmp_path, deps, "", (sub,)))


def test_import_values_with_user_overrides(tmp_path):
    deps = "- name: a\n  version: 1.0.0\n  import-values: [data]\n"
    path = _parent(tmp_path, deps, "", (_sub("a", values="exports: {data: {k: 1, j: 2}}\n"),))
    _same(path, {"k": 5, "a": {"exports": {"data": {"j": 9}}}})


def test_library_subchart_is_kept_but_renders_nothing(tmp_path):
    lib = _sub("lib", extra_chart="type: library\n", values="libval: 1\n",
               files={"templates/_h.tpl": '{{ define "lib.x" }}x{{ end }}', "templates/res.yaml": "kind: X\n"})
    path = _parent(tmp_path, "- name: lib\n  version: 1.0.0\n", "", (lib,))
    ours, _w = _same(path)
    chart = load_chart(path)
    process_dependencies(chart, {})
    library = chart.dependencies[0]
    assert library.is_library() and [n for n, _ in library.renderable_templates()] == ["templates/_h.tpl"]
    assert ours["p"]["subcharts"] == ["lib"]


def test_processing_is_in_place_like_helm(tmp_path):
    deps = "- name: a\n  version: 1.0.0\n  condition: a.enabled\n"
    chart = load_chart(_parent(tmp_path, deps, "a: {enabled: false}\n", TWO))
    process_dependencies(chart, {})
    assert [d.name for d in chart.dependencies] == ["b"]
    assert chart.metadata["dependencies"] == []


def test_check_dependencies_names_missing_charts(tmp_path):
    chart = load_chart(_parent(tmp_path, "- name: a\n  version: 1.0.0\n- name: zz\n  version: 1.0.0\n", "", TWO))
    with pytest.raises(ValuesError, match="found in Chart.yaml, but missing in charts/ directory: zz"):
        check_dependencies(chart)
