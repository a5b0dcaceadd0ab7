"""Go runtime rules Sprig relies on: spf13/cast conversions, ``strval``, emptiness,
``reflect.DeepEqual``, Unicode predicates and byte-oriented string slicing.

Strings are Python ``str``; Go strings holding invalid UTF-8 carry those bytes as lone
surrogates (``surrogateescape``), the same convention as ``gotemplate/fmt.py``.
"""
import math
import unicodedata

from ...gotemplate.strconv import underscore_ok
from ...gotemplate.values import GoStruct, Uint8
from ...errors import HelmlessError

INT64_MIN = -(1 << 63)
INT64_MAX = (1 << 63) - 1


def gofunc(*params, variadic=None, returns=None):
    """Record a function's Go parameter types for the executor (argument checks).

    ``params`` are Go type names of the fixed parameters (``"int"``, ``"string"``,
    ``"interface {}"``, ``"map[string]interface {}"``...), ``variadic`` the element type
    of a trailing ``...T``.
    """
    def deco(fn):
        fn.go_params = params
        fn.go_variadic = variadic
        fn.go_returns = returns
        return fn
    return deco


# ------------------------------------------------------------------ fmt bridge

def sprint_value(v):
    """fmt.Sprintf("%v", v)."""
    from ...gotemplate.fmt import format_value
    return format_value(v)


def go_quote(s):
    from ...gotemplate.fmt import go_quote as q
    return q(s)


def strval(v):
    """Sprig's strval: strings and []byte as-is, error/Stringer, else %v."""
    if isinstance(v, str):
        return v
    if isinstance(v, bytes):
        return v.decode("utf-8", "surrogateescape")
    return sprint_value(v)


# ------------------------------------------------------------------ bytes

def to_bytes(s):
    return s.encode("utf-8", "surrogateescape")


def from_bytes(b):
    return b.decode("utf-8", "surrogateescape")


# ------------------------------------------------------------------ unicode

_SPACE = frozenset("\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
                   "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000")


def is_space(ch):
    """unicode.IsSpace."""
    return ch in _SPACE


def is_upper(ch):
    return unicodedata.category(ch) == "Lu"


def is_lower(ch):
    return unicodedata.category(ch) == "Ll"


def is_title(ch):
    return unicodedata.category(ch) == "Lt"


def is_letter(ch):
    return unicodedata.category(ch)[0] == "L"


def is_digit(ch):
    return unicodedata.category(ch) == "Nd"


def is_number(ch):
    return unicodedata.category(ch)[0] == "N"


def is_punct(ch):
    return unicodedata.category(ch)[0] == "P"


_SPECIAL_LOWER = {"\u0130": "i"}


def to_upper(ch):
    """unicode.ToUpper (simple case mapping: one rune in, one rune out)."""
    if ch < "\x80":
        return ch.upper()
    u = ch.upper()
    return u if len(u) == 1 else ch


def to_lower(ch):
    if ch < "\x80":
        return ch.lower()
    if ch in _SPECIAL_LOWER:
        return _SPECIAL_LOWER[ch]
    u = ch.lower()
    return u if len(u) == 1 else ch


def to_title(ch):
    if ch < "\x80":
        return ch.upper()
    u = ch.title()
    return u if len(u) == 1 else to_upper(ch)


def trim_space(s):
    """strings.TrimSpace."""
    return trim_cutset(s, _SPACE)


def trim_cutset(s, cutset):
    """strings.Trim: drop leading and trailing characters that are in ``cutset``."""
    i, j = 0, len(s)
    while i < j and s[i] in cutset:
        i += 1
    while j > i and s[j - 1] in cutset:
        j -= 1
    return s[i:j]


# ------------------------------------------------------------------ numbers

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


