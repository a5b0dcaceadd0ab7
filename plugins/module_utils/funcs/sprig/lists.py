"""Sprig list functions (list.go) and string-list helpers (strings.go)."""
import math

from ...govalue.cast import strval, to_int
from ...govalue.reflect import as_list, kind, deep_equal, is_empty
from ...govalue.signature import go_signature
from ...govalue.values import StringSlice
from ...goyaml.gojson import NilList
from ._go import GoPanic


def _kind_of_list(v, what):
    """Elements of v, or raise Sprig's ``Cannot <what> on type <kind>`` error."""
    if v is None:
        raise GoPanic("runtime error: invalid memory address or nil pointer dereference")
    items = as_list(v)
    if items is None:
        raise ValueError(what % kind(v))
    return items


@go_signature(variadic="interface {}")
def list_(*v):
    return list(v)


@go_signature("interface {}", "interface {}")
def push(lst, v):
    return _kind_of_list(lst, "Cannot push on type %s") + [v]


@go_signature("interface {}", "interface {}")
def prepend(lst, v):
    return [v] + _kind_of_list(lst, "Cannot prepend on type %s")


@go_signature("interface {}")
def first(lst):
    items = _kind_of_list(lst, "Cannot find first on type %s")
    return items[0] if items else None


@go_signature("interface {}")
def last(lst):
    items = _kind_of_list(lst, "Cannot find last on type %s")
    return items[-1] if items else None


@go_signature("interface {}")
def rest(lst):
    items = _kind_of_list(lst, "Cannot find rest on type %s")
    return items[1:] if items else NilList()


@go_signature("interface {}")
def initial(lst):
    items = _kind_of_list(lst, "Cannot find initial on type %s")
    return items[:-1] if items else NilList()


@go_signature("interface {}")
def reverse(lst):
    return _kind_of_list(lst, "Cannot find reverse on type %s")[::-1]


@go_signature("interface {}")
def compact(lst):
    return [x for x in _kind_of_list(lst, "Cannot compact on type %s") if not is_empty(x)]


def _in_list(hay, needle):
    return any(deep_equal(needle, h) for h in hay)


@go_signature("interface {}")
def uniq(lst):
    out = []
    for x in _kind_of_list(lst, "Cannot find uniq on type %s"):
        if not _in_list(out, x):
            out.append(x)
    return out


@go_signature("interface {}", variadic="interface {}")
def without(lst, *omit):
    return [x for x in _kind_of_list(lst, "Cannot find without on type %s")
            if not _in_list(omit, x)]


@go_signature("interface {}", "interface {}")
def has(needle, haystack):
    if haystack is None:
        return False
    return _in_list(_kind_of_list(haystack, "Cannot find has on type %s"), needle)


@go_signature("interface {}", variadic="interface {}")
def slice_(lst, *indices):
    items = _kind_of_list(lst, "list should be type of slice or array but %s")
    n = len(items)
    if n == 0:
        return None
    start = to_int(indices[0]) if indices else 0
    end = to_int(indices[1]) if len(indices) >= 2 else n
    if not 0 <= start <= end <= n:
        raise GoPanic("reflect.Value.Slice: slice index out of bounds")
    return items[start:end]


@go_signature(variadic="interface {}")
def concat(*lists):
    res = []
    for lst in lists:
        if lst is None:
            raise GoPanic("runtime error: invalid memory address or nil pointer dereference")
        items = as_list(lst)
        if items is None:
            raise GoPanic("Cannot concat type %s as list" % kind(lst))
        res.extend(items)
    return res or NilList()


@go_signature("int", "interface {}")
def chunk(size, lst):
    items = _kind_of_list(lst, "Cannot chunk type %s")
    n = len(items)
    # Go sizes the result with float math; impossible lengths panic in make().
    if size == 0:
        raise GoPanic("runtime error: makeslice: len out of range")
    cs = int(math.floor((n - 1) / size) + 1)
    if cs < 0:
        raise GoPanic("runtime error: makeslice: len out of range")
    out = []
    for i in range(cs):
        clen = size
        if i == cs - 1:
            clen = int(math.fmod(n, size)) or size
        if clen < 0:
            raise GoPanic("runtime error: makeslice: len out of range")
        out.append(items[i * size:i * size + clen])
    return out


# ------------------------------------------------------------------ string lists

def strslice(v):
    """Sprig's strslice: list elements as strings, nils dropped; scalars wrapped."""
    items = as_list(v)
    if items is not None:
        return [strval(x) for x in items if x is not None]
    if v is None:
        return []
    return [strval(v)]


@go_signature("interface {}")
def toStrings(v):
    return StringSlice(strslice(v))


@go_signature("string", "interface {}")
def join(sep, v):
    return sep.join(strslice(v))


@go_signature("interface {}")
def sortAlpha(v):
    if as_list(v) is not None:
        return StringSlice(sorted(strslice(v), key=lambda s: s.encode("utf-8", "surrogateescape")))
    return StringSlice([strval(v)])


def _go_split(s, sep, n=-1):
    """strings.SplitN (an empty sep splits into UTF-8 sequences)."""
    if n == 0:
        return None
    if sep == "":
        chars = list(s)
        if n > 0 and len(chars) > n:
            chars = chars[:n - 1] + ["".join(chars[n - 1:])]
        return chars
    if n < 0:
        return s.split(sep)
    return s.split(sep, n - 1)


@go_signature("string", "string")
def split(sep, orig):
    return {"_%d" % i: p for i, p in enumerate(_go_split(orig, sep))}


@go_signature("string", "int", "string")
def splitn(sep, n, orig):
    return {"_%d" % i: p for i, p in enumerate(_go_split(orig, sep, n) or [])}


@go_signature("string", "string")
def splitList(sep, orig):
    return StringSlice(_go_split(orig, sep))


FUNCS = {
    "list": list_, "tuple": list_, "append": push, "push": push, "mustAppend": push,
    "mustPush": push, "prepend": prepend, "mustPrepend": prepend, "first": first,
    "mustFirst": first, "rest": rest, "mustRest": rest, "last": last, "mustLast": last,
    "initial": initial, "mustInitial": initial, "reverse": reverse,
    "mustReverse": reverse, "uniq": uniq, "mustUniq": uniq, "without": without,
    "mustWithout": without, "has": has, "mustHas": has, "slice": slice_,
    "mustSlice": slice_, "concat": concat, "chunk": chunk, "mustChunk": chunk,
    "compact": compact, "mustCompact": compact,
    "toStrings": toStrings, "join": join, "sortAlpha": sortAlpha, "split": split,
    "splitn": splitn, "splitList": splitList,
}
