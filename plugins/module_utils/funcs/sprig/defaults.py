"""Sprig defaults, flow and JSON functions (defaults.go).

Helm replaces ``toJson``, ``fromJson`` and (Helm 4) ``mustToJson`` with its own versions
(funcs/helm.py); Sprig's are kept here for completeness and for ``toPrettyJson``,
``toRawJson`` and ``mustFromJson`` which Helm does not override.
"""
from ...govalue.reflect import is_empty
from ...govalue.signature import go_signature
from ...goyaml.gojson import JSONError, decode, to_json


@go_signature("interface {}", variadic="interface {}")
def default(d, *given):
    if not given or is_empty(given[0]):
        return d
    return given[0]


@go_signature("interface {}")
def empty(v):
    return is_empty(v)


@go_signature(variadic="interface {}")
def coalesce(*v):
    for x in v:
        if not is_empty(x):
            return x
    return None


@go_signature(variadic="interface {}")
def all_(*v):
    return all(not is_empty(x) for x in v)


@go_signature(variadic="interface {}")
def any_(*v):
    return any(not is_empty(x) for x in v)


@go_signature("interface {}", "interface {}", "bool")
def ternary(vt, vf, cond):
    return vt if cond else vf


@go_signature("string")
def fail(msg):
    raise ValueError(msg)


def json_unmarshal(v):
    """json.Unmarshal into interface{}; a number out of float64 range is an error too."""
    value, err = decode(v)
    if err:
        raise JSONError(err)
    return value


@go_signature("string")
def fromJson(v):
    try:
        return json_unmarshal(v)
    except JSONError:
        return None


@go_signature("string")
def mustFromJson(v):
    return json_unmarshal(v)


@go_signature("interface {}")
def toJson(v):
    try:
        return to_json(v)
    except JSONError:
        return ""


@go_signature("interface {}")
def mustToJson(v):
    return to_json(v)


@go_signature("interface {}")
def toPrettyJson(v):
    try:
        return to_json(v, indent="  ")
    except JSONError:
        return ""


@go_signature("interface {}")
def mustToPrettyJson(v):
    return to_json(v, indent="  ")


@go_signature("interface {}")
def toRawJson(v):
    return to_json(v, escape_html=False)


@go_signature("interface {}")
def mustToRawJson(v):
    return to_json(v, escape_html=False)


FUNCS = {
    "default": default, "empty": empty, "coalesce": coalesce, "all": all_, "any": any_,
    "ternary": ternary, "fail": fail, "fromJson": fromJson, "mustFromJson": mustFromJson,
    "toJson": toJson, "mustToJson": mustToJson, "toPrettyJson": toPrettyJson,
    "mustToPrettyJson": mustToPrettyJson, "toRawJson": toRawJson,
    "mustToRawJson": mustToRawJson,
}
