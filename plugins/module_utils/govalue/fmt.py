"""Go's ``fmt`` formatting over the Go value model (see values.py; numbers and quoting
come from strconv.py).

Templates print through ``fmt.Fprint``/``Sprintf``; byte-exact output depends on Go's rules
for floats (``1e+06``), maps (sorted keys), nil (``<nil>``) and the ``%!verb(type=value)``
error forms, so they are reimplemented here rather than approximated with Python's ``%``.
Strings holding invalid UTF-8 carry those bytes as lone surrogates (``surrogateescape``).
"""
from .strconv import _b, _can_backquote, _is_print, format_float, go_quote, go_quote_ascii, go_quote_rune
from .values import GoStruct, Int64, go_type_name


_INT_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"


# ---------------------------------------------------------------- %v

def format_value(v):
    """What fmt.Sprint / %v prints for any value of the model."""
    if v.__class__ is str:
        return v
    return _value(v, "v", _PLAIN, 0)


def _struct_str(v, verb, flags, depth):
    """String()/Error() as fmt uses them; a struct whose String has a pointer receiver
    declares ``GO_STRINGER = False`` (fmt then prints its fields, as Go does)."""
    if not getattr(v, "GO_STRINGER", True):
        return None
    meth = v.go_method("String") if "String" in v.GO_METHODS else None
    if meth is None and "Error" in v.GO_METHODS:
        meth = v.go_method("Error")
    if meth is not None and verb in "vsxXq" and not flags.sharp_v:
        return _fmt_string(meth(), verb, flags) if verb != "v" else meth()
    return None


def _value(v, verb, flags, depth):
    """printValue for the %v family (verb v) and element printing."""
    if v is None:
        return "<nil>"
    t = v.__class__
    if t is str:
        return v
    if t is bool:
        return "true" if v else "false"
    if t is int or t is Int64:
        return str(v)
    if t is float:
        if -1e6 < v < 1e6 and v == int(v) and v:
            return str(int(v))
        return format_float(v, "g", -1)
    return _fmt_arg(v, verb, flags, depth)


class _Flags(object):
    __slots__ = ("plus", "minus", "sharp", "space", "zero", "wid", "prec", "plus_v", "sharp_v")

    def __init__(self):
        self.plus = self.minus = self.sharp = self.space = self.zero = False
        self.plus_v = self.sharp_v = False
        self.wid = None
        self.prec = None


_PLAIN = _Flags()


def _pad(s, flags):
    w = flags.wid
    if not w:
        return s
    n = w - len(s)
    if n <= 0:
        return s
    if flags.minus:
        return s + " " * n
    return ("0" if flags.zero else " ") * n + s


def _fmt_integer(u, base, verb, flags, upper=False):
    neg = u < 0
    if neg:
        u = -u
    prec = 0
    if flags.prec is not None:
        prec = flags.prec
        if prec == 0 and u == 0:
            return " " * (flags.wid or 0)
    elif flags.zero and not flags.minus and flags.wid:
        prec = flags.wid
        if neg or flags.plus or flags.space:
            prec -= 1
    if base == 10:
        digits = str(u)
    else:
        d = []
        x = u
        while True:
            d.append(_INT_DIGITS[x % base])
            x //= base
            if not x:
                break
        digits = "".join(reversed(d))
        if upper:
            digits = digits.upper()
    if len(digits) < prec:
        digits = "0" * (prec - len(digits)) + digits
    if flags.sharp:
        if base == 2:
            digits = "0b" + digits
        elif base == 8 and digits[0] != "0":
            digits = "0" + digits
        elif base == 16:
            digits = ("0X" if upper else "0x") + digits
    if verb == "O":
        digits = "0o" + digits
    if neg:
        digits = "-" + digits
    elif flags.plus:
        digits = "+" + digits
    elif flags.space:
        digits = " " + digits
    saved = flags.zero
    flags.zero = False
    out = _pad(digits, flags)
    flags.zero = saved
    return out


def _fmt_float(v, verb, flags):
    prec = flags.prec
    if verb == "v":
        verb, p = "g", -1
    elif verb in "gGxXb":
        p = -1
    else:
        p = 6
    if prec is not None:
        p = prec
    if verb == "F":
        verb = "f"
    num = format_float(v, verb, p)
    if flags.sharp and num[0:2] not in ("+I", "-I") and num != "NaN":
        num = _sharp_float(num, verb, p)
    if num[0] in "+-":
        sign, body = num[0], num[1:]
    else:
        sign, body = "+", num
    if flags.space and sign == "+" and not flags.plus:
        sign = " "
    if body in ("Inf", "NaN"):
        s = sign + body
        if body == "NaN" and not flags.space and not flags.plus:
            s = body
        saved = flags.zero
        flags.zero = False
        out = _pad(s, flags)
        flags.zero = saved
        return out
    if flags.plus or sign != "+":
        if flags.zero and not flags.minus and flags.wid and flags.wid > len(body) + 1:
            return sign + "0" * (flags.wid - len(body) - 1) + body
        return _pad(sign + body, flags)
    return _pad(body, flags)


