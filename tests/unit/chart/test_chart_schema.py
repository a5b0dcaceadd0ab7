"""values.schema.json validation: Helm 4's message for every failure, chart and subcharts."""

import json
import os
import re

import helm_oracle
import pytest

import corpuskit
from chartkit import render, write_chart
from ansible_collections.helmless.core.plugins.module_utils.chart import load_chart
from ansible_collections.helmless.core.plugins.module_utils.chart.dependencies import process_dependencies
from ansible_collections.helmless.core.plugins.module_utils.chart.errors import ValuesError
from ansible_collections.helmless.core.plugins.module_utils.chart.values import ReleaseOptions, to_render_values

D7 = "http://json-schema.org/draft-07/schema#"


def normalize(text):
    """Helm lists object properties in Go map order (random), so compare the error tree with
    siblings sorted and comma-separated property lists sorted."""
    lines = [_sort_lists(line) for line in text.split("\n") if line.strip()]

    def build(i, depth):
        out = []
        while i < len(lines):
            indent = (len(lines[i]) - len(lines[i].lstrip(" "))) // 2
            if indent < depth:
                break
            text = lines[i].strip()
            kids, i = build(i + 1, depth + 1)
            out.append((text, kids))
        return sorted(out), i
    return build(0, 0)[0]


def _sort_lists(line):
    match = re.match(r"^(.*(?:additional properties|missing properties) )(.*?)( not allowed)?$", line)
    if not match:
        return line
    return match.group(1) + ", ".join(sorted(match.group(2).split(", "))) + (match.group(3) or "")


def oracle_error(path, values):
    try:
        render(path, values)
    except helm_oracle.HelmValuesError as exc:
        return str(exc)
    return None


def our_error(path, values):
    chart = load_chart(path)
    try:
        process_dependencies(chart, values)
        to_render_values(chart, values, ReleaseOptions("rel", "ns"))
    except ValuesError as exc:
        return str(exc)
    return None


def assert_same(path, values):
    expected = oracle_error(path, values)
    got = our_error(path, values)
    assert (got is None) == (expected is None), (got, expected)
    if expected is not None:
        assert normalize(got) == normalize(expected)
    return got


