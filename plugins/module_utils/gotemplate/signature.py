"""Go signatures of template functions: arity and optional parameter types.

A template function is a plain Python callable whose positional parameters mirror the Go
ones (``*args`` for a Go variadic).  Arity is read once per function object and cached;
``go_signature`` additionally records Go parameter types so the executor applies Go's
argument checks (``wrong type for value; expected string; got float64``).
"""
import inspect

_CACHE = {}


def go_signature(*params):
    """Declare the Go parameter types of a function, e.g. ``@go_signature("int", "string")``.

    For a variadic function the last entry is the element type of the variadic part.
    Types: ``string``, ``int`` (and other int widths), ``float64``, ``bool``,
    ``interface {}``, ``[]interface {}``, ``map[string]interface {}``, ``[]byte``...
    """
    def deco(fn):
        fn.go_params = tuple(params)
        return fn
    return deco


def arity(fn):
    """(number of fixed parameters, is_variadic) of a callable, cached per function."""
    key = getattr(fn, "__func__", fn)
    try:
        res = _CACHE.get(key)
    except TypeError:
        res = None
        key = None
    if res is not None:
        bound = 1 if hasattr(fn, "__self__") and not inspect.isbuiltin(fn) and hasattr(fn, "__func__") else 0
        return res[0] - bound, res[1]
    code = getattr(key, "__code__", None)
    if code is not None:
        res = (code.co_argcount, bool(code.co_flags & inspect.CO_VARARGS))
        if key is not None:
            _CACHE[key] = res
        bound = 1 if hasattr(fn, "__func__") else 0
        return res[0] - bound, res[1]
    sig = inspect.signature(fn)
    nfixed = 0
    variadic = False
    for p in sig.parameters.values():
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            nfixed += 1
        elif p.kind == p.VAR_POSITIONAL:
            variadic = True
    return nfixed, variadic
