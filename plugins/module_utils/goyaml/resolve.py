"""Implicit typing of plain YAML scalars as go-yaml v2 (``resolve.go``) does it.

Used both when loading (``y`` is a bool, ``0777`` is 511) and when emitting (a string
that would resolve to anything but a string must be quoted).  yaml.v3 differs only in
its bool table; :func:`needs_quotes` serves both because v3 also quotes the old bools.
"""
import datetime
import math
from ..regexcache import regex

MERGE = object()  # marker: the plain scalar ``<<`` used as a mapping key

_BOOLS = {}
for _w in ("y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"):
    _BOOLS[_w] = True
for _w in ("n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"):
    _BOOLS[_w] = False
RESOLVE_MAP = dict(_BOOLS)
RESOLVE_MAP.update({"": None, "~": None, "null": None, "Null": None, "NULL": None})
for _w in (".nan", ".NaN", ".NAN"):
    RESOLVE_MAP[_w] = math.nan
for _w in (".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"):
    RESOLVE_MAP[_w] = math.inf
for _w in ("-.inf", "-.Inf", "-.INF"):
    RESOLVE_MAP[_w] = -math.inf

_MAP_HINT = frozenset("yYnNtTfFoO~")
_NUM_HINT = frozenset("+-0123456789")

# strconv.ParseInt(s, 0, 64) syntax once yaml.v2 has removed every "_".
_GO_INT = regex(r"^([-+]?)(?:0[xX]([0-9a-fA-F]+)|0[oO]([0-7]+)|0[bB]([01]+)|(0[0-7]*)|([1-9][0-9]*))$")
_YAML_FLOAT = regex(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$")
_DOT_FLOAT = regex(r"^\.[0-9]+(?:_[0-9]+)*(?:[eE][-+]?[0-9]+(?:_[0-9]+)*)?$")
_BASE60 = regex(r"^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$")
_TIMESTAMP = regex(
    r"^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})"
    r"(?:([Tt ])([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2})(?:[.,][0-9]+)?"
    r"(Z|[-+]([0-9]{2}):([0-9]{2}))?)?$"
)
_INT64_MIN, _INT64_MAX, _UINT64_MAX = -(1 << 63), (1 << 63) - 1, (1 << 64) - 1


def parse_go_int(plain):
    """``strconv.ParseInt(plain, 0, 64)`` then ``ParseUint``; None when both fail."""
    m = _GO_INT.match(plain)
    if m is None:
        return None
    sign, hx, oc, bn, octal, dec = m.groups()
    if hx is not None:
        v = int(hx, 16)
    elif oc is not None:
        v = int(oc, 8)
    elif bn is not None:
        v = int(bn, 2)
    elif octal is not None:
        v = int(octal, 8)
    else:
        v = int(dec)
    if sign == "-":
        v = -v
    if _INT64_MIN <= v <= _INT64_MAX:
        return v
    if sign == "" and v <= _UINT64_MAX:
        return v
    return None


def _parse_float(s):
    f = float(s)
    if math.isinf(f):
        return None  # Go's ParseFloat reports ErrRange, so yaml.v2 keeps the string
    return f


def is_timestamp(s):
    """yaml.v2 ``parseTimestamp``: the four layouts it tries with ``time.Parse``."""
    m = _TIMESTAMP.match(s)
    if m is None:
        return False
    year, month, day = int(m.group(1)), int(m.group(2)), int(m.group(3))
    # Year 0 is a leap year for Go, as 2000 is.
    try:
        datetime.date(year or 2000, month, day)
    except ValueError:
        return False
    sep = m.group(4)
    if sep is None:
        return True
    if int(m.group(5)) > 23 or int(m.group(6)) > 59 or int(m.group(7)) > 59:
        return False
    zone = m.group(8)
    if sep == " ":
        return zone is None
    if zone is None:
        return False
    if zone != "Z" and (int(m.group(9)) > 24 or int(m.group(10)) > 60):
        return False
    return True


def resolve_plain(s):
    """The value yaml.v2 gives the untagged plain scalar ``s``.

    Returns a Python bool/None/int/float/str (ints stay ints: the caller applies the
    JSON float64 conversion).  ``<<`` resolves to a string, as in go-yaml.
    """
    if not s:
        return None
    c = s[0]
    if c in _MAP_HINT:
        return RESOLVE_MAP.get(s, s)
    if c in _NUM_HINT:
        r = RESOLVE_MAP.get(s, _MISSING)
        if r is not _MISSING:
            return r
        if is_timestamp(s):
            return s
        plain = s.replace("_", "") if "_" in s else s
        v = parse_go_int(plain)
        if v is not None:
            return v
        if _YAML_FLOAT.match(plain):
            f = _parse_float(plain)
            if f is not None:
                return f
        neg = plain.startswith("-0b")
        if neg or plain.startswith("0b"):
            digits = plain[3:] if neg else plain[2:]
            if digits and not digits.strip("01"):
                v = int(digits, 2)
                v = -v if neg else v
                if _INT64_MIN <= v <= (_UINT64_MAX if not neg else _INT64_MAX):
                    return v
        return s
    if c == ".":
        r = RESOLVE_MAP.get(s, _MISSING)
        if r is not _MISSING:
            return r
        if _DOT_FLOAT.match(s):
            f = _parse_float(s.replace("_", ""))
            if f is not None:
                return f
    return s


_MISSING = object()


def needs_quotes(s):
    """True when yaml.v2's ``stringv`` must double-quote ``s`` to keep it a string."""
    if not s:
        return True
    c = s[0]
    if c in _MAP_HINT:
        return s in RESOLVE_MAP
    if c in _NUM_HINT or c == ".":
        if resolve_plain(s) is not s or is_timestamp(s):
            return True
        return ":" in s and _BASE60.match(s) is not None
    return False
