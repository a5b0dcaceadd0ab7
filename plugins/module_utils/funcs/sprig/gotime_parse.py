"""Go ``time.Parse``/``ParseInLocation`` over the layouts of gotime.py, with Go's
error texts (``parsing time "x" as "2006": cannot parse "x" as "2006"``)."""
import datetime

from ...govalue.strconv import go_quote
from .gotime import (
    _std_chunk, _MONTHS, _DAYS, Location, Time, UTC, from_wall,
)
from ...errors import HelmlessError


class TimeParseError(HelmlessError):
    pass


def _perr(value, layout, vrest, elem, msg=""):
    if msg:
        return TimeParseError("parsing time %s%s" % (go_quote(value), msg))
    return TimeParseError("parsing time %s as %s: cannot parse %s as %s"
                          % (go_quote(value), go_quote(layout), go_quote(vrest), go_quote(elem)))


def _getnum(s, fixed, width=2):
    if width == 3:
        if len(s) < 3 or not s[:3].isdigit():
            raise ValueError
        return int(s[:3]), s[3:]
    if not s or not s[0].isdigit() or not s[0].isascii():
        raise ValueError
    if len(s) < 2 or not s[1].isdigit():
        if fixed:
            raise ValueError
        return int(s[0]), s[1:]
    return int(s[:2]), s[2:]


def _lookup(names, s):
    for i, nm in enumerate(names):
        if len(s) >= len(nm) and s[:len(nm)].lower() == nm.lower():
            return i, s[len(nm):]
    raise ValueError


def _signed_offset_len(v):
    """parseSignedOffset: length of "+h"/"-hh" (hours <= 23), 0 if none."""
    if not v or v[0] not in "+-":
        return 0
    j = 1
    while j < len(v) and v[j].isdigit() and v[j].isascii():
        j += 1
    if j == 1 or int(v[1:j]) > 23:
        return 0
    return j


def _zone_len(v):
    """parseTimeZone: length of a zone abbreviation at the start of v, 0 if none."""
    if len(v) < 3:
        return 0
    if v[:4] in ("ChST", "MeST"):
        return 4
    if v[:3] == "GMT":
        return 3 + (_signed_offset_len(v[3:]) if len(v) > 3 else 0)
    if v[0] in "+-":
        return _signed_offset_len(v)
    n = 0
    while n < 6 and n < len(v) and "A" <= v[n] <= "Z":
        n += 1
    if n == 3:
        return 3
    if n == 4 and (v[3] == "T" or v[:4] == "WITA"):
        return 4
    if n == 5 and v[4] == "T":
        return 5
    return 0


