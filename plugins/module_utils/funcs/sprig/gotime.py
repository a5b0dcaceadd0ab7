"""Go ``time``: Time values, layouts (Format/Parse with the 2006-01-02 reference time),
Duration printing and parsing, and zone lookup (Local, UTC, tz database)."""
import datetime
import os
import time as _time

from ...govalue.strconv import go_quote
from ...govalue.values import GoStruct, Int64

_UTC = datetime.timezone.utc
_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=_UTC)
_START = _time.monotonic()
_MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December"]
_DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]


class Location(object):
    """A time zone: ``name`` as Go's Location.String() and a tzinfo."""

    def __init__(self, name, tz):
        self.name, self.tz = name, tz


UTC = Location("UTC", _UTC)


def _local():
    import zoneinfo  # lazy: only templates that read the clock or a zone need it
    tzname = os.environ.get("TZ")
    try:
        if tzname is not None:
            if tzname in ("", "UTC"):
                return Location("Local", _UTC) if tzname else UTC
            return Location("Local", zoneinfo.ZoneInfo(tzname.lstrip(":")))
        with open("/etc/localtime", "rb") as fh:
            return Location("Local", zoneinfo.ZoneInfo.from_file(fh, key="Local"))
    except (OSError, ValueError, zoneinfo.ZoneInfoNotFoundError):
        return Location("UTC", _UTC)


_LOCAL = []


def local():
    """Go's time.Local (the TZ variable, else /etc/localtime), read on first use."""
    if not _LOCAL:
        _LOCAL.append(_local())
    return _LOCAL[0]


def load_location(name):
    """time.LoadLocation; raises ValueError for unknown zones."""
    if name in ("", "UTC"):
        return UTC
    if name == "Local":
        return local()
    if name.startswith("/") or ".." in name:
        raise ValueError("unknown time zone " + name)
    import zoneinfo  # lazy: see _local
    try:
        return Location(name, zoneinfo.ZoneInfo(name))
    except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError):
        raise ValueError("unknown time zone " + name)


