"""Go ``encoding/json`` for the value model: Marshal/MarshalIndent (sorted keys, HTML
escaping, Go float formatting) and Unmarshal into interface{} with Go's syntax errors."""
import base64
import codecs
import math

from ._go import to_bytes
from ...gotemplate.values import GoStruct
from ...goyaml.gojson import NilList, NilMap


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
    if v is None or type(v) is NilList or type(v) is NilMap:
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
        as_json = getattr(v, "go_json_value", None)
        if as_json is not None:
            return json_marshal(as_json(), html, indent, _level)
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


def _go_replace(err):
    """Go decodes invalid UTF-8 one byte at a time, each becoming U+FFFD."""
    return "\ufffd", err.start + 1


codecs.register_error("go-utf8-replace", _go_replace)

_WS = b" \t\n\r"


def _quote_char(c):
    if c == 0x27:
        return "'\\''"
    if c == 0x22:
        return "'\"'"
    from ...gotemplate.fmt import go_quote
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
        for _ in range(4):
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


def json_unmarshal(s):
    """encoding/json Unmarshal into interface{}: numbers are float64."""
    d = _Decoder(to_bytes(s) if isinstance(s, str) else s)
    v = d.value()
    d.ws()
    if d.i < len(d.b):
        d.err("after top-level value")
    if d.type_error:
        raise JSONError(d.type_error)
    return v
