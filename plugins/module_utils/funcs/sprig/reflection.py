"""Sprig reflection functions (reflect.go) and reflect.DeepEqual."""
from ...govalue.reflect import kind, deep_equal
from ...govalue.signature import go_signature
from ...govalue.values import GoStruct, go_type_name


def type_name(v):
    """%T of v; dict/list subclasses may name their Go type (e.g. common.Values)."""
    if not isinstance(v, GoStruct):
        t = getattr(type(v), "GO_TYPE", None)
        if t:
            return t
    return go_type_name(v)


@go_signature("interface {}")
def typeOf(v):
    return type_name(v)


@go_signature("string", "interface {}")
def typeIs(target, v):
    return target == type_name(v)


@go_signature("string", "interface {}")
def typeIsLike(target, v):
    t = type_name(v)
    return target == t or "*" + target == t


@go_signature("interface {}")
def kindOf(v):
    return kind(v)


@go_signature("string", "interface {}")
def kindIs(target, v):
    return target == kind(v)


@go_signature("interface {}", "interface {}")
def deepEqual(a, b):
    return deep_equal(a, b)


FUNCS = {
    "typeOf": typeOf, "typeIs": typeIs, "typeIsLike": typeIsLike, "kindOf": kindOf,
    "kindIs": kindIs, "deepEqual": deepEqual,
}
