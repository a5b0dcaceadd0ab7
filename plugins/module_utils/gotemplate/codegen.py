"""Template trees as Python code: one function per tree, compiled once, cacheable as a code object.

Closures compiled from a tree cannot outlive their process, so each fresh process (each Ansible
task) used to decode the stored trees and compile them again: most of a cached render of a large
chart. Instead a template file becomes one Python module. A function per tree holds its statements
as Python statements (writes, ``if``/``for``, ``break``/``continue``, variables in the slot list).
Its expressions (pipelines, commands, operands) are closures made by exec's factories: the
generator records each body's factory calls as a recipe of plain data, and a body's expressions are
built from it when the body first looks one up (``_Pending``), so bodies that never run (most of a
chart whose features are off) cost nothing. parsecache stores the code object and the recipes with
marshal; a fresh process with a warm cache loads them at C speed and runs the module, with no parse
tree, no tree walk and no ``compile()``. Expressions stay out of the generated source because
compiling them as module code cost more than building the closures did.

The code refers to nodes by index into the file's node table (``Source``), decoded only for an
error's text: a typed call checks its arguments from static specs (``_Gen.args``). After parsing
the table holds the nodes themselves; from the disk cache it is marshal data of flat tuples
(``flatten``), loaded when first needed. A body nested deeper than ``_MAX_DEPTH`` moves to a
function of its own (Python limits indentation and nested loops), from which
``{{break}}``/``{{continue}}`` raise exec.Break/Continue to its loop.
"""
import marshal

from . import exec as X
from . import nodes as N
from .calls import Arg, arg_at, is_raw, last_at, last_node
from .nodes import is_empty_tree

# The names the generated statements use, and the factories of their expressions, numbered for the
# stored recipes: each is called as ``factory(src, live, *args)``.
RUNTIME = {name: getattr(X, name) for name in (
    "BREAK", "CONTINUE", "Break", "Continue", "err", "printed", "range_items", "template_call")}
_FACTORY_NAMES = ("const", "bad_number", "pipeline", "declare", "bad_declare", "pipe_cmd", "nil_cmd", "operand_cmd",
                  "variable_base", "variable", "chain_nil", "chain", "call", "logic")
_FACTORIES = tuple(getattr(X, name) for name in _FACTORY_NAMES)
_FID = {name: i for i, name in enumerate(_FACTORY_NAMES)}
_DOT_EV, _NIL_EV = 0, 1  # the first two expressions of every body: dot itself and nil
_MAX_DEPTH = 24


class Source(object):
    """One template file as its code sees it: where its nodes are, and the nodes by index.

    From the disk cache the node table is still marshal data (``flat``), loaded when an error
    first needs a node: a render that fails nowhere never loads it."""
    __slots__ = ("tree", "memo", "flat")

    def __init__(self, tree, memo, flat=None):
        self.tree = tree
        self.memo = memo
        self.flat = flat

    def location(self, pos):
        return self.tree.location(pos)

    def node(self, i):
        if self.memo is None:
            self.flat = marshal.loads(self.flat)
            self.memo = [None] * len(self.flat)
        n = self.memo[i]
        if n is None:
            n = self.memo[i] = _decode(self, self.flat[i])
        return n

    def nodes(self, idx):
        return [self.node(i) for i in idx]

    def args(self, specs):
        """A call's arguments as calls' argument checks take them: literals as nodes, others as
        calls.Arg (see _Gen.args)."""
        return [Arg(self, i, raw, at) if literal is None else _decode(self, literal) for i, raw, at, literal in specs]


def compile_file(name, text, trees):
    """Generate and compile the code of the ``trees`` parsed from one file; sets each tree's
    ``compiled`` and ``empty``. Returns what the disk cache keeps: ``(meta, code, recipes, node table)``."""
    src = Source(next(iter(trees.values())), [])
    gen = _Gen(src)
    meta = []
    for k, (tname, tree) in enumerate(trees.items()):
        gen.function("_t%d" % k, tree.root, False, True)
        tree.empty = is_empty_tree(tree.root)
        meta.append((tname, tree.nvars, tree.empty))
    code = compile("\n".join(gen.defs) + "\n", "<template %s>" % name, "exec", dont_inherit=True)
    recipes = tuple(tuple(recipe) for recipe in gen.recipes)
    namespace = dict(RUNTIME, S=src)
    namespace.update(("E%d" % k, _Pending(src, namespace, k, recipe)) for k, recipe in enumerate(recipes) if recipe)
    _install(code, namespace, trees.values())
    return meta, code, recipes, src.memo


