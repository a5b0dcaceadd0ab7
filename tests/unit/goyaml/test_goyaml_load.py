"""YAML loading (values files, fromYaml) equals real Helm's, errors included."""
import contextlib
import sys

import pytest
import yaml

from ansible_collections.helmless.core.plugins.module_utils import goyaml
from goyaml_cases import WORDS, MULTILINE
from goyaml_oracle import values_from_yaml, chart_values, render_values


def canon(v):
    """Type-tagged form: Go has only float64 numbers, so ints and floats compare as floats."""
    if isinstance(v, bool):
        return ("bool", v)
    if isinstance(v, (int, float)):
        return ("num", float(v))
    if isinstance(v, dict):
        return {k: canon(x) for k, x in v.items()}
    if isinstance(v, list):
        return [canon(x) for x in v]
    return v


def _plain_words():
    return [w for w in WORDS if "\n" not in w]


def word_documents(w):
    """One plain word in every position of a document."""
    return ["k: %s" % w, "%s: v" % w, "k: [%s]" % w, "k: {%s: 1}" % w, "- %s" % w,
            "k: '%s'" % w, 'k: "%s"' % w, "k:\n  - %s\n" % w]


def block_documents(text):
    return ["k: |\n" + "".join("  " + ln + "\n" for ln in text.split("\n")),
            "k: >\n" + "".join("  " + ln + "\n" for ln in text.split("\n"))]


