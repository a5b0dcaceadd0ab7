"""--set / --set-string / --set-json / --set-literal / --set-file against Helm's own parser."""

import pytest
import helm_oracle

import chartkit  # noqa: F401  (sets up the oracle helpers)
from ansible_collections.helmless.core.plugins.module_utils.chart.errors import ValuesError
from ansible_collections.helmless.core.plugins.module_utils.govalue.values import go_type_name
from ansible_collections.helmless.core.plugins.module_utils.chart.strvals import (
    parse_set, parse_set_file, parse_set_json, parse_set_literal, parse_set_string)

SET_CASES = [
    "a=b", "a=1", "a=0", "a=-5", "a=+5", "a=0123", "a=0x1F", "a=1.5", "a=1e3", "a=TRUE", "a=False",
    "a=null", "a=Null", "a=9223372036854775807", "a=9223372036854775808", "a=-9223372036854775808",
    "a=", "a.b=c", "a.b=c,a.d=e", "a.b.c=d,a.b.e=f", "a=b,c=d", "a=b\\,c=d", "a\\.b=c", "a\\=b=c",
    "a=b=c", "a==b", "=b", "a[0]=x", "a[1]=x", "a[0]=x,a[1]=y", "a[1].b=c", "a[0].b=c,a[0].d=e",
    "a[0][1]=x", "a[0][0]=x,a[0][2]=y", "a.b[2].c=d", "a={1,2,x}", "a={}", "a={a\\,b,c}",
    "a={1,2},b=3", "a[0]={1,2}", "name1.name2=value", "a=1,a=2", "a.b=1,a=2",
    "a[0]=1,a[0]=2", "a[1", "a[0]", "a[0].", "a", "a.b", "a=1,b", "a.=b", "a[x]=1", "a[-1]=2",
    "a[65536]=1", "a[65537]=1", "a=1,a[0]=2", "a[0]=1,a.b=2", "a={1,2", "a[0]x=1", ",a=1", "a=1,",
    "a=b,,c=d", "a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t.u.v.w.x.y.z.aa.bb.cc.dd.ee=1",
    "a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t.u.v.w.x.y.z.aa.bb.cc.dd.ee.ff=1",
    "é=ü,ünï.cødé=日本", "a= spaced , b =x", "a[99999999999999999999]=1", "a[]=1",
]


def _oracle(func, expr):
    try:
        return "ok", func(expr)
    except helm_oracle.HelmError as exc:
        return "error", str(exc)


def _ours(func, expr):
    try:
        return "ok", func(expr)
    except ValuesError as exc:
        return "error", str(exc)


@pytest.mark.parametrize("expr", SET_CASES)
def test_set_parses_like_helm(expr):
    assert _ours(parse_set, expr) == _oracle(helm_oracle.parse_set, expr)


@pytest.mark.parametrize("expr", SET_CASES)
def test_set_string_parses_like_helm(expr):
    assert _ours(parse_set_string, expr) == _oracle(helm_oracle.parse_set_string, expr)


LITERAL_CASES = ["a=b,c=d", "a.b=x=y", "a[0]=1,2", "a\\.b=c", "a[1].b={x}", "a", "a.b", "a[0]x=1",
                 "a=", "a[x]=1", "a.=b", "a[0]", "a={1,2}", "a=1,a[0]=2", "=b"]


@pytest.mark.parametrize("expr", LITERAL_CASES)
def test_set_literal_takes_the_rest_of_the_line_like_helm(expr):
    assert _ours(parse_set_literal, expr) == _oracle(helm_oracle.parse_set_literal, expr)


JSON_CASES = ['a={"b":[1,2]}', 'a=1', 'a="x",b=2', 'a=[1,{"c":null}],b.c=true', 'a=', 'a=,b=1',
              'a=null', 'a[0]={"x":1},a[1]="y"', 'a.b=  {"k": 1.5}  ,c=3', '{"a": {"b": 1}}',
              'a=tru', 'a={"b":', 'a=1x']


@pytest.mark.parametrize("expr", JSON_CASES)
def test_set_json_decodes_each_value_like_helm(expr):
    kind, expected = _oracle(helm_oracle.parse_set_json, expr)
    got_kind, got = _ours(parse_set_json, expr)
    assert got_kind == kind
    if kind == "ok":
        assert got == expected


def test_set_json_numbers_are_float64():
    assert parse_set_json("a=1,b=[2]") == {"a": 1.0, "b": [2.0]}
    assert isinstance(parse_set_json("a=1")["a"], float)


def test_set_gives_int64_not_float_for_integers():
    values = parse_set("a=12,b=0,c=-3")
    assert [go_type_name(values[k]) for k in "abc"] == ["int64"] * 3


def test_set_merges_into_existing_values():
    dest = {"a": {"x": 1}, "b": 2}
    parse_set("a.y=3", dest)
    assert dest == {"a": {"x": 1, "y": 3}, "b": 2}


@pytest.mark.parametrize("expr", ["f={FILE}", "a.b={FILE},c={FILE}", "l={{FILE},{FILE}}", "x[1]={FILE}"])
def test_set_file_reads_values_from_files_like_helm(tmp_path, expr):
    target = tmp_path / "in.txt"
    target.write_text("line1\nline2, with comma\n")
    text = expr.replace("{FILE}", str(target))
    assert _ours(parse_set_file, text) == _oracle(helm_oracle.parse_set_file, text)


def test_set_file_names_the_missing_file(tmp_path):
    missing = str(tmp_path / "nope.txt")
    with pytest.raises(ValuesError, match="nope.txt"):
        parse_set_file("a=" + missing)
