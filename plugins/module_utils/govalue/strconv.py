"""Go's strconv over the value model: FormatFloat, Quote, ParseInt, ParseFloat, and the
parsing of template number literals.

Strings holding invalid UTF-8 carry those bytes as lone surrogates (``surrogateescape``).
"""
import math
import struct


def _b(s):
    return s.encode("utf-8", "surrogateescape")


def _shortest(f):
    """Shortest round-trip decimal of abs(f) as (digits, dp): value = 0.digits * 10**dp."""
    r = repr(abs(f))
    if "e" in r:
        mant, exp = r.split("e")
        exp = int(exp)
    else:
        mant, exp = r, 0
    if "." in mant:
        ip, fp = mant.split(".")
    else:
        ip, fp = mant, ""
    if fp == "0":
        fp = ""
    digits = ip + fp
    dp = len(ip) + exp
    stripped = digits.lstrip("0")
    dp -= len(digits) - len(stripped)
    digits = stripped.rstrip("0")
    if not digits:
        return "0", 1
    return digits, dp


def _shortest32(f):
    """Like _shortest for a float32: the fewest digits that read back as the same float32."""
    for ndig in range(1, 10):
        s = "%.*e" % (ndig - 1, abs(f))
        if _float32(float(s)) == abs(f):
            break
    mant, exp = s.split("e")
    return mant.replace(".", "").rstrip("0") or "0", int(exp) + 1


def _float32(f):
    """Go's float32(f): rounded to the nearest float32, infinite beyond its range."""
    try:
        return struct.unpack("<f", struct.pack("<f", f))[0]
    except OverflowError:
        return math.copysign(math.inf, f)


def _rounded(f, ndig):
    """abs(f) correctly rounded to ndig significant digits, as (digits, dp) without trailing zeros."""
    if f == 0:
        return "0", 1
    s = "%.*e" % (ndig - 1, abs(f))
    mant, exp = s.split("e")
    digits = mant.replace(".", "").rstrip("0") or "0"
    return digits, int(exp) + 1


def _fmt_e(neg, digits, dp, prec, ch):
    out = "-" if neg else ""
    out += digits[0]
    if prec > 0:
        frac = digits[1:1 + prec]
        out += "." + frac + "0" * (prec - len(frac))
    exp = dp - 1 if digits != "0" else 0
    sign = "-" if exp < 0 else "+"
    exp = abs(exp)
    return out + ch + sign + ("%02d" % exp)


def _fmt_f(neg, digits, dp, prec):
    out = "-" if neg else ""
    if dp > 0:
        ip = digits[:dp]
        out += ip + "0" * (dp - len(ip))
    else:
        out += "0"
    if prec > 0:
        frac = []
        for i in range(prec):
            j = dp + i
            frac.append(digits[j] if 0 <= j < len(digits) else "0")
        out += "." + "".join(frac)
    return out


_M64 = (1 << 64) - 1


def _fmt_x(f, prec, fmt, neg):
    """strconv's %x: -0x1.yyyp±dd."""
    m, exp = math.frexp(abs(f))
    mant = int(m * (1 << 61)) if m else 0
    exp = exp - 1 if mant else 0
    if 0 <= prec < 15:
        shift = prec * 4
        extra = (mant << shift) & ((1 << 60) - 1)
        mant >>= 60 - shift
        if extra | (mant & 1) > 1 << 59:
            mant += 1
        mant = (mant << (60 - shift)) & _M64
        if mant & (1 << 61):
            mant >>= 1
            exp += 1
    digits = "0123456789abcdef" if fmt == "x" else "0123456789ABCDEF"
    out = ("-" if neg else "") + "0" + fmt + str((mant >> 60) & 1)
    mant = (mant << 4) & _M64
    if prec < 0 and mant:
        out += "."
        while mant:
            out += digits[(mant >> 60) & 15]
            mant = (mant << 4) & _M64
    elif prec > 0:
        out += "."
        for _i in range(prec):
            out += digits[(mant >> 60) & 15]
            mant = (mant << 4) & _M64
    out += "p" if fmt == "x" else "P"
    out += "-" if exp < 0 else "+"
    return out + ("%02d" % abs(exp))