CASES = [
    ({"type": "object", "required": ["a"]}, {"b": 1}),
    ({"properties": {"a": {"type": "integer", "minimum": 3}}, "required": ["zz"]}, {"a": 2.5}),
    ({"properties": {"a": {"minimum": 3, "maximum": 5, "multipleOf": 2}}}, {"a": 7.5}),
    ({"properties": {"a": {"exclusiveMinimum": 3, "exclusiveMaximum": 1}}}, {"a": 3}),
    ({"properties": {"a": {"minLength": 3, "pattern": "^x"}}}, {"a": "ab"}),
    ({"properties": {"a": {"maxLength": 1}}}, {"a": "héé"}),
    ({"properties": {"a": {"minItems": 3, "uniqueItems": True}}}, {"a": [1, 2, 1]}),
    ({"properties": {"a": {"maxItems": 1, "items": {"type": "string"}}}}, {"a": [1, "x", 2]}),
    ({"properties": {"a": {"const": "x"}, "b": {"const": {"k": 1}}, "c": {"const": None}}}, {"a": "y", "b": 1, "c": 2}),
    ({"properties": {"a": {"enum": ["x"]}, "b": {"enum": [1, "x", None, True]}, "c": {"enum": [[1], "x"]}}},
     {"a": "y", "b": "q", "c": "q"}),
    ({"properties": {"a": {"enum": [1, 2], "type": "string"}}}, {"a": 3}),
    ({"properties": {"a": {"anyOf": [{"type": "string"}, {"type": "integer", "minimum": 5}]}}}, {"a": 1.5}),
    ({"properties": {"a": {"oneOf": [{"type": "number"}, {"minimum": 0}]}}}, {"a": 1.5}),
    ({"properties": {"a": {"oneOf": [{"type": "string"}, {"type": "boolean"}]}}}, {"a": 1.5}),
    ({"properties": {"a": {"allOf": [{"type": "string"}, {"minimum": 5}]}}}, {"a": 1.5}),
    ({"properties": {"a": {"not": {"type": "number"}}}}, {"a": 1.5}),
    ({"properties": {"a": False}}, {"a": 1}),
    ({"additionalProperties": {"type": "string"}}, {"a": 1, "b": "x"}),
    ({"patternProperties": {"^x": {"type": "string"}}, "additionalProperties": False}, {"xa": 1, "y": 2, "z": 3}),
    ({"$defs": {"o": {"required": ["x"], "additionalProperties": False}}, "properties": {"a": {"$ref": "#/$defs/o"}}},
     {"a": {"y": 1}}),
    ({"$defs": {"s": {"type": "integer"}}, "properties": {"a": {"$ref": "#/$defs/s", "minimum": 100}}}, {"a": 1.5}),
    ({"$schema": D7, "definitions": {"s": {"type": "integer"}},
      "properties": {"a": {"$ref": "#/definitions/s", "minimum": 100}}}, {"a": 1.5}),
    ({"properties": {"a": {"type": ["object", "boolean", "integer", "array", "null"]}}}, {"a": "s"}),
    ({"maxProperties": 1, "minProperties": 3, "propertyNames": {"maxLength": 1, "pattern": "^a"}}, {"a": 1, "bb": 2}),
    ({"dependentRequired": {"a": ["b", "c"]}}, {"a": 1}),
    ({"$schema": D7, "dependencies": {"a": ["b"], "c": {"required": ["d"]}}}, {"a": 1, "c": 1}),
    ({"if": {"properties": {"a": {"const": 1}}}, "then": {"required": ["b"]}, "else": {"required": ["c"]}}, {"a": 1}),
    ({"properties": {"a": {"if": {"type": "string"}, "then": {"minLength": 5, "pattern": "^z"}}}}, {"a": "x"}),
    ({"properties": {"a": {"contains": {"type": "string"}}}}, {"a": [1, 2]}),
    ({"properties": {"a": {"contains": {"type": "string"}, "minContains": 2}}}, {"a": ["x", 1]}),
    ({"properties": {"a": {"contains": {"type": "string"}, "maxContains": 1}}}, {"a": ["x", "y"]}),
    ({"$schema": D7, "properties": {"a": {"items": [{"type": "string"}], "additionalItems": False}}}, {"a": ["x", 1, 2]}),
    ({"properties": {"a": {"type": "string"}}, "unevaluatedProperties": False}, {"a": "x", "b": 1}),
    ({"properties": {"a": {"properties": {"b": {"properties": {"c": {"type": "string"}, "d": {"type": "string"}}}}}}},
     {"a": {"b": {"c": 1, "d": 2}}}),
    ({"properties": {"a/b": {"type": "string"}, "t~": {"type": "string"}, "q": {"pattern": "^x"}}},
     {"a/b": 1, "t~": 2, "q": "it's \"quoted\""}),
    ({"properties": {"c": {"type": "object", "required": ["d"], "additionalProperties": False,
                           "properties": {"d": {"type": "string"}}}}, "required": ["zz"]}, {"c": {"e": 1}}),
    ({"properties": {"a": {"format": "email"}}}, {"a": "not-an-email"}),
    ({"$schema": D7, "properties": {k: {"format": f} for k, f in (
        ("a", "ipv4"), ("b", "ipv6"), ("c", "hostname"), ("d", "date-time"), ("e", "date"), ("f", "uri"),
        ("g", "uuid"), ("h", "time"), ("i", "regex"), ("j", "uri-reference"), ("k", "email"), ("l", "duration"),
        ("m", "date"), ("n", "date"), ("o", "json-pointer"), ("p", "email"), ("q", "ipv4"), ("r", "time"))}},
     {"a": "1.2.3", "b": "zz", "c": "-bad-", "d": "2020-13-01", "e": "2020-1-1", "f": "not a uri", "g": "x",
      "h": "25:00:00", "i": "(", "j": "\\\\x", "k": "a@", "l": "P", "m": "2020-02-30", "n": "2020/01/01",
      "o": "x/y", "p": "a..b@example.com", "q": "1.2.3.256", "r": "12:00:00+25:00"}),
    ({"$schema": D7, "properties": {"a": {"format": "email"}, "b": {"format": "date-time"}}},
     {"a": "ok@example.com", "b": "2024-02-29T12:30:00Z"}),
    ({"properties": {"n": {"type": "integer"}, "m": {"type": "number", "maximum": 1}}}, {"n": 3, "m": 0.5}),
]


