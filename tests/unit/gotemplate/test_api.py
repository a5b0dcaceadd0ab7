"""The TemplateSet API: functions, methods, nested executions, clones and options.

Where Helm has the same behaviour, the expected text comes from the oracle; API-only
semantics (clone isolation, missingkey modes Helm never uses) are asserted directly.
"""
import json
import re

import pytest

from ansible_collections.helmless.core.plugins.module_utils.gotemplate import ExecError, ParseError, TemplateSet
from ansible_collections.helmless.core.plugins.module_utils.govalue.signature import go_signature
from ansible_collections.helmless.core.plugins.module_utils.govalue.values import GoStruct

from .oracle import fold_helm4_error, oracle

NAME = "c/templates/t.yaml"


@go_signature("int", "string")
def indent(spaces, v):
    pad = " " * spaces
    return pad + v.replace("\n", "\n" + pad)


def div(a, b):
    if b == 0:
        raise ZeroDivisionError("runtime error: integer divide by zero")
    return a // b


@go_signature("interface {}", variadic="interface {}")
def list_(*items):
    return list(items)


class VersionSet(list):
    GO_TYPE = "common.VersionSet"
    GO_METHODS = ("Has",)

    def go_method(self, name):
        return getattr(self, name) if name in self.GO_METHODS else None

    @go_signature("string")
    def Has(self, api_version):
        return api_version in self


class KubeVersion(GoStruct):
    """Like Helm's: String() has a pointer receiver, so only the executor's printing uses it."""
    GO_TYPE = "common.KubeVersion"
    GO_FIELDS = ("Version", "Major", "Minor")
    GO_PRINT_FIELDS = ("Version", "normalizedVersion", "Major", "Minor")
    GO_METHODS = ("String",)
    GO_STRINGER = False

    def __init__(self):
        # The oracle's own Capabilities, so printed structs can be compared.
        status, text = oracle("{{ .Capabilities.KubeVersion.Version }} {{ .Capabilities.KubeVersion }} "
                              "{{ .Capabilities.KubeVersion.Major }} {{ .Capabilities.KubeVersion.Minor }}")
        self.Version, self.normalizedVersion, self.Major, self.Minor = text.split(" ")

    def String(self):
        return self.normalizedVersion


class Capabilities(GoStruct):
    GO_TYPE = "*common.Capabilities"
    GO_FIELDS = ("KubeVersion", "APIVersions")

    def __init__(self):
        self.KubeVersion = KubeVersion()
        self.APIVersions = VersionSet(["v1", "apps/v1"])


def _set(extra_funcs=None):
    funcs = {"indent": indent, "div": div, "list": list_}
    funcs.update(extra_funcs or {})
    ts = TemplateSet(funcs, missingkey="zero")

    def include(name, data):
        return ts.execute(name, data)
    ts.add_funcs({"include": include})
    return ts


def _run(template, values=None, helpers=None):
    ts = _set()
    if helpers:
        ts.parse("c/templates/_h.tpl", helpers)
    ts.parse(NAME, template)
    values = json.loads(json.dumps(values or {}), parse_int=float)
    top = {"Values": values, "Capabilities": Capabilities(),
           "Release": {"Name": "rel", "Namespace": "ns"}}
    try:
        return ("ok", ts.execute(NAME, top).replace("<no value>", ""))
    except ExecError as exc:
        return ("error", str(exc))


