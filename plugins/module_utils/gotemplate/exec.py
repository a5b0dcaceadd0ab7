"""Execution of parse trees (text/template/exec.go), by compiling each tree to closures.

Every node becomes a Python closure once; executing a template is then calls between
closures with no per-node dispatch.  Statements are ``run(ctx, dot, vars, w)`` (``w``
appends output), expressions ``ev(ctx, dot, vars)``, commands additionally take the
pipeline's ``final`` value.  Variables live in a per-execution list indexed by the slots
the parser assigned.  Go's behaviours follow exec.go; the "at <node>" of each error is
the node Go's ``s.at`` would have recorded.

A closure takes what it was compiled with as default parameters (``tree=tree``) rather than
as free variables, and its callers pass only the leading arguments: a free variable is a
40-byte cell per variable per closure, and kube-prometheus-stack compiles 45,000 closures
(the cells were 7 MiB of its peak memory).  Only the lazily compiled bodies of if, with and
range stay free variables, because the closure assigns them, and so does a call's table of
argument plans, which it fills.
"""

from ..gcpolicy import paused
from ..govalue.fmt import format_value, sort_keys
from ..govalue.strconv import go_quote
from ..govalue.values import GoStruct, Uint8, go_type_name
from . import nodes as N
from .calls import MISSING, call_function, call_method, err, invoke, last_at, last_node, make_plan, typed_value

UNSET = MISSING.__class__()
_INTERFACE = "interface {}"


class _Break(Exception):
    """``{{break}}``: unwinds to the innermost ``{{range}}`` loop, which stops."""


class _Continue(Exception):
    """``{{continue}}``: unwinds to the innermost ``{{range}}`` loop, which goes to its next element."""


# One instance each, raised every time: no allocation per iteration.
_BREAK = _Break()
_CONTINUE = _Continue()


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


def compile_tree(tree):
    """Compile ``tree`` once; the result is cached on the tree (trees are immutable).

    Compiling only allocates long-lived closures, so the cyclic GC is paused meanwhile:
    its collections would otherwise cost more than the compilation itself."""
    if tree.compiled is None:
        with paused():
            tree.compiled = _Compiler(tree).list(tree.root, False)
    return tree.compiled


def _dot(ctx, dot, vars):
    return dot


def _nil(ctx, dot, vars):
    return None


def _constant(value):
    return lambda ctx, dot, vars, value=value: value


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


