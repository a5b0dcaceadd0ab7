"""spf13/cast's conversions as Sprig uses them (``int``, ``float64``, ``toString``...), and
Go's integer conversions: a bad input converts to zero instead of failing.
"""
import math

from .fmt import format_value
from .strconv import parse_float, parse_int

INT64_MIN = -(1 << 63)
INT64_MAX = (1 << 63) - 1


def strval(v):
    """Sprig's strval: strings and []byte as-is, error/Stringer, else %v."""
    if isinstance(v, str):
        return v
    if isinstance(v, bytes):
        return v.decode("utf-8", "surrogateescape")
    return format_value(v)


def wrap_int64(v):
    """Two's-complement wrap to int64, as Go arithmetic overflows."""
    v &= (1 << 64) - 1
    return v - (1 << 64) if v >= (1 << 63) else v


def float_to_int64(f):
    """Go's int64(float64) conversion on amd64 (out of range gives MinInt64)."""
    if not math.isfinite(f):
        return INT64_MIN
    i = int(f)
    if i < INT64_MIN or i > INT64_MAX:
        return INT64_MIN
    return i


def _trim_zero_decimal(s):
    found_zero = False
    for i in range(len(s), 0, -1):
        c = s[i - 1]
        if c == ".":
            if found_zero:
                return s[:i - 1]
        elif c == "0":
            found_zero = True
        else:
            return s
    return s


def to_int64(v):
    """cast.ToInt64 (errors give 0)."""
    if v is None or v is False:
        return 0
    if v is True:
        return 1
    if v.__class__ is int:
        return v
    if isinstance(v, int):
        return wrap_int64(int(v))  # int64(x) of another width (a uint64 wraps)
    if isinstance(v, float):
        return float_to_int64(v)
    if isinstance(v, str):
        try:
            return parse_int(_trim_zero_decimal(v), 0, 64)
        except ValueError:
            return 0
    return 0


def to_int(v):
    """cast.ToInt: a Go int (64 bits wide, as on amd64)."""
    return int(to_int64(v))


def to_float64(v):
    """cast.ToFloat64 (errors give 0)."""
    if v is None or v is False:
        return 0.0
    if v is True:
        return 1.0
    if isinstance(v, (int, float)):
        return float(v)
    if isinstance(v, str):
        try:
            return parse_float(v)
        except ValueError:
            return 0.0
    return 0.0
