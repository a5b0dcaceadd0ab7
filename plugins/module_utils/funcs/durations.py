"""Helm 4.3's duration helpers (``pkg/engine/funcs.go``): ``mustToDuration``, ``durationSeconds`` ...

Every helper reads its argument as Helm's ``asDuration`` does: a ``time.Duration``; a string that
``time.ParseDuration`` takes, or else a number of seconds (``strconv.ParseFloat``); any integer or float
as seconds. Only ``mustToDuration`` fails on a bad argument; the others return 0.
"""
import math

from ..govalue.fmt import format_value
from ..govalue.signature import go_signature
from ..govalue.strconv import go_quote, parse_float
from ..govalue.values import GoStruct, go_type_name
from .sprig.gotime import duration_string, parse_duration, round_duration
from ..errors import HelmlessError

_SECOND = 10**9
_MAX_INT64 = (1 << 63) - 1
_MIN_INT64 = -(1 << 63)
_MAX_SECONDS = _MAX_INT64 // _SECOND
_MIN_SECONDS = -(-_MIN_INT64 // _SECOND)
_MAX_SECONDS_FLOAT = float(_MAX_INT64) / _SECOND
_MIN_SECONDS_FLOAT = float(_MIN_INT64) / _SECOND
# strings.TrimSpace (unicode.IsSpace)
_SPACE = "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009" \
    "\u200a\u2028\u2029\u202f\u205f\u3000"


def _quo(a, b):
    """Go's integer division (truncates toward zero)."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _rem(a, b):
    return a - _quo(a, b) * b


class Duration(GoStruct):
    """A Go ``time.Duration`` (nanoseconds); prints through ``String()``, JSON/YAML as its number."""

    GO_TYPE = "time.Duration"
    GO_KIND = "int64"
    GO_METHODS = ("String", "Hours", "Minutes", "Seconds", "Milliseconds", "Microseconds", "Nanoseconds",
                  "Round", "Truncate", "Abs")

    def __init__(self, ns):
        self.ns = int(ns)

    def __eq__(self, other):
        return isinstance(other, Duration) and other.ns == self.ns

    def __hash__(self):
        return hash(self.ns)

    def __repr__(self):
        return "Duration(%d)" % self.ns

    def go_json_value(self):
        return self.ns

    def String(self):
        return duration_string(self.ns)

    def Hours(self):
        return _quo(self.ns, 3600 * _SECOND) + _rem(self.ns, 3600 * _SECOND) / (3600 * 1e9)

    def Minutes(self):
        return _quo(self.ns, 60 * _SECOND) + _rem(self.ns, 60 * _SECOND) / (60 * 1e9)

    def Seconds(self):
        return _quo(self.ns, _SECOND) + _rem(self.ns, _SECOND) / 1e9

    def Milliseconds(self):
        return _quo(self.ns, 10**6)

    def Microseconds(self):
        return _quo(self.ns, 1000)

    def Nanoseconds(self):
        return self.ns

    def Round(self, m):
        return Duration(round_duration(self.ns, _ns(m)))

    def Truncate(self, m):
        m = _ns(m)
        return Duration(self.ns if m <= 0 else self.ns - _rem(self.ns, m))

    def Abs(self):
        if self.ns >= 0:
            return Duration(self.ns)
        return Duration(_MAX_INT64 if self.ns == _MIN_INT64 else -self.ns)


def _ns(m):
    return m.ns if isinstance(m, Duration) else int(m)


class DurationError(HelmlessError, ValueError):
    """``asDuration`` refused its argument (Go's message)."""


def _from_seconds_float(seconds):
    if math.isnan(seconds) or math.isinf(seconds):
        raise DurationError("invalid duration seconds: %s" % format_value(seconds))
    if seconds > _MAX_SECONDS_FLOAT or seconds < _MIN_SECONDS_FLOAT:
        raise DurationError("duration seconds overflow: %s" % format_value(seconds))
    nanos = seconds * 1e9
    if nanos > float(_MAX_INT64) or nanos < float(_MIN_INT64):
        raise DurationError("duration nanoseconds overflow: %s" % format_value(nanos))
    return Duration(int(nanos))


def as_duration(v):
    """Helm's ``asDuration``."""
    if isinstance(v, Duration):
        return v
    if isinstance(v, str):
        s = v.strip(_SPACE)
        if not s:
            raise DurationError("empty duration")
        try:
            return Duration(parse_duration(s))
        except ValueError:
            pass
        try:
            seconds = parse_float(s)
        except ValueError:
            raise DurationError("could not parse duration %s" % go_quote(v))
        return _from_seconds_float(seconds)
    if v is None:
        raise DurationError("invalid duration")
    if isinstance(v, int) and not isinstance(v, bool):
        unsigned = getattr(v, "GO_UNSIGNED", False)
        if v > _MAX_SECONDS or (not unsigned and v < _MIN_SECONDS):
            raise DurationError("duration seconds overflow: %d" % v)
        return Duration(v * _SECOND)
    if isinstance(v, float):
        return _from_seconds_float(v)
    raise DurationError("unsupported duration type %s" % go_type_name(v))


@go_signature("interface {}")
def must_to_duration(v):
    """``mustToDuration``: the duration, or the template fails with the DurationError (Go panics;
    text/template reports it as the call's error)."""
    return as_duration(v)


def _converter(method, zero):
    @go_signature("interface {}")
    def convert(v):
        try:
            return getattr(as_duration(v), method)()
        except DurationError:
            return zero
    return convert


def _days(d):
    return d.Hours() / 24.0


def _weeks(d):
    return d.Hours() / 24.0 / 7.0


def _scaled(fn):
    @go_signature("interface {}")
    def convert(v):
        try:
            return fn(as_duration(v))
        except DurationError:
            return 0.0
    return convert


def _rounder(method):
    @go_signature("interface {}", "interface {}")
    def apply(v, m):
        try:
            d = as_duration(v)
        except DurationError:
            return Duration(0)
        try:
            mul = as_duration(m)
        except DurationError:
            return d
        return getattr(d, method)(mul)
    return apply


DURATION_FUNCS = {
    "mustToDuration": must_to_duration,
    "durationSeconds": _converter("Seconds", 0.0),
    "durationMilliseconds": _converter("Milliseconds", 0),
    "durationMicroseconds": _converter("Microseconds", 0),
    "durationNanoseconds": _converter("Nanoseconds", 0),
    "durationMinutes": _converter("Minutes", 0.0),
    "durationHours": _converter("Hours", 0.0),
    "durationDays": _scaled(_days),
    "durationWeeks": _scaled(_weeks),
    "durationRoundTo": _rounder("Round"),
    "durationTruncateTo": _rounder("Truncate"),
}