class _Compiler(object):
    """Turns one parse tree's nodes into closures (see the module docstring for their calling forms).

    ``elem`` is threaded through every method: true when dot is a ``{{range}}`` element, whose static
    type is interface{} (nil there is a nil interface, which changes Go's errors for field access)."""

    def __init__(self, tree):
        self.tree = tree

    # ------------------------------------------------------------ statements
    def list(self, lst, elem):
        """A ListNode as one ``run``: adjacent text is joined, and a list of one item (the common
        case: a lone action or text) is that item itself, with no loop around it."""
        items = []
        for node in lst.nodes:
            if isinstance(node, N.TextNode):
                if items and items[-1].__class__ is str:
                    items[-1] += node.text
                else:
                    items.append(node.text)
            else:
                items.append(self.stmt(node, elem))
        items = tuple(items)
        if not items:
            return lambda ctx, dot, vars, w: None
        if len(items) == 1:
            only = items[0]
            if only.__class__ is str:
                return lambda ctx, dot, vars, w, only=only: w(only)
            return only

        def run_list(ctx, dot, vars, w, items=items):
            for it in items:
                if it.__class__ is str:
                    w(it)
                else:
                    it(ctx, dot, vars, w)
        return run_list

    def stmt(self, node, elem):
        """Dispatch one statement node (exec.go walk) to the compiler of its kind."""
        if isinstance(node, N.ActionNode):
            return self.action(node, elem)
        if isinstance(node, N.IfNode):
            return self.branch(node, elem, False)
        if isinstance(node, N.WithNode):
            return self.branch(node, elem, True)
        if isinstance(node, N.RangeNode):
            return self.range(node, elem)
        if isinstance(node, N.TemplateNode):
            return self.template(node, elem)
        if isinstance(node, N.BreakNode):
            def brk(ctx, dot, vars, w):
                raise _BREAK
            return brk
        if isinstance(node, N.ContinueNode):
            def cont(ctx, dot, vars, w):
                raise _CONTINUE
            return cont
        raise ValueError("unknown node %r" % node)

    def action(self, node, elem):
        """``{{pipeline}}``: its value printed (exec.go printValue); a declaration prints nothing."""
        pe = self.pipeline(node.pipe, elem)
        if node.pipe.decl:
            def run_decl(ctx, dot, vars, w, pe=pe):
                pe(ctx, dot, vars)
            return run_decl

        def run_action(ctx, dot, vars, w, pe=pe):
            v = pe(ctx, dot, vars)
            if v.__class__ is str:
                w(v)
            else:
                w(print_action(v))
        return run_action

    def branch(self, node, elem, is_with):
        """``{{if}}``/``{{with}}``: evaluate the pipeline, run the body or the else list.

        The body and the else list are compiled the first time they run: a chart's templates
        are mostly bodies of conditions its values leave false (half of kube-prometheus-stack's
        templates render nothing), and a body never run never costs compiling."""
        pe = self.pipeline(node.pipe, elem)
        body_elem = False if is_with else elem
        else_list = node.else_list
        body = orelse = None
        if is_with:
            def run_with(ctx, dot, vars, w, pe=pe, node=node, else_list=else_list, body_elem=body_elem,
                         elem=elem):
                nonlocal body, orelse
                v = pe(ctx, dot, vars)
                if v:
                    if body is None:
                        body = self.list(node.list, body_elem)
                    body(ctx, v, vars, w)
                elif else_list is not None:
                    if orelse is None:
                        orelse = self.list(else_list, elem)
                    orelse(ctx, dot, vars, w)
            return run_with

        def run_if(ctx, dot, vars, w, pe=pe, node=node, else_list=else_list, body_elem=body_elem, elem=elem):
            nonlocal body, orelse
            if pe(ctx, dot, vars):
                if body is None:
                    body = self.list(node.list, body_elem)
                body(ctx, dot, vars, w)
            elif else_list is not None:
                if orelse is None:
                    orelse = self.list(else_list, elem)
                orelse(ctx, dot, vars, w)
        return run_if

    def range(self, node, elem):
        """``{{range}}`` over a slice, a map (sorted keys), an integer or nothing (the else
        list). ``{{break}}``/``{{continue}}`` in the body raise _Break/_Continue, caught here.
        Body and else list are compiled the first time they run, as in branch."""
        tree = self.tree
        pipe = node.pipe
        pe = self.pipeline(pipe, elem)
        body = orelse = None
        else_list = node.else_list
        decl = pipe.decl
        ndecl = len(decl)
        is_assign = pipe.is_assign
        slots = [v.slot for v in decl]
        errnode = last_node(pipe)
        if ndecl == 0:
            def setv(ctx, vars, index, e):
                pass
        elif not is_assign or all(s is not None for s in slots):
            if ndecl == 1:
                def setv(ctx, vars, index, e, s0=slots[0]):
                    vars[s0] = e
            else:
                def setv(ctx, vars, index, e, s0=slots[0], s1=slots[1]):
                    vars[s0] = index
                    vars[s1] = e
        else:
            def setv(ctx, vars, index, e, tree=tree, bad=decl[0] if slots[0] is None else decl[1]):
                raise err(ctx, tree, bad, "undefined variable: %s" % bad.ident[0])

        def run_range(ctx, dot, vars, w, tree=tree, node=node, pe=pe, setv=setv, else_list=else_list, ndecl=ndecl,
                      errnode=errnode, elem=elem):
            nonlocal body, orelse
            val = pe(ctx, dot, vars)
            t = val.__class__
            if t is list or t is tuple or isinstance(val, (list, tuple, bytes)):
                if val:
                    if body is None:
                        body = self.list(node.list, True)
                    for i, e in enumerate(map(Uint8, val) if isinstance(val, bytes) else val):
                        setv(ctx, vars, i, e)
                        try:
                            body(ctx, e, vars, w)
                        except _Continue:
                            pass
                        except _Break:
                            break
                    return
            elif isinstance(val, dict):
                if val:
                    if body is None:
                        body = self.list(node.list, True)
                    for k in sort_keys(val):
                        e = val[k]
                        setv(ctx, vars, k, e)
                        try:
                            body(ctx, e, vars, w)
                        except _Continue:
                            pass
                        except _Break:
                            break
                    return
            elif t is int or (isinstance(val, int) and t is not bool):
                if ndecl > 1:
                    raise err(ctx, tree, errnode, "can't use %d to iterate over more than one variable" % val)
                if val > 0:
                    if body is None:
                        body = self.list(node.list, True)
                    # Go yields values of the ranged integer's own type.
                    for i in (range(val) if t is int else map(t, range(val))):
                        setv(ctx, vars, None, i)
                        try:
                            body(ctx, i, vars, w)
                        except _Continue:
                            pass
                        except _Break:
                            break
                    return
            elif val is not None:
                raise err(ctx, tree, errnode, "range can't iterate over %s" % format_value(val))
            if else_list is not None:
                if orelse is None:
                    orelse = self.list(else_list, elem)
                orelse(ctx, dot, vars, w)
        return run_range

    def template(self, node, elem):
        """``{{template "name" pipeline}}``: the named tree is looked up when it runs (a later
        ``define`` may replace it) and runs with the pipeline's value as dot and ``$``, in fresh variables."""
        tree = self.tree
        name = node.name
        pe = self.pipeline(node.pipe, elem) if node.pipe is not None else None

        def run_template(ctx, dot, vars, w, tree=tree, node=node, name=name, pe=pe):
            sub = ctx.ts._trees.get(name)
            if sub is None:
                raise err(ctx, tree, node, "template %s not defined" % go_quote(name))
            if ctx.depth >= 100000:
                raise err(ctx, tree, node, "exceeded maximum template depth (100000)")
            d = pe(ctx, dot, vars) if pe is not None else None
            run = sub.compiled or compile_tree(sub)
            tvars = [d]
            if sub.nvars > 1:
                tvars.extend([UNSET] * (sub.nvars - 1))
            try:
                run(ctx.enter(name), d, tvars, w)
            except RecursionError:
                # Python's stack ends before Go's depth limit; report it as Go does.
                raise err(ctx, tree, node, "exceeded maximum template depth (100000)")
        return run_template

    # ------------------------------------------------------------ pipelines
    def pipeline(self, pipe, elem):
        """``ev(ctx, dot, vars)`` for a pipeline, storing declared/assigned variables."""
        tree = self.tree
        cmds = [self.command(c, elem, pipe if i == 0 else last_at(pipe.cmds[i - 1]))
                for i, c in enumerate(pipe.cmds)]
        first = cmds[0]
        rest = tuple(cmds[1:])
        if not rest:
            pe = first
        else:
            def pe(ctx, dot, vars, first=first, rest=rest):
                v = first(ctx, dot, vars)
                for c in rest:
                    v = c(ctx, dot, vars, v)
                return v
        if not pipe.decl:
            return pe
        slots = tuple(v.slot for v in pipe.decl)
        if any(s is None for s in slots):
            bad = pipe.decl[[s is None for s in slots].index(True)]

            def pe_bad(ctx, dot, vars, pe=pe, tree=tree, pipe=pipe, bad=bad):
                pe(ctx, dot, vars)
                raise err(ctx, tree, last_node(pipe), "undefined variable: %s" % bad.ident[0])
            return pe_bad
        if len(slots) == 1:
            def pe_decl(ctx, dot, vars, pe=pe, s0=slots[0]):
                v = vars[s0] = pe(ctx, dot, vars)
                return v
            return pe_decl

        def pe_decls(ctx, dot, vars, pe=pe, slots=slots):
            v = pe(ctx, dot, vars)
            for s in slots:
                vars[s] = v
            return v
        return pe_decls

    def command(self, cmd, elem, prev):
        """``run(ctx, dot, vars, final=MISSING)`` for one command of a pipeline; ``prev`` is
        the node Go last recorded before it (cited by a few errors)."""
        tree = self.tree
        first = cmd.args[0]
        args = cmd.args[1:]
        if isinstance(first, N.FieldNode):
            return self.chain(first, _dot, first.ident, args, elem, elem, True)
        if isinstance(first, N.ChainNode):
            return self.chain_node(first, args, elem)
        if isinstance(first, N.IdentifierNode):
            return self.call(cmd, first, args, elem)
        if isinstance(first, N.VariableNode):
            return self.variable(first, args, elem)
        if isinstance(first, N.PipeNode):
            pe = self.pipeline(first, elem)
            has_args = bool(args)

            def run_pipe(ctx, dot, vars, final=MISSING, tree=tree, prev=prev, first=first, pe=pe, has_args=has_args):
                if has_args or final is not MISSING:
                    raise err(ctx, tree, prev, "can't give argument to non-function %s" % first)
                return pe(ctx, dot, vars)
            return run_pipe
        if isinstance(first, N.NilNode):
            def run_nil(ctx, dot, vars, final=MISSING, tree=tree, first=first, args=args):
                if args or final is not MISSING:
                    raise err(ctx, tree, first, "can't give argument to non-function %s" % first)
                raise err(ctx, tree, first, "nil is not a command")
            return run_nil
        ev = self.operand(first, elem)
        has_args = bool(args)

        def run_operand(ctx, dot, vars, final=MISSING, tree=tree, first=first, ev=ev, has_args=has_args):
            if has_args or final is not MISSING:
                raise err(ctx, tree, first, "can't give argument to non-function %s" % first)
            return ev(ctx, dot, vars)
        return run_operand

    def operand(self, node, elem):
        """``ev(ctx, dot, vars)`` for an argument (evalArg with an interface{} parameter)."""
        tree = self.tree
        if isinstance(node, N.DotNode):
            return _dot
        if isinstance(node, (N.StringNode, N.BoolNode)):
            return _constant(node.text if isinstance(node, N.StringNode) else node.value)
        if isinstance(node, N.NumberNode):
            value, problem = ideal_constant(node)
            if problem is None:
                return _constant(value)

            def bad_number(ctx, dot, vars, tree=tree, node=node, problem=problem):
                raise err(ctx, tree, node, problem)
            return bad_number
        if isinstance(node, N.NilNode):
            return _nil
        if isinstance(node, N.PipeNode):
            return self.pipeline(node, elem)
        if isinstance(node, N.FieldNode):
            return self.chain(node, _dot, node.ident, (), elem, elem, True)
        if isinstance(node, N.ChainNode):
            return self.chain_node(node, (), elem)
        if isinstance(node, N.VariableNode):
            return self.variable(node, (), elem)
        if isinstance(node, N.IdentifierNode):
            return self.call(node, node, (), elem)
        raise ValueError("unknown operand %r" % node)

    def variable(self, node, args, elem):
        """``$x`` or ``$x.a.b``: the variable's slot, then a field chain on its value. A bare variable
        takes no arguments (Go's "can't give argument to non-function")."""
        tree = self.tree
        slot = node.slot
        name = node.ident[0]

        def get(ctx, dot, vars, tree=tree, node=node, slot=slot, name=name):
            v = vars[slot] if slot is not None else UNSET
            if v is UNSET:
                raise err(ctx, tree, node, "undefined variable: %s" % name)
            return v
        if len(node.ident) > 1:
            return self.chain(node, get, node.ident[1:], args, elem, node.elem, False)
        has_args = bool(args)

        def run_var(ctx, dot, vars, final=MISSING, tree=tree, node=node, slot=slot, name=name, has_args=has_args):
            if has_args or final is not MISSING:
                raise err(ctx, tree, node, "can't give argument to non-function %s" % node)
            v = vars[slot] if slot is not None else UNSET
            if v is UNSET:
                raise err(ctx, tree, node, "undefined variable: %s" % name)
            return v
        return run_var

    def chain_node(self, node, args, elem):
        """``(pipeline).a.b``: a field chain on the value of a parenthesized operand; on ``nil`` it is
        Go's explicit-nil error."""
        tree = self.tree
        if isinstance(node.node, N.NilNode):
            def run_nil(ctx, dot, vars, final=MISSING, tree=tree, node=node):
                raise err(ctx, tree, node, "indirection through explicit nil in %s" % node)
            return run_nil
        base = self.operand(node.node, elem)
        inner = node.node
        at = last_node(inner) if isinstance(inner, N.PipeNode) else inner
        return self.chain(node, base, node.field, args, elem, False, False, at)

    def chain(self, node, base, names, args, elem, raw, from_dot, at=None):
        """A field chain ``.a.b`` on the value ``base`` gives, possibly a method call.

        ``raw``: the base value has static type interface{} (a range element), so nil is a
        nil interface (error on field access) rather than an invalid value."""
        tree = self.tree
        call_node = node
        if at is not None:
            node = at
        names = tuple(names)
        arg_nodes = tuple(args)
        arg_evs = tuple(self.operand(a, elem) for a in args)
        head = names[:-1]
        last = names[-1]

        def run_chain(ctx, dot, vars, final=MISSING, tree=tree, node=node, call_node=call_node, base=base, from_dot=from_dot,
                      raw=raw, names=names, head=head, last=last, arg_nodes=arg_nodes, arg_evs=arg_evs):
            r = dot if from_dot else base(ctx, dot, vars)
            static = _INTERFACE if raw else None
            if r is None and not raw:
                if ctx.ts.missingkey == "error":
                    raise err(ctx, tree, node, "nil data; no entry for key %s" % go_quote(names[0]))
                return None
            for name in head:
                ms = maps_get(r.__class__)
                if ms is not None and name not in ms:
                    try:
                        r = r[name]
                    except KeyError:
                        r = missing_key(ctx, tree, node, name)
                        if r is UNSET:
                            return None
                    static = _INTERFACE
                    continue
                r, static = field(ctx, tree, node, r, name, static)
                if r is UNSET:
                    return None
            if not arg_evs and final is MISSING:
                ms = maps_get(r.__class__)
                if ms is not None and last not in ms:
                    try:
                        return r[last]
                    except KeyError:
                        r = missing_key(ctx, tree, node, last)
                        return None if r is UNSET else r
                r = field(ctx, tree, node, r, last, static)[0]
                return None if r is UNSET else r
            return field_call(ctx, tree, call_node, r, last, static, arg_nodes, arg_evs, dot, vars, final)
        return run_chain

    # ------------------------------------------------------------ function calls
    def call(self, cmd, ident, args, elem):
        """A function call. The function is looked up in the execution's table when it runs (each
        execution may bring its own functions); ``and``/``or`` evaluate their arguments lazily, as Go 1.18+ does. The argument
        conversion plan is built once per function signature and kept."""
        tree = self.tree
        name = ident.ident
        arg_nodes = tuple(args)
        arg_evs = tuple(self.operand(a, elem) for a in args)
        nargs = len(arg_evs)
        if name in ("and", "or"):
            want = name == "or"

            def run_logic(ctx, dot, vars, final=MISSING, tree=tree, cmd=cmd, ident=ident, name=name, want=want,
                          nargs=nargs, arg_nodes=arg_nodes, arg_evs=arg_evs):
                f = ctx.funcs.get(name) or ctx.ts.resolve(name, ctx, tree, ident)
                if f.builtin != name:
                    return call_function(ctx, tree, cmd, ident, f, arg_nodes, arg_evs, dot, vars, final)
                if nargs == 0 and final is MISSING:
                    raise err(ctx, tree, ident, "wrong number of args for %s: want at least 1 got 0" % name)
                v = None
                for ev in arg_evs:
                    v = ev(ctx, dot, vars)
                    if bool(v) is want:
                        return v
                if final is not MISSING:
                    v = final
                return v
            return run_logic
        plans = {}

        def run_call(ctx, dot, vars, final=MISSING, tree=tree, cmd=cmd, ident=ident, name=name, arg_nodes=arg_nodes,
                     arg_evs=arg_evs):
            f = ctx.funcs.get(name) or ctx.ts.resolve(name, ctx, tree, ident)
            if f.builtin is not None and (f.builtin == "call" or f.builtin == "len"):
                return call_function(ctx, tree, cmd, ident, f, arg_nodes, arg_evs, dot, vars, final)
            plan = plans.get(f.sig)
            if plan is None:
                plan = plans[f.sig] = make_plan(tree, ident, f, arg_nodes, arg_evs)
            return invoke(ctx, tree, cmd, name, f.fn, plan(ctx, dot, vars, final))
        return run_call


