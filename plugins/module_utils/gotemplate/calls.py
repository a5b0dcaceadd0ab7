"""Calling template functions and methods with Go's arity and argument-type rules.

A function entry (:class:`Func`) is built once per name and template set, so the per-call
work is a length check, evaluating the arguments and the Python call.  Go parameter
types, when a function declares them (``go_params``/``go_variadic``, see signature.py),
select Go's literal rules (``expected integer; found "3"``) and assignability checks.
"""
from ..govalue.signature import arity
from ..govalue.values import go_int_class, go_type_name
from . import nodes as N
from .errors import ExecError, TemplateError


class _Missing(object):
    """Marks "no value": the absent final argument of a pipeline stage, an unset variable."""
    __slots__ = ()


MISSING = _Missing()
_INTERFACE = "interface {}"
_INTS = frozenset(("int", "int8", "int16", "int32", "int64", "uintptr"))
_UINTS = frozenset(("uint", "uint8", "uint16", "uint32", "uint64"))
_FLOATS = frozenset(("float64", "float32"))


def err(ctx, tree, node, msg, cause=None):
    """An ExecError located at ``node`` of ``tree`` while executing ``ctx.name``."""
    return ExecError(tree.location(node.pos), ctx.name, str(node), msg, cause)


class Func(object):
    __slots__ = ("name", "fn", "nfixed", "variadic", "params", "vparam", "builtin", "sig")

    def __init__(self, name, fn, builtin=None):
        self.name = name
        self.fn = fn
        self.builtin = builtin
        self.nfixed, self.variadic = arity(fn)
        params = getattr(fn, "go_params", None)
        vparam = getattr(fn, "go_variadic", None)
        if params is not None:
            params = tuple(params)
            if len(params) < self.nfixed:
                params += (_INTERFACE,) * (self.nfixed - len(params))
            if all(p == _INTERFACE for p in params) and vparam in (None, _INTERFACE):
                params = None
        self.params = params
        self.vparam = vparam or _INTERFACE
        self.sig = (self.nfixed, self.variadic, params, self.vparam if params is not None else None)


def _can_be_nil(ptype):
    return ptype.startswith(("[]", "map[", "*", "func", "chan", "interface")) or \
        ptype in ("error", "reflect.Value", "any")


def _int_check(ptype):
    """Assignability to a Go integer type: exactly that type (an int64 is no int)."""
    cls = go_int_class(ptype)
    return lambda v: v.__class__ is cls


_CHECKS = {
    "string": lambda v: isinstance(v, str),
    "bool": lambda v: v.__class__ is bool,
    "[]interface {}": lambda v: isinstance(v, (list, tuple)),
    "[]string": lambda v: isinstance(v, (list, tuple)),
    "map[string]interface {}": lambda v: isinstance(v, dict),
    "map[string]string": lambda v: isinstance(v, dict),
    "[]byte": lambda v: isinstance(v, bytes),
    "[]uint8": lambda v: isinstance(v, bytes),
}
for _t in _INTS | _UINTS:
    _CHECKS[_t] = _int_check(_t)
for _t in _FLOATS:
    _CHECKS[_t] = lambda v: v.__class__ is float


def _check_for(ptype):
    """The assignability test of ``ptype``, or None when any non-nil value is assignable; a
    package-qualified named type (``time.Time``, ``sprig.certificate``) takes only its own values."""
    check = _CHECKS.get(ptype)
    if check is None and "." in ptype and not _can_be_nil(ptype):
        def check(v, ptype=ptype):
            return go_type_name(v) == ptype
        _CHECKS[ptype] = check
    return check


def _is_raw(node):
    """Whether ``node`` evaluates to a value of static type interface{} (a map element)."""
    return isinstance(node, (N.FieldNode, N.ChainNode)) or (
        isinstance(node, N.VariableNode) and (len(node.ident) > 1 or node.elem))