def restore(name, text, meta, code, recipes, flat):
    """The trees of ``compile_file``'s result for the file ``name`` with ``text``, ready to execute."""
    trees = {}
    for tname, nvars, empty in meta:
        tree = trees[tname] = N.Tree(tname, name, text)
        tree.nvars = nvars
        tree.empty = empty
    src = Source(next(iter(trees.values())), None, flat)
    namespace = dict(RUNTIME, S=src)
    namespace.update(("E%d" % k, _Pending(src, namespace, k, recipe)) for k, recipe in enumerate(recipes) if recipe)
    _install(code, namespace, trees.values())
    return trees


def _install(code, namespace, trees):
    exec(code, namespace)  # pylint: disable=exec-used  # our own generated module: it defines the trees' functions
    for k, tree in enumerate(trees):
        tree.compiled = namespace["_t%d" % k]


class _Pending(object):
    """The expressions of a body before it first runs: the first lookup builds them from the recipe
    (from the disk cache still marshal data, read only now) and puts them in this object's place in
    the module's globals. Most of a chart is bodies of conditions its values leave false, or
    templates it never includes: those are never built."""
    __slots__ = ("src", "namespace", "k", "recipe")

    def __init__(self, src, namespace, k, recipe):
        self.src = src
        self.namespace = namespace
        self.k = k
        self.recipe = recipe

    def __getitem__(self, i):
        src = self.src
        live = [X.dot_ev, X.nil_ev]
        factories = _FACTORIES
        recipe = self.recipe
        for fid, args in marshal.loads(recipe) if recipe.__class__ is bytes else recipe:
            live.append(factories[fid](src, live, *args))
        self.namespace["E%d" % self.k] = live
        return live[i]