@pytest.mark.parametrize("index", range(len(CASES)))
def test_schema_errors_read_like_helm(tmp_path, index):
    schema, values = CASES[index]
    path = write_chart(tmp_path, files={"values.schema.json": json.dumps(schema), "templates/t.yaml": "x"})
    assert_same(path, values)


def test_subchart_schemas_are_checked_against_their_values(tmp_path):
    path = write_chart(tmp_path, "p", files={
        "values.schema.json": json.dumps({"properties": {"top": {"type": "string"}}}),
        "values.yaml": "top: 1\n",
        "charts/sub/Chart.yaml": "apiVersion: v2\nname: sub\nversion: 1.0.0\n",
        "charts/sub/values.schema.json": json.dumps({"properties": {"p": {"type": "string"}},
                                                      "required": ["q"]}),
        "charts/sub/values.yaml": "p: 3\n",
        "charts/other/Chart.yaml": "apiVersion: v2\nname: other\nversion: 1.0.0\n",
        "charts/other/values.schema.json": json.dumps({"type": "object", "required": ["must"]}),
        "templates/t.yaml": "x"})
    message = assert_same(path, {})
    assert message.startswith("values don't meet the specifications of the schema(s) in the following chart(s):\np:\n")
    assert_same(path, {"top": "ok", "sub": {"p": "s", "q": 1}, "other": {"must": True}})


def test_subchart_values_that_are_not_a_map_are_reported(tmp_path):
    path = write_chart(tmp_path, "p", files={
        "charts/sub/Chart.yaml": "apiVersion: v2\nname: sub\nversion: 1.0.0\n",
        "charts/sub/values.schema.json": "{}", "templates/t.yaml": "x"})
    chart = load_chart(path)
    from ansible_collections.helmless.core.plugins.module_utils.chart.schema import schema_report
    assert schema_report(chart, {"sub": "x"}) == "sub:\ninvalid type for values: expected object (map), got string\n"


SCHEMA_CHARTS = [n for n in corpuskit.names() if corpuskit.read(n, "values.schema.json") is not None]


def _mutations(schema, skip):
    """Values that break a chart's schema in several ways: wrong types for some of its properties and an
    unknown key (which strict schemas refuse); subchart keys (``skip``) are left alone."""
    wrong = {"string": 12345, "integer": "text", "number": "text", "boolean": "text", "object": "text",
             "array": {"not": "a list"}}
    values = {"zzUnknownKey": {"x": 1}}
    for name, prop in sorted((schema.get("properties") or {}).items())[:12]:
        if name in skip:
            continue
        kind = prop.get("type") if isinstance(prop, dict) else None
        if isinstance(kind, str) and kind in wrong:
            values[name] = wrong[kind]
    return values


@pytest.mark.parametrize("name", SCHEMA_CHARTS)
def test_corpus_schema_failures_read_like_helm(name):
    path = corpuskit.archive(name)
    schema = json.loads(corpuskit.read(name, "values.schema.json"))
    deps = load_chart(path).metadata.get("dependencies") or []
    assert_same(path, _mutations(schema, {d.get("alias") or d["name"] for d in deps}))


def test_subchart_values_of_the_wrong_type_fail_like_helm():
    path = corpuskit.archive("external-secrets")
    for value in ("text", 5.0, ["l"], None):
        assert our_error(path, {"bitwarden-sdk-server": value}) == oracle_error(path, {"bitwarden-sdk-server": value})


@pytest.mark.parametrize("name", SCHEMA_CHARTS)
def test_corpus_default_values_pass_their_schemas(name):
    assert our_error(corpuskit.archive(name), {}) is None


def test_remote_references_fail_cleanly_without_network(tmp_path):
    schema = {"properties": {"a": {"$ref": "https://example.invalid/schema.json"}}}
    path = write_chart(tmp_path, files={"values.schema.json": json.dumps(schema), "templates/t.yaml": "x"})
    message = our_error(path, {"a": 1})
    assert message.startswith("values don't meet the specifications of the schema(s) in the following chart(s):\nc:\n")
