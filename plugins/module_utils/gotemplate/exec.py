"""Execution of parse trees (text/template/exec.go): the runtime of the code codegen generates.

codegen turns each tree into one Python function: text, actions, ``if``/``with``/``range``,
``template`` calls and ``break``/``continue`` become Python statements; every expression (pipeline,
command, operand) is a closure one of the factories here builds, given the static parts (slots,
names, literal values) as arguments and its subexpressions as indexes into ``live``, its body's list
of expressions built so far (the generated code's ``E<k>``). Statements call ``ev(ctx, dot, vars)``
for an expression; a command additionally takes the pipeline's ``final`` value. Variables live in a
per-execution list indexed by the slots the parser assigned.

Nodes are not objects here but indexes into the template file's node table, ``src`` (a
codegen.Source): ``src.node(i)`` decodes a node only to word an error (calls.err accepts the index)
or to convert a literal for a typed parameter, so a template loaded from the disk cache runs without
its parse tree. Go's behaviours follow exec.go; the "at <node>" of each error is the node Go's
``s.at`` would have recorded.
"""
from ..govalue.fmt import format_value, sort_keys
from ..govalue.strconv import go_quote
from ..govalue.values import GoStruct, Uint8, go_type_name
from .calls import MISSING, call_function, call_method, err, invoke, make_plan

UNSET = MISSING.__class__()
_INTERFACE = "interface {}"


class Break(Exception):
    """``{{break}}`` in a body codegen moved to a function of its own: unwinds to its ``{{range}}`` loop."""


class Continue(Exception):
    """``{{continue}}`` in a body codegen moved to a function of its own: the loop goes to its next element."""


# One instance each, raised every time: no allocation per iteration.
BREAK = Break()
CONTINUE = Continue()


def print_action(v):
    """exec.go printValue: ``<no value>`` for nil, pointers indirected, else fmt.Sprint."""
    if v is None:
        return "<no value>"
    if isinstance(v, GoStruct):
        # printableValue takes the address of a struct, so pointer-receiver String() applies.
        if "String" in v.GO_METHODS:
            return v.go_method("String")()
        if v.GO_TYPE.startswith("*"):
            return format_value(v)[1:]
    return format_value(v)


def printed(v):
    """An action's output: its string, or printValue's."""
    return v if v.__class__ is str else print_action(v)


def ideal_constant(n):
    """exec.go idealConstant: the value of a number literal where no type is expected."""
    text = n.text
    if n.is_complex:
        return n.complex_val, None
    is_hex_int = len(text) > 2 and text[0] == "0" and text[1] in "xX" and not any(c in text for c in "pP")
    if n.is_float and not is_hex_int and not text.startswith("'") and any(c in text for c in ".eEpP"):
        return n.float_val, None
    if n.is_int:
        if -(1 << 63) <= n.int_val < (1 << 63):
            return n.int_val, None
        return None, "%s overflows int" % text
    if n.is_uint:
        return None, "%s overflows int" % text
    return None, None


# ------------------------------------------------------------ statements
def range_items(ctx, src, at, val, ndecl):
    """exec.go walkRange: the (index or key, element) pairs to run the body with, or None to run
    the else list: a slice, a map (sorted keys), an integer (elements of its own Go type) or nothing."""
    t = val.__class__
    if t is list or t is tuple or isinstance(val, (list, tuple, bytes)):
        if not val:
            return None
        return enumerate(map(Uint8, val) if isinstance(val, bytes) else val)
    if isinstance(val, dict):
        if not val:
            return None
        return ((k, val[k]) for k in sort_keys(val))
    if t is int or (isinstance(val, int) and t is not bool):
        if ndecl > 1:
            raise err(ctx, src, at, "can't use %d to iterate over more than one variable" % val)
        if val <= 0:
            return None
        return ((None, i) for i in (range(val) if t is int else map(t, range(val))))
    if val is not None:
        raise err(ctx, src, at, "range can't iterate over %s" % format_value(val))
    return None


def template_call(ctx, src, at, name, pe, dot, vars, w):
    """``{{template "name" pipeline}}``: the named tree is looked up when it runs (a later ``define``
    may replace it) and runs with the pipeline's value as dot and ``$``, in fresh variables."""
    sub = ctx.ts._trees.get(name)
    if sub is None:
        raise err(ctx, src, at, "template %s not defined" % go_quote(name))
    if ctx.depth >= 100000:
        raise err(ctx, src, at, "exceeded maximum template depth (100000)")
    d = pe(ctx, dot, vars) if pe is not None else None
    tvars = [d]
    if sub.nvars > 1:
        tvars.extend([UNSET] * (sub.nvars - 1))
    try:
        sub.compiled(ctx.enter(name), d, tvars, w)
    except RecursionError:
        # Python's stack ends before Go's depth limit; report it as Go does.
        raise err(ctx, src, at, "exceeded maximum template depth (100000)")


# ------------------------------------------------------------ operands
def const(src, live, value):
    return lambda ctx, dot, vars: value


def dot_ev(ctx, dot, vars):
    return dot