def validate(ctx, tree, node, v, ptype, raw):
    """exec.go validateType: ``v`` must be assignable to ``ptype``; no conversions.

    ``raw`` tells a nil read straight from a map (static type interface{}) from a nil
    that went through a pipeline (an invalid value): Go words the errors differently."""
    if v is None:
        if raw:
            raise err(ctx, tree, node, "wrong type for value; expected %s; got interface {}" % ptype)
        if _can_be_nil(ptype):
            return None
        raise err(ctx, tree, node, "invalid value; expected %s" % ptype)
    check = _check_for(ptype)
    if check is None or check(v):
        return v
    raise err(ctx, tree, node, "wrong type for value; expected %s; got %s" % (ptype, go_type_name(v)))


def typed_value(ctx, tree, node, ev, ptype, dot, vars):
    """exec.go evalArg for a parameter of Go type ``ptype``."""
    if ptype == _INTERFACE:
        return ev(ctx, dot, vars)
    if isinstance(node, (N.StringNode, N.NumberNode, N.BoolNode)):
        if ptype == "string":
            if isinstance(node, N.StringNode):
                return node.text
            raise err(ctx, tree, node, "expected string; found %s" % node)
        if ptype in _INTS:
            if isinstance(node, N.NumberNode) and node.is_int:
                return go_int_class(ptype)(node.int_val)
            raise err(ctx, tree, node, "expected integer; found %s" % node)
        if ptype in _UINTS:
            if isinstance(node, N.NumberNode) and node.is_uint:
                return go_int_class(ptype)(node.int_val)
            raise err(ctx, tree, node, "expected unsigned integer; found %s" % node)
        if ptype in _FLOATS:
            if isinstance(node, N.NumberNode) and node.is_float:
                return node.float_val
            raise err(ctx, tree, node, "expected float; found %s" % node)
        if ptype == "bool":
            if isinstance(node, N.BoolNode):
                return node.value
            raise err(ctx, tree, node, "expected bool; found %s" % node)
        if ptype.startswith("interface") or ptype == "any":
            return ev(ctx, dot, vars)
        raise err(ctx, tree, node, "can't handle %s for arg of type %s" % (node, ptype))
    if isinstance(node, N.NilNode):
        if _can_be_nil(ptype):
            return None
        raise err(ctx, tree, node, "cannot assign nil to %s" % ptype)
    return validate(ctx, tree, _at(node), ev(ctx, dot, vars), ptype, _is_raw(node))


def _at(node):
    """The node Go's s.at last recorded after evaluating the argument ``node``."""
    if isinstance(node, N.ChainNode) and isinstance(node.node, N.PipeNode):
        node = node.node
    if isinstance(node, N.PipeNode):
        return last_node(node)
    return node


def last_node(pipe):
    """The node Go's s.at last recorded after evaluating ``pipe`` (errors after it cite it)."""
    return last_at(pipe.cmds[-1])


def last_at(cmd):
    """The node Go's s.at last recorded after evaluating the command ``cmd``."""
    first = cmd.args[0]
    if isinstance(first, N.PipeNode):
        return last_node(first)
    if isinstance(first, (N.IdentifierNode, N.FieldNode, N.ChainNode, N.VariableNode)) and len(cmd.args) > 1:
        arg = cmd.args[-1]
        return last_node(arg) if isinstance(arg, N.PipeNode) else arg
    if isinstance(first, N.ChainNode) and isinstance(first.node, N.PipeNode):
        return last_node(first.node)
    return first


def _args(ctx, tree, ident, f, arg_nodes, arg_evs, dot, vars, final):
    n = len(arg_evs)
    numin = n if final is MISSING else n + 1
    if f.variadic:
        if numin < f.nfixed:
            raise err(ctx, tree, ident, "wrong number of args for %s: want at least %d got %d"
                      % (f.name, f.nfixed, n))
    elif numin != f.nfixed:
        raise err(ctx, tree, ident, "wrong number of args for %s: want %d got %d" % (f.name, f.nfixed, numin))
    params = f.params
    if params is None:
        if n == 1:
            argv = [arg_evs[0](ctx, dot, vars)]
        else:
            argv = [ev(ctx, dot, vars) for ev in arg_evs]
        if final is not MISSING:
            argv.append(final)
        return argv
    nfixed = f.nfixed
    argv = []
    for i in range(n):
        ptype = params[i] if i < nfixed else f.vparam
        argv.append(typed_value(ctx, tree, arg_nodes[i], arg_evs[i], ptype, dot, vars))
    if final is not MISSING:
        ptype = params[n] if n < nfixed else f.vparam
        errnode = arg_nodes[-1] if arg_nodes else ident
        if ptype != _INTERFACE:
            final = validate(ctx, tree, errnode, final, ptype, False)
        argv.append(final)
    return argv


