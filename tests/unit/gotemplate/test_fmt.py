"""Go's fmt formatting (sprintf, sprint, format_value, go_quote) agrees with real Helm's Go.

Each case is a format and Python argument values; the oracle receives them as template
literals (``printf "%d" 1``), we call ``sprintf`` directly.
"""
import pytest

from ansible_collections.helmless.core.plugins.module_utils.govalue.fmt import format_value, sprint, sprintf, sprintln
from ansible_collections.helmless.core.plugins.module_utils.govalue.strconv import format_float, go_quote

from .oracle import oracle

INF = float("inf")

PRINTF = [
    ("%v", [1e6]), ("%v", [999999.0]), ("%v", [1234567.5]), ("%v", [0.00001]), ("%v", [-0.0]),
    ("%e", [1234.5678]), ("%g", [0.00001234]), ("%8.3f", [3.14159]), ("%-8s|", ["ab"]),
    ("%+d", [5]), ("%05d", [42]), ("%05d", [-42]), ("%x", [255]), ("%X", [255]), ("%#x", [255]),
    ("%o", [8]), ("%#o", [8]), ("%O", [8]), ("%b", [5]), ("%#b", [5]), ("%c", [65]), ("%q", [65]),
    ("%U", [0x1F600]), ("%#U", [120]), ("%d", [8080.0]), ("%s", [5]), ("%d", []), ("%d", [1, 2]),
    ("%s", [None]), ("%v", [None]), ("%d", [None]), ("%q", ["a\"b\n\u00a0é\x01\u200b"]),
    ("%+q", ["é☃"]), ("%#q", ["a`b"]), ("%#q", ["ab"]), ("%x", ["hi"]), ("% x", ["hi"]),
    ("%#x", ["hi"]), ("% #X", ["hi"]), ("%T", [1.5]), ("%T", [None]), ("%T", [[1]]), ("%T", [{}]),
    ("%T", [True]), ("%T", ["s"]), ("%5.2f|%-7.3e|%+.2g", [3.14159, 1234.5, 0.000123]),
    ("%v", [[1, "a", None, 1e6]]), ("%v", [{"b": 2, "a": {"c": [1]}}]), ("%d", [[1, 2]]),
    ("%s", [[1, "a"]]), ("%#v", [{"a": 1, "b": "x"}]), ("%#v", [[1, "a", None]]), ("%#v", ["x"]),
    ("%#v", [1.0]), ("%#v", [1]), ("%+v", [{"a": 1}]), ("%6.2f%%", [99.5]), ("%t", [True]),
    ("%t", [1]), ("%z", [1]), ("%", [1]), ("%[2]d %[1]d", [1, 2]), ("%[3]d", [1, 2]),
    ("%[0]d", [1]), ("%[x]d", [1]), ("%*d", [5, 1]), ("%-*d|", [5, 1]), ("%*d", [-5, 1]),
    ("%.*f", [2, 3.14159]), ("%*d", ["x", 1]), ("%.*d", [-1, 1]), ("%g", [1e6]),
    ("%g", [100000.0]), ("%G", [1e-7]), ("%.3g", [1234.0]), ("%.10g", [100000.0]),
    ("%e", [0.0]), ("%f", [1e20]), ("%.0f", [2.5]), ("%.0f", [3.5]), ("%.1f", [0.05]),
    ("%.1f", [0.25]), ("%6.1e", [123.0]), ("%v", [INF]), ("%5.1f|", [-INF]), ("%+v", [INF]),
    ("%010.3f", [-3.14159]), ("%+.3e", [12345.678]), ("%#g", [1.0]), ("%#.3g", [1.0]),
    ("%#f", [1.0]), ("%#.0f", [1.0]), ("%#e", [1.0]), ("%.2s", ["héllo"]), ("%5s|", ["é"]),
    ("%05s", ["ab"]), ("%q", [[1, "a"]]), ("%x", [-255]), ("%08.3d", [7]), ("%.0d", [0]),
    ("% d", [5]), ("%v %v", [True, False]), ("%d", [True]), ("%s", [1.5]), ("%v", [1e21]),
    ("%v", [123456789012.0]), ("%v", [0.1 + 0.2]), ("%.2v", [3.14159]), ("%10v|", [[1, 2]]),
    ("%-10v|", [{"a": 1}]), ("%v", [5e-324]), ("%v", [1.7976931348623157e308]),
    ("%g", [123456.0]), ("%g", [1234567.0]), ("%.3e", [9.9996]), ("%v", [0.000123456789]),
    ("%v", [100.0]), ("%v", [1e100]), ("%.3f", [-0.0005]), ("%5.1f%%|%-5d|", [12.34, 7]),
    ("%c%c", [0x1F600, 0x41]), ("%s %d %v", ["a", 1, None]), ("%v|%s", ["", ""]),
    ("no verbs", []), ("no verbs", [1, "x", None]), ("%%%d%%", [1]), ("%-05d|", [3]),
    ("%+05d", [3]), ("% 05d", [-3]), ("%x", [1.5]), ("%5t|", [True]), ("%-5t|", [False]),
    ("%8.2v|", [3.14159]), ("%v", [[[1, 2], {"a": [None]}]]), ("%s", [{"a": "b"}]),
    ("%05v", [[1, 2]]), ("%.1s", [["abc", "de"]]), ("%X", [-1.5]), ("%.2x", [3.14159]),
    ("%x", [0.0]), ("%.0x", [1.5]), ("%b", [1.5]), ("%x", [1e-320]), ("%#x", [2.0]),
]


