"""Go's reflect over the value model: a value's Kind, DeepEqual, emptiness, slice elements.

One Kind for every caller: Sprig's ``kindOf``/``kindIs`` print it, the builtin ``eq`` compares
values only when their kinds agree.
"""
from .values import GoStruct, Uint8


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
    if callable(v):
        return "func"
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
