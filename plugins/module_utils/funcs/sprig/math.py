"""Sprig integer and float math and conversions (numeric.go, spf13/cast)."""
import math
import random as _random

from ...govalue.cast import to_int64, to_int, to_float64, wrap_int64, INT64_MIN, INT64_MAX
from ...govalue.fmt import format_value
from ...govalue.signature import go_signature
from ...govalue.strconv import parse_int
from ...govalue.values import Int64, IntSlice
from ._go import GoPanic

_rand = _random.SystemRandom()


@go_signature("interface {}")
def int64_(v):
    return Int64(to_int64(v))


@go_signature("interface {}")
def int_(v):
    return to_int(v)


@go_signature("interface {}")
def float64_(v):
    return to_float64(v)


@go_signature("string")
def atoi(s):
    """strconv.Atoi with the error dropped (range errors clamp, syntax errors give 0)."""
    try:
        return parse_int(s, 10, 64)
    except ValueError:
        body = s[1:] if s[:1] in "+-" else s
        if body.isdigit() and body.isascii():
            return INT64_MIN if s.startswith("-") else INT64_MAX
        return 0


@go_signature("interface {}")
def toDecimal(v):
    try:
        return Int64(parse_int(format_value(v), 8, 64))
    except ValueError:
        return Int64(0)


@go_signature("interface {}")
def add1(i):
    return Int64(wrap_int64(to_int64(i) + 1))


@go_signature(variadic="interface {}")
def add(*args):
    return Int64(wrap_int64(sum(to_int64(a) for a in args)))


@go_signature("interface {}", "interface {}")
def sub(a, b):
    return Int64(wrap_int64(to_int64(a) - to_int64(b)))


def _go_div(a, b):
    if b == 0:
        raise GoPanic("runtime error: integer divide by zero")
    q = abs(a) // abs(b)
    return Int64(wrap_int64(q if (a < 0) == (b < 0) else -q))


@go_signature("interface {}", "interface {}")
def div(a, b):
    return _go_div(to_int64(a), to_int64(b))


@go_signature("interface {}", "interface {}")
def mod(a, b):
    a, b = to_int64(a), to_int64(b)
    if b == 0:
        raise GoPanic("runtime error: integer divide by zero")
    r = abs(a) % abs(b)
    return Int64(-r if a < 0 else r)


@go_signature("interface {}", variadic="interface {}")
def mul(a, *v):
    val = to_int64(a)
    for b in v:
        val = wrap_int64(val * to_int64(b))
    return Int64(val)


@go_signature("int", "int")
def randInt(lo, hi):
    if hi - lo <= 0:
        raise GoPanic("invalid argument to Intn")
    return _rand.randrange(hi - lo) + lo


def _go_fmax(a, b):
    if math.isinf(a) and a > 0 or math.isinf(b) and b > 0:
        return math.inf
    if math.isnan(a) or math.isnan(b):
        return math.nan
    if a == 0 and b == 0:
        return b if math.copysign(1, a) < 0 else a
    return a if a > b else b


def _go_fmin(a, b):
    if math.isinf(a) and a < 0 or math.isinf(b) and b < 0:
        return -math.inf
    if math.isnan(a) or math.isnan(b):
        return math.nan
    if a == 0 and b == 0:
        return a if math.copysign(1, a) < 0 else b
    return a if a < b else b


def _fold(cast, pick, wrap=None):
    """Sprig's ``max``/``min`` (int64) and ``maxf``/``minf`` (float64): each argument cast in turn,
    the running ``pick`` of two."""
    @go_signature("interface {}", variadic="interface {}")
    def fold(a, *rest):
        acc = cast(a)
        for b in rest:
            acc = pick(acc, cast(b))
        return wrap(acc) if wrap else acc
    return fold


max_ = _fold(to_int64, max, Int64)
min_ = _fold(to_int64, min, Int64)
maxf = _fold(to_float64, _go_fmax)
minf = _fold(to_float64, _go_fmin)


@go_signature("interface {}")
def floor(a):
    f = to_float64(a)
    return float(math.floor(f)) if math.isfinite(f) else f


@go_signature("interface {}")
def ceil(a):
    f = to_float64(a)
    return float(math.ceil(f)) if math.isfinite(f) else f


