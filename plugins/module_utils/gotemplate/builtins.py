"""The builtin functions of Go's text/template (funcs.go), over the Go value model.

``and``/``or`` short-circuit and ``call`` calls a function value: the executor handles
those three specially when the name resolves to the function here (as Go's evalCall
does for builtins); the Python bodies give the plain semantics otherwise.
"""
from ..errors import HelmlessError
from ..govalue.fmt import format_value, sprint, sprintf, sprintln
from ..govalue.reflect import kind
from ..govalue.signature import go_signature
from ..govalue.values import Int64, Uint8, go_type_name


class BuiltinError(HelmlessError):
    """An error a builtin returns; the executor reports ``error calling NAME: msg``."""


_type = go_type_name


def truth(v):
    """isTrue: false for nil, false, 0, and empty strings/slices/maps."""
    return bool(v)


def and_(arg0, *args):
    """The first falsy argument, else the last."""
    for v in (arg0,) + args:
        if not v:
            return v
    return v


def or_(arg0, *args):
    """The first truthy argument, else the last."""
    for v in (arg0,) + args:
        if v:
            return v
    return v


def not_(arg):
    return not arg


def call(fn, *args):
    """Plain form of ``call`` (the executor checks the function first, with Go's messages)."""
    if fn is None:
        raise BuiltinError("call of nil")
    return fn(*args)


def length(item):
    """len: bytes of a string, elements of a slice or map."""
    if item is None:
        raise BuiltinError("len of nil pointer")
    if isinstance(item, str):
        return len(item) if item.isascii() else len(item.encode("utf-8", "surrogateescape"))
    if isinstance(item, (list, tuple, dict, bytes)):
        return len(item)
    raise BuiltinError("len of type %s" % _type(item))


def _index_arg(index, cap):
    if index is None:
        raise BuiltinError("cannot index slice/array with nil")
    if index.__class__ is bool or not isinstance(index, int):
        raise BuiltinError("cannot index slice/array with type %s" % _type(index))
    if index < 0 or index > cap:
        raise BuiltinError("index out of range: %d" % index)
    return index


def _as_bytes(s):
    return s.encode("utf-8", "surrogateescape")


def index(item, *indexes):
    """index x 1 2: x[1][2] over maps (missing key: nil), slices and strings (a byte)."""
    if item is None:
        raise BuiltinError("index of untyped nil")
    for idx in indexes:
        if item is None:
            raise BuiltinError("index of nil pointer")
        if isinstance(item, (list, tuple)):
            x = _index_arg(idx, len(item))
            if x == len(item):
                raise BuiltinError("reflect: slice index out of range")
            item = item[x]
        elif isinstance(item, (str, bytes)):
            data = item if isinstance(item, bytes) else _as_bytes(item)
            x = _index_arg(idx, len(data))
            if x == len(data):
                raise BuiltinError("reflect: %s index out of range" % ("slice" if isinstance(item, bytes) else "string"))
            item = Uint8(data[x])
        elif isinstance(item, dict):
            if idx is None:
                raise BuiltinError("value is nil; should be of type string")
            if not isinstance(idx, str):
                raise BuiltinError("value has type %s; should be string" % _type(idx))
            item = item.get(idx)
        else:
            raise BuiltinError("can't index item of type %s" % _type(item))
    return item


def slice_(item, *indexes):
    """slice x 1 2: x[1:2]; strings slice by bytes."""
    if item is None:
        raise BuiltinError("slice of untyped nil")
    if len(indexes) > 3:
        raise BuiltinError("too many slice indexes: %d" % len(indexes))
    if isinstance(item, str):
        if len(indexes) == 3:
            raise BuiltinError("cannot 3-index slice a string")
        data = _as_bytes(item)
    elif isinstance(item, (list, tuple, bytes)):
        data = item
    else:
        raise BuiltinError("can't slice item of type %s" % _type(item))
    cap = len(data)
    idx = [0, len(data), 0]
    for i, x in enumerate(indexes):
        idx[i] = _index_arg(x, cap)
    if idx[0] > idx[1]:
        raise BuiltinError("invalid slice index: %d > %d" % (idx[0], idx[1]))
    if len(indexes) == 3 and idx[1] > idx[2]:
        raise BuiltinError("invalid slice index: %d > %d" % (idx[1], idx[2]))
    out = data[idx[0]:idx[1]]
    if isinstance(item, str):
        return out.decode("utf-8", "surrogateescape")
    return list(out) if isinstance(item, tuple) else out


def print_(*args):
    return sprint(*args)


@go_signature("string", variadic="interface {}")
def printf(format, *args):
    return sprintf(format, *args)


def println(*args):
    return sprintln(*args)