def _sharp_float(num, verb, prec):
    """fmt's '#' flag on floats: always a decimal point; %g/%x keep trailing zeros."""
    signed = num[0] in "+-"
    if not signed:
        num = "+" + num
    digits = 0
    if verb in "vgGx":
        digits = 6 if prec == -1 else prec
    tail = ""
    has_point = False
    saw_nonzero = False
    i = 1
    while i < len(num):
        c = num[i]
        if c == ".":
            has_point = True
        elif c in "pP" or (c in "eE" and verb not in "xX"):
            tail = num[i:]
            num = num[:i]
            break
        else:
            if c != "0":
                saw_nonzero = True
            if saw_nonzero:
                digits -= 1
        i += 1
    if not has_point:
        if len(num) == 2 and num[1] == "0":
            digits -= 1
        num += "."
    if digits > 0:
        num += "0" * digits
    num += tail
    return num if signed else num[1:]


def _fmt_string(s, verb, flags):
    if verb in "vs":
        if flags.sharp_v:
            return _pad(go_quote(s), flags)
        if flags.prec is not None:
            s = s[:flags.prec]
        return _pad(s, flags)
    if verb == "q":
        if flags.prec is not None:
            s = s[:flags.prec]
        if flags.sharp and _can_backquote(s):
            return _pad("`" + s + "`", flags)
        if flags.plus:
            return _pad(go_quote_ascii(s), flags)
        return _pad(go_quote(s), flags)
    if verb in "xX":
        return _fmt_hex(_b(s), verb, flags)
    return None


def _fmt_hex(data, verb, flags):
    if flags.prec is not None:
        data = data[:flags.prec]
    hexd = "0123456789ABCDEF" if verb == "X" else "0123456789abcdef"
    parts = []
    for i, c in enumerate(data):
        item = hexd[c >> 4] + hexd[c & 15]
        if flags.space:
            if flags.sharp:
                item = ("0X" if verb == "X" else "0x") + item
            if i:
                item = " " + item
        elif flags.sharp and i == 0:
            item = ("0X" if verb == "X" else "0x") + item
        parts.append(item)
    s = "".join(parts)
    return _pad(s, flags)


def _bad_verb(v, verb, flags):
    if v is None:
        return "%!" + verb + "(<nil>)"
    return "%!" + verb + "(" + go_type_name(v) + "=" + _fmt_arg(v, "v", flags, 0) + ")"