ORACLE_CASES = [
    ("{{ indent 2 }}", None, None),
    ("{{ \"x\" | indent 2 3 }}", None, None),
    ("{{ indent \"2\" \"x\" }}", None, None),
    ("{{ indent 2.5 \"x\" }}", None, None),
    ("{{ indent 2.0 \"x\" }}", None, None),
    ("{{ indent nil \"x\" }}", None, None),
    ("{{ indent 2 nil }}", None, None),
    ("{{ indent 2 1 }}", None, None),
    ("{{ indent 2 true }}", None, None),
    ("{{ .Values.x | indent 2 }}", None, None),
    ("{{ $x := .Values.x }}{{ indent 2 $x }}", None, None),
    ("{{ indent 2 .Values.x }}", None, None),
    ("{{ indent 2 .Values.a }}", {"a": 1}, None),
    ("{{ .Values.a | indent 2 }}", {"a": 1}, None),
    ("{{ indent .Values.a \"x\" }}", {"a": 1}, None),
    ("{{ indent 2 .Values.s }}|{{ .Values.s | indent 3 }}", {"s": "a\nb"}, None),
    ("{{ (list 1 2) | indent 2 }}", None, None),
    ("{{ div 1 0 }}", None, None),
    ("{{ div 7 2 }}", None, None),
    ("{{ include \"x\" . }}", None, "{{ define \"x\" }}{{ .Values.a.b }}{{ end }}"),
    ("a\n  {{ include \"x\" . | indent 2 }}", None,
     "{{ define \"x\" }}{{ include \"y\" . }}{{ end }}\n{{ define \"y\" }}\n\n {{ index 1 2 }}{{ end }}"),
    ("{{ include \"nope\" . }}", None, None),
    ("{{ include \"x\" . }}", None, "{{ define \"x\" }}{{ template \"nope\" }}{{ end }}"),
    ("{{ include \"x\" (list 1) }}", None, "{{ define \"x\" }}{{ range . }}{{ .a }}{{ end }}{{ end }}"),
    ("{{ .Capabilities.APIVersions.Has }}", None, None),
    ("{{ .Capabilities.APIVersions.Has 1 }}", None, None),
    ("{{ .Capabilities.APIVersions.Has \"v1\" \"x\" }}", None, None),
    ("{{ .Capabilities.APIVersions.Has \"v1\" }}|{{ \"v1\" | .Capabilities.APIVersions.Has }}", None, None),
    ("{{ .Capabilities.APIVersions.Has .Values.missing }}", None, None),
    ("{{ .Capabilities.APIVersions.Nope }}", None, None),
    ("{{ .Capabilities.KubeVersion.Nope }}", None, None),
    ("{{ .Capabilities.KubeVersion.Major \"x\" }}", None, None),
    ("{{ .Capabilities.Nope }}", None, None),
    ("{{ .Capabilities.KubeVersion.Major.x }}", None, None),
    ("{{ .Release.Name 1 }}", None, None),
    ("{{ .Capabilities.KubeVersion }}|{{ printf \"%v|%+v|%s\" .Capabilities.KubeVersion .Capabilities.KubeVersion"
     " .Capabilities.KubeVersion }}|{{ print .Capabilities.KubeVersion \"x\" }}", None, None),
    ("{{ printf \"%T|%T\" .Capabilities .Capabilities.KubeVersion }}", None, None),
    ("{{ and 1 (div 1 0) }}", None, None),
    ("{{ or 1 (div 1 0) }}", None, None),
]


@pytest.mark.parametrize("template,values,helpers", ORACLE_CASES,
                         ids=["api%02d" % i for i in range(len(ORACLE_CASES))])
def test_functions_methods_and_includes_match_helm(template, values, helpers):
    files = {"_h.tpl": helpers} if helpers else None
    assert _run(template, values, helpers) == oracle(template, values, files)


def test_exec_error_chain_lists_every_location_of_nested_includes():
    helpers = "{{ define \"x\" }}{{ include \"y\" . }}{{ end }}{{ define \"y\" }}{{ .Values.a.b }}{{ end }}"
    template = "{{ include \"x\" . }}"
    status, message = oracle(template, None, {"_h.tpl": helpers})
    ts = _set()
    ts.parse("c/templates/_h.tpl", helpers)
    ts.parse(NAME, template)
    with pytest.raises(ExecError) as info:
        ts.execute(NAME, {"Values": {}})
    assert (status, message) == ("error", str(info.value))
    chain = info.value.chain
    located = re.findall(r'template: (\S+): executing "([^"]+)" at <([^>]+)>', message)
    assert [c[:3] for c in chain] == located
    assert [c[1] for c in chain] == [NAME, "x", "y"]
    assert [c[3] for c in chain] == ["error calling include", "error calling include",
                                     "nil pointer evaluating interface {}.b"]
    assert fold_helm4_error(message) == message


def test_parse_error_names_template_and_line():
    with pytest.raises(ParseError) as info:
        TemplateSet().parse("f.yaml", "a\nb\n{{ nosuch }}")
    assert (info.value.name, info.value.line) == ("f.yaml", 3)
    assert str(info.value) == 'template: f.yaml:3: function "nosuch" not defined'


def test_user_functions_override_builtins_and_lose_short_circuit():
    calls = []

    def and_(a, *rest):
        calls.append((a,) + rest)
        return "mine"
    ts = TemplateSet({"and": and_, "len": lambda v: 42})
    ts.parse("t", "{{ and 0 1 }}|{{ len \"x\" }}")
    assert ts.execute("t", None) == "mine|42"
    assert calls == [(0, 1)]