def format_float(f, fmt="g", prec=-1, bits=64):
    """strconv.FormatFloat(f, fmt, prec, bits) for fmt in b e E f F g G x X (prec -1: shortest).

    ``bits=32`` formats float32(f) (sigs.k8s.io/yaml's float map keys); its shortest form has the
    fewest digits that read back as that float32."""
    shortest = _shortest
    if bits == 32:
        f, shortest = _float32(f), _shortest32
    if math.isnan(f):
        return "NaN"
    if math.isinf(f):
        return "+Inf" if f > 0 else "-Inf"
    neg = math.copysign(1.0, f) < 0
    if fmt in "xX":
        return _fmt_x(f, prec, fmt, neg)
    if fmt == "b":
        m, e = math.frexp(abs(f))
        mant, exp = (int(m * (1 << 53)), e - 53) if m else (0, -1074)
        if exp < -1074:
            mant >>= -1074 - exp
            exp = -1074
        return "%s%dp%s%d" % ("-" if neg else "", mant, "+" if exp >= 0 else "-", abs(exp))
    if fmt in "fF":
        if prec < 0:
            digits, dp = shortest(f)
            return _fmt_f(neg, digits, dp, max(len(digits) - dp, 0))
        s = "%.*f" % (prec, abs(f))
        return ("-" + s) if neg else s
    if fmt in "eE":
        if prec < 0:
            digits, dp = shortest(f)
            return _fmt_e(neg, digits, dp, len(digits) - 1, fmt)
        digits, dp = _rounded(f, prec + 1)
        return _fmt_e(neg, digits, dp, prec, fmt)
    echar = "e" if fmt == "g" else "E"
    if prec < 0:
        digits, dp = shortest(f)
        eprec = 6
        prec = len(digits)
    else:
        if prec == 0:
            prec = 1
        digits, dp = _rounded(f, prec)
        eprec = prec
        if eprec > len(digits) and len(digits) >= dp:
            eprec = len(digits)
    exp = dp - 1
    if digits == "0":
        exp = 0
    if exp < -4 or exp >= eprec:
        p = min(prec, len(digits))
        return _fmt_e(neg, digits, dp, p - 1, echar)
    p = prec
    if p > dp:
        p = len(digits)
    return _fmt_f(neg, digits, dp, max(p - dp, 0))


def format_float_json(f):
    """encoding/json's float64 text (its floatEncoder over FormatFloat): shortest %f, or %e (exponent
    without a leading zero) below 1e-6 and from 1e21; ValueError for NaN and infinities, as json.Marshal
    refuses them."""
    if not math.isfinite(f):
        raise ValueError("json: unsupported value: " + format_float(f))
    a = abs(f)
    fmt = "e" if a != 0 and (a < 1e-6 or a >= 1e21) else "f"
    s = format_float(f, fmt, -1)
    if fmt == "e" and s[-4] == "e" and s[-3] == "-" and s[-2] == "0":
        s = s[:-2] + s[-1]
    return s


def _is_print(ch):
    return ch.isprintable() and not ("\ud800" <= ch <= "\udfff")


def _quote_with(s, quote, ascii_only=False):
    out = [quote]
    for ch in s:
        o = ord(ch)
        if 0xDC80 <= o <= 0xDCFF:  # a raw invalid byte
            out.append("\\x%02x" % (o - 0xDC00))
            continue
        if ch == quote or ch == "\\":
            out.append("\\" + ch)
            continue
        if (o < 0x80 or not ascii_only) and _is_print(ch):
            out.append(ch)
            continue
        esc = _ESCAPES.get(ch)
        if esc:
            out.append(esc)
        elif o < 0x20 or o == 0x7F:
            out.append("\\x%02x" % o)
        elif 0xD800 <= o <= 0xDFFF:
            out.append("\\ufffd")
        elif o < 0x10000:
            out.append("\\u%04x" % o)
        else:
            out.append("\\U%08x" % o)
    out.append(quote)
    return "".join(out)