def _lit(x):
    if x is None:
        return "nil"
    if x is True or x is False:
        return "true" if x else "false"
    if isinstance(x, int):
        return "(%d)" % x
    if isinstance(x, float):
        if x != x or x in (INF, -INF):
            return '(float64 "%s")' % x
        r = repr(x)
        if "." not in r and "e" not in r:
            r += ".0"
        return "(%s)" % r
    if isinstance(x, str):
        return go_quote(x)
    if isinstance(x, list):
        return "(list %s)" % " ".join(_lit(e) for e in x)
    return "(dict %s)" % " ".join(_lit(k) + " " + _lit(v) for k, v in x.items())


@pytest.mark.parametrize("fmt,args", PRINTF, ids=["printf%03d" % i for i in range(len(PRINTF))])
def test_sprintf_formats_like_go(fmt, args):
    template = "{{ printf %s %s }}" % (go_quote(fmt), " ".join(_lit(a) for a in args))
    status, expected = oracle(template)
    assert status == "ok"
    assert sprintf(fmt, *args).replace("<no value>", "") == expected


PRINT = [
    [1, 2], ["a", 1, "b"], [1, "a", 2], [None, 1], [1.5, True, None], [], ["a", "b"],
    [[1, "a"], {"k": 1e6}], [1000000.0, 0.00001, 12345678.0], ["", 1, ""], [-0.0, 3.0],
]


@pytest.mark.parametrize("args", PRINT, ids=["print%02d" % i for i in range(len(PRINT))])
def test_sprint_and_sprintln_space_operands_like_go(args):
    lits = " ".join(_lit(a) for a in args)
    status, expected = oracle("{{ print %s }}|{{ println %s }}" % (lits, lits))
    assert status == "ok"
    assert "%s|%s" % (sprint(*args), sprintln(*args)) == expected


VALUES = [1000000.0, 100000.0, 12345678.0, 1.5, 0.00001, 0.0001, 3.0, -0.0, 1e21, 1e-7,
          9007199254740993.0, 123456.789, "s", True, None, [1.0, "a", None], {"b": 2.0, "a": [1.0]},
          {"B": 1.0, "a": 2.0, "_": 3.0, "é": 4.0}, [], {}]


@pytest.mark.parametrize("value", VALUES, ids=["value%02d" % i for i in range(len(VALUES))])
def test_format_value_prints_like_go(value):
    status, expected = oracle("{{ printf \"%v\" .Values.v }}", {"v": value})
    assert status == "ok"
    assert format_value(value) == expected


QUOTED = ["plain", "a\"b\\c", "tab\there\nnl", "\x00\x07\x1b\x7f", "é☃😀", "\u00a0\u200b\u2028\ufeff",
          "\udcc3(", "\U000e0001", ""]


@pytest.mark.parametrize("text", QUOTED, ids=["quote%02d" % i for i in range(len(QUOTED))])
def test_go_quote_is_strconv_quote(text):
    literal = '"' + "".join("\\x%02x" % b for b in text.encode("utf-8", "surrogateescape")) + '"'
    status, expected = oracle("{{ printf \"%%q\" %s }}" % literal)
    assert status == "ok"
    assert go_quote(text) == expected


FLOATS = [(1e6, "g", -1), (1234.5678, "e", 3), (1234.5678, "f", 2), (0.000012345, "g", 3),
          (123456789.0, "e", 2), (2.5, "f", 0), (1e21, "f", 1), (-1.5, "G", 2), (0.1, "E", 5)]


@pytest.mark.parametrize("f,fmt,prec", FLOATS, ids=["float%02d" % i for i in range(len(FLOATS))])
def test_format_float_is_strconv_format_float(f, fmt, prec):
    verb = "%" + ("." + str(prec) if prec >= 0 else "") + fmt
    status, expected = oracle("{{ printf %s %s }}" % (go_quote(verb), _lit(f)))
    assert status == "ok"
    assert format_float(f, fmt, prec) == expected