class Time(GoStruct):
    """time.Time: Unix seconds + nanoseconds in a Location."""

    GO_TYPE = "time.Time"
    GO_KIND = "struct"
    GO_METHODS = ("String", "Format", "Unix", "UnixNano", "UnixMilli", "Year", "Month", "Day",
                  "Hour", "Minute", "Second", "Nanosecond", "YearDay", "Weekday", "UTC",
                  "Local", "Add", "AddDate", "IsZero", "Before", "After", "Equal")

    def __init__(self, sec, nsec, loc, mono=None):
        self.sec, self.nsec, self.loc, self.mono = sec, nsec, loc, mono

    @classmethod
    def now(cls):
        ns = _time.time_ns()
        return cls(ns // 10**9, ns % 10**9, local(), _time.monotonic() - _START)

    def _dt(self):
        """Wall clock in this location; years before 1 are shifted by 400 years
        (Python's datetime stops at year 1, Go's time does not)."""
        sec, shift = self.sec, 0
        while sec < ZERO_SEC + 86400:
            sec += _400Y
            shift += 400
        utc = _EPOCH + datetime.timedelta(seconds=sec)
        dt = utc if self.loc.tz is _UTC else utc.astimezone(self.loc.tz)
        return _Wall(dt, shift)

    def zone(self):
        dt = self._dt()
        if self.loc.tz is _UTC:
            return ("UTC" if self.loc is UTC or self.loc.name in ("UTC", "Local") else
                    self.loc.name), 0
        off = dt.off
        abbr = getattr(self.loc, "abbr", None)
        return (abbr if abbr is not None else dt.name or ""), off

    def in_loc(self, loc):
        return Time(self.sec, self.nsec, loc)

    # -- template methods
    def String(self):
        s = self.Format("2006-01-02 15:04:05.999999999 -0700 MST")
        if self.mono is not None:
            s += " m=+%.9f" % self.mono
        return s

    def Format(self, layout):
        return format_time(self, layout)

    def Unix(self):
        return Int64(self.sec)

    def UnixNano(self):
        return Int64(self.sec * 10**9 + self.nsec)

    def UnixMilli(self):
        return Int64(self.sec * 1000 + self.nsec // 10**6)

    def Year(self):
        return self._dt().year

    def Month(self):
        return _Named("time.Month", _MONTHS[self._dt().month - 1], self._dt().month)

    def Day(self):
        return self._dt().day

    def Hour(self):
        return self._dt().hour

    def Minute(self):
        return self._dt().minute

    def Second(self):
        return self._dt().second

    def Nanosecond(self):
        return self.nsec

    def YearDay(self):
        return self._dt().yday

    def Weekday(self):
        wd = (self._dt().weekday() + 1) % 7
        return _Named("time.Weekday", _DAYS[wd], wd)

    def UTC(self):
        return Time(self.sec, self.nsec, UTC)

    def Local(self):
        return Time(self.sec, self.nsec, local())

    def Add(self, d):
        total = self.nsec + d
        return Time(self.sec + total // 10**9, total % 10**9, self.loc)

    def AddDate(self, years, months, days):
        dt = self._dt()
        y, m = dt.year + years, dt.month - 1 + months
        y += m // 12
        m = m % 12 + 1
        base = datetime.datetime(y, m, 1, dt.hour, dt.minute, dt.second)
        naive = base + datetime.timedelta(days=dt.day - 1 + days)
        return from_wall(naive, self.nsec, self.loc)

    def IsZero(self):
        return self.sec == ZERO_SEC and self.nsec == 0

    def Before(self, o):
        return (self.sec, self.nsec) < (o.sec, o.nsec)

    def After(self, o):
        return (self.sec, self.nsec) > (o.sec, o.nsec)

    def Equal(self, o):
        return (self.sec, self.nsec) == (o.sec, o.nsec)

    def go_equal(self, o):
        return (self.sec, self.nsec, self.loc.name) == (o.sec, o.nsec, o.loc.name)

    def go_json_value(self):
        """MarshalJSON: RFC 3339 with nanoseconds, as a string."""
        return self.Format("2006-01-02T15:04:05.999999999Z07:00")


_400Y = 146097 * 86400


class _Wall(object):
    """Broken-down wall-clock time (a datetime, with the year possibly shifted back)."""

    def __init__(self, dt, shift):
        self.year = dt.year - shift
        self.month, self.day, self.hour = dt.month, dt.day, dt.hour
        self.minute, self.second = dt.minute, dt.second
        self._wd = dt.weekday()
        self.yday = dt.timetuple().tm_yday
        off = dt.utcoffset()
        self.off = int(off.total_seconds()) if off is not None else 0
        self.name = dt.tzname()

    def weekday(self):
        return self._wd


class _Named(GoStruct):
    """time.Month / time.Weekday: an integer that prints as its name."""

    GO_METHODS = ("String",)

    def __init__(self, gotype, name, num):
        self.GO_TYPE, self.name, self.num = gotype, name, num

    def String(self):
        return self.name


ZERO_SEC = -62135596800


def zero_time():
    return Time(ZERO_SEC, 0, UTC)


def from_wall(naive, nsec, loc, shift=0):
    """The Time showing wall clock ``naive`` (its year minus ``shift``) in ``loc``."""
    if loc.tz is _UTC:
        aware = naive.replace(tzinfo=_UTC)
    elif isinstance(loc.tz, datetime.timezone):
        aware = naive.replace(tzinfo=loc.tz)
    else:
        aware = naive.replace(tzinfo=loc.tz, fold=0)
    delta = aware - _EPOCH
    return Time(delta.days * 86400 + delta.seconds - shift // 400 * _400Y, nsec, loc)


# ------------------------------------------------------------------ layouts

def _std_chunk(layout):
    """Go's nextStdChunk: (prefix, std, suffix) with std a token name or None."""
    n = len(layout)
    i = 0
    while i < n:
        c = layout[i]
        rest = layout[i:]
        if c == "J" and rest.startswith("Jan"):
            if rest.startswith("January"):
                return layout[:i], "January", layout[i + 7:]
            if not rest[3:4].islower() or not rest[3:4].isascii():
                return layout[:i], "Jan", layout[i + 3:]
        elif c == "M" and len(rest) >= 3:
            if rest.startswith("Mon"):
                if rest.startswith("Monday"):
                    return layout[:i], "Monday", layout[i + 6:]
                if not (rest[3:4].islower() and rest[3:4].isascii()):
                    return layout[:i], "Mon", layout[i + 3:]
            if rest.startswith("MST"):
                return layout[:i], "MST", layout[i + 3:]
        elif c == "0":
            if len(rest) >= 2 and "1" <= rest[1] <= "6":
                return layout[:i], rest[:2], layout[i + 2:]
            if rest.startswith("002"):
                return layout[:i], "002", layout[i + 3:]
        elif c == "1":
            if rest.startswith("15"):
                return layout[:i], "15", layout[i + 2:]
            return layout[:i], "1", layout[i + 1:]
        elif c == "2":
            if rest.startswith("2006"):
                return layout[:i], "2006", layout[i + 4:]
            return layout[:i], "2", layout[i + 1:]
        elif c == "_":
            if rest.startswith("_2"):
                if rest.startswith("_2006"):
                    return layout[:i + 1], "2006", layout[i + 5:]
                return layout[:i], "_2", layout[i + 2:]
            if rest.startswith("__2"):
                return layout[:i], "__2", layout[i + 3:]
        elif c in "345":
            return layout[:i], c, layout[i + 1:]
        elif c == "P" and rest.startswith("PM"):
            return layout[:i], "PM", layout[i + 2:]
        elif c == "p" and rest.startswith("pm"):
            return layout[:i], "pm", layout[i + 2:]
        elif c in "-Z":
            for tok in ("070000", "07:00:00", "0700", "07:00", "07"):
                if rest[1:].startswith(tok):
                    return layout[:i], c + tok, layout[i + 1 + len(tok):]
        elif c in ".," and i + 1 < n and layout[i + 1] in "09":
            ch = layout[i + 1]
            j = i + 1
            while j < n and layout[j] == ch:
                j += 1
            if not (j < n and layout[j].isdigit()):
                return layout[:i], (c, ch, j - i - 1), layout[j:]
        i += 1
    return layout, None, ""


def _frac(nsec, digits, trim):
    s = "%09d" % nsec
    s = s[:digits]
    if trim:
        s = s.rstrip("0")
    return s


def format_time(t, layout):
    dt = t._dt()
    name, off = t.zone()
    out = []
    while layout:
        prefix, std, layout = _std_chunk(layout)
        out.append(prefix)
        if std is None:
            break
        if isinstance(std, tuple):
            sep, ch, digits = std
            f = _frac(t.nsec, digits, ch == "9")
            if ch == "0" or f:
                out.append(sep + f)
            continue
        out.append(_format_std(std, dt, t, name, off))
    return "".join(out)


def _tz_num(off, std):
    if std[0] == "Z" and off == 0:
        return "Z"
    zone = off // 60 if off >= 0 else -((-off) // 60)
    sign = "-" if off < 0 else "+"
    zone = abs(zone)
    secs = abs(off) % 60
    tok = std[1:]
    hh, mm = "%02d" % (zone // 60), "%02d" % (zone % 60)
    if tok == "07":
        return sign + hh
    if tok == "0700":
        return sign + hh + mm
    if tok == "07:00":
        return sign + hh + ":" + mm
    if tok == "070000":
        return sign + hh + mm + "%02d" % secs
    return sign + hh + ":" + mm + ":" + "%02d" % secs


def _format_std(std, dt, t, name, off):
    y = dt.year
    if std == "2006":
        return "%04d" % y
    if std == "06":
        return "%02d" % (y % 100)
    if std == "January":
        return _MONTHS[dt.month - 1]
    if std == "Jan":
        return _MONTHS[dt.month - 1][:3]
    if std == "1":
        return str(dt.month)
    if std == "01":
        return "%02d" % dt.month
    if std in ("Monday", "Mon"):
        d = _DAYS[(dt.weekday() + 1) % 7]
        return d if std == "Monday" else d[:3]
    if std == "2":
        return str(dt.day)
    if std == "_2":
        return "%2d" % dt.day
    if std == "02":
        return "%02d" % dt.day
    yday = dt.yday
    if std == "__2":
        return "%3d" % yday
    if std == "002":
        return "%03d" % yday
    if std == "15":
        return "%02d" % dt.hour
    h12 = dt.hour % 12 or 12
    if std == "3":
        return str(h12)
    if std == "03":
        return "%02d" % h12
    if std == "4":
        return str(dt.minute)
    if std == "04":
        return "%02d" % dt.minute
    if std == "5":
        return str(dt.second)
    if std == "05":
        return "%02d" % dt.second
    if std == "PM":
        return "PM" if dt.hour >= 12 else "AM"
    if std == "pm":
        return "pm" if dt.hour >= 12 else "am"
    if std == "MST":
        if name:
            return name
        zone = abs(off) // 60
        return ("-" if off < 0 else "+") + "%02d%02d" % (zone // 60, zone % 60)
    return _tz_num(off, std)


# ------------------------------------------------------------------ durations

_UNITS = {"ns": 1, "us": 1000, "µs": 1000, "μs": 1000, "ms": 10**6, "s": 10**9,
          "m": 60 * 10**9, "h": 3600 * 10**9}
_MAX_DUR = (1 << 63) - 1


def parse_duration(s):
    """time.ParseDuration; raises ValueError with Go's message."""
    orig = s
    neg = False
    if s and s[0] in "-+":
        neg = s[0] == "-"
        s = s[1:]
    if s == "0":
        return 0
    if not s:
        raise ValueError("time: invalid duration " + go_quote(orig))
    total = 0
    while s:
        i = 0
        while i < len(s) and s[i].isdigit():
            i += 1
        whole = s[:i]
        s = s[i:]
        frac = ""
        if s.startswith("."):
            s = s[1:]
            j = 0
            while j < len(s) and s[j].isdigit():
                j += 1
            frac, s = s[:j], s[j:]
        if not whole and not frac:
            raise ValueError("time: invalid duration " + go_quote(orig))
        j = 0
        while j < len(s) and s[j] != "." and not s[j].isdigit():
            j += 1
        unit, s = s[:j], s[j:]
        if not unit:
            raise ValueError("time: missing unit in duration " + go_quote(orig))
        if unit not in _UNITS:
            raise ValueError("time: unknown unit %s in duration %s" % (go_quote(unit), go_quote(orig)))
        mult = _UNITS[unit]
        v = int(whole or "0") * mult
        if frac:
            v += int(int(frac) * mult / 10**len(frac))
        total += v
        if total > _MAX_DUR + (1 if neg else 0):
            raise ValueError("time: invalid duration " + go_quote(orig))
    return -total if neg else total


def _fmt_frac(v, prec):
    digits = []
    printed = False
    for _i in range(prec):
        d = v % 10
        printed = printed or d != 0
        if printed:
            digits.append(str(d))
        v //= 10
    s = "".join(reversed(digits))
    return ("." + s if printed else ""), v


def duration_string(d):
    """time.Duration.String."""
    if d == 0:
        return "0s"
    neg = d < 0
    u = -d if neg else d
    if u < 10**9:
        if u < 1000:
            s = "%dns" % u
        elif u < 10**6:
            f, w = _fmt_frac(u, 3)
            s = "%d%sµs" % (w, f)
        else:
            f, w = _fmt_frac(u, 6)
            s = "%d%sms" % (w, f)
    else:
        f, u = _fmt_frac(u, 9)
        secs = u % 60
        u //= 60
        s = "%d%ss" % (secs, f)
        if u > 0:
            mins = u % 60
            u //= 60
            s = "%dm" % mins + s
            if u > 0:
                s = "%dh" % u + s
    return "-" + s if neg else s


def round_duration(d, m):
    """time.Duration.Round."""
    if m <= 0:
        return d
    r = abs(d) % m
    if d < 0:
        if r + r < m:
            return d + r
        return d - m + r
    if r + r < m:
        return d - r
    return d + m - r