def _eval_args(args):
    """Sprint of the arguments, nil printing as ``<no value>`` (printableValue)."""
    if len(args) == 1 and isinstance(args[0], str):
        return args[0]
    parts = []
    for a in args:
        if a is None:
            parts.append("<no value>")
        else:
            parts.append(a)
    return sprint(*parts)


_HTML = {"\0": "\ufffd", '"': "&#34;", "'": "&#39;", "&": "&amp;", "<": "&lt;", ">": "&gt;"}


def html(*args):
    s = _eval_args(args)
    if not any(c in s for c in "'\"&<>\0"):
        return s
    return "".join(_HTML.get(c, c) for c in s)


_JS = {"\\": "\\\\", "'": "\\'", '"': '\\"', "<": "\\u003C", ">": "\\u003E", "&": "\\u0026",
       "=": "\\u003D"}


def js(*args):
    s = _eval_args(args)
    out = []
    for c in s:
        o = ord(c)
        if c in _JS:
            out.append(_JS[c])
        elif o < 0x20:
            out.append("\\u00%02X" % o)
        elif o < 0x80:
            out.append(c)
        elif 0xDC80 <= o <= 0xDCFF:
            out.append("\\uFFFD")
        elif c.isprintable():
            out.append(c)
        else:
            out.append("\\u%04X" % o)
    return "".join(out)


_URL_SAFE = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~")


def urlquery(*args):
    data = _as_bytes(_eval_args(args))
    out = []
    for b in data:
        if b in _URL_SAFE:
            out.append(chr(b))
        elif b == 0x20:
            out.append("+")
        else:
            out.append("%%%02X" % b)
    return "".join(out)


# ---------------------------------------------------------------- comparisons

_BASIC = {bool: "bool", int: "int", Int64: "int", float: "float", str: "string", complex: "complex"}


def _basic_kind(v):
    k = _BASIC.get(v.__class__)
    if k is None:
        if isinstance(v, bool):
            return "bool"
        if isinstance(v, int):
            return "int"
        if isinstance(v, str):
            return "string"
        if isinstance(v, float):
            return "float"
    return k


def _nillable(v):
    return v is None or isinstance(v, (list, tuple, dict, bytes)) or callable(v)


def _value_s(v):
    """%s of a reflect.Value (as Go's error messages print it)."""
    return sprintf("%s", v)


def eq(arg1, *arg2):
    """arg1 == any of arg2; basic kinds only, int vs float64 is an error."""
    if not arg2:
        raise BuiltinError("missing argument for comparison")
    k1 = _basic_kind(arg1)
    for arg in arg2:
        k2 = _basic_kind(arg)
        truth_ = False
        if k1 != k2:
            if arg1 is not None and arg is not None:
                raise BuiltinError("incompatible types for comparison: %s and %s" % (_type(arg1), _type(arg)))
        elif k1 is not None:
            truth_ = arg1 == arg
        else:
            r1, r2 = kind(arg1), kind(arg)
            if r1 != r2 and r1 != "invalid" and r2 != "invalid":
                raise BuiltinError("non-comparable types %s: %s, %s: %s" % (
                    _value_s(arg1), _type(arg1), _type(arg), format_value(arg)))
            if arg1 is None or arg is None:
                truth_ = arg1 is None and arg is None
            elif r2 in ("map", "slice"):
                raise BuiltinError("non-comparable type %s: %s" % (_value_s(arg), _type(arg)))
            else:
                truth_ = arg1 is arg or arg1 == arg
        if truth_:
            return True
    return False


def ne(arg1, arg2):
    return not eq(arg1, arg2)


def lt(arg1, arg2):
    k1 = _basic_kind(arg1)
    if k1 is None:
        raise BuiltinError("invalid type for comparison")
    k2 = _basic_kind(arg2)
    if k2 is None:
        raise BuiltinError("invalid type for comparison")
    if k1 != k2:
        raise BuiltinError("incompatible types for comparison: %s and %s" % (_type(arg1), _type(arg2)))
    if k1 in ("bool", "complex"):
        raise BuiltinError("invalid type for comparison")
    if k1 == "string" and not (arg1.isascii() and arg2.isascii()):
        return _as_bytes(arg1) < _as_bytes(arg2)
    return arg1 < arg2


def le(arg1, arg2):
    return lt(arg1, arg2) or eq(arg1, arg2)


def gt(arg1, arg2):
    return not le(arg1, arg2)


def ge(arg1, arg2):
    return not lt(arg1, arg2)


BUILTINS = {
    "and": and_,
    "call": call,
    "html": html,
    "index": index,
    "slice": slice_,
    "js": js,
    "len": length,
    "not": not_,
    "or": or_,
    "print": print_,
    "printf": printf,
    "println": println,
    "urlquery": urlquery,
    "eq": eq,
    "ge": ge,
    "gt": gt,
    "le": le,
    "lt": lt,
    "ne": ne,
}

__all__ = ["BUILTINS", "BuiltinError", "truth"]
