"""Go signatures of template functions: arity and optional parameter types.

A template function is a plain Python callable whose positional parameters mirror the Go
ones (``*args`` for a Go variadic).  Arity is read once per function object and cached;
``go_signature`` additionally records Go parameter types so the executor applies Go's
argument checks (``wrong type for value; expected string; got float64``).
"""
_CACHE = {}
_CO_VARARGS = 0x04


def go_signature(*params, variadic=None):
    """Declare the Go parameter types of a function, e.g. ``@go_signature("int", "string")``.

    ``params`` are the fixed parameters; ``variadic`` the element type of a Go ``...T``.
    Types: ``string``, ``int`` (and other int widths), ``float64``, ``bool``,
    ``interface {}``, ``[]interface {}``, ``map[string]interface {}``, ``[]byte``...
    """
    def deco(fn):
        fn.go_params = tuple(params)
        fn.go_variadic = variadic
        return fn
    return deco


def arity(fn):
    """(number of fixed parameters, is_variadic) of a callable, cached per function."""
    key = getattr(fn, "__func__", fn)
    bound = 0 if key is fn else 1
    try:
        res = _CACHE.get(key)
    except TypeError:
        key, res = None, None
    if res is None:
        # A functools.wraps wrapper takes its wrapped function's Go parameters.
        code = getattr(getattr(key, "__wrapped__", key), "__code__", None)
        if code is not None:
            res = (code.co_argcount, bool(code.co_flags & _CO_VARARGS))
        else:
            import inspect  # only for callables without Python code (builtins, partials)
            nfixed, variadic = 0, False
            for p in inspect.signature(key if key is not None else fn).parameters.values():
                if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
                    nfixed += 1
                elif p.kind == p.VAR_POSITIONAL:
                    variadic = True
            res = (nfixed, variadic)
        if key is not None:
            _CACHE[key] = res
    return res[0] - bound, res[1]