def nil_ev(ctx, dot, vars):
    return None


def bad_number(src, live, at, problem):
    """A number literal Go rejects where no type is expected (``overflows int``), when evaluated."""
    def ev(ctx, dot, vars):
        raise err(ctx, src, at, problem)
    return ev


# ------------------------------------------------------------ pipelines
def pipeline(src, live, cmds):
    """The commands of a pipeline, each given the previous one's value as its final argument."""
    first = live[cmds[0]]
    rest = tuple([live[c] for c in cmds[1:]])

    def pe(ctx, dot, vars):
        v = first(ctx, dot, vars)
        for c in rest:
            v = c(ctx, dot, vars, v)
        return v
    return pe


def declare(src, live, pe, slots):
    """A pipeline that declares or assigns variables: its value is stored in each slot."""
    pe = live[pe]
    if len(slots) == 1:
        s0 = slots[0]

        def pe_decl(ctx, dot, vars):
            v = vars[s0] = pe(ctx, dot, vars)
            return v
        return pe_decl

    def pe_decls(ctx, dot, vars):
        v = pe(ctx, dot, vars)
        for s in slots:
            vars[s] = v
        return v
    return pe_decls


def bad_declare(src, live, pe, at, name):
    """An assignment to a variable never declared: Go evaluates the pipeline, then fails."""
    pe = live[pe]
    def pe_bad(ctx, dot, vars):
        pe(ctx, dot, vars)
        raise err(ctx, src, at, "undefined variable: %s" % name)
    return pe_bad


# ------------------------------------------------------------ commands
def pipe_cmd(src, live, prev, first, pe, has_args):
    """A parenthesized pipeline as a command; ``prev`` is the node Go last recorded before it."""
    pe = live[pe]
    def run_pipe(ctx, dot, vars, final=MISSING):
        if has_args or final is not MISSING:
            raise err(ctx, src, prev, "can't give argument to non-function %s" % src.node(first))
        return pe(ctx, dot, vars)
    return run_pipe


def nil_cmd(src, live, at, has_args):
    def run_nil(ctx, dot, vars, final=MISSING):
        if has_args or final is not MISSING:
            raise err(ctx, src, at, "can't give argument to non-function %s" % src.node(at))
        raise err(ctx, src, at, "nil is not a command")
    return run_nil


def operand_cmd(src, live, at, ev, has_args):
    """A constant or dot as a command: it takes no arguments."""
    ev = live[ev]
    def run_operand(ctx, dot, vars, final=MISSING):
        if has_args or final is not MISSING:
            raise err(ctx, src, at, "can't give argument to non-function %s" % src.node(at))
        return ev(ctx, dot, vars)
    return run_operand


def variable_base(src, live, at, slot, name):
    """The value of ``$x`` at the head of a field chain ``$x.a.b``."""
    def get(ctx, dot, vars):
        v = vars[slot] if slot is not None else UNSET
        if v is UNSET:
            raise err(ctx, src, at, "undefined variable: %s" % name)
        return v
    return get


def variable(src, live, at, slot, name, has_args):
    """``$x``: the variable's slot. A bare variable takes no arguments (Go's "can't give argument to non-function")."""
    def run_var(ctx, dot, vars, final=MISSING):
        if has_args or final is not MISSING:
            raise err(ctx, src, at, "can't give argument to non-function %s" % src.node(at))
        v = vars[slot] if slot is not None else UNSET
        if v is UNSET:
            raise err(ctx, src, at, "undefined variable: %s" % name)
        return v
    return run_var


def chain_nil(src, live, at):
    def run_nil(ctx, dot, vars, final=MISSING):
        raise err(ctx, src, at, "indirection through explicit nil in %s" % src.node(at))
    return run_nil


def chain(src, live, at, call_at, base, names, arg_specs, arg_evs, raw, from_dot):
    """A field chain ``.a.b`` on dot (``from_dot``) or on the value ``base`` gives, possibly a method call.

    ``raw``: the base value has static type interface{} (a range element), so nil is a
    nil interface (error on field access) rather than an invalid value. ``at`` is the node
    field errors cite, ``call_at`` the one a method call's errors cite."""
    base = None if base is None else live[base]
    arg_evs = tuple([live[e] for e in arg_evs])
    head = names[:-1]
    last = names[-1]

    def run_chain(ctx, dot, vars, final=MISSING):
        r = dot if from_dot else base(ctx, dot, vars)
        static = _INTERFACE if raw else None
        if r is None and not raw:
            if ctx.ts.missingkey == "error":
                raise err(ctx, src, at, "nil data; no entry for key %s" % go_quote(names[0]))
            return None
        for name in head:
            ms = maps_get(r.__class__)
            if ms is not None and name not in ms:
                try:
                    r = r[name]
                except KeyError:
                    r = missing_key(ctx, src, at, name)
                    if r is UNSET:
                        return None
                static = _INTERFACE
                continue
            r, static = field(ctx, src, at, r, name, static)
            if r is UNSET:
                return None
        if not arg_evs and final is MISSING:
            ms = maps_get(r.__class__)
            if ms is not None and last not in ms:
                try:
                    return r[last]
                except KeyError:
                    r = missing_key(ctx, src, at, last)
                    return None if r is UNSET else r
            r = field(ctx, src, at, r, last, static)[0]
            return None if r is UNSET else r
        return field_call(ctx, src, call_at, r, last, static, arg_specs, arg_evs, dot, vars, final)
    return run_chain


