"""TOML as Helm's ``toToml``/``fromToml`` (github.com/BurntSushi/toml) see it."""
import datetime
import math

from ..govalue.strconv import format_float
from ..govalue.values import GoStruct, Int64, go_type_name
from .gojson import struct_value
from ..errors import HelmlessError
from ..regexcache import regex

_BARE = regex(r"[A-Za-z0-9_-]+\Z")
_TOML_ESC = regex('[\x00-\x1f"\\\\\x7f]')
_TOML_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}


class TOMLError(HelmlessError, ValueError):
    """Encoding failed; ``str()`` is BurntSushi's error text.

    ``panic`` is True when Go's encoder panics instead of returning an error (then even
    ``toToml`` fails with ``error calling toToml: ...``).
    """

    def __init__(self, message, panic=False):
        super().__init__(message)
        self.panic = panic


def _esc(m):
    c = m.group(0)
    return _TOML_ESCAPES.get(c) or "\\u%04x" % ord(c)


def _quote(s):
    return '"' + _TOML_ESC.sub(_esc, s) + '"'


def _key(k):
    return k if _BARE.match(k) else _quote(k)


def _plain(v):
    if isinstance(v, GoStruct):
        return struct_value(v)
    if isinstance(v, tuple):
        return list(v)
    return v


def _is_table_array(v):
    if not isinstance(v, list) or not v:
        return False
    ret = True
    for x in v:
        x = _plain(x)
        if x is None:
            raise TOMLError("toml: cannot encode array with nil element")
        if not isinstance(x, dict):
            ret = False
    return ret


def _element(v):
    v = _plain(v)
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if v in (float("inf"), float("-inf")):
            return "inf" if v > 0 else "-inf"
        s = format_float(v)
        if "." not in s and "e" not in s:
            s += ".0"
        return s
    if isinstance(v, str):
        return _quote(v)
    if isinstance(v, (bytes, bytearray)):
        return _quote(bytes(v).decode("utf-8", "replace"))
    if isinstance(v, list):
        return "[" + ", ".join(_element(x) for x in v) + "]"
    if isinstance(v, dict):
        return _inline_table(v)
    if v is None:
        raise TOMLError("toml: cannot encode a nil value")
    raise TOMLError("unsupported type: %s" % go_type_name(v))


def _split(d):
    direct, sub = [], []
    for k, v in d.items():
        v = _plain(v)
        if isinstance(v, dict) or _is_table_array(v):
            sub.append(k)
        else:
            direct.append(k)
    direct.sort()
    sub.sort()
    return direct, sub


def _inline_table(d):
    direct, sub = _split(d)
    parts = []
    keys = [k for k in direct + sub if _plain(d[k]) is not None]
    for k in keys:
        parts.append("%s = %s" % (_key(k), _element(d[k])))
    return "{" + ", ".join(parts) + "}"


class _Encoder(object):
    def __init__(self):
        self.out = []
        self.written = False

    def wf(self, s):
        self.out.append(s)
        self.written = True

    def newline(self):
        if self.written:
            self.wf("\n")

    @staticmethod
    def indent(key):
        return "  " * (len(key) - 1)

    @staticmethod
    def key_text(key):
        return ".".join(_key(k) for k in key)

    def encode(self, key, v):
        v = _plain(v)
        if v is None:
            return
        if isinstance(v, dict):
            self.table(key, v)
        elif _is_table_array(v):
            self.array_of_tables(key, v)
        else:
            self.wf("%s%s = %s" % (self.indent(key), _key(key[-1]), _element(v)))
            self.newline()

    def table(self, key, d):
        if len(key) == 1:
            self.newline()
        if key:
            self.wf("%s[%s]" % (self.indent(key), self.key_text(key)))
            self.newline()
        self.map_body(key, d)

    def map_body(self, key, d):
        direct, sub = _split(d)
        for k in direct + sub:
            self.encode(key + (k,), d[k])

    def array_of_tables(self, key, items):
        for item in items:
            item = _plain(item)
            self.newline()
            self.wf("%s[[%s]]" % (self.indent(key), self.key_text(key)))
            self.newline()
            self.map_body(key, item)


def to_toml(value):
    """BurntSushi ``toml.NewEncoder(b).Encode(value)`` output.

    Raises TOMLError with Go's text: ``toToml`` renders that text, ``mustToToml`` fails.
    ``nil`` makes the Go encoder panic (``TOMLError.panic``): then toToml fails too.
    """
    if value is None:
        raise TOMLError("reflect: call of reflect.Value.Type on zero Value", panic=True)
    value = _plain(value)
    enc = _Encoder()
    if isinstance(value, dict):
        enc.map_body((), value)
    else:
        enc.wf(_element(value))
    return "".join(enc.out)


class GoTime(GoStruct):
    """A ``time.Time`` decoded from TOML (local date-times are read as UTC, as in
    Helm's containers).  ``String()`` and the JSON form follow Go's formats."""

    GO_TYPE = "time.Time"
    GO_METHODS = ("String",)

    def __init__(self, dt, year0=False):
        if dt.tzinfo is None:
            dt = dt.replace(tzinfo=datetime.timezone.utc)
        self.dt = dt
        self.year0 = year0  # TOML local times are dated 0000-01-01 by Go

    def _date(self, sep):
        d = self.dt
        return "%04d-%02d-%02d%s%02d:%02d:%02d" % (0 if self.year0 else d.year, d.month, d.day, sep,
                                                   d.hour, d.minute, d.second)

    def _frac(self):
        us = self.dt.microsecond
        return ("." + ("%06d" % us).rstrip("0")) if us else ""

    def _offset(self, colon):
        off = self.dt.utcoffset()
        mins = int(off.total_seconds() // 60)
        sign = "-" if mins < 0 else "+"
        mins = abs(mins)
        return "%s%02d%s%02d" % (sign, mins // 60, ":" if colon else "", mins % 60)

    def go_json_value(self):
        """RFC 3339 with nanoseconds, as ``time.Time.MarshalJSON``."""
        zone = "Z" if self.dt.utcoffset().total_seconds() == 0 else self._offset(True)
        return self._date("T") + self._frac() + zone

    def String(self):
        """``2006-01-02 15:04:05.999999999 -0700 MST``."""
        off = self._offset(False)
        name = "UTC" if off == "+0000" else off
        return "%s%s %s %s" % (self._date(" "), self._frac(), off, name)


def _to_model(v):
    if isinstance(v, dict):
        return {k: _to_model(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_to_model(x) for x in v]
    if isinstance(v, datetime.datetime):
        return GoTime(v)
    if isinstance(v, datetime.date):
        return GoTime(datetime.datetime(v.year, v.month, v.day))
    if isinstance(v, datetime.time):
        return GoTime(datetime.datetime(1, 1, 1, v.hour, v.minute, v.second, v.microsecond,
                                        tzinfo=v.tzinfo), year0=True)
    if isinstance(v, int) and v.__class__ is not bool:
        return Int64(v)
    return v


def from_toml(text):
    """Helm's ``fromToml``: a dict (ints int64, floats float64), or ``{"Error": msg}``."""
    try:  # lazy: compiling tomllib's patterns costs every task ~10 ms, and few charts read TOML
        import tomllib
    except ImportError:  # pragma: no cover - Python < 3.11
        return {"Error": "toml: decoding is not available"}
    try:
        return _to_model(tomllib.loads(text))
    except tomllib.TOMLDecodeError as exc:
        return {"Error": "toml: " + str(exc)}
