"""Sprig defaults, flow and JSON functions (defaults.go).

Helm replaces ``toJson``, ``fromJson`` and (Helm 4) ``mustToJson`` with its own versions
(funcs/helm.py); Sprig's are kept here for completeness and for ``toPrettyJson``,
``toRawJson`` and ``mustFromJson`` which Helm does not override.
"""
import base64
import json
import math

from ._go import gofunc, is_empty, to_bytes, from_bytes
from ...gotemplate.values import GoStruct


@gofunc("interface {}", variadic="interface {}")
def default(d, *given):
    if not given or is_empty(given[0]):
        return d
    return given[0]


@gofunc("interface {}")
def empty(v):
    return is_empty(v)


@gofunc(variadic="interface {}")
def coalesce(*v):
    for x in v:
        if not is_empty(x):
            return x
    return None


@gofunc(variadic="interface {}")
def all_(*v):
    return all(not is_empty(x) for x in v)


@gofunc(variadic="interface {}")
def any_(*v):
    return any(not is_empty(x) for x in v)


@gofunc("interface {}", "interface {}", "bool")
def ternary(vt, vf, cond):
    return vt if cond else vf


@gofunc("string")
def fail(msg):
    raise ValueError(msg)


# ------------------------------------------------------------------ JSON (encoding/json)

class JSONError(Exception):
    pass


_ESC = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b",
        "\f": "\\f", "\u2028": "\\u2028", "\u2029": "\\u2029"}
_HTML = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026"}


def json_string(s, html=True):
    out = ['"']
    for ch in s:
        if ch in _ESC:
            out.append(_ESC[ch])
        elif html and ch in _HTML:
            out.append(_HTML[ch])
        elif ch < " ":
            out.append("\\u%04x" % ord(ch))
        elif "\udc80" <= ch <= "\udcff":
            out.append("\ufffd")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def json_float(f):
    from ...gotemplate.fmt import format_float
    if math.isnan(f) or math.isinf(f):
        raise JSONError("json: unsupported value: %s" % format_float(f, "g", -1))
    a = abs(f)
    if a != 0 and (a < 1e-6 or a >= 1e21):
        s = format_float(f, "e", -1)
        n = len(s)
        if n >= 4 and s[n - 4] == "e" and s[n - 3] == "-" and s[n - 2] == "0":
            s = s[:n - 2] + s[n - 1:]
        return s
    return format_float(f, "f", -1)


def json_marshal(v, html=True, indent=None, _level=0):
    """encoding/json Marshal (MarshalIndent when indent is given)."""
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return json_float(v)
    if isinstance(v, str):
        return json_string(v, html)
    if isinstance(v, bytes):
        return '"' + base64.b64encode(v).decode() + '"'
    if isinstance(v, GoStruct):
        to_json = getattr(v, "go_json", None)
        if to_json is not None:
            return to_json()
        items = [(f, v.go_field(f)) for f in v.GO_FIELDS]
        return _json_obj(items, html, indent, _level)
    if isinstance(v, (list, tuple)):
        if not v:
            return "[]"
        parts = [json_marshal(x, html, indent, _level + 1) for x in v]
        return _join("[", parts, "]", indent, _level)
    if isinstance(v, dict):
        items = sorted(v.items(), key=lambda kv: to_bytes(str(kv[0])))
        return _json_obj(items, html, indent, _level)
    raise JSONError("json: unsupported type: %s" % type(v).__name__)


def _json_obj(items, html, indent, level):
    if not items:
        return "{}"
    sep = ": " if indent is not None else ":"
    parts = [json_string(str(k), html) + sep + json_marshal(x, html, indent, level + 1)
             for k, x in items]
    return _join("{", parts, "}", indent, level)


def _join(op, parts, cl, indent, level):
    if indent is None:
        return op + ",".join(parts) + cl
    pad = "\n" + indent * (level + 1)
    return op + pad + ("," + pad).join(parts) + "\n" + indent * level + cl


def json_unmarshal(s):
    """encoding/json Unmarshal into interface{} (numbers are float64)."""
    def bad_const(name):
        raise ValueError("invalid character '%s' looking for beginning of value" % name[0])
    try:
        return json.loads(s, parse_int=float, parse_constant=bad_const)
    except RecursionError:
        raise JSONError("exceeded max depth")
    except ValueError as exc:
        msg = getattr(exc, "msg", str(exc))
        pos = getattr(exc, "pos", None)
        if not s.strip() or (pos is not None and pos >= len(s)):
            raise JSONError("unexpected end of JSON input")
        if msg.startswith("invalid character"):
            raise JSONError(msg)
        ch = s[pos] if pos is not None and pos < len(s) else ""
        if msg == "Extra data":
            raise JSONError("invalid character %s after top-level value" % _go_char(ch))
        raise JSONError("invalid character %s looking for beginning of value" % _go_char(ch))


def _go_char(ch):
    if ch == "'":
        return "'\\''"
    if ch == '"':
        return "'\"'"
    if ch < " ":
        return "'\\x%02x'" % ord(ch) if ch not in "\n\t\r" else repr(ch)
    return "'%s'" % ch


@gofunc("string")
def fromJson(v):
    try:
        return json_unmarshal(v)
    except JSONError:
        return None


@gofunc("string")
def mustFromJson(v):
    return json_unmarshal(v)


@gofunc("interface {}")
def toJson(v):
    try:
        return json_marshal(v)
    except JSONError:
        return ""


@gofunc("interface {}")
def mustToJson(v):
    return json_marshal(v)


@gofunc("interface {}")
def toPrettyJson(v):
    try:
        return json_marshal(v, indent="  ")
    except JSONError:
        return ""


@gofunc("interface {}")
def mustToPrettyJson(v):
    return json_marshal(v, indent="  ")


@gofunc("interface {}")
def toRawJson(v):
    return json_marshal(v, html=False)


@gofunc("interface {}")
def mustToRawJson(v):
    return json_marshal(v, html=False)


FUNCS = {
    "default": default, "empty": empty, "coalesce": coalesce, "all": all_, "any": any_,
    "ternary": ternary, "fail": fail, "fromJson": fromJson, "mustFromJson": mustFromJson,
    "toJson": toJson, "mustToJson": mustToJson, "toPrettyJson": toPrettyJson,
    "mustToPrettyJson": mustToPrettyJson, "toRawJson": toRawJson,
    "mustToRawJson": mustToRawJson,
}