def make_plan(tree, ident, f, arg_nodes, arg_evs):
    """``plan(ctx, dot, vars, final) -> argv`` for calling ``f`` at one call site.

    Arity is settled here once (both with and without a piped final value), and each
    argument gets a converter for its Go parameter type, so a call does no inspection."""
    n = len(arg_evs)
    name = f.name

    def arity_error(numin):
        if f.variadic:
            if numin < f.nfixed:
                return "wrong number of args for %s: want at least %d got %d" % (name, f.nfixed, n)
        elif numin != f.nfixed:
            return "wrong number of args for %s: want %d got %d" % (name, f.nfixed, numin)
        return None
    bad_plain = arity_error(n)
    bad_final = arity_error(n + 1)
    params = f.params
    if params is None:
        convs = tuple(arg_evs)
        final_check = None
    else:
        convs = tuple(_converter(tree, arg_nodes[i], arg_evs[i],
                                 params[i] if i < f.nfixed else f.vparam) for i in range(n))
        ptype = params[n] if n < f.nfixed else f.vparam
        final_check = None
        if ptype != _INTERFACE:
            final_check = _final_checker(tree, arg_nodes[-1] if arg_nodes else ident, ptype)

    def plan(ctx, dot, vars, final, tree=tree, ident=ident, convs=convs, bad_plain=bad_plain, bad_final=bad_final,
             final_check=final_check):
        if final is MISSING:
            if bad_plain is not None:
                raise err(ctx, tree, ident, bad_plain)
            return [c(ctx, dot, vars) for c in convs]
        if bad_final is not None:
            raise err(ctx, tree, ident, bad_final)
        argv = [c(ctx, dot, vars) for c in convs]
        argv.append(final if final_check is None else final_check(ctx, final))
        return argv
    if n == 1 and final_check is None:
        def plan1(ctx, dot, vars, final, tree=tree, ident=ident, c0=convs[0], bad_plain=bad_plain, bad_final=bad_final):
            if final is MISSING:
                if bad_plain is not None:
                    raise err(ctx, tree, ident, bad_plain)
                return (c0(ctx, dot, vars),)
            if bad_final is not None:
                raise err(ctx, tree, ident, bad_final)
            return (c0(ctx, dot, vars), final)
        return plan1
    if n == 2 and final_check is None:
        def plan2(ctx, dot, vars, final, tree=tree, ident=ident, c0=convs[0], c1=convs[1], bad_plain=bad_plain,
                  bad_final=bad_final):
            if final is MISSING:
                if bad_plain is not None:
                    raise err(ctx, tree, ident, bad_plain)
                return (c0(ctx, dot, vars), c1(ctx, dot, vars))
            if bad_final is not None:
                raise err(ctx, tree, ident, bad_final)
            return (c0(ctx, dot, vars), c1(ctx, dot, vars), final)
        return plan2
    return plan


def _final_checker(tree, errnode, ptype):
    """Check the piped final value against the parameter type ``ptype``."""
    check = _check_for(ptype)

    def final_check(ctx, v, tree=tree, errnode=errnode, ptype=ptype, check=check):
        if v is not None and (check is None or check(v)):
            return v
        return validate(ctx, tree, errnode, v, ptype, False)
    return final_check


