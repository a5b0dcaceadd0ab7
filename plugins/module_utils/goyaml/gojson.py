"""Go ``encoding/json`` for the Go value model: Marshal/MarshalIndent (sorted keys, HTML
escaping, Go float text), Unmarshal into interface{} and Go's error texts.  The one JSON
codec of the tree: Helm's toJson/fromJson, Sprig's toPrettyJson/toRawJson/mustFromJson,
sigs.k8s.io/yaml and TOML all use it."""
import base64
import codecs
import json
import math

from ..govalue.strconv import format_float_json, go_quote
from ..govalue.values import GoStruct, go_type_name
from ..errors import HelmlessError
from ..regexcache import regex

try:
    from json.encoder import c_encode_basestring as _enc_str
except ImportError:  # pragma: no cover - CPython always has the C speedups
    from json.encoder import py_encode_basestring as _enc_str
if _enc_str is None:  # pragma: no cover
    from json.encoder import py_encode_basestring as _enc_str


class JSONError(HelmlessError, ValueError):
    """json.Marshal / json.Unmarshal failed; ``str()`` is Go's error text."""


class NilMap(dict):
    """A nil ``map[string]interface{}``: prints ``map[]`` but marshals to JSON ``null``."""


class NilList(list):
    """A nil ``[]interface{}``: prints ``[]`` but marshals to JSON ``null``."""


_NIL_TYPES = frozenset((NilMap, NilList))
_HTML = regex("[<>&\u2028\u2029\ud800-\udfff]")
_HTML_MAP = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


# Go escapes U+2028/U+2029 even without HTML escaping; invalid UTF-8 becomes U+FFFD.
_RAW = regex("[\u2028\u2029\ud800-\udfff]")
_SURR = regex("[\ud800-\udfff]")


def _html(m):
    return _HTML_MAP.get(m.group(0), "\ufffd")


def struct_value(v):
    """The JSON view of a GoStruct: ``go_json_value()`` when defined, else its fields."""
    conv = getattr(v, "go_json_value", None)
    if conv is not None:
        return conv()
    return {name: getattr(v, name) for name in v.GO_FIELDS}


def _sorted_items(d):
    """(key text, key) in Go's order: by the key's bytes.  For str keys without
    surrogate escapes (raw bytes) that is code point order, the fast case."""
    keys = list(d)
    if all(isinstance(k, str) for k in keys) and not _SURR.search("".join(keys)):
        keys.sort()
        return [(k, k) for k in keys]
    items = [(k if isinstance(k, str) else _key_text(k), k) for k in keys]
    items.sort(key=lambda kk: kk[0].encode("utf-8", "surrogateescape"))
    return items


def _encode(v, parts, indent=None, nl=None):
    """Append ``v``'s JSON to ``parts``; ``nl`` is the newline plus the current
    indentation (MarshalIndent) or None (Marshal)."""
    if v is None or type(v) in _NIL_TYPES:
        parts.append("null")
    elif v is True:
        parts.append("true")
    elif v is False:
        parts.append("false")
    elif isinstance(v, str):
        parts.append(_enc_str(v))
    elif isinstance(v, float):
        try:
            parts.append(format_float_json(v))
        except ValueError as exc:
            raise JSONError(str(exc))
    elif isinstance(v, int):
        parts.append(str(v))
    elif isinstance(v, dict):
        if not v:
            parts.append("{}")
            return
        inner = nl + indent if indent is not None else None
        colon = ": " if indent is not None else ":"
        sep = "{"
        for text, k in _sorted_items(v):
            parts.append(sep)
            if inner is not None:
                parts.append(inner)
            parts.append(_enc_str(text))
            parts.append(colon)
            _encode(v[k], parts, indent, inner)
            sep = ","
        if nl is not None:
            parts.append(nl)
        parts.append("}")
    elif isinstance(v, (list, tuple)):
        if not v:
            parts.append("[]")
            return
        inner = nl + indent if indent is not None else None
        sep = "["
        for x in v:
            parts.append(sep)
            if inner is not None:
                parts.append(inner)
            _encode(x, parts, indent, inner)
            sep = ","
        if nl is not None:
            parts.append(nl)
        parts.append("]")
    elif isinstance(v, (bytes, bytearray)):
        parts.append('"%s"' % base64.b64encode(bytes(v)).decode("ascii"))
    elif isinstance(v, GoStruct):
        _encode(struct_value(v), parts, indent, nl)
    else:
        raise JSONError("json: unsupported type: %s" % go_type_name(v))