def parse_time(layout, value, default_loc):
    """time.ParseInLocation (the common layouts; errors in Go's wording)."""
    alayout, v = layout, value
    year, month, day, hour, minute, sec, nsec = 0, -1, -1, 0, 0, 0, 0
    yday = -1
    pm_set = am_set = False
    zone_off = None
    zone_name = None
    while True:
        prefix, std, suffix = _std_chunk(layout)
        stdstr = layout[len(prefix):len(layout) - len(suffix)]
        if not v.startswith(prefix):
            raise _perr(value, alayout, v, prefix)
        v = v[len(prefix):]
        if std is None:
            if v:
                raise _perr(value, alayout, v, "", ": extra text: " + go_quote(v))
            break
        layout = suffix
        hold = v
        try:
            if isinstance(std, tuple):
                sep, ch, digits = std
                if ch == "0":
                    if len(v) < digits + 1 or v[0] not in ".,":
                        raise ValueError
                    nsec = int((v[1:digits + 1] + "000000000")[:9])
                    v = v[digits + 1:]
                elif v[:1] in (".", ","):
                    j = 1
                    while j < len(v) and v[j].isdigit():
                        j += 1
                    nsec = int((v[1:j] + "000000000")[:9])
                    v = v[j:]
            elif std == "2006":
                if len(v) < 4 or not v[:4].isdigit():
                    raise ValueError
                year, v = int(v[:4]), v[4:]
            elif std == "06":
                yy, v = _getnum(v, True)
                year = yy + (1900 if yy >= 69 else 2000)
            elif std in ("January", "Jan"):
                names = _MONTHS if std == "January" else [m[:3] for m in _MONTHS]
                month, v = _lookup(names, v)
                month += 1
            elif std in ("1", "01"):
                month, v = _getnum(v, std == "01")
                if not 1 <= month <= 12:
                    raise _perr(value, alayout, v, "", ": month out of range")
            elif std in ("Monday", "Mon"):
                names = _DAYS if std == "Monday" else [d[:3] for d in _DAYS]
                v = _lookup(names, v)[1]
            elif std in ("2", "_2", "02"):
                if std == "_2" and v[:1] == " ":
                    v = v[1:]
                day, v = _getnum(v, std == "02")
            elif std in ("__2", "002"):
                if std == "__2":
                    v = v.lstrip(" ") if len(v) - len(v.lstrip(" ")) <= 2 else v
                    j = 0
                    while j < len(v) and j < 3 and v[j].isdigit():
                        j += 1
                    if j == 0:
                        raise ValueError
                    yday, v = int(v[:j]), v[j:]
                else:
                    yday, v = _getnum(v, True, 3)
            elif std == "15":
                hour, v = _getnum(v, False)
                if hour >= 24:
                    raise _perr(value, alayout, v, "", ": hour out of range")
            elif std in ("3", "03"):
                hour, v = _getnum(v, std == "03")
                if hour > 12:
                    raise _perr(value, alayout, v, "", ": hour out of range")
            elif std in ("4", "04"):
                minute, v = _getnum(v, std == "04")
                if minute >= 60:
                    raise _perr(value, alayout, v, "", ": minute out of range")
            elif std in ("5", "05"):
                sec, v = _getnum(v, std == "05")
                if sec >= 60:
                    raise _perr(value, alayout, v, "", ": second out of range")
                if len(v) >= 2 and v[0] in ".," and v[1].isdigit():
                    nstd = _std_chunk(layout)[1]
                    if not isinstance(nstd, tuple):
                        j = 1
                        while j < len(v) and v[j].isdigit():
                            j += 1
                        nsec = int((v[1:j] + "000000000")[:9])
                        v = v[j:]
            elif std in ("PM", "pm"):
                ap = v[:2].upper()
                if ap == "PM":
                    pm_set = True
                elif ap == "AM":
                    am_set = True
                else:
                    raise ValueError
                v = v[2:]
            elif std == "MST":
                if v[:3] == "UTC":
                    zone_name, v = "UTC", v[3:]
                    zone_off = 0
                else:
                    n = _zone_len(v)
                    if not n:
                        raise ValueError
                    zone_name, v = v[:n], v[n:]
            else:
                if std[0] == "Z" and v[:1] == "Z":
                    v = v[1:]
                    zone_off = 0
                    zone_name = "UTC"
                else:
                    tok = std[1:]
                    sign = v[:1]
                    if sign not in "+-" or not sign:
                        raise ValueError
                    body = v[1:]
                    if tok in ("07:00", "07:00:00"):
                        hh, mm = body[:2], body[3:5]
                        if body[2:3] != ":" or not (hh + mm).isdigit() or len(hh + mm) < 4:
                            raise ValueError
                        ss, used = "00", 5
                        if tok == "07:00:00":
                            if body[5:6] != ":" or not body[6:8].isdigit():
                                raise ValueError
                            ss, used = body[6:8], 8
                    elif tok == "07":
                        hh, mm, ss, used = body[:2], "00", "00", 2
                    else:
                        hh, mm = body[:2], body[2:4]
                        ss, used = "00", 4
                        if tok == "070000":
                            ss, used = body[4:6], 6
                    if not (hh + mm + ss).isdigit() or len(hh + mm + ss) != 6:
                        raise ValueError
                    zone_off = (int(hh) * 3600 + int(mm) * 60 + int(ss)) * (-1 if sign == "-" else 1)
                    v = body[used:]
        except ValueError:
            raise _perr(value, alayout, hold, stdstr)
    if pm_set and hour < 12:
        hour += 12
    elif am_set and hour == 12:
        hour = 0
    if yday >= 0:
        base = datetime.date(year, 1, 1) + datetime.timedelta(days=yday - 1)
        if month < 0:
            month = base.month
        if day < 0:
            day = base.day
    if month < 0:
        month = 1
    if day < 0:
        day = 1
    shift = 400 if year < 1 else 0
    try:
        naive = datetime.datetime(year + shift, month, day, hour, minute, sec)
    except ValueError:
        raise _perr(value, alayout, "", "", ": day out of range")
    if zone_off is not None:
        t = from_wall(naive, nsec, UTC, shift)
        t = Time(t.sec - zone_off, nsec, UTC)
        if zone_off == 0 and zone_name == "UTC":
            return t
        local_off = t.in_loc(default_loc).zone()[1]
        if local_off == zone_off:
            return t.in_loc(default_loc)
        loc = Location("", datetime.timezone(datetime.timedelta(seconds=zone_off)))
        loc.abbr = ""
        return t.in_loc(loc)
    if zone_name is not None:
        t = from_wall(naive, nsec, default_loc, shift)
        if t.zone()[0] == zone_name:
            return t
        t = from_wall(naive, nsec, UTC, shift)
        offset = int(zone_name[3:]) * 3600 if zone_name.startswith("GMT") and len(zone_name) > 3 else 0
        loc = Location(zone_name, datetime.timezone(datetime.timedelta(seconds=offset)))
        loc.abbr = zone_name
        # Go keeps the UTC reading and only labels it with the fabricated zone.
        return Time(t.sec, nsec, loc)
    return from_wall(naive, nsec, default_loc, shift)
