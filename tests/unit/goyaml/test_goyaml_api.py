"""Go-typed values (ints, bytes, NaN) and error reporting of the goyaml API, against Helm."""
import time

import pytest

from ansible_collections.helmless.core.plugins.module_utils import goyaml
from goyaml_oracle import render_batch, values_from_yaml

NAN = float("nan")
# (template expression, the same value in our model); the template builds Go ints,
# int64s, float64s and []byte that values files cannot carry.
EXPRESSIONS = [
    ("toYaml (list 1 2 3)", goyaml.to_yaml, [1, 2, 3]),
    ("toYaml (dict \"a\" 1 \"b\" (list 1000000 1.5 1e21 1000000.0))", goyaml.to_yaml,
     {"a": 1, "b": [1000000, 1.5, 1e21, 1000000.0]}),
    ("toJson (list 1 1000000 1.5 1e21 0.000001 0.0000001)", goyaml.to_json, [1, 1000000, 1.5, 1e21, 1e-6, 1e-7]),
    ("toYamlPretty (list 1 1000000.0 1.5 (int64 7))", goyaml.to_yaml_pretty, [1, 1000000.0, 1.5, 7]),
    ("toToml (dict \"a\" 1 \"b\" 1.0 \"c\" (list 1 2.5))", goyaml.to_toml, {"a": 1, "b": 1.0, "c": [1, 2.5]}),
    ("toJson (int64 9007199254740993)", goyaml.to_json, 9007199254740993),
    ("toYaml (int64 9007199254740993)", goyaml.to_yaml, 9007199254740993),
    ("toYaml (int64 -9223372036854775808)", goyaml.to_yaml, -9223372036854775808),
    ("toYaml nil", goyaml.to_yaml, None),
    ("toYaml \"\"", goyaml.to_yaml, ""),
    ("toYaml \"a\\nb\"", goyaml.to_yaml, "a\nb"),
    ("toYaml (.Files.GetBytes \"f.bin\")", goyaml.to_yaml, b"hi\x00\xff"),
    ("toJson (.Files.GetBytes \"f.bin\")", goyaml.to_json, b"hi\x00\xff"),
    ("toJson (dict \"b\" (.Files.GetBytes \"f.bin\"))", goyaml.to_json, {"b": b"hi\x00\xff"}),
    ("toJson (float64 \"NaN\")", goyaml.to_json, NAN),
    ("toYaml (list (float64 \"+Inf\"))", goyaml.to_yaml, [float("inf")]),
    ("toYamlPretty (list (float64 \"+Inf\") (float64 \"-Inf\"))", goyaml.to_yaml_pretty,
     [float("inf"), float("-inf")]),
    ("toToml (dict \"i\" (float64 \"+Inf\"))", goyaml.to_toml, {"i": float("inf")}),
    ("toToml \"x\"", goyaml.to_toml, "x"),
    ("toToml (list 1 2)", goyaml.to_toml, [1, 2]),
    ("toToml (dict \"a\" (dict))", goyaml.to_toml, {"a": {}}),
    ("toToml (dict \"a\" (list 1 nil))", goyaml.to_toml, {"a": [1, None]}),
    ("toToml (dict \"a\" (list (dict \"b\" 1) nil))", goyaml.to_toml, {"a": [{"b": 1}, None]}),
    ("toJson (fromJson \"null\")", lambda _: goyaml.to_json(goyaml.from_json("null")), None),
    ("toYaml (fromJson \"null\")", lambda _: goyaml.to_yaml(goyaml.from_json("null"))[:-1], None),
    ("fromJson \"null\"", lambda _: "map[]" if goyaml.from_json("null") == {} else "?", None),
    ("toJson (fromJson \"{\\\"a\\\": 1e400, \\\"b\\\": 2}\")",
     lambda _: goyaml.to_json(goyaml.from_json('{"a": 1e400, "b": 2}')), None),
] + [
    # Go's scanner steps one space at end of input: truncated literals and numbers name it.
    ("toJson (fromJson %s)" % '"%s"' % t.replace('"', '\\"'),
     lambda _, t=t: goyaml.to_json(goyaml.from_json(t)), None)
    for t in ("tru", "nul", "-", "1.", "1e", "1e+", "[1,", '{"a"', '"abc')
] + [
    ("toJson (fromJsonArray %s)" % '"%s"' % t.replace('\\', '\\\\').replace('"', '\\"'),
     lambda _, t=t: goyaml.to_json(goyaml.from_json_array(t)), None)
    for t in ('["\\ud800"]', '["\\ud83d\\ude00", "\\udc00x"]')
]


@pytest.fixture(scope="module")
def helm():
    templates = {"e%03d.txt" % i: "{{ %s }}" % e for i, (e, _, _) in enumerate(EXPRESSIONS)}
    return render_batch("api", "{}\n", templates, files={"f.bin": b"hi\x00\xff"})