@go_signature("interface {}", "int", variadic="float64")
def round_(a, p, *opt):
    round_on = opt[0] if opt else 0.5
    val = to_float64(a)
    try:
        pw = math.pow(10, float(p))
    except OverflowError:
        pw = math.inf  # Go's math.Pow overflows to +Inf (the result is then NaN)
    digit = pw * val
    if not math.isfinite(digit):
        return _go_fdiv(digit, pw)  # Go's Floor keeps ±Inf and NaN
    frac = math.modf(digit)[0]
    r = math.ceil(digit) if frac >= round_on else math.floor(digit)
    return _go_fdiv(float(r), pw)


def _go_fdiv(a, b):
    """IEEE division as Go does it: x/0 is ±Inf (or NaN for 0/0), never an exception."""
    try:
        return a / b
    except ZeroDivisionError:
        if a == 0 or math.isnan(a):
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)


def until_step(start, stop, step):
    if stop < start:
        if step >= 0:
            return []
        return list(range(start, stop, step))
    if step <= 0:
        return []
    return list(range(start, stop, step))


@go_signature("int")
def until(count):
    return IntSlice(until_step(0, count, -1 if count < 0 else 1))


@go_signature("int", "int", "int")
def untilStep(start, stop, step):
    return IntSlice(until_step(start, stop, step))


@go_signature(variadic="int")
def seq(*params):
    n = len(params)
    if n == 1:
        start, end = 1, params[0]
        inc = -1 if end < start else 1
        vals = until_step(start, end + inc, inc)
    elif n == 2:
        start, end = params
        step = -1 if end < start else 1
        vals = until_step(start, end + step, step)
    elif n == 3:
        start, step, end = params
        inc = 1
        if end < start:
            inc = -1
            if step > 0:
                return ""
        vals = until_step(start, end + inc, step)
    else:
        return ""
    return " ".join(map(str, vals))


# ------------------------------------------------------------------ shopspring/decimal

_DECIMAL = []


def _decimal():
    """``(decimal module, context)``, on first use: importing decimal is paid by every task otherwise."""
    if not _DECIMAL:
        import decimal
        _DECIMAL.append((decimal, decimal.Context(prec=4000, rounding=decimal.ROUND_HALF_EVEN, Emax=999999,
                                                  Emin=-999999)))
    return _DECIMAL[0]


def _dec(v):
    f = to_float64(v)
    if not math.isfinite(f):
        raise GoPanic("Cannot create a Decimal from %s" % format_value(f))
    return _decimal()[0].Decimal(repr(f))


def _dec_float(d):
    if d.is_zero():
        return 0.0
    return float(d)


def _dec_div(a, b):
    if b.is_zero():
        raise GoPanic("decimal division by 0")
    decimal, ctx = _decimal()
    q = ctx.divide(a, b)
    return q.quantize(decimal.Decimal("1e-16"), rounding=decimal.ROUND_HALF_UP, context=ctx)


def _dec_op(a, rest, op):
    acc = _dec(a)
    for x in rest:
        acc = op(acc, _dec(x))
    return _dec_float(acc)


@go_signature("interface {}")
def add1f(i):
    return _dec_op(i, [1], _decimal()[1].add)


@go_signature(variadic="interface {}")
def addf(*args):
    return _dec_op(0.0, args, _decimal()[1].add)


@go_signature("interface {}", variadic="interface {}")
def subf(a, *v):
    return _dec_op(a, v, _decimal()[1].subtract)


@go_signature("interface {}", variadic="interface {}")
def mulf(a, *v):
    return _dec_op(a, v, _decimal()[1].multiply)


@go_signature("interface {}", variadic="interface {}")
def divf(a, *v):
    return _dec_op(a, v, _dec_div)


FUNCS = {
    "atoi": atoi, "int64": int64_, "int": int_, "float64": float64_, "seq": seq,
    "toDecimal": toDecimal, "until": until, "untilStep": untilStep, "add1": add1,
    "add": add, "sub": sub, "div": div, "mod": mod, "mul": mul, "randInt": randInt,
    "add1f": add1f, "addf": addf, "subf": subf, "divf": divf, "mulf": mulf,
    "biggest": max_, "max": max_, "min": min_, "maxf": maxf, "minf": minf,
    "ceil": ceil, "floor": floor, "round": round_,
}