def documents():
    return [
        "", "# only a comment\n", "---\n", "---\na: 1\n", "a: 1\n---\nb: 2\n", "a: 1\n...\n",
        "%YAML 1.1\n---\na: 1\n", "%TAG !e! tag:example.com,2000:\n---\na: !e!x 1\n", "\ufeffa: 1\n",
        "a: 1\r\nb: 2\r\n", "a: 1\rb: 2", "a:\n  b:\n    c: 1\n  d: [1, 2, {e: f}]\n",
        "a: &x {b: 1}\nc: *x\n", "a: &x [1, 2]\nb: *x\nc: [*x, *x]\n", "a: &s str\nb: *s\n",
        "a: &k key\n*k : v\n", "&k yes: 1\nb:\n  *k : 2\n",
        "a: &x {b: 1}\nc:\n  d: 2\n  <<: *x\n  b: 3\n", "c:\n  b: 3\n  <<: {b: 1, e: 2}\n",
        "c: {<<: [{a: 1}, {a: 2, b: 2}]}", "a: &x {p: 1}\nb: &y {p: 2, q: 2}\nc:\n  <<: [*x, *y]\n",
        "c:\n  <<: 1\n", "c:\n  <<: [1]\n", "c:\n  '<<': {a: 1}\n", "c:\n  !!merge <<: {a: 1}\n",
        "a: &x 1\na: &x 2\nb: *x\n", "x: *q", "a: &a [*a]", "a: &a {b: *a}",
        "a: !!str 5\nb: !!int '7'\nc: !!float 1\nd: !!bool yes\ne: !!null ~\nf: !!binary aGVsbG8=\n",
        "a: !!int abc", "a: !!float xyz", "a: !!bool 1", "a: !!binary '!!!'", "a: !foo bar\nb: !foo\n  c: d\n",
        "a: !!timestamp 2001-12-14\nb: 2001-12-14\n", "a: !!str\nb: !!int\n", "a: !!map {b: 1}\nb: !!seq [1]\n",
        "1.5: a\n0.1234567891: b\n1e3: c\n", "~: d", "null: x\n", "18446744073709551615: a", "1: a\n2: b\n",
        "true: a\nfalse: b\n", "0x10: a\n0777: b\n", ".inf: a\n-.inf: b\n.nan: c\n", "? [a]\n: b",
        "? {a: 1}\n: b", "? a\n: b\n", "? |\n  multi\n  line\n: v\n", "a: .inf", "a: -.Inf", "a: .nan",
        "a: [.inf]", "a: 1\na: 2\n", "a: {x: 1}\na: {y: 2}\n", "a: 1\n b: 2\n", 'a: "x', "a: 'x",
        "a:\n  - b\n  c: d\n", "a: 1\n\tb: 2", "a: \x7f", "a: \x85", "a: [", "a: {", "a: ]", "- a\nb: c",
        "a: b: c", "a: @x", "a: `x", "a:\n- 1\n- 2\n", "  a: 1\n b: 2\n", "a: |\n x\n  y\n",
        "a: |2\n   x\n", "a: |-\n  x\n\n", "a: |+\n  x\n\n", "a: >-\n  x\n  y\n\n  z\n", "a: >\n  x\n   y\n  z\n",
        "a: \"x\\/y\"\n", "a: 'x\\/y'\n", "a: \"x\\\\/y\"\n", "%YAML 1.2\n---\na: 1\n", "# c\n%YAML 1.2\n---\na: 1\n",
        "a: 'it''s'\nb: \"esc \\t \\n \\u00e9 \\x41 \\U0001F600 \\/ \\N \\_ \\L \\P\"\n", 'a: "\\q"',
        'a: "multi\n  line\n\n  text"\n', "a: plain\n  continued\n   again\n", "a: 'single\n\n  x'\n",
        "a: 9007199254740993\nb: 12345678901234567890\nc: -9223372036854775809\nd: 0.1e-400\n",
        "a: 1e400", "a: -1e400", "a: [1, [2, [3, [4]]]]", "[1, 2]", "5", "'str'", "null", "~",
        "a: {b: [], c: {}, d: ''}", "a: [a, b,]", "a: {b: 1,}", "a: [a: 1, b]", "a: {? x, y: }",
        "a:\n  # comment\n  b: 1 # trailing\n#end\n", "a: b #c\nd: 'e #f'\n", "a: 'x' y", "a: \"x\" y",
        "- - - x\n", "-\n  a: 1\n-\n", "a: -\nb: - \n", "a:\n  -\n  - 1\n", "---\n- 1\n", "--- |\n  x\n",
        "a: [1, 2\n  , 3]\n", "a: {b: c\n  , d: e}\n", "a: &anc\n  b: 1\nc: *anc\n", "*x", "&x a: 1",
        "a: *", "a: & b", "a: !", "a: !<tag:yaml.org,2002:str> 5\n", "a: 0o17\nb: 0O17\nc: 0B11\n",
        "a: 1_000_000\nb: 0x_FF\nc: 1__2\nd: 1_\ne: _1\n", "a: +.5\nb: -.5e3\nc: 1.e2\nd: 1.E+2\n",
        "a: 08\nb: 09\nc: 010\nd: -010\ne: 0.0\nf: -0\ng: +0\n", "a: 0b\nb: 0x\nc: 0o\n",
        "a: 1:30\nb: 190:20:30\nc: -1:00\n", "a: yes\nb: No\nc: ON\nd: oFF\ne: y\nf: N\n",
        "a: \"yes\"\nb: 'y'\n", "a: nan\nb: inf\nc: Infinity\nd: NaN\n", "key with spaces: value with spaces\n",
        "\"quoted key\": 1\n'single key': 2\n", "a: [b, 'c', \"d\", {e: f}, [g]]\n",
        # %#v of a string key in "invalid map key" is strconv.Quote: \a, \u0080, \v.
        '? {"\\a\\x80\\u00e9": 1}\n: b\n', '? ["\\b\\v\\f"]\n: b\n',
        # go-yaml (libyaml 0.2.5) takes the "]" after "?" in a flow sequence as the key's token (libyaml 0.2.6 does not).
        "k: [?]\nb: 1\n", "a:\n  b: [?]\nc: 1\n", "k: {a: [?]}\n", "\ufeffk: [? ]", "k: [? # c\n ]\n  # d\n",
        "k: [?] @x", "k: [?]\r\n\r\n", "x: 1\nk: [?] #c", "- [?]\n---\nb: 1\n", "k: [?:]", "k: [? ,]", "k: [? :x]",
    ]