def test_add_funcs_replaces_a_function_after_parsing():
    ts = TemplateSet({"f": lambda: "old"})
    ts.parse("t", "{{ f }}")
    assert ts.execute("t", None) == "old"
    ts.add_funcs({"f": lambda: "new"})
    assert ts.execute("t", None) == "new"


def test_clone_shares_templates_but_not_later_definitions_or_functions():
    ts = TemplateSet({"f": lambda: "orig"})
    ts.parse("base", "{{ define \"d\" }}D{{ end }}base")
    clone = ts.clone()
    clone.add_funcs({"f": lambda: "clone"})
    clone.parse("gotpl", "{{ define \"e\" }}E{{ end }}{{ template \"d\" }}{{ template \"e\" }}{{ f }}")
    assert clone.execute("gotpl", None) == "DEclone"
    assert clone.has("e") and not ts.has("e") and not ts.has("gotpl")
    ts.parse("t", "{{ f }}")
    assert ts.execute("t", None) == "orig"


def test_executing_an_unknown_template_names_the_root_template():
    with pytest.raises(ExecError) as info:
        TemplateSet().execute("nope", None)
    assert str(info.value) == 'template: no template "nope" associated with template "gotpl"'


def test_arity_of_python_functions_follows_their_signature():
    ts = TemplateSet({"two": lambda a, b: a, "many": lambda a, *rest: len(rest)})
    ts.parse("t", "{{ many 1 2 3 }}|{{ 1 | two 2 }}")
    assert ts.execute("t", None) == "2|2"
    ts.parse("u", "{{ many }}")
    with pytest.raises(ExecError, match="wrong number of args for many: want at least 1 got 0"):
        ts.execute("u", None)
    ts.parse("v", "{{ two 1 2 3 }}")
    with pytest.raises(ExecError, match="wrong number of args for two: want 2 got 3"):
        ts.execute("v", None)


def test_missingkey_error_and_default_modes():
    data = {"a": {"b": 1}}
    strict = TemplateSet(missingkey="error")
    strict.parse("t", "{{ .a.nope }}")
    with pytest.raises(ExecError, match='map has no entry for key "nope"'):
        strict.execute("t", data)
    default = TemplateSet(missingkey="default")
    default.parse("t", "{{ .a.nope }}|{{ .nope.deeper }}")
    assert default.execute("t", data) == "<no value>|<no value>"
    zero = TemplateSet()
    zero.parse("t", "{{ .nope.deeper }}")
    with pytest.raises(ExecError, match=r"nil pointer evaluating interface \{\}\.deeper"):
        zero.execute("t", data)


def test_function_errors_keep_python_message_and_location():
    def boom():
        raise ValueError("bad thing")
    ts = TemplateSet({"boom": boom})
    ts.parse("t", "x\n  {{ boom }}")
    with pytest.raises(ExecError) as info:
        ts.execute("t", None)
    assert str(info.value) == 'template: t:2:5: executing "t" at <boom>: error calling boom: bad thing'


DEEP = 30
NESTED_CASES = [
    # Bodies nested 30 deep, with break and continue inside them: they must still reach their range loop.
    ("{{ range $v := .Values.items }}" + "{{ if true }}" * DEEP + "{{ if eq $v \"b\" }}{{ continue }}{{ end }}"
     "{{ if eq $v \"d\" }}{{ break }}{{ end }}{{ $v }}" + "{{ end }}" * DEEP + ";{{ end }}",
     {"items": ["a", "b", "c", "d", "e"]}),
    ("{{ range .Values.one }}" * DEEP + "x{{ break }}y" + "{{ end }}" * DEEP + "|"
     + "{{ range $i, $v := .Values.one }}{{ with $v }}" * 12 + "{{ continue }}" + "{{ end }}{{ end }}" * 12 + "z",
     {"one": ["x"]}),
    ("".join("{{ %sif eq .Values.num \"%d\" }}%d" % ("else " if i else "", i, i) for i in range(40)) + "{{ end }}",
     {"num": "39"}),
    ("{{ with .Values.a }}" * DEEP + "{{ .b }}" + "{{ else }}none{{ end }}" * DEEP, {"a": {"b": 1}}),
]


@pytest.mark.parametrize("template,values", NESTED_CASES, ids=["nested%d" % i for i in range(len(NESTED_CASES))])
def test_deeply_nested_bodies_with_break_and_continue_match_helm(template, values):
    assert _run(template, values) == oracle(template, values)