def _fmt_arg(v, verb, flags, depth):
    """printArg/printValue: v formatted with verb and flags."""
    if verb == "T":
        return _pad(go_type_name(v), flags)
    if v is None:
        if verb == "v" or depth > 0:
            return _pad("<nil>", flags)
        return _bad_verb(v, verb, flags)
    t = v.__class__
    if t is bool:
        if verb in "tv":
            return _pad("true" if v else "false", flags)
        return _bad_verb(v, verb, flags)
    if t is int or (isinstance(v, int) and t is not bool):
        if verb == "v" and flags.sharp_v and getattr(t, "GO_UNSIGNED", False):
            return _pad("0x%x" % v, flags)
        if verb in "vd":
            return _fmt_integer(v, 10, verb, flags)
        if verb == "b":
            return _fmt_integer(v, 2, verb, flags)
        if verb in "oO":
            return _fmt_integer(v, 8, verb, flags)
        if verb in "xX":
            return _fmt_integer(v, 16, verb, flags, verb == "X")
        if verb == "c":
            r = v if 0 <= v <= 0x10FFFF and not 0xD800 <= v <= 0xDFFF else 0xFFFD
            return _pad(chr(r), flags)
        if verb == "q":
            return _pad(go_quote_rune(v, flags.plus), flags)
        if verb == "U":
            s = "U+%04X" % (v & 0xFFFFFFFFFFFFFFFF)  # fmtUnicode reads the bits as uint64
            if flags.sharp and 0 <= v <= 0x10FFFF and _is_print(chr(v)):
                s += " '" + chr(v) + "'"
            return _pad(s, flags)
        return _bad_verb(v, verb, flags)
    if t is float:
        if verb in "vbgGxXfFeE":
            return _fmt_float(v, verb, flags)
        return _bad_verb(v, verb, flags)
    if t is str:
        out = _fmt_string(v, verb, flags)
        if out is None:
            return _bad_verb(v, verb, flags)
        return out
    if t is bytes:
        if verb in "sq":
            return _fmt_string(v.decode("utf-8", "surrogateescape"), verb, flags)
        if verb in "xX":
            return _fmt_hex(v, verb, flags)
        if flags.sharp_v:
            return "[]byte{" + ", ".join("0x%x" % c for c in v) + "}"
        if verb in "vdboOxXcqU":
            return "[" + " ".join(_fmt_arg(c, "d" if verb == "v" else verb, flags, depth + 1) for c in v) + "]"
        return _bad_verb(v, verb, flags)
    if t is complex:
        if verb in "vbgGxXfFeE":
            re_part = _fmt_float(v.real, verb, flags)
            saved = flags.plus
            flags.plus = True
            im_part = _fmt_float(v.imag, verb, flags)
            flags.plus = saved
            return "(" + re_part + im_part + "i)"
        return _bad_verb(v, verb, flags)
    if isinstance(v, dict):
        if flags.sharp_v:
            return go_type_name(v) + "{" + ", ".join(
                _fmt_arg(k, verb, flags, depth + 1) + ":" + _sharp_elem(v[k], flags, depth)
                for k in sort_keys(v)) + "}"
        return "map[" + " ".join(
            _elem(k, verb, flags, depth) + ":" + _elem(v[k], verb, flags, depth)
            for k in sort_keys(v)) + "]"
    if isinstance(v, (list, tuple)):
        if flags.sharp_v:
            return go_type_name(v) + "{" + ", ".join(_sharp_elem(e, flags, depth) for e in v) + "}"
        return "[" + " ".join(_elem(e, verb, flags, depth) for e in v) + "]"
    if isinstance(v, GoStruct):
        s = _struct_str(v, verb, flags, depth)
        if s is not None:
            return s
        gt = v.GO_TYPE
        if gt.startswith("*") and depth > 0:
            return "0xc000010000"
        prefix = "&" if gt.startswith("*") else ""
        names = getattr(v, "GO_PRINT_FIELDS", None) or v.GO_FIELDS
        if flags.sharp_v:
            parts = ["%s:%s" % (n, _sharp_elem(getattr(v, n), flags, depth)) for n in names]
            return prefix + gt.lstrip("*") + "{" + ", ".join(parts) + "}"
        if flags.plus_v:
            parts = ["%s:%s" % (n, _elem(getattr(v, n), verb, flags, depth)) for n in names]
        else:
            parts = [_elem(getattr(v, n), verb, flags, depth) for n in names]
        return prefix + "{" + " ".join(parts) + "}"
    if callable(v):
        if verb in "vp":
            return "0x4a4a40"
        return _bad_verb(v, verb, flags)
    return _pad(str(v), flags)


def _elem(e, verb, flags, depth):
    if e is None:
        return _pad("<nil>", flags)
    return _fmt_arg(e, verb, flags, depth + 1)


def _sharp_elem(e, flags, depth):
    if e is None:
        return "interface {}(nil)"
    t = e.__class__
    if t is str:
        return go_quote(e)
    if t is float:
        s = format_float(e, "g", -1)
        return s
    return _fmt_arg(e, "v", flags, depth + 1)


def _key_rank(k):
    if k is None:
        return (0, 0)
    t = k.__class__
    if t is bool:
        return (1, int(k))
    if t is int or t is float:
        return (2, k)
    if t is str:
        return (3, _b(k))
    return (4, str(k))


def sort_keys(d):
    """Map keys in internal/fmtsort order (strings by bytes, numbers numerically)."""
    keys = list(d)
    if all(k.__class__ is str for k in keys):
        if all(k.isascii() for k in keys):
            return sorted(keys)
        return sorted(keys, key=_b)
    return sorted(keys, key=_key_rank)


# ---------------------------------------------------------------- Sprint / Sprintf

def sprint(*args):
    """fmt.Sprint: a space between operands when neither is a string."""
    out = []
    prev_string = False
    for i, a in enumerate(args):
        is_string = a.__class__ is str
        if i > 0 and not is_string and not prev_string:
            out.append(" ")
        out.append(a if is_string else _value(a, "v", _PLAIN, 0))
        prev_string = is_string
    return "".join(out)