def missing_key(ctx, tree, node, name):
    """A map has no entry ``name``: nil under missingkey=zero, else an error or invalid."""
    mk = ctx.ts.missingkey
    if mk == "zero":
        return None
    if mk == "error":
        raise err(ctx, tree, node, "map has no entry for key %s" % go_quote(name))
    return UNSET


_MAPS = {dict: frozenset()}
maps_get = _MAPS.get


def _learn(cls):
    """Register a map type: the method names that shadow its keys (None: not a plain map)."""
    if cls not in _MAPS and issubclass(cls, dict):
        methods = getattr(cls, "GO_METHODS", None)
        if methods is not None or not hasattr(cls, "go_method"):
            _MAPS[cls] = frozenset(methods or ())


def field(ctx, tree, node, r, name, static):
    """One step of a field chain without arguments: (value, static type of the value)."""
    _learn(r.__class__)
    if r is None:
        raise err(ctx, tree, node, "nil pointer evaluating %s.%s" % (static or _INTERFACE, name))
    gm = getattr(r, "go_method", None)
    if gm is not None:
        m = gm(name)
        if m is not None:
            return call_method(ctx, tree, node, name, m, (), (), None, None, MISSING), None
    if isinstance(r, dict):
        try:
            return r[name], _INTERFACE
        except KeyError:
            return missing_key(ctx, tree, node, name), _INTERFACE
    if isinstance(r, GoStruct):
        try:
            return r.go_field(name), None
        except KeyError:
            pass
    raise err(ctx, tree, node, "can't evaluate field %s in type %s" % (name, static or go_type_name(r)))


def field_call(ctx, tree, node, r, name, static, arg_nodes, arg_evs, dot, vars, final):
    """The last step of a chain when it has arguments (or a piped final value)."""
    if r is None:
        raise err(ctx, tree, node, "nil pointer evaluating %s.%s" % (static or _INTERFACE, name))
    gm = getattr(r, "go_method", None)
    if gm is not None:
        m = gm(name)
        if m is not None:
            return call_method(ctx, tree, node, name, m, arg_nodes, arg_evs, dot, vars, final)
    has_args = bool(arg_evs) or final is not MISSING
    if isinstance(r, dict):
        if has_args:
            raise err(ctx, tree, node, "%s is not a method but has arguments" % name)
        try:
            return r[name]
        except KeyError:
            v = missing_key(ctx, tree, node, name)
            return None if v is UNSET else v
    if isinstance(r, GoStruct) and name in r.GO_FIELDS:
        if has_args:
            raise err(ctx, tree, node, "%s has arguments but cannot be invoked as function" % name)
        return r.go_field(name)
    raise err(ctx, tree, node, "can't evaluate field %s in type %s" % (name, static or go_type_name(r)))


__all__ = ["compile_tree", "print_action", "typed_value", "UNSET"]
