"""Sprig dict functions (dict.go), with dario.cat/mergo merge semantics."""
import copy

from ...govalue.cast import strval
from ...govalue.reflect import is_empty
from ...govalue.signature import go_signature
from ...govalue.values import GoStruct, StringSlice, go_type_name
from ._go import GoPanic


@go_signature(variadic="interface {}")
def dict_(*v):
    d = {}
    for i in range(0, len(v), 2):
        d[strval(v[i])] = v[i + 1] if i + 1 < len(v) else ""
    return d


@go_signature("map[string]interface {}", "string")
def get(d, key):
    return d[key] if d is not None and key in d else ""


@go_signature("map[string]interface {}", "string", "interface {}")
def set_(d, key, value):
    if d is None:
        raise GoPanic("assignment to entry in nil map")
    d[key] = value
    return d


@go_signature("map[string]interface {}", "string")
def unset(d, key):
    if d is not None:
        d.pop(key, None)
    return d


@go_signature("map[string]interface {}", "string")
def hasKey(d, key):
    return d is not None and key in d


@go_signature("string", variadic="map[string]interface {}")
def pluck(key, *dicts):
    return [d[key] for d in dicts if d is not None and key in d]


@go_signature(variadic="map[string]interface {}")
def keys(*dicts):
    return StringSlice([k for d in dicts if d for k in d])


@go_signature("map[string]interface {}", variadic="string")
def pick(d, *ks):
    return {k: d[k] for k in ks if d is not None and k in d}


@go_signature("map[string]interface {}", variadic="string")
def omit(d, *ks):
    return {k: v for k, v in (d or {}).items() if k not in ks}


@go_signature("map[string]interface {}")
def values(d):
    return list((d or {}).values())


def _type_of(v):
    t = getattr(type(v), "GO_TYPE", None) if not isinstance(v, GoStruct) else None
    return t or go_type_name(v)


def _asserted(v):
    """The dynamic type a failed Go type assertion names: ``nil`` for a nil interface (TypeAssertionError)."""
    return "nil" if v is None else _type_of(v)


@go_signature(variadic="interface {}")
def dig(*ps):
    if len(ps) < 3:
        raise GoPanic("dig needs at least three arguments")
    d = ps[-1]
    # Go's type assertion to map[string]interface {}: named map types (Values, Files) panic, so exact types.
    if type(d) is not dict:  # pylint: disable=unidiomatic-typecheck
        raise GoPanic("interface conversion: interface {} is %s, not map[string]interface {}"
                      % _asserted(d))
    default = ps[-2]
    ks = []
    for k in ps[:-2]:
        if not isinstance(k, str):
            raise GoPanic("interface conversion: interface {} is %s, not string" % _asserted(k))
        ks.append(k)
    for i, k in enumerate(ks):
        if k not in d:
            return default
        step = d[k]
        if i == len(ks) - 1:
            return step
        if type(step) is not dict:  # pylint: disable=unidiomatic-typecheck
            raise GoPanic("interface conversion: interface {} is %s, not map[string]interface {}"
                          % _asserted(step))
        d = step


def _mergo(dst, src, overwrite):
    """mergo.Merge / MergeWithOverwrite of src into the map dst, in place."""
    for key, sv in src.items():
        exists = key in dst
        dv = dst.get(key)
        if sv is None:
            if overwrite:
                dst[key] = None
            continue
        if isinstance(sv, dict) and isinstance(dv, dict):
            _mergo(dv, sv, overwrite)
        if exists and not is_empty(dv):
            if isinstance(sv, list):
                if not overwrite:
                    continue
            elif isinstance(sv, dict) and isinstance(dv, dict):
                continue
        if overwrite or not exists or is_empty(dv):
            dst[key] = sv


def _merger(overwrite):
    """``merge`` (keep dst's non-empty values) or ``mergeOverwrite``: mergo over each source in turn."""
    @go_signature("map[string]interface {}", variadic="map[string]interface {}")
    def merged(dst, *srcs):
        for src in srcs:
            if src:
                _mergo(dst, src, overwrite)
        return dst
    return merged


merge = _merger(False)
mergeOverwrite = _merger(True)


@go_signature("interface {}")
def deepCopy(v):
    return copy.deepcopy(v)


FUNCS = {
    "dict": dict_, "get": get, "set": set_, "unset": unset, "hasKey": hasKey,
    "pluck": pluck, "keys": keys, "pick": pick, "omit": omit, "values": values,
    "dig": dig, "merge": merge, "mustMerge": merge, "mergeOverwrite": mergeOverwrite,
    "mustMergeOverwrite": mergeOverwrite, "deepCopy": deepCopy, "mustDeepCopy": deepCopy,
}