def _key_text(k):
    if isinstance(k, bool):
        raise JSONError("json: unsupported type: map[bool]interface {}")
    if isinstance(k, int):
        return str(k)
    raise JSONError("json: unsupported type: map[%s]interface {}" % type(k).__name__)


def to_json(value, escape_html=True, indent=None):
    """``json.Marshal(value)`` (``json.MarshalIndent(value, "", indent)`` when ``indent``
    is given; an Encoder with SetEscapeHTML(false) when ``escape_html`` is false);
    raises JSONError (Go's text) e.g. for NaN/Inf."""
    parts = []
    _encode(value, parts, indent, "\n" if indent is not None else None)
    out = "".join(parts)
    if escape_html:
        return _HTML.sub(_html, out)
    return _RAW.sub(_html, out)


def _go_replace(err):
    """Go decodes invalid UTF-8 one byte at a time, each becoming U+FFFD."""
    return "\ufffd", err.start + 1


codecs.register_error("go-utf8-replace", _go_replace)

_WS = b" \t\n\r"


def _quote_char(c):
    """Go's scanner quoteChar for one input byte."""
    if c == 0x27:
        return "'\\''"
    if c == 0x22:
        return "'\"'"
    return "'" + go_quote(chr(c))[1:-1] + "'"


class _Decoder(object):
    def __init__(self, data):
        self.b = data
        self.i = 0
        self.type_error = None

    def err(self, what, eof_as_space=False):
        """A syntax error at the current byte.  At the end of input Go's scanner feeds
        one space, so literals and numbers report that space instead of "unexpected end"."""
        if self.i >= len(self.b):
            if eof_as_space:
                raise JSONError("invalid character ' ' %s" % what)
            raise JSONError("unexpected end of JSON input")
        raise JSONError("invalid character %s %s" % (_quote_char(self.b[self.i]), what))

    def ws(self):
        while self.i < len(self.b) and self.b[self.i] in _WS:
            self.i += 1

    def peek(self):
        return self.b[self.i] if self.i < len(self.b) else None

    def value(self):
        self.ws()
        c = self.peek()
        if c == 0x7B:
            return self.obj()
        if c == 0x5B:
            return self.arr()
        if c == 0x22:
            return self.string()
        if c is not None and (c == 0x2D or 0x30 <= c <= 0x39):
            return self.number()
        for word, val in ((b"true", True), (b"false", False), (b"null", None)):
            if c == word[0]:
                self.i += 1
                for expect in word[1:]:
                    if self.peek() != expect:
                        self.err("in literal %s (expecting %s)" % (word.decode(), _quote_char(expect)),
                                 True)
                    self.i += 1
                return val
        self.err("looking for beginning of value")

    def obj(self):
        self.i += 1
        out = {}
        self.ws()
        if self.peek() == 0x7D:
            self.i += 1
            return out
        while True:
            self.ws()
            if self.peek() != 0x22:
                self.err("looking for beginning of object key string")
            key = self.string()
            self.ws()
            if self.peek() != 0x3A:
                self.err("after object key")
            self.i += 1
            out[key] = self.value()
            self.ws()
            c = self.peek()
            if c == 0x2C:
                self.i += 1
                continue
            if c == 0x7D:
                self.i += 1
                return out
            self.err("after object key:value pair")

    def arr(self):
        self.i += 1
        out = []
        self.ws()
        if self.peek() == 0x5D:
            self.i += 1
            return out
        while True:
            out.append(self.value())
            self.ws()
            c = self.peek()
            if c == 0x2C:
                self.i += 1
                continue
            if c == 0x5D:
                self.i += 1
                return out
            self.err("after array element")

    def string(self):
        self.i += 1
        out = bytearray()
        b = self.b
        while True:
            c = self.peek()
            if c is None:
                self.err("")
            if c == 0x22:
                self.i += 1
                return out.decode("utf-8", "go-utf8-replace")
            if c < 0x20:
                self.err("in string literal")
            if c != 0x5C:
                out.append(c)
                self.i += 1
                continue
            self.i += 1
            e = self.peek()
            simple = {0x22: b'"', 0x5C: b"\\", 0x2F: b"/", 0x62: b"\b", 0x66: b"\f",
                      0x6E: b"\n", 0x72: b"\r", 0x74: b"\t"}
            if e in simple:
                out += simple[e]
                self.i += 1
                continue
            if e != 0x75:
                self.err("in string escape code")
            self.i += 1
            r = self.hex4()
            if 0xD800 <= r < 0xDC00 and b[self.i:self.i + 2] == b"\\u":
                save = self.i
                self.i += 2
                r2 = self.hex4()
                if 0xDC00 <= r2 < 0xE000:
                    r = 0x10000 + ((r - 0xD800) << 10) + (r2 - 0xDC00)
                else:
                    self.i = save
                    r = 0xFFFD
            elif 0xD800 <= r < 0xE000:
                r = 0xFFFD
            out += chr(r).encode("utf-8")

    def hex4(self):
        v = 0
        for _i in range(4):
            c = self.peek()
            if c is None or chr(c) not in "0123456789abcdefABCDEF":
                self.err("in \\u hexadecimal character escape")
            v = v * 16 + int(chr(c), 16)
            self.i += 1
        return v

    def number(self):
        start = self.i
        b = self.b

        def digits():
            n = 0
            while self.i < len(b) and 0x30 <= b[self.i] <= 0x39:
                self.i += 1
                n += 1
            return n
        if self.peek() == 0x2D:
            self.i += 1
        c = self.peek()
        if c == 0x30:
            self.i += 1
        elif c is not None and 0x31 <= c <= 0x39:
            digits()
        else:
            self.err("in numeric literal", True)
        if self.peek() == 0x2E:
            self.i += 1
            if not digits():
                self.err("after decimal point in numeric literal", True)
        if self.peek() in (0x65, 0x45):
            self.i += 1
            if self.peek() in (0x2B, 0x2D):
                self.i += 1
            if not digits():
                self.err("in exponent of numeric literal", True)
        text = b[start:self.i].decode()
        v = float(text)
        if math.isinf(v):
            if self.type_error is None:
                self.type_error = ("json: cannot unmarshal number %s into Go value of type float64"
                                   % text)
            return None
        return v