class _Gen(object):
    """Builds a file's module source and its expressions' recipes. ``elem`` is threaded through as exec's
    compiler did: true when dot is a ``{{range}}`` element, whose static type is interface{} (nil
    there is a nil interface, which changes Go's errors for field access). ``dot`` names the Python
    variable holding dot. Each body (of a tree, ``if``, ``with``, ``range``, ``else``) has its own
    expressions, ``E<k>`` in the code: an expression is an index into its body's list, built from
    ``recipes[k]`` (``_Pending``)."""

    def __init__(self, src):
        self.table = src.memo
        self.recipes = []
        self.body_k = None
        self.recipe = None
        self.defs = []
        self.refs = {}
        self.consts = None
        self.count = 0
        self.lines = None
        self.depth = 0
        self.loops = []

    def ref(self, node):
        i = self.refs.get(id(node))
        if i is None:
            i = self.refs[id(node)] = len(self.table)
            self.table.append(node)
        return i

    def closure(self, factory, *args):
        """A new expression of the current body: ``factory`` to be called with ``args`` (expressions in
        them as indexes), recorded in the body's recipe. Returns its index."""
        self.recipe.append((_FID[factory], args))
        return len(self.recipe) + 1  # after dot and nil

    def e(self, i):
        """The code for expression ``i`` of the current body."""
        return "E%d[%d]" % (self.body_k, i)

    def lazy(self):
        """Start a body's own expressions (dot and nil first). Returns what ``end`` restores."""
        outer = self.body_k, self.recipe, self.consts
        self.body_k = len(self.recipes)
        self.recipe, self.consts = [], {}
        self.recipes.append(self.recipe)
        return outer

    def end(self, outer):
        self.body_k, self.recipe, self.consts = outer

    def emit(self, line):
        self.lines.append("    " * self.depth + line)

    def local(self):
        self.count += 1
        return "d%d" % self.count

    # ------------------------------------------------------------ statements
    def function(self, name, lst, elem, lazy):
        outer = self.lines, self.depth
        self.lines, self.depth = ["def %s(ctx, dot, vars, w):" % name], 1
        started = self.lazy() if lazy else None
        self.block(lst, elem, "dot")
        if lazy:
            self.end(started)
        self.defs.append("\n".join(self.lines))
        self.lines, self.depth = outer
    def block(self, lst, elem, dot):
        """A ListNode's statements. Adjacent text and printing actions are one write: output is
        only ever used whole (an error discards it), so writing later changes nothing."""
        start = len(self.lines)
        writes = []
        text = ""
        for node in lst.nodes:
            if isinstance(node, N.TextNode):
                text += node.text
                continue
            if text:
                writes.append(repr(text))
                text = ""
            if isinstance(node, N.ActionNode) and not node.pipe.decl:
                writes.append("printed(%s(ctx, %s, vars))" % (self.e(self.pipeline(node.pipe, elem)), dot))
                continue
            self.write(writes)
            self.stmt(node, elem, dot)
        if text:
            writes.append(repr(text))
        self.write(writes)
        if len(self.lines) == start:
            self.emit("pass")

    def write(self, writes):
        if len(writes) == 1:
            self.emit("w(%s)" % writes[0])
        elif writes:
            self.emit("w(\"\".join((%s)))" % ", ".join(writes))
        writes.clear()

    def body(self, lst, elem, dot, lazy=True):
        self.depth += 1
        outer = self.lazy() if lazy else None
        if self.depth < _MAX_DEPTH:
            self.block(lst, elem, dot)
        else:
            self.count += 1
            name = "_b%d" % self.count
            self.emit("%s(ctx, %s, vars, w)" % (name, dot))
            self.function(name, lst, elem, False)
        if lazy:
            self.end(outer)
        self.depth -= 1

    def stmt(self, node, elem, dot):
        """One statement node (exec.go walk)."""
        if isinstance(node, N.ActionNode):
            # A declaration, which prints nothing (block writes the other actions).
            self.emit("%s(ctx, %s, vars)" % (self.e(self.pipeline(node.pipe, elem)), dot))
        elif isinstance(node, N.IfNode):
            self.emit("if %s(ctx, %s, vars):" % (self.e(self.pipeline(node.pipe, elem)), dot))
            self.body(node.list, elem, dot)
            self.orelse(node, elem, dot)
        elif isinstance(node, N.WithNode):
            self.emit("v = %s(ctx, %s, vars)" % (self.e(self.pipeline(node.pipe, elem)), dot))
            self.emit("if v:")
            inner = self.local()
            self.depth += 1
            self.emit("%s = v" % inner)
            self.depth -= 1
            self.body(node.list, False, inner)
            self.orelse(node, elem, dot)
        elif isinstance(node, N.RangeNode):
            self.range(node, elem, dot)
        elif isinstance(node, N.TemplateNode):
            pe = self.e(self.pipeline(node.pipe, elem)) if node.pipe is not None else None
            self.emit("template_call(ctx, S, %d, %r, %s, %s, vars, w)" % (self.ref(node), node.name, pe, dot))
        elif isinstance(node, (N.BreakNode, N.ContinueNode)):
            loop = self.loops[-1]
            brk = isinstance(node, N.BreakNode)
            if loop[0] is self.lines:
                self.emit("break" if brk else "continue")
            else:
                loop[1] = True
                self.emit("raise BREAK" if brk else "raise CONTINUE")
        else:
            raise ValueError("unknown node %r" % node)

    def orelse(self, node, elem, dot):
        if node.else_list is not None:
            self.emit("else:")
            self.body(node.else_list, elem, dot)

    def range(self, node, elem, dot):
        """``{{range}}``: exec.range_items gives the (key, element) pairs or None for the else list;
        the body is a Python loop (wrapped in a ``try`` when a moved body raises Break/Continue)."""
        pipe = node.pipe
        decl = pipe.decl
        slots = [v.slot for v in decl]
        self.emit("it = range_items(ctx, S, %d, %s(ctx, %s, vars), %d)"
                  % (self.ref(last_node(pipe)), self.e(self.pipeline(pipe, elem)), dot, len(decl)))
        self.emit("if it is None:")
        if node.else_list is not None:
            self.body(node.else_list, elem, dot)
        else:
            self.depth += 1
            self.emit("pass")
            self.depth -= 1
        self.emit("else:")
        self.depth += 1
        outer = self.lazy()
        inner = self.local()
        self.emit("for k, %s in it:" % inner)
        loop = [self.lines, False]
        self.loops.append(loop)
        start = len(self.lines)
        self.depth += 2
        if decl and pipe.is_assign and None in slots:
            bad = decl[0] if slots[0] is None else decl[1]
            self.emit("raise err(ctx, S, %d, %r)" % (self.ref(bad), "undefined variable: %s" % bad.ident[0]))
        elif len(decl) == 1:
            self.emit("vars[%d] = %s" % (slots[0], inner))
        elif decl:
            self.emit("vars[%d] = k" % slots[0])
            self.emit("vars[%d] = %s" % (slots[1], inner))
        self.depth -= 1
        self.body(node.list, True, inner, False)
        self.loops.pop()
        if loop[1]:
            self.lines.insert(start, "    " * self.depth + "try:")
            self.emit("except Continue:")
            self.emit("    continue")
            self.emit("except Break:")
            self.emit("    break")
        else:
            self.lines[start:] = [line[4:] for line in self.lines[start:]]
        self.depth -= 2
        self.end(outer)

    # ------------------------------------------------------------ expressions
    def pipeline(self, pipe, elem):
        """A pipeline's ``ev``, storing declared/assigned variables."""
        cmds = [self.command(c, elem, pipe if i == 0 else last_at(pipe.cmds[i - 1]))
                for i, c in enumerate(pipe.cmds)]
        pe = cmds[0] if len(cmds) == 1 else self.closure("pipeline", tuple(cmds))
        if not pipe.decl:
            return pe
        slots = tuple(v.slot for v in pipe.decl)
        if None in slots:
            bad = pipe.decl[slots.index(None)]
            return self.closure("bad_declare", pe, self.ref(last_node(pipe)), bad.ident[0])
        return self.closure("declare", pe, slots)

    def command(self, cmd, elem, prev):
        """One command of a pipeline; ``prev`` is the node Go last recorded before it."""
        first = cmd.args[0]
        args = cmd.args[1:]
        if isinstance(first, N.FieldNode):
            return self.chain(first, None, first.ident, args, elem, elem, True)
        if isinstance(first, N.ChainNode):
            return self.chain_node(first, args, elem)
        if isinstance(first, N.IdentifierNode):
            return self.call(cmd, first, args, elem)
        if isinstance(first, N.VariableNode):
            return self.variable(first, args, elem)
        if isinstance(first, N.PipeNode):
            return self.closure("pipe_cmd", self.ref(prev), self.ref(first), self.pipeline(first, elem), bool(args))
        if isinstance(first, N.NilNode):
            return self.closure("nil_cmd", self.ref(first), bool(args))
        return self.closure("operand_cmd", self.ref(first), self.operand(first, elem), bool(args))

    def operand(self, node, elem):
        """An argument's ``ev`` (evalArg with an interface{} parameter)."""
        if isinstance(node, N.DotNode):
            return _DOT_EV
        if isinstance(node, N.NilNode):
            return _NIL_EV
        if isinstance(node, (N.StringNode, N.BoolNode, N.NumberNode)):
            if isinstance(node, N.NumberNode):
                value, problem = X.ideal_constant(node)
                if problem is not None:
                    return self.closure("bad_number", self.ref(node), problem)
            else:
                value = node.text if isinstance(node, N.StringNode) else node.value
            key = (value.__class__, repr(value))
            if key not in self.consts:
                self.consts[key] = self.closure("const", value)
            return self.consts[key]
        if isinstance(node, N.PipeNode):
            return self.pipeline(node, elem)
        if isinstance(node, N.FieldNode):
            return self.chain(node, None, node.ident, (), elem, elem, True)
        if isinstance(node, N.ChainNode):
            return self.chain_node(node, (), elem)
        if isinstance(node, N.VariableNode):
            return self.variable(node, (), elem)
        if isinstance(node, N.IdentifierNode):
            return self.call(node, node, (), elem)
        raise ValueError("unknown operand %r" % node)

    def variable(self, node, args, elem):
        """``$x``, or ``$x.a.b``: a field chain on the variable's value."""
        i = self.ref(node)
        if len(node.ident) > 1:
            base = self.closure("variable_base", i, node.slot, node.ident[0])
            return self.chain(node, base, node.ident[1:], args, elem, node.elem, False)
        return self.closure("variable", i, node.slot, node.ident[0], bool(args))

    def chain_node(self, node, args, elem):
        """``(pipeline).a.b``; on ``nil`` Go's explicit-nil error."""
        inner = node.node
        if isinstance(inner, N.NilNode):
            return self.closure("chain_nil", self.ref(node))
        base = self.operand(inner, elem)
        at = last_node(inner) if isinstance(inner, N.PipeNode) else inner
        return self.chain(node, base, node.field, args, elem, False, False, at)

    def chain(self, node, base, names, args, elem, raw, from_dot, at=None):
        evs = [self.operand(a, elem) for a in args]
        return self.closure("chain", self.ref(node if at is None else at), self.ref(node), base, tuple(names),
                            self.args(args), tuple(evs), bool(raw), from_dot)

    def call(self, cmd, ident, args, elem):
        evs = [self.operand(a, elem) for a in args]
        factory = "logic" if ident.ident in ("and", "or") else "call"
        return self.closure(factory, self.ref(cmd), self.ref(ident), ident.ident, self.args(args), tuple(evs))

    def args(self, args):
        """What the argument checks of a call need, per argument: ``(node, raw, at, literal)``, with
        a literal's node encoded whole (it has no children), so a typed call needs no node table."""
        specs = []
        for a in args:
            literal = _encode(a, None) if isinstance(a, (N.StringNode, N.NumberNode, N.BoolNode, N.NilNode)) else None
            specs.append((self.ref(a), is_raw(a), self.ref(arg_at(a)), literal))
        return tuple(specs)