_ESCAPES = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v"}


def go_quote(s):
    """strconv.Quote."""
    if s.isascii() and s.isprintable() and '"' not in s and "\\" not in s:
        return '"' + s + '"'
    return _quote_with(s, '"')


def go_quote_ascii(s):
    """strconv.QuoteToASCII."""
    return _quote_with(s, '"', True)


def go_quote_rune(r, ascii_only=False):
    """strconv.QuoteRune (invalid runes become U+FFFD)."""
    if r < 0 or r > 0x10FFFF or 0xD800 <= r <= 0xDFFF:
        r = 0xFFFD
    return _quote_with(chr(r), "'", ascii_only)


def _can_backquote(s):
    for ch in s:
        if ch == "`" or ch == "\ufeff" or (0xDC80 <= ord(ch) <= 0xDCFF):
            return False
        if ch != "\t" and (ord(ch) < 0x20 or ord(ch) == 0x7F):
            return False
    return True


# ---------------------------------------------------------------- number literals

def underscore_ok(s):
    """strconv's underscoreOK: underscores only between digits (a base prefix counts)."""
    saw = "^"
    i = 0
    if s[:1] in ("+", "-"):
        s = s[1:]
    hexa = False
    if len(s) >= 2 and s[0] == "0" and s[1] in "bBoOxX":
        i = 2
        saw = "0"
        hexa = s[1] in "xX"
    while i < len(s):
        c = s[i]
        if "0" <= c <= "9" or (hexa and c in "abcdefABCDEF"):
            saw = "0"
        elif c == "_":
            if saw != "0":
                return False
            saw = "_"
        else:
            if saw == "_":
                return False
            saw = "!"
        i += 1
    return saw != "_"


def parse_int_literal(text, unsigned):
    """strconv.ParseInt/ParseUint(text, 0, 64) of a template number literal; None when it is not one."""
    s = text
    neg = False
    if s[:1] in ("+", "-"):
        if unsigned:
            return None
        neg = s[0] == "-"
        s = s[1:]
    if not s:
        return None
    base = 10
    body = s
    if s[0] == "0" and len(s) > 1:
        c = s[1]
        if c in "xX":
            base, body = 16, s[2:]
        elif c in "bB":
            base, body = 2, s[2:]
        elif c in "oO":
            base, body = 8, s[2:]
        else:
            base, body = 8, s[1:]
    if "_" in s:
        if not underscore_ok(text):
            return None
        body = body.replace("_", "")
    if not body:
        return None
    try:
        v = int(body, base)
    except ValueError:
        return None
    if neg:
        v = -v
    if unsigned:
        return v if v < (1 << 64) else None
    return v if -(1 << 63) <= v < (1 << 63) else None


def parse_float_literal(text):
    """strconv.ParseFloat(text, 64) of a template number literal; None when it is not one."""
    s = text
    if "_" in s:
        if not underscore_ok(s):
            return None
        s = s.replace("_", "")
    body = s.lstrip("+-")
    try:
        if body[:2] in ("0x", "0X"):
            if not any(c in body for c in "pP"):
                return None
            f = float.fromhex(body)
        else:
            if not body or body[0] not in "0123456789.":
                return None
            f = float(body)
    except (ValueError, OverflowError):
        return None
    if f in (float("inf"), float("-inf")):
        return None
    return -f if s.startswith("-") else f


def parse_complex_literal(text):
    """strconv.ParseComplex of a template literal ending in ``i``; None when it is not one."""
    if not text.endswith("i"):
        return None
    body = text[:-1]
    k = max(body.rfind("+"), body.rfind("-"))
    if k > 0 and body[k - 1] not in "eEpP":
        re_part = parse_float_literal(body[:k])
        im_part = parse_float_literal(body[k:])
        if re_part is None or im_part is None:
            return None
        return complex(re_part, im_part)
    im = parse_float_literal(body)
    if im is None:
        return None
    return complex(0, im)


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
