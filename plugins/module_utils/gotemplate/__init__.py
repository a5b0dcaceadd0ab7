"""Go's text/template in Python, as Helm uses it.

    ts = TemplateSet(funcs={...}, missingkey="zero")   # builtins always present; funcs override
    ts.parse(name, text)        # defines/blocks join the set; ParseError "template: NAME:LINE: msg"
    ts.execute(name, data)      # raw Go output ("<no value>" not stripped); ExecError
    ts.has(name); ts.names(); ts.clone(); ts.add_funcs({...})

Functions are plain callables over the Go value model (the govalue package); positional
parameters mirror Go's (``*args`` for a variadic).  ``govalue.signature.go_signature("int",
"string", variadic=None)`` (or ``fn.go_params``/``fn.go_variadic``) adds Go's argument type
checks.  An exception becomes ``error calling NAME: <str(exc)>``; a TemplateError raised by a
nested execution is kept as the ``cause`` of the ExecError (see ``ExecError.chain``).  The
builtin functions (``and``, ``eq``, ``printf``...) are in builtins.py, as Go's funcs.go; Go
formatting is ``govalue.fmt`` and ``govalue.strconv``.
"""
from .errors import ExecError, ParseError, TemplateError, WrappedError
from .template import TemplateSet

__all__ = ["TemplateSet", "TemplateError", "ParseError", "ExecError", "WrappedError"]