# Node kinds in the flat node table: (kind, pos, fields...), child nodes as indexes into the table.
(_PIPE, _COMMAND, _IDENT, _VAR, _DOT, _NIL, _FIELD, _CHAIN, _BOOL, _NUMBER, _STRING, _TEMPLATE) = range(12)


def flatten(table):
    """The node table as plain tuples (what marshal stores): the table's nodes first, at their
    indexes, then their descendants, each once."""
    index = {id(n): i for i, n in enumerate(table)}
    flat = [None] * len(table)
    nodes = list(table)

    def ref(n):
        i = index.get(id(n))
        if i is None:
            i = index[id(n)] = len(nodes)
            nodes.append(n)
            flat.append(None)
        return i
    i = 0
    while i < len(nodes):
        flat[i] = _encode(nodes[i], ref)
        i += 1
    return flat


def _encode(n, ref):
    c = n.__class__
    if c is N.PipeNode:
        return (_PIPE, n.pos, tuple(ref(v) for v in n.decl), tuple(ref(x) for x in n.cmds), n.is_assign)
    if c is N.CommandNode:
        return (_COMMAND, n.pos, tuple(ref(x) for x in n.args))
    if c is N.IdentifierNode:
        return (_IDENT, n.pos, n.ident)
    if c is N.VariableNode:
        return (_VAR, n.pos, n.ident, n.slot, n.elem)
    if c is N.DotNode:
        return (_DOT, n.pos)
    if c is N.NilNode:
        return (_NIL, n.pos)
    if c is N.FieldNode:
        return (_FIELD, n.pos, n.ident)
    if c is N.ChainNode:
        return (_CHAIN, n.pos, ref(n.node), n.field)
    if c is N.BoolNode:
        return (_BOOL, n.pos, n.value)
    if c is N.NumberNode:
        return (_NUMBER, n.pos, n.text, n.is_int, n.is_uint, n.is_float, n.is_complex, n.int_val,
                n.float_val, n.complex_val)
    if c is N.StringNode:
        return (_STRING, n.pos, n.quoted, n.text)
    if c is N.TemplateNode:
        return (_TEMPLATE, n.pos, n.name, None if n.pipe is None else ref(n.pipe))
    raise ValueError("cannot store node %r" % n)