def sprintln(*args):
    """fmt.Sprintln: operands always separated by spaces, newline appended."""
    return " ".join(a if a.__class__ is str else _value(a, "v", _PLAIN, 0) for a in args) + "\n"


def _is_int(v):
    """Whether ``v`` is a Go integer of any width (``*`` widths accept every int kind)."""
    return isinstance(v, int) and v.__class__ is not bool


def _parse_num(fmt, i, end):
    start = i
    while i < end and fmt[i].isdigit():
        i += 1
    if i == start:
        return None, i
    return int(fmt[start:i]), i


def _arg_index(fmt, i, end, argnum, nargs):
    """Parse an explicit [n] index; returns (argnum, i, ok, found)."""
    if i >= end or fmt[i] != "[":
        return argnum, i, True, False
    j = fmt.find("]", i + 1)
    if j < 0:
        return argnum, end, False, True
    try:
        n = int(fmt[i + 1:j])
    except ValueError:
        return argnum, j + 1, False, True
    if n < 1 or n > nargs:
        return argnum, j + 1, False, True
    return n - 1, j + 1, True, True


def sprintf(format, *args):
    """fmt.Sprintf with Go's verbs, flags and error forms."""
    if "%" not in format:
        if args:
            return format + _extra(args)
        return format
    out = []
    argnum = 0
    nargs = len(args)
    reordered = False
    good_argnum = True
    i = 0
    end = len(format)
    while i < end:
        j = format.find("%", i)
        if j < 0:
            out.append(format[i:])
            break
        if j > i:
            out.append(format[i:j])
        i = j + 1
        fl = _Flags()
        while i < end:
            c = format[i]
            if c == "#":
                fl.sharp = True
            elif c == "0":
                fl.zero = not fl.minus
            elif c == "+":
                fl.plus = True
            elif c == "-":
                fl.minus = True
                fl.zero = False
            elif c == " ":
                fl.space = True
            else:
                break
            i += 1
        argnum, i, good_argnum, after_index = _arg_index(format, i, end, argnum, nargs)
        if after_index:
            reordered = True
        if i < end and format[i] == "*":
            i += 1
            if argnum < nargs and _is_int(args[argnum]) and abs(args[argnum]) <= 1000000:
                fl.wid = args[argnum]
                if fl.wid < 0:
                    fl.wid = -fl.wid
                    fl.minus = True
                    fl.zero = False
                argnum += 1
            else:
                if argnum < nargs:
                    argnum += 1
                out.append("%!(BADWIDTH)")
            after_index = False
        else:
            fl.wid, i = _parse_num(format, i, end)
            if after_index and fl.wid is not None:
                good_argnum = False
        if i + 1 <= end and i < end and format[i] == ".":
            i += 1
            if after_index:
                good_argnum = False
            argnum, i, ok, after_index = _arg_index(format, i, end, argnum, nargs)
            if after_index:
                reordered = True
                good_argnum = good_argnum and ok
            if i < end and format[i] == "*":
                i += 1
                if argnum < nargs and _is_int(args[argnum]) and 0 <= args[argnum] <= 1000000:
                    fl.prec = args[argnum]
                    argnum += 1
                else:
                    if argnum < nargs:
                        argnum += 1
                    out.append("%!(BADPREC)")
                after_index = False
            else:
                fl.prec, i = _parse_num(format, i, end)
                if fl.prec is None:
                    fl.prec = 0
        if not after_index:
            argnum, i, ok, after_index = _arg_index(format, i, end, argnum, nargs)
            if after_index:
                reordered = True
                good_argnum = good_argnum and ok
        if i >= end:
            out.append("%!(NOVERB)")
            break
        verb = format[i]
        i += 1
        if verb == "%":
            out.append("%")
            continue
        if not good_argnum:
            out.append("%!" + verb + "(BADINDEX)")
            continue
        if argnum >= nargs:
            out.append("%!" + verb + "(MISSING)")
            continue
        if verb == "w":
            verb = "v"
        if verb == "v":
            if fl.sharp:
                fl.sharp = False
                fl.sharp_v = True
            if fl.plus:
                fl.plus = False
                fl.plus_v = True
        a = args[argnum]
        argnum += 1
        out.append(_fmt_arg(a, verb, fl, 0))
    if not reordered and argnum < nargs:
        out.append(_extra(args[argnum:]))
    return "".join(out)


def _extra(rest):
    parts = []
    for a in rest:
        if a is None:
            parts.append("<nil>")
        else:
            parts.append(go_type_name(a) + "=" + _fmt_arg(a, "v", _PLAIN, 0))
    return "%!(EXTRA " + ", ".join(parts) + ")"