# libyaml 0.2 (PyYAML's parser) differs from go-yaml v2 in a few flow-context corners
# (``[a:]`` is accepted by go-yaml; tags directly before ``]`` give another message);
# those inputs are left out here.
_LIBYAML_DIFFERS = ("[a:]", "[!a]", "[!]", "[!!str]")


def _usable(d):
    return not any(x in d for x in _LIBYAML_DIFFERS)


GROUPS = [[d for d in word_documents(w) if _usable(d)] for w in _plain_words()]
GROUPS += [[d for d in block_documents(t) if _usable(d)] for t in MULTILINE]
GROUPS += [[d] for d in documents() if _usable(d)]


def _ours(text):
    try:
        return goyaml.load(text)
    except goyaml.YAMLError as err:
        return ("ERROR", str(err))


def _same(ours, helm):
    if isinstance(helm, tuple):
        return ours == helm
    if isinstance(ours, tuple):
        return False
    if ours is None:
        ours = {}
    if not isinstance(ours, dict):
        return False
    return canon(ours) == canon(helm)


@pytest.mark.parametrize("texts", GROUPS, ids=[repr(g[0])[:40] if g else "-" for g in GROUPS])
def test_load_reads_values_documents_as_helm_does(texts):
    for text in texts:
        helm = values_from_yaml(text)
        ours = _ours(text)
        if isinstance(helm, tuple) and "cannot unmarshal" in helm[1] and "common.Values" in helm[1]:
            assert not isinstance(ours, (dict, tuple)) and ours is not None, text
            continue
        assert _same(ours, helm), (text, ours, helm)


VALUE_DOCS = [
    "a: 1\n---\nb: 2\n", "a: {x: 1}\n---\na: {y: 2}\n", "- 1\n", "a: [\n", "---\n---\na: 1\n",
    "--- x\na: 1", "# c\n---\na: 1\n--- # c\nb: 2", "x\n", "", "a: 1\n...\n---\nb: 2\n",
    "a: 1\n---\n- x\n", "a: 1\n---\nb: [\n", "a: {b: {c: 1}}\n---\na: {b: {d: 2}, e: 3}\n",
    "a: [1]\n---\na: [2]\n", "a: {b: 1}\n---\na: 5\n", "a: 5\n---\na: {b: 1}\n", "a: 1\n---\na: null\n",
    "---a: 1\n", "a: 1\n---   \nb: 2\n", "a: .inf\n", "a: 1\n--- #x\nb: *y\n", "# only\n",
]


@pytest.mark.parametrize("text", VALUE_DOCS)
def test_load_values_merges_documents_like_helm_4(text):
    helm = chart_values(text)
    try:
        ours = goyaml.load_values(text)
    except goyaml.YAMLError as err:
        ours = ("ERROR", "cannot load values.yaml: " + str(err))
    assert _same(ours, helm), (ours, helm)


def test_load_values_names_the_file_in_errors():
    with pytest.raises(goyaml.YAMLError) as exc:
        goyaml.load_values("a: [\n", "values-prod.yaml")
    assert str(exc.value).startswith("values-prod.yaml: cannot unmarshal yaml document: ")
    assert exc.value.line == 1


FROM_TEXTS = [t for t in ["k: %s" % w for w in _plain_words()] + documents()
              if not any(x in t for x in _LIBYAML_DIFFERS)] + [
    '{"a": 1}', "[1, 2]", "", "   ", "null", "1", '"s"', "true", '{"a": [1, 2, {"b": null}]}',
    '{"a": 1', '{"a" 1}', '{"a": 1,}', "[1, 2,]", "[1 2]", '{a: 1}', "{'a': 1}", '{"a": 01}',
    '{"a": 1.}', '{"a": .5}', '{"a": -}', '{"a": 1e}', '{"a": 1e+}', '{"a": tru}', '{"a": nul}',
    '{"a": NaN}', '{"a": Infinity}', '{"a": "\\x"}', '{"a": "\\u12G4"}', '{"a": "tab\there"}',
    '{"a": 1} x', '{"a": 1}{"b": 2}', '\ufeff{"a": 1}', '{"a": 1e400}', '{"a": 9007199254740993}',
    '{"a": "\\u00e9\\ud83d\\ude00"}', '{"a": 1, "a": 2}', '{"<": "&>"}', '{"a": "x"', '[', "]",
]
FROM_FUNCS = ["fromYaml %s | toJson", "fromYamlArray %s | toJson", "fromJson %s | toJson",
              "fromJsonArray %s | toJson"]
