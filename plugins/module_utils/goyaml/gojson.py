"""Go ``encoding/json`` for the Go value model: Marshal, Unmarshal and their errors."""
import base64
import json
import re

from ..gotemplate.values import GoStruct
from .numfmt import format_json

try:
    from json.encoder import c_encode_basestring as _enc_str
except ImportError:  # pragma: no cover - CPython always has the C speedups
    from json.encoder import py_encode_basestring as _enc_str
if _enc_str is None:  # pragma: no cover
    from json.encoder import py_encode_basestring as _enc_str


class JSONError(ValueError):
    """json.Marshal / json.Unmarshal failed; ``str()`` is Go's error text."""


class NilMap(dict):
    """A nil ``map[string]interface{}``: prints ``map[]`` but marshals to JSON ``null``."""


class NilList(list):
    """A nil ``[]interface{}``: prints ``[]`` but marshals to JSON ``null``."""


_HTML = re.compile("[<>&\u2028\u2029\ud800-\udfff]")
_HTML_MAP = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def _html(m):
    return _HTML_MAP.get(m.group(0), "\ufffd")


def quote_string(s, escape_html=True):
    """A Go JSON string literal (with HTML escaping as json.Marshal does)."""
    out = _enc_str(s)
    if escape_html:
        return _HTML.sub(_html, out)
    return out


def struct_value(v):
    """The JSON view of a GoStruct: ``go_json_value()`` when defined, else its fields."""
    conv = getattr(v, "go_json_value", None)
    if conv is not None:
        return conv()
    return {name: getattr(v, name) for name in v.GO_FIELDS}


def _encode(v, parts):
    if v is None or type(v) is NilMap or type(v) is NilList:
        parts.append("null")
    elif v is True:
        parts.append("true")
    elif v is False:
        parts.append("false")
    elif isinstance(v, str):
        parts.append(_enc_str(v))
    elif isinstance(v, float):
        try:
            parts.append(format_json(v))
        except ValueError as exc:
            raise JSONError(str(exc))
    elif isinstance(v, int):
        parts.append(str(v))
    elif isinstance(v, dict):
        if not v:
            parts.append("{}")
            return
        sep = "{"
        for k in sorted(v):
            parts.append(sep)
            parts.append(_enc_str(k if isinstance(k, str) else _key_text(k)))
            parts.append(":")
            _encode(v[k], parts)
            sep = ","
        parts.append("}")
    elif isinstance(v, (list, tuple)):
        if not v:
            parts.append("[]")
            return
        sep = "["
        for x in v:
            parts.append(sep)
            _encode(x, parts)
            sep = ","
        parts.append("]")
    elif isinstance(v, (bytes, bytearray)):
        parts.append('"%s"' % base64.b64encode(bytes(v)).decode("ascii"))
    elif isinstance(v, GoStruct):
        _encode(struct_value(v), parts)
    else:
        raise JSONError("json: unsupported type: %s" % type(v).__name__)


def _key_text(k):
    if isinstance(k, bool):
        raise JSONError("json: unsupported type: map[bool]interface {}")
    if isinstance(k, int):
        return str(k)
    raise JSONError("json: unsupported type: map[%s]interface {}" % type(k).__name__)


def to_json(value, escape_html=True):
    """``json.Marshal(value)``; raises JSONError (Go's text) e.g. for NaN/Inf."""
    parts = []
    _encode(value, parts)
    out = "".join(parts)
    if escape_html:
        return _HTML.sub(_html, out)
    return _SURR.sub("\ufffd", out)


_SURR = re.compile("[\ud800-\udfff]")


def _go_quote_char(c):
    if ord(c) > 0x7F:
        # Go reports the offending byte: the first byte of the UTF-8 sequence.
        c = chr(c.encode("utf-8", "surrogatepass")[0])
        if ord(c) < 0xA0:
            return "'\\u%04x'" % ord(c)
        return "'" + c + "'"
    if c == "'":
        return "'\\''"
    if c == '"':
        return "'\"'"
    o = ord(c)
    if c == "\\":
        return "'\\\\'"
    esc = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v"}
    if c in esc:
        return "'" + esc[c] + "'"
    if o < 0x20 or o == 0x7F:
        return "'\\x%02x'" % o
    if not c.isprintable() and o > 0x7F:
        return "'\\u%04x'" % o if o <= 0xFFFF else "'\\U%08x'" % o
    return "'" + c + "'"


