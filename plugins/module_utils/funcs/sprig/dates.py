"""Sprig date functions (date.go) over Go time semantics (gotime.py)."""
from ...govalue.signature import go_signature
from ...govalue.values import Int64, go_int_class, go_type_name
from .gotime import (
    Time, local, UTC, load_location, zero_time, parse_duration, duration_string,
    round_duration,
)
from .gotime_parse import parse_time, TimeParseError


_DATE_INTS = (int, Int64, go_int_class("int32"))


def _as_time(d):
    """date/dateInZone accept time.Time and int, int64, int32 Unix seconds; anything else
    (a float64 from values, a uint8) is now."""
    if isinstance(d, Time):
        return d
    if d.__class__ in _DATE_INTS:
        return Time(d, 0, local())
    return Time.now()


def _zone(name):
    try:
        return load_location(name)
    except ValueError:
        return UTC


@go_signature()
def now():
    return Time.now()


@go_signature("string", "interface {}", "string")
def dateInZone(fmt, d, zone):
    return _as_time(d).in_loc(_zone(zone)).Format(fmt)


@go_signature("string", "interface {}")
def date(fmt, d):
    return dateInZone(fmt, d, "Local")


@go_signature("interface {}")
def htmlDate(d):
    return dateInZone("2006-01-02", d, "Local")


@go_signature("interface {}", "string")
def htmlDateInZone(d, zone):
    return dateInZone("2006-01-02", d, zone)


def _need_time(name, v):
    if not isinstance(v, Time):
        raise TypeError("wrong type for value; expected time.Time; got %s" % go_type_name(v))
    return v


@go_signature("string", "time.Time")
def dateModify(fmt, d):
    try:
        return mustDateModify(fmt, d)
    except ValueError:
        return d


@go_signature("string", "time.Time")
def mustDateModify(fmt, d):
    return _need_time("dateModify", d).Add(parse_duration(fmt))


@go_signature("interface {}")
def ago(d):
    if isinstance(d, Time):
        t = d
    elif d.__class__ is int or d.__class__ is Int64:
        t = Time(d, 0, local())
    else:
        t = Time.now()
    n = Time.now()
    since = (n.sec - t.sec) * 10**9 + (n.nsec - t.nsec)
    return duration_string(round_duration(since, 10**9))


@go_signature("interface {}")
def duration(sec):
    """Seconds as a Duration string; Go takes only a string or an int64 (a template
    literal is an int, so ``duration 90`` is ``0s``)."""
    n = 0
    if isinstance(sec, str):
        try:
            n = _parse_int10(sec)
        except ValueError:
            n = 0
    elif sec.__class__ is Int64:
        n = sec
    return duration_string(_wrap(n * 10**9))


def _parse_int10(s):
    body = s[1:] if s[:1] in "+-" else s
    if not body or not body.isdigit() or not body.isascii():
        raise ValueError(s)
    n = int(s)
    if not -(1 << 63) <= n < (1 << 63):
        raise ValueError(s)
    return n


def _wrap(v):
    v &= (1 << 64) - 1
    return v - (1 << 64) if v >= (1 << 63) else v


@go_signature("interface {}")
def durationRound(d):
    if isinstance(d, str):
        try:
            n = parse_duration(d)
        except ValueError:
            n = 0
    elif d.__class__ is Int64:
        n = d
    elif isinstance(d, Time):
        t = Time.now()
        n = (t.sec - d.sec) * 10**9 + (t.nsec - d.nsec)
    else:
        n = 0
    u = abs(n)
    year, month, day = 3600 * 24 * 365 * 10**9, 3600 * 24 * 30 * 10**9, 3600 * 24 * 10**9
    hour, minute, second = 3600 * 10**9, 60 * 10**9, 10**9
    for unit, suffix in ((year, "y"), (month, "mo"), (day, "d"), (hour, "h"), (minute, "m"),
                         (second, "s")):
        if u > unit:
            return "%d%s" % (u // unit, suffix)
    return "0s"


@go_signature("string", "string")
def toDate(fmt, s):
    try:
        return parse_time(fmt, s, local())
    except TimeParseError:
        return zero_time()


@go_signature("string", "string")
def mustToDate(fmt, s):
    return parse_time(fmt, s, local())


@go_signature("time.Time")
def unixEpoch(d):
    return str(_need_time("unixEpoch", d).sec)


FUNCS = {
    "now": now, "date": date, "dateInZone": dateInZone, "date_in_zone": dateInZone,
    "htmlDate": htmlDate, "htmlDateInZone": htmlDateInZone, "dateModify": dateModify,
    "date_modify": dateModify, "mustDateModify": mustDateModify,
    "must_date_modify": mustDateModify, "ago": ago, "duration": duration,
    "durationRound": durationRound, "toDate": toDate, "mustToDate": mustToDate,
    "unixEpoch": unixEpoch,
}