def _ours(fn, v):
    try:
        out = fn(v)
    except (goyaml.YAMLError, goyaml.JSONError):
        return ""
    except goyaml.TOMLError as exc:  # toToml renders the error text
        return str(exc)
    if fn in (goyaml.to_yaml, goyaml.to_yaml_pretty):
        return out[:-1]
    return out


@pytest.mark.parametrize("i", range(len(EXPRESSIONS)), ids=[e for e, _, _ in EXPRESSIONS])
def test_go_typed_values_serialise_like_helm(helm, i):
    expr, fn, value = EXPRESSIONS[i]
    assert _ours(fn, value) == helm["e%03d.txt" % i]


def test_load_errors_carry_gos_message_and_the_file_name():
    text = "a: 1\nb: [\n"
    with pytest.raises(goyaml.YAMLError) as exc:
        goyaml.load(text, source="values-prod.yaml")
    helm = values_from_yaml(text)
    assert str(exc.value) == "values-prod.yaml: " + helm[1]
    assert exc.value.go_message == helm[1] and exc.value.source == "values-prod.yaml"
    assert exc.value.line == 2


def test_alias_bombs_fail_fast_with_gos_error():
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for n in "bcdefghi":
        prev = chr(ord(n) - 1)
        lines.append("%s: &%s [%s]" % (n, n, ",".join(["*" + prev] * 9)))
    text = "\n".join(lines) + "\n"
    started = time.perf_counter()
    with pytest.raises(goyaml.YAMLError) as exc:
        goyaml.load(text)
    assert time.perf_counter() - started < 5  # bounded work, not a timing benchmark
    assert exc.value.go_message == values_from_yaml(text)[1]


def test_aliased_values_are_independent_copies():
    v = goyaml.load("a: &x {b: [1]}\nc: *x\n")
    v["c"]["b"].append(2)
    assert v["a"] == {"b": [1.0]}


def test_load_all_returns_every_document():
    text = "a: 1\n---\n- x\n---\n"
    assert goyaml.load_all(text) == [goyaml.load("a: 1"), goyaml.load("- x"), None]


TOML_TEXTS = [
    "x = 1\ny = 1.5\nz = \"s\"\n[t]\nk = [1, 2]\n[[arr]]\nq = true\n[[arr]]\nq = false\n",
    "d = 1979-05-27T07:32:00Z\ne = 1979-05-27\nf = 07:32:00\ng = 1979-05-27T07:32:00\n"
    "h = 1979-05-27T00:32:00.999-07:00\n",
    "a.b.c = 1\n\"quoted key\" = 'lit'\nml = \"\"\"\nx\ny\"\"\"\ninline = {p = 1, q = [true]}\n",
    "big = 9223372036854775807\nneg = -17\nhex = 0xff\nf = 6.02e23\ninf = inf\n",
    "",
]


@pytest.fixture(scope="module")
def helm_toml():
    values = "{" + ", ".join('"t%d": %s' % (i, __import__("json").dumps(t)) for i, t in enumerate(TOML_TEXTS)) + "}\n"
    templates = {"t%d.txt" % i: "{{ fromToml .Values.t%d | toJson }}|{{ typeOf (fromToml .Values.t%d).d }}"
                 "|{{ (fromToml .Values.t%d).h }}" % (i, i, i) for i in range(len(TOML_TEXTS))}
    return render_batch("fromToml", values, templates)


@pytest.mark.parametrize("i", range(len(TOML_TEXTS)))
def test_from_toml_decodes_like_helm(helm_toml, i):
    v = goyaml.from_toml(TOML_TEXTS[i])
    d = v.get("d")
    h = v.get("h")
    try:
        text = goyaml.to_json(v)
    except goyaml.JSONError:
        text = ""
    ours = "%s|%s|%s" % (text, d.GO_TYPE if d is not None else "<nil>",
                         h.String() if h is not None else "")
    assert ours == helm_toml["t%d.txt" % i]


MUST = [
    ("mustToYaml (list (float64 \"NaN\"))", goyaml.to_yaml, [float("nan")]),
    ("mustToYaml (list \"a\\u007fb\")", goyaml.to_yaml, ["a\x7fb"]),
    ("mustToYaml (dict \"a\\u0085b\" 1)", goyaml.to_yaml, {"a\x85b": 1}),
    ("mustToJson (float64 \"NaN\")", goyaml.to_json, float("nan")),
    ("mustToToml (dict \"a\" (list 1 nil))", goyaml.to_toml, {"a": [1, None]}),
    ("toToml nil", goyaml.to_toml, None),
]


@pytest.mark.parametrize("expr,fn,value", MUST, ids=[m[0] for m in MUST])
def test_serialiser_errors_carry_gos_message(tmp_path, expr, fn, value):
    from goyaml_oracle import write_chart, render_chart
    write_chart(str(tmp_path), "{}\n", {"t.txt": "{{ %s }}" % expr})
    with pytest.raises(Exception) as helm:
        render_chart(str(tmp_path))
    with pytest.raises((goyaml.YAMLError, goyaml.JSONError, goyaml.TOMLError)) as ours:
        fn(value)
    assert str(helm.value).endswith(": " + str(ours.value))