# json.loads keeps a lone \\uD800 escape as a surrogate; Go decodes it to U+FFFD.
_SURR_ESCAPE = regex(r"\\u[dD][89a-fA-F]")


def _reject_constant(name):
    raise ValueError(name)


_KIND = {dict: "object", list: "array", str: "string", float: "number", bool: "bool"}


def decode(text):
    """``json.Unmarshal`` into ``interface{}``: numbers float64.

    Returns ``(value, error)``: like Go, a number out of float64 range does not stop
    decoding (its field becomes nil) but is reported.  Syntax errors raise JSONError.
    """
    if isinstance(text, (bytes, bytearray)) or _SURR.search(text) or _SURR_ESCAPE.search(text):
        return _decode_bytes(text)
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
        return _decode_bytes(text)
    return value, (errors[0] if errors else None)


def _decode_bytes(text):
    """The byte-level decoder: Go's syntax error texts, and invalid UTF-8 inside strings
    becoming one U+FFFD per byte (the C json module offers neither)."""
    d = _Decoder(text.encode("utf-8", "surrogateescape") if isinstance(text, str) else bytes(text))
    try:
        v = d.value()
    except RecursionError:
        raise JSONError("json: invalid input")
    d.ws()
    if d.i < len(d.b):
        d.err("after top-level value")
    return v, d.type_error


_INF, _NINF = float("inf"), float("-inf")


def kind_name(v):
    """The JSON kind Go names in ``cannot unmarshal <kind> into Go value``."""
    return _KIND.get(type(v), "number")