def syntax_error(s):
    """Go's ``checkValid`` message for invalid JSON text ``s`` (None when valid)."""
    n = len(s)
    WS = " \t\r\n"

    def bad(ch, ctx):
        return "invalid character %s %s" % (_go_quote_char(ch), ctx)

    def skip_ws(i):
        while i < n and s[i] in WS:
            i += 1
        return i

    def value(i):
        """Scan one value from i; return (new_i, error)."""
        i = skip_ws(i)
        if i >= n:
            return i, "unexpected end of JSON input"
        c = s[i]
        if c == "{":
            i = skip_ws(i + 1)
            if i >= n:
                return i, "unexpected end of JSON input"
            if s[i] == "}":
                return i + 1, None
            while True:
                if i >= n:
                    return i, "unexpected end of JSON input"
                if s[i] != '"':
                    return i, bad(s[i], "looking for beginning of object key string")
                i, err = string(i)
                if err:
                    return i, err
                i = skip_ws(i)
                if i >= n:
                    return i, "unexpected end of JSON input"
                if s[i] != ":":
                    return i, bad(s[i], "after object key")
                i, err = value(i + 1)
                if err:
                    return i, err
                i = skip_ws(i)
                if i >= n:
                    return i, "unexpected end of JSON input"
                if s[i] == "}":
                    return i + 1, None
                if s[i] != ",":
                    return i, bad(s[i], "after object key:value pair")
                i = skip_ws(i + 1)
        if c == "[":
            i = skip_ws(i + 1)
            if i >= n:
                return i, "unexpected end of JSON input"
            if s[i] == "]":
                return i + 1, None
            while True:
                i, err = value(i)
                if err:
                    return i, err
                i = skip_ws(i)
                if i >= n:
                    return i, "unexpected end of JSON input"
                if s[i] == "]":
                    return i + 1, None
                if s[i] != ",":
                    return i, bad(s[i], "after array element")
                i += 1
        if c == '"':
            return string(i)
        if c == "-" or "0" <= c <= "9":
            return number(i)
        for lit in ("true", "false", "null"):
            if c == lit[0]:
                for k in range(1, len(lit)):
                    if i + k >= n:
                        return n, "unexpected end of JSON input"
                    if s[i + k] != lit[k]:
                        return i + k, bad(s[i + k], "in literal %s (expecting '%s')" % (lit, lit[k]))
                return i + len(lit), None
        return i, bad(c, "looking for beginning of value")

    def string(i):
        i += 1
        while i < n:
            c = s[i]
            if c == '"':
                return i + 1, None
            if c == "\\":
                i += 1
                if i >= n:
                    break
                e = s[i]
                if e in '"\\/bfnrt':
                    i += 1
                    continue
                if e == "u":
                    for k in range(1, 5):
                        if i + k >= n:
                            return n, "unexpected end of JSON input"
                        if s[i + k] not in "0123456789abcdefABCDEF":
                            return i + k, bad(s[i + k], "in \\u hexadecimal character escape")
                    i += 5
                    continue
                return i, bad(e, "in string escape code")
            if ord(c) < 0x20:
                return i, bad(c, "in string literal")
            i += 1
        return n, "unexpected end of JSON input"

    def number(i):
        if s[i] == "-":
            i += 1
            if i >= n:
                return n, "unexpected end of JSON input"
            if not "0" <= s[i] <= "9":
                return i, bad(s[i], "in numeric literal")
        if s[i] == "0":
            i += 1
        else:
            while i < n and "0" <= s[i] <= "9":
                i += 1
        if i < n and s[i] == ".":
            i += 1
            if i >= n:
                return n, "unexpected end of JSON input"
            if not "0" <= s[i] <= "9":
                return i, bad(s[i], "after decimal point in numeric literal")
            while i < n and "0" <= s[i] <= "9":
                i += 1
        if i < n and s[i] in "eE":
            i += 1
            if i < n and s[i] in "+-":
                i += 1
            if i >= n:
                return n, "unexpected end of JSON input"
            if not "0" <= s[i] <= "9":
                return i, bad(s[i], "in exponent of numeric literal")
            while i < n and "0" <= s[i] <= "9":
                i += 1
        return i, None

    i, err = value(0)
    if err:
        return err
    i = skip_ws(i)
    if i < n:
        return bad(s[i], "after top-level value")
    return None


def _reject_constant(name):
    raise ValueError(name)


_KIND = {dict: "object", list: "array", str: "string", float: "number", bool: "bool"}


def decode(text):
    """``json.Unmarshal`` into ``interface{}``: numbers float64.

    Returns ``(value, error)``: like Go, a number out of float64 range does not stop
    decoding (its field becomes nil) but is reported.  Syntax errors raise JSONError.
    """
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8", "replace")
    errors = []

    def number(s):
        f = float(s)
        if f in (_INF, _NINF):
            if not errors:
                errors.append("json: cannot unmarshal number %s into Go value of type float64" % s)
            return None
        return f

    try:
        value = json.loads(text, parse_int=number, parse_float=number, parse_constant=_reject_constant)
    except (ValueError, RecursionError):
        err = syntax_error(text)
        raise JSONError(err or "json: invalid input")
    return value, (errors[0] if errors else None)


_INF, _NINF = float("inf"), float("-inf")


def kind_name(v):
    """The JSON kind Go names in ``cannot unmarshal <kind> into Go value``."""
    return _KIND.get(type(v), "number")
