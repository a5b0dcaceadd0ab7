"""Go's float64 formatting (``strconv.FormatFloat`` and ``encoding/json``) in Python.

Python's ``repr`` yields the same shortest round-trip digits as Go; only the layout
(where the exponent form starts, exponent width, ``.0`` suffix) differs, so each Go
format is rebuilt here from those digits.
"""
import math
import re
import struct

_REPR = re.compile(r"^(\d+)(?:\.(\d+))?(?:e([-+]\d+))?$")


def shortest_digits(f):
    """Return ``(digits, dp)`` with ``abs(f) == 0.digits * 10**dp`` (Go's ``decimalSlice``)."""
    m = _REPR.match(repr(abs(f)))
    ip, fp, exp = m.group(1), m.group(2) or "", m.group(3)
    raw = ip + fp
    dp = len(ip) + (int(exp) if exp else 0)
    stripped = raw.lstrip("0")
    if not stripped:
        return "0", 1
    dp -= len(raw) - len(stripped)
    return stripped.rstrip("0"), dp


def _fmt_e(neg, digits, dp):
    exp = dp - 1
    mant = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    sign = "-" if exp < 0 else "+"
    return ("-" if neg else "") + mant + "e" + sign + ("%02d" % abs(exp))


def _fmt_f(neg, digits, dp):
    if dp <= 0:
        s = "0." + "0" * (-dp) + digits
    elif dp >= len(digits):
        s = digits + "0" * (dp - len(digits))
    else:
        s = digits[:dp] + "." + digits[dp:]
    return ("-" if neg else "") + s


def _special(f):
    if math.isnan(f):
        return "NaN"
    return "+Inf" if f > 0 else "-Inf"


def format_g(f):
    """``strconv.FormatFloat(f, 'g', -1, 64)``: what ``%v`` and yaml.v2/v3 print."""
    if not math.isfinite(f):
        return _special(f)
    neg = math.copysign(1.0, f) < 0
    if f == 0:
        return "-0" if neg else "0"
    digits, dp = shortest_digits(f)
    if dp - 1 < -4 or dp - 1 >= 6:
        return _fmt_e(neg, digits, dp)
    return _fmt_f(neg, digits, dp)


def format_g32(f):
    """``strconv.FormatFloat(f, 'g', -1, 32)`` (sigs.k8s.io/yaml's float map keys)."""
    if not math.isfinite(f):
        return _special(f)
    try:
        packed = struct.pack("<f", f)
    except OverflowError:
        return "+Inf" if f > 0 else "-Inf"
    f32 = struct.unpack("<f", packed)[0]
    if math.isinf(f32):
        return _special(f32)
    neg = math.copysign(1.0, f32) < 0
    if f32 == 0:
        return "-0" if neg else "0"
    for prec in range(1, 10):
        s = "%.*e" % (prec - 1, abs(f32))
        if struct.unpack("<f", struct.pack("<f", float(s)))[0] == abs(f32):
            break
    mant, exp = s.split("e")
    digits = mant.replace(".", "").rstrip("0") or "0"
    dp = int(exp) + 1
    if dp - 1 < -4 or dp - 1 >= 6:
        return _fmt_e(neg, digits, dp)
    return _fmt_f(neg, digits, dp)


def format_json(f):
    """Go ``encoding/json`` float64 text; raises ValueError for NaN/Inf like json.Marshal."""
    if not math.isfinite(f):
        raise ValueError("json: unsupported value: " + _special(f))
    if f == 0:
        return "-0" if math.copysign(1.0, f) < 0 else "0"
    neg = f < 0
    digits, dp = shortest_digits(f)
    a = abs(f)
    if a < 1e-6 or a >= 1e21:
        s = _fmt_e(neg, digits, dp)
        # Go trims the exponent's leading zero: e-07 -> e-7.
        if s[-4] == "e" and s[-2] == "0":
            s = s[:-2] + s[-1]
        return s
    return _fmt_f(neg, digits, dp)