def parse_int(s, base=0, bits=64):
    """strconv.ParseInt; raises ValueError on syntax/range errors."""
    orig = s
    if not s:
        raise ValueError(orig)
    neg = False
    if s[0] in "+-":
        neg = s[0] == "-"
        s = s[1:]
    underscores = False
    if base == 0:
        base = 10
        if s[:1] == "0":
            low = s[1:2].lower()
            if len(s) >= 3 and low == "b":
                base, s = 2, s[2:]
            elif len(s) >= 3 and low == "o":
                base, s = 8, s[2:]
            elif len(s) >= 3 and low == "x":
                base, s = 16, s[2:]
            else:
                base, s = 8, s[1:] or "0"
            underscores = True
        else:
            underscores = True
        if "_" in s and not underscore_ok(orig.lstrip("+-")):
            raise ValueError(orig)
        s = s.replace("_", "") if underscores else s
    if not s:
        raise ValueError(orig)
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"[:base]
    n = 0
    for ch in s.lower():
        d = digits.find(ch)
        if d < 0:
            raise ValueError(orig)
        n = n * base + d
    if neg:
        n = -n
    if n < -(1 << (bits - 1)) or n > (1 << (bits - 1)) - 1:
        raise ValueError(orig)
    return n


def parse_float(s):
    """strconv.ParseFloat(s, 64); raises ValueError on syntax or range errors."""
    t = s.lower()
    body = t.lstrip("+-")
    if t.count("+") + t.count("-") > 1 and not ("e" in t):
        raise ValueError(s)
    if body in ("inf", "infinity"):
        return float("-inf") if t.startswith("-") else float("inf")
    if body == "nan" and t == body:
        return float("nan")
    if not s or s != s.strip() or "_" in s and not underscore_ok(body):
        raise ValueError(s)
    s = s.replace("_", "")
    t = s.lower()
    if body.startswith("0x"):
        if "p" not in body:
            raise ValueError(s)
        try:
            v = float.fromhex(s.replace("_", ""))
        except (ValueError, OverflowError):
            raise ValueError(s)
    else:
        if any(c not in "0123456789.e+-" for c in t) or body in ("", "."):
            raise ValueError(s)
        try:
            v = float(s)
        except ValueError:
            raise ValueError(s)
    if v in (float("inf"), float("-inf")):
        raise ValueError(s)
    return v


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


# ------------------------------------------------------------------ reflect

def kind(v):
    """reflect.Kind name of v."""
    if v is None:
        return "invalid"
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int" if v.__class__ is int else v.GO_TYPE  # int kinds are named by their type
    if isinstance(v, float):
        return "float64"
    if isinstance(v, str):
        return "string"
    if isinstance(v, complex):
        return "complex128"
    if isinstance(v, (bytes, list, tuple)):
        return "slice"
    if isinstance(v, dict):
        return "map"
    if isinstance(v, GoStruct):
        k = getattr(v, "GO_KIND", None)
        if k:
            return k
        return "ptr" if v.GO_TYPE.startswith("*") else "struct"
    return "struct"


def is_empty(v):
    """Sprig's empty(): zero numbers, false, nil, zero-length string/slice/map."""
    if v is None:
        return True
    if isinstance(v, bool):
        return not v
    if isinstance(v, (int, float, complex)):
        return v == 0
    if isinstance(v, (str, bytes, list, tuple, dict)):
        return len(v) == 0
    return False


def deep_equal(a, b):
    """reflect.DeepEqual over the value model (int and float64 never equal)."""
    if a is None or b is None:
        return a is None and b is None
    ta, tb = type(a), type(b)
    if ta is not tb:
        if not (isinstance(a, GoStruct) and isinstance(b, GoStruct)):
            return False
    if ta is list:
        return len(a) == len(b) and all(deep_equal(x, y) for x, y in zip(a, b))
    if ta is dict:
        return len(a) == len(b) and all(k in b and deep_equal(a[k], b[k]) for k in a)
    if isinstance(a, GoStruct):
        if a.GO_TYPE != b.GO_TYPE:
            return False
        return all(deep_equal(a.go_field(f), b.go_field(f)) for f in a.GO_FIELDS) and \
            getattr(a, "go_equal", lambda o: True)(b)
    if ta is float:
        return a == b
    return a == b


def as_list(v):
    """Elements of a Go slice/array value, or None when v is not one."""
    if isinstance(v, (list, tuple)):
        return list(v)
    if isinstance(v, bytes):
        return [Uint8(b) for b in v]
    return None


class GoPanic(HelmlessError):
    """A Go runtime panic recovered by text/template as a call error."""