_new = object.__new__


def _decode(src, t):
    """The node ``_encode`` gave ``t`` for; slots are set directly, as the parser left them."""
    kind = t[0]
    if kind == _PIPE:
        n = _new(N.PipeNode)
        n.decl, n.cmds, n.is_assign = src.nodes(t[2]), src.nodes(t[3]), t[4]
    elif kind == _COMMAND:
        n = _new(N.CommandNode)
        n.args = src.nodes(t[2])
    elif kind == _IDENT:
        n = _new(N.IdentifierNode)
        n.ident = t[2]
    elif kind == _VAR:
        n = _new(N.VariableNode)
        n.ident, n.slot, n.elem = t[2], t[3], t[4]
    elif kind == _DOT:
        n = _new(N.DotNode)
    elif kind == _NIL:
        n = _new(N.NilNode)
    elif kind == _FIELD:
        n = _new(N.FieldNode)
        n.ident = t[2]
    elif kind == _CHAIN:
        n = _new(N.ChainNode)
        n.node, n.field = src.node(t[2]), t[3]
    elif kind == _BOOL:
        n = _new(N.BoolNode)
        n.value = t[2]
    elif kind == _NUMBER:
        n = _new(N.NumberNode)
        (n.text, n.is_int, n.is_uint, n.is_float, n.is_complex, n.int_val, n.float_val, n.complex_val) = t[2:]
    elif kind == _STRING:
        n = _new(N.StringNode)
        n.quoted, n.text = t[2], t[3]
    elif kind == _TEMPLATE:
        n = _new(N.TemplateNode)
        n.name, n.pipe = t[2], None if t[3] is None else src.node(t[3])
    else:
        raise ValueError("unknown node kind %r" % (kind,))
    n.pos = t[1]
    return n