OURS = {
    "fromYaml %s | toJson": goyaml.from_yaml, "fromYamlArray %s | toJson": goyaml.from_yaml_array,
    "fromJson %s | toJson": goyaml.from_json, "fromJsonArray %s | toJson": goyaml.from_json_array,
}


@pytest.fixture(scope="module")
def helm_from():
    return render_values("from", FROM_TEXTS, FROM_FUNCS)


def _from(func, text):
    try:
        return goyaml.to_json(OURS[func](text))
    except goyaml.JSONError:
        return ""


@pytest.mark.parametrize("i", range(len(FROM_TEXTS)), ids=[repr(t)[:40] for t in FROM_TEXTS])
def test_from_functions_return_what_helm_returns(helm_from, i):
    """fromYaml, fromYamlArray, fromJson, fromJsonArray of one text (results via toJson)."""
    ours = {f: _from(f, FROM_TEXTS[i]) for f in FROM_FUNCS}
    assert ours == {f: helm_from[(i, f)] for f in FROM_FUNCS}


def _flow(depth):
    return "a: %s%s\n" % ("[" * depth, "]" * depth)


DEEP = {
    "flow sequences 1100 deep": _flow(1100),
    "block mappings 1200 deep": "".join(" " * i + "k:\n" for i in range(1200)) + " " * 1200 + "v\n",
    "flow mappings under block sequences": "a:\n" + "- " * 600 + "{a: " * 600 + "x" + "}" * 600 + "\n",
    "beyond go-yaml's depth": _flow(10001),
    "beyond twice go-yaml's depth": _flow(25000),
}


@contextlib.contextmanager
def _deep_recursion():
    """Compare and carry (JSON) values nested deeper than Python's default recursion limit (Python 3.12's json
    decoder stops at about 1500 levels whatever the limit)."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 30000))
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


@pytest.mark.parametrize("case", sorted(DEEP))
def test_load_reads_deeply_nested_documents_as_helm_does(case):
    """go-yaml allows 10000 flow levels and 10000 indents; libyaml 0.2.6 (PyYAML 6.0.4) stops at 1000 by default."""
    text = DEEP[case]
    with _deep_recursion():
        helm = values_from_yaml(text)
        ours = _ours(text)
        same = _same(ours, helm)
    assert same, (case, ours if isinstance(ours, tuple) else "a value", helm if isinstance(helm, tuple) else "a value")


def test_load_all_reads_a_deep_document_after_shallow_ones_as_helm_reads_each():
    docs = ["a: 1\n", "b: [x]\n", _flow(1100), "c: 2\n"]
    with _deep_recursion():
        helm = [values_from_yaml(d) for d in docs]
        ours = goyaml.load_all("---\n".join(docs))
        same = len(ours) == len(helm) and all(_same(o, h) for o, h in zip(ours, helm))
    assert same, [len(ours), len(helm)]


def _pyyaml_refuses(text):
    try:
        for _event in yaml.parse(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
            pass
    except yaml.YAMLError as exc:
        return str(exc)
    return None


def test_reading_a_deep_document_leaves_pyyamls_own_nesting_limit_as_it_was():
    """libyaml's limit is process-wide and guards PyYAML's recursive loaders (Ansible's among them)."""
    text = _flow(1100)
    before = _pyyaml_refuses(text)
    with _deep_recursion():
        goyaml.load(text)
    assert _pyyaml_refuses(text) == before