def call(src, live, cmd, ident, name, arg_specs, arg_evs):
    """A function call. The function is looked up in the execution's table when it runs (each
    execution may bring its own functions). The argument conversion plan is built once per
    function signature and kept; only a typed signature needs the arguments (codegen.Source.args)."""
    arg_evs = tuple([live[e] for e in arg_evs])
    plans = {}

    def run_call(ctx, dot, vars, final=MISSING):
        f = ctx.funcs.get(name) or ctx.ts.resolve(name, ctx, src, ident)
        if f.builtin is not None and (f.builtin == "call" or f.builtin == "len"):
            return call_function(ctx, src, cmd, ident, f, src.args(arg_specs), arg_evs, dot, vars, final)
        plan = plans.get(f.sig)
        if plan is None:
            nodes = src.args(arg_specs) if f.params is not None else None
            plan = plans[f.sig] = make_plan(src, ident, f, nodes, arg_evs)
        return invoke(ctx, src, cmd, name, f.fn, plan(ctx, dot, vars, final))
    return run_call


def logic(src, live, cmd, ident, name, arg_specs, arg_evs):
    """``and``/``or``: arguments evaluated lazily, as Go 1.18+ does, unless the function table replaced them."""
    arg_evs = tuple([live[e] for e in arg_evs])
    want = name == "or"
    nargs = len(arg_evs)

    def run_logic(ctx, dot, vars, final=MISSING):
        f = ctx.funcs.get(name) or ctx.ts.resolve(name, ctx, src, ident)
        if f.builtin != name:
            return call_function(ctx, src, cmd, ident, f, src.args(arg_specs), arg_evs, dot, vars, final)
        if nargs == 0 and final is MISSING:
            raise err(ctx, src, ident, "wrong number of args for %s: want at least 1 got 0" % name)
        v = None
        for ev in arg_evs:
            v = ev(ctx, dot, vars)
            if bool(v) is want:
                return v
        if final is not MISSING:
            v = final
        return v
    return run_logic


def missing_key(ctx, src, node, name):
    """A map has no entry ``name``: nil under missingkey=zero, else an error or invalid."""
    mk = ctx.ts.missingkey
    if mk == "zero":
        return None
    if mk == "error":
        raise err(ctx, src, node, "map has no entry for key %s" % go_quote(name))
    return UNSET


_MAPS = {dict: frozenset()}
maps_get = _MAPS.get


def _learn(cls):
    """Register a map type: the method names that shadow its keys (None: not a plain map)."""
    if cls not in _MAPS and issubclass(cls, dict):
        methods = getattr(cls, "GO_METHODS", None)
        if methods is not None or not hasattr(cls, "go_method"):
            _MAPS[cls] = frozenset(methods or ())


def field(ctx, src, node, r, name, static):
    """One step of a field chain without arguments: (value, static type of the value)."""
    _learn(r.__class__)
    if r is None:
        raise err(ctx, src, node, "nil pointer evaluating %s.%s" % (static or _INTERFACE, name))
    gm = getattr(r, "go_method", None)
    if gm is not None:
        m = gm(name)
        if m is not None:
            return call_method(ctx, src, node, name, m, (), (), None, None, MISSING), None
    if isinstance(r, dict):
        try:
            return r[name], _INTERFACE
        except KeyError:
            return missing_key(ctx, src, node, name), _INTERFACE
    if isinstance(r, GoStruct):
        try:
            return r.go_field(name), None
        except KeyError:
            pass
    raise err(ctx, src, node, "can't evaluate field %s in type %s" % (name, static or go_type_name(r)))


def field_call(ctx, src, node, r, name, static, arg_specs, arg_evs, dot, vars, final):
    """The last step of a chain when it has arguments (or a piped final value)."""
    if r is None:
        raise err(ctx, src, node, "nil pointer evaluating %s.%s" % (static or _INTERFACE, name))
    gm = getattr(r, "go_method", None)
    if gm is not None:
        m = gm(name)
        if m is not None:
            return call_method(ctx, src, node, name, m, src.args(arg_specs), arg_evs, dot, vars, final)
    has_args = bool(arg_evs) or final is not MISSING
    if isinstance(r, dict):
        if has_args:
            raise err(ctx, src, node, "%s is not a method but has arguments" % name)
        try:
            return r[name]
        except KeyError:
            v = missing_key(ctx, src, node, name)
            return None if v is UNSET else v
    if isinstance(r, GoStruct) and name in r.GO_FIELDS:
        if has_args:
            raise err(ctx, src, node, "%s has arguments but cannot be invoked as function" % name)
        return r.go_field(name)
    raise err(ctx, src, node, "can't evaluate field %s in type %s" % (name, static or go_type_name(r)))