def _converter(tree, node, ev, ptype):
    """``conv(ctx, dot, vars)`` evaluating one argument for a parameter of type ``ptype``."""
    if ptype == _INTERFACE:
        return ev
    if isinstance(node, (N.StringNode, N.NumberNode, N.BoolNode, N.NilNode)):
        try:
            # Literals convert the same way every time: do it once (errors stay lazy).
            value = typed_value(_PROBE, tree, node, _no_eval, ptype, None, None)
        except (ExecError, _NeedsEval):
            def literal(ctx, dot, vars, tree=tree, node=node, ev=ev, ptype=ptype):
                return typed_value(ctx, tree, node, ev, ptype, dot, vars)
            return literal
        return lambda ctx, dot, vars, value=value: value
    raw = _is_raw(node)
    check = _check_for(ptype)
    node = _at(node)
    if check is None:
        def nilcheck(ctx, dot, vars, tree=tree, node=node, ev=ev, ptype=ptype, raw=raw):
            v = ev(ctx, dot, vars)
            if v is None:
                return validate(ctx, tree, node, v, ptype, raw)
            return v
        return nilcheck

    def checked(ctx, dot, vars, tree=tree, node=node, ev=ev, ptype=ptype, raw=raw, check=check):
        v = ev(ctx, dot, vars)
        if v is not None and check(v):
            return v
        return validate(ctx, tree, node, v, ptype, raw)
    return checked


class _NeedsEval(Exception):
    pass


def _no_eval(ctx, dot, vars):
    raise _NeedsEval()


class _Probe(object):
    name = ""


_PROBE = _Probe()


def invoke(ctx, tree, node, name, fn, argv):
    """Call a template function or method as Go's ``safeCall`` does: its failure becomes
    ``error calling NAME: ...`` at ``node``; a nested template error stays the cause (the chain Helm
    reformats). Running out of stack is not the function's failure and passes through."""
    try:
        return fn(*argv)
    except TemplateError as exc:
        raise err(ctx, tree, node, "error calling %s" % name, exc)
    except RecursionError:
        raise
    except Exception as exc:  # safeCall recovers any panic; our functions raise Python's errors for Go's panics
        raise err(ctx, tree, node, "error calling %s: %s" % (name, exc))


def call_function(ctx, tree, cmd, ident, f, arg_nodes, arg_evs, dot, vars, final):
    """evalCall for a function of the FuncMap (``cmd`` is the command node, for errors)."""
    argv = _args(ctx, tree, ident, f, arg_nodes, arg_evs, dot, vars, final)
    if f.builtin is not None:
        if f.builtin == "len" and (final is None or (
                final is MISSING and len(argv) == 1 and argv[0] is None and not _is_raw(arg_nodes[0]))):
            # A nil that went through a pipeline (or a literal nil) is an invalid
            # reflect.Value, which Go's len cannot inspect; a nil read from a map can be.
            raise err(ctx, tree, cmd, "error calling len: reflect: call of reflect.Value.Type on zero Value")
        if f.builtin == "call":
            return _call_builtin(ctx, tree, cmd, argv, arg_nodes, final)
    return invoke(ctx, tree, cmd, f.name, f.fn, argv)


_METHODS = {}


def call_method(ctx, tree, node, name, method, arg_nodes, arg_evs, dot, vars, final):
    """evalCall for a method of a Go value (``.Files.Get "x"``)."""
    key = getattr(method, "__func__", None)
    f = _METHODS.get(key) if key is not None else None
    if f is None:
        f = Func(name, method)
        if key is not None:
            _METHODS[key] = f
    argv = _args(ctx, tree, node, f, arg_nodes, arg_evs, dot, vars, final)
    return invoke(ctx, tree, node, name, method, argv)


class _CallError(Exception):
    pass


def _call_builtin(ctx, tree, cmd, argv, arg_nodes, final):
    """The ``call`` builtin: call a function value with the remaining arguments."""
    fn = argv[0]
    rest = argv[1:]
    callee = str(arg_nodes[0]) if arg_nodes else (final if isinstance(final, str) else "<%s Value>" % go_type_name(final))
    try:
        if fn is None:
            raise _CallError("call of nil")
        if not callable(fn):
            raise _CallError("non-function %s of type %s" % (callee, go_type_name(fn)))
        nfixed, variadic = arity(fn)
        if variadic and len(rest) < nfixed:
            raise _CallError("wrong number of args for %s: got %d want at least %d" % (callee, len(rest), nfixed))
        if not variadic and len(rest) != nfixed:
            raise _CallError("wrong number of args for %s: got %d want %d" % (callee, len(rest), nfixed))
    except _CallError as exc:
        raise err(ctx, tree, cmd, "error calling call: %s" % exc)
    return invoke(ctx, tree, cmd, "call", fn, rest)
