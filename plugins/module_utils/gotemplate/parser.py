"""Parser for Go templates, following text/template/parse/parse.go.

Besides Go's checks (functions defined, variables declared), the parser resolves every
variable to a slot of its template's variable array, so execution never searches a
variable stack by name.

A simple action comes from the lexer as one ACTION token carrying its recipe (see lexer.SIMPLE);
``simple_action`` and ``simple_pipeline`` build the nodes the token rules would build from the
recipe directly; a pipeline that declares no variable builds its command nodes only when first
read (``RecipePipe``), so the parser checks it from the recipe's summary of function and variable
names.  When they meet anything the token rules reject (an unknown function, an
undeclared variable, ``define`` below the top...), the ACTION token is replaced by the action's
ordinary tokens and parsed as any other, so errors and their lines are Go's.
"""
from ..govalue.strconv import go_quote
from ..govalue.unquote import unquote
from . import lexer as L
from .errors import ParseError
from .lexer import (ACTION, ASSIGN, BOOL, CHAR, CHARCONST, COMPLEX, DECLARE, DOT, EOF, ERROR, FIELD, IDENT,
                    K_BLOCK, K_BREAK, K_CONTINUE, K_DEFINE, K_ELSE, K_END, K_IF, K_RANGE, K_TEMPLATE,
                    K_WITH, LEFT, LPAREN, NIL, NUMBER, O_BOOL, O_DOT, O_FIELD, O_NUMBER, O_PIPE, O_STRING,
                    O_VAR, O_WORD, PIPE, RAWSTRING, RIGHT, RPAREN, STRING, TEXT, VAR)
from .nodes import (ActionNode, BoolNode, BreakNode, ChainNode, CommandNode, ContinueNode,
                    DotNode, FieldNode, IdentifierNode, IfNode, ListNode, NilNode, NumberNode,
                    PipeNode, RangeNode, StringNode, TemplateNode, TextNode, Tree, VariableNode,
                    WithNode, is_empty_tree)

_OPERAND_START = frozenset((BOOL, CHARCONST, COMPLEX, DOT, FIELD, IDENT, NUMBER, NIL, RAWSTRING,
                            STRING, VAR, LPAREN))
_END = "end"
_ELSE = "else"
_LITERALS = (BoolNode, DotNode, NilNode, NumberNode, StringNode)
_new = object.__new__
_NO_DECL = ()  # the declarations of the pipelines that declare none, one shared empty tuple


def build_commands(commands, base, resolved):
    """The CommandNodes of a recipe's ``commands`` (see lexer._recipe), positions relative to ``base``;
    ``resolved`` yields the ``(slot, elem)`` of each variable in text order."""
    cmds = []
    for cpos, ops in commands:
        cmd = _new(CommandNode)
        cmd.pos = base + cpos
        cmd.args = args = []
        for kind, at, val, extra in ops:
            if kind == O_FIELD:
                node = _new(FieldNode)
                node.ident = val
            elif kind == O_WORD:
                node = _new(IdentifierNode)
                node.ident = val
            elif kind == O_STRING:
                node = _new(StringNode)
                node.quoted = val
                node.text = extra
            elif kind == O_DOT:
                node = _new(DotNode)
            elif kind == O_VAR:
                node = _new(VariableNode)
                node.ident = val
                node.slot, node.elem = next(resolved)
            elif kind == O_PIPE:
                node = _new(PipeNode)
                node.decl = _NO_DECL
                node.cmds = build_commands(val[3], base, resolved)
                node.is_assign = False
            elif kind == O_NUMBER:
                node = _new(NumberNode)
                node.text = val
                (node.is_int, node.is_uint, node.is_float, node.is_complex, node.int_val, node.float_val,
                 node.complex_val) = extra
            elif kind == O_BOOL:
                node = _new(BoolNode)
                node.value = extra
            else:
                node = _new(NilNode)
            node.pos = base + at
            args.append(node)
        cmds.append(cmd)
    return cmds


_PIPE_CMDS = PipeNode.__dict__["cmds"]  # the slot, under the property of RecipePipe


class RecipePipe(PipeNode):
    """The pipeline of a simple action that declares no variable, its commands built from the recipe
    when first read: exec reads them when it compiles the action, which an action in a branch never
    taken never is, and the parse cache stores the recipe itself (its tuples are plain values already).
    ``stored`` is ``(commands, base, resolved)`` until then (see build_commands)."""
    __slots__ = ("stored",)
    decl = _NO_DECL
    is_assign = False

    @property
    def cmds(self):
        try:
            return _PIPE_CMDS.__get__(self)
        except AttributeError:
            commands, base, resolved = self.stored
            cmds = build_commands(commands, base, iter(resolved))
            _PIPE_CMDS.__set__(self, cmds)
            self.stored = None
            return cmds


class _Fallback(Exception):
    """A simple action met something the token rules must report."""


class _End(object):
    """``{{end}}`` or ``{{else}}`` as item_list meets it: ends the list, and its owner checks the kind.
    ``chain``: the ACTION token of an ``{{else if ...}}`` (``{{else with ...}}``) whose if (with) follows."""

    def __init__(self, pos, kind, chain=None):
        self.pos = pos
        self.kind = kind
        self.chain = chain

    def __str__(self):
        return "{{end}}" if self.kind == _END else "{{else}}"


class _Scope(object):
    """Variables of the template being parsed: Go's name list and our slot bindings."""
    __slots__ = ("tree", "names", "bound")

    def __init__(self, tree):
        self.tree = tree
        self.names = ["$"]
        self.bound = [("$", 0, False)]


class Parser(object):
    """Go's parse.Tree while parsing: the token list, the position in it, the trees found.

    ``i`` indexes the next token; ``hi`` is the furthest token looked at, whose line parse
    errors report (Go reports the line of the last token the lexer emitted); for an ACTION
    token, the line of its ``}}``, the last token it stands for."""

    def __init__(self, name, text, funcs):
        self.name = name
        self.text = text
        self.funcs = funcs
        self.words = L.word_kinds("break" not in funcs, "continue" not in funcs)
        self.toks = L.lex(text, self.words)
        self.i = 0
        self.hi = 0
        self.range_depth = 0
        self.action_pos = -1
        self.trees = {}
        self.scope = None
        self.idents = set()
        self.chains = None  # the control whose first list is being parsed, when an else if/with may end it

    # ------------------------------------------------------------ tokens
    # Space runs are not tokens (see lexer), so Go's nextNonSpace/peekNonSpace are these.
    def next(self):
        """Consume and return the next token."""
        i = self.i
        self.i = i + 1
        if i > self.hi:
            self.hi = i
        return self.toks[i]

    def peek(self):
        """The next token, not consumed."""
        i = self.i
        if i > self.hi:
            self.hi = i
        return self.toks[i]

    def backup(self):
        """Put the last token back."""
        self.i -= 1

    def line_of(self, pos):
        return self.text.count("\n", 0, pos) + 1

    def errorf(self, msg):
        tok = self.toks[self.hi]
        raise ParseError(self.name, self.line_of(L.right_pos(tok) if tok.kind == ACTION else tok.pos), msg)

    def expect(self, kind, context):
        """The next token, which must be of ``kind``."""
        tok = self.next()
        if tok.kind != kind:
            self.unexpected(tok, context)
        return tok

    def unexpected(self, tok, context):
        """Fail on ``tok``: the lexer's own message for an error token, else "unexpected"."""
        if tok.kind == ERROR:
            extra = ""
            line = self.line_of(tok.pos)
            action_line = self.line_of(self.action_pos) if self.action_pos >= 0 else 0
            if action_line and action_line != line:
                extra = " in action started at %s:%d" % (self.name, action_line)
                if tok.val.endswith(" action"):
                    extra = extra[len(" in action"):]
            self.errorf("%s%s" % (tok.val, extra))
        self.errorf("unexpected %s in %s" % (L.token_str(tok), context))

    # ------------------------------------------------------------ trees
    def parse(self):
        """Parse the whole text; returns {name: Tree} like Go's treeSet.

        Top level: ``(textOrAction | {{define stringValue}} itemList {{end}})* EOF``."""
        tree = Tree(self.name, self.name, self.text)
        self.scope = _Scope(tree)
        tree.root = ListNode(self.peek().pos)
        while self.peek().kind != EOF:
            tok = self.peek()
            if tok.kind == LEFT:
                save = self.i
                self.next()
                if self.next().kind == K_DEFINE:
                    self.parse_definition()
                    continue
                self.i = save
            elif tok.kind == ACTION and tok.val[0][0] == L.R_DEFINE:
                self.next()
                self.definition(tok.val[0][3], "define clause")
                continue
            n = self.text_or_action()
            if isinstance(n, _End):
                self.errorf("unexpected %s" % n)
            tree.root.nodes.append(n)
        self.add(tree)
        return self.trees

    def add(self, tree):
        """Go's Tree.add: a later non-empty definition of a name already defined is an error."""
        old = self.trees.get(tree.name)
        if old is None or is_empty_tree(old.root):
            self.trees[tree.name] = tree
            return
        if not is_empty_tree(tree.root):
            self.errorf("template: multiple definition of template %s" % go_quote(tree.name))

    def parse_definition(self):
        """Define: ``{{define stringValue}} itemList {{end}}``; ``{{define`` is past.

        The body is a new tree with its own variables (only ``$``)."""
        context = "define clause"
        name = self.parse_template_name(self.next(), context)
        self.expect(RIGHT, context)
        self.definition(name, context)

    def definition(self, name, context):
        """The body of a define or block, up to its ``{{end}}``: a tree of its own (own variables,
        outside any range); the action that opens it is past."""
        outer = self.scope
        tree = Tree(name, self.name, self.text)
        self.scope = _Scope(tree)
        depth, chains = self.range_depth, self.chains
        self.range_depth, self.chains = 0, None
        tree.root, end = self.item_list()
        self.range_depth, self.chains = depth, chains
        if end.kind != _END:
            self.errorf("unexpected %s in %s" % (end, context))
        self.scope = outer
        self.add(tree)

    def unquote(self, s):
        try:
            return unquote(s)
        except ValueError as exc:
            self.errorf(str(exc))

    def item_list(self):
        """itemList: ``textOrAction*``, up to an ``{{end}}`` or ``{{else}}``.

        Returns the list and that ``_End`` marker; EOF first is an error."""
        toks = self.toks
        lst = ListNode(self.peek().pos)
        nodes = lst.nodes
        while True:
            i = self.i
            tok = toks[i]
            if tok.kind == TEXT:  # text_or_action's first case, inline: half the items are text
                self.i = i + 1
                if i > self.hi:
                    self.hi = i
                nodes.append(TextNode(tok.pos, tok.val))
                continue
            if tok.kind == ACTION and tok.val[0][0] <= L.R_ELSE:  # {{end}} and {{else}}, inline
                head = tok.val[0][0]
                if head != L.R_PIPE:
                    self.i = i + 1
                    if i > self.hi:
                        self.hi = i
                    self.action_pos = -1
                    return lst, _End(L.right_pos(tok), _END if head == L.R_END else _ELSE)
            if tok.kind == EOF:
                self.peek()
                self.errorf("unexpected EOF")
            n = self.text_or_action()
            if n.__class__ is _End:
                return lst, n
            nodes.append(n)

    def text_or_action(self):
        """textOrAction: ``text | action`` (comments never reach the parser: the lexer drops them)."""
        tok = self.next()
        if tok.kind == TEXT:
            return TextNode(tok.pos, tok.val)
        if tok.kind == LEFT:
            self.action_pos = tok.pos
            try:
                return self.action()
            finally:
                self.action_pos = -1
        if tok.kind == ACTION:
            self.action_pos = tok.pos
            try:
                recipe = tok.val[0]
                if recipe[0] == L.R_PIPE:
                    pipe = self.simple_pipeline(recipe[5], tok.val[1], "command")
                    node = _new(ActionNode)
                    node.pos = pipe.pos
                    node.pipe = pipe
                    return node
                return self.simple_action(tok)
            except _Fallback:
                k = self.i - 1
                self.toks[k:k + 1] = L.action_tokens(self.text, tok.pos, self.words)
                self.i = k + 1
                return self.action()
            finally:
                self.action_pos = -1
        self.unexpected(tok, "input")

    def simple_action(self, tok):
        """What action() makes of the tokens of the ACTION token ``tok`` (a plain pipeline's
        text_or_action builds); raises _Fallback where they would not parse. ``define`` is
        only valid at the top (parse)."""
        recipe, base = tok.val
        head = recipe[0]
        if head == L.R_END or head == L.R_ELSE:
            return _End(base + recipe[1], _END if head == L.R_END else _ELSE)
        if head == L.R_IF:
            return IfNode(*self.parse_control("if", tok))
        if head == L.R_WITH:
            return WithNode(*self.parse_control("with", tok))
        if head == L.R_RANGE:
            return RangeNode(*self.parse_control("range", tok))
        if head == L.R_TEMPLATE:
            pipe = None if recipe[5] is None else self.simple_pipeline(recipe[5], base, "template clause")
            return TemplateNode(base + recipe[4], recipe[3], pipe)
        if (head == L.R_ELSE_IF and self.chains == "if") or (head == L.R_ELSE_WITH and self.chains == "with"):
            return _End(base + recipe[4], _ELSE, tok)  # parse_control parses the if (with) from ``tok``
        raise _Fallback()  # the tokens make Go's error where no if (with) list ends at it

    def action(self):
        """Action: ``control | command ("|" command)*``; the left delimiter is past.

        A keyword first makes it a control structure; ``{{end}}`` and ``{{else}}`` return
        an ``_End`` marker to the enclosing item_list."""
        tok = self.next()
        kind = tok.kind
        if kind == K_BLOCK:
            return self.block_control()
        if kind == K_BREAK:
            return self.break_control(tok.pos, "break")
        if kind == K_CONTINUE:
            return self.break_control(tok.pos, "continue")
        if kind == K_ELSE:
            return self.else_control()
        if kind == K_END:
            return _End(self.expect(RIGHT, "end").pos, _END)
        if kind == K_IF:
            return IfNode(*self.parse_control("if"))
        if kind == K_RANGE:
            return RangeNode(*self.parse_control("range"))
        if kind == K_TEMPLATE:
            return self.template_control()
        if kind == K_WITH:
            return WithNode(*self.parse_control("with"))
        self.backup()
        return ActionNode(tok.pos, self.pipeline("command", RIGHT))

    def break_control(self, pos, word):
        """Break: ``{{break}}``, Continue: ``{{continue}}``; the keyword is past. Only inside range."""
        tok = self.next()
        if tok.kind != RIGHT:
            self.unexpected(tok, "{{%s}}" % word)
        if self.range_depth == 0:
            self.errorf("{{%s}} outside {{range}}" % word)
        return BreakNode(pos) if word == "break" else ContinueNode(pos)

    def else_control(self):
        """Else: ``{{else}}``, or ``{{else if ...}}``/``{{else with ...}}`` whose keyword
        parse_control consumes; ``else`` is past."""
        peek = self.peek()
        if peek.kind in (K_IF, K_WITH):
            return _End(peek.pos, _ELSE)
        tok = self.expect(RIGHT, "else")
        return _End(tok.pos, _ELSE)

    def parse_control(self, context, simple=None):
        """The body of if, range and with; the keyword is past:

        ``pipeline}} itemList {{end}}`` |
        ``pipeline}} itemList {{else}} itemList {{end}}`` |
        ``pipeline}} itemList {{else if pipeline}} ...`` (and ``else with`` for with),
        the else-chain parsed as a nested node sharing the one ``{{end}}``.
        Variables declared in the pipeline are visible up to ``{{end}}``; those declared
        in the body, up to ``{{else}}``; ``simple``: the ACTION token of the action, whose pipeline
        is built from its recipe. Returns IfNode/RangeNode/WithNode arguments."""
        scope = self.scope
        mark_names = len(scope.names)
        mark_bound = len(scope.bound)
        if simple is None:
            pipe = self.pipeline(context, RIGHT)
        else:
            pipe = self.simple_pipeline(simple.val[0][5], simple.val[1], context)
        if context == "range":
            self.range_depth += 1
        after_pipe = len(scope.bound)
        chains = self.chains
        self.chains = context
        lst, nxt = self.item_list()
        self.chains = None
        if context == "range":
            self.range_depth -= 1
        else_list = None
        if nxt.kind == _ELSE:
            del scope.bound[after_pipe:]
            if nxt.chain is not None:
                else_list = ListNode(nxt.pos)
                else_list.nodes.append(self.chained(context, nxt.chain))
            elif context == "if" and self.peek().kind == K_IF:
                self.next()
                else_list = ListNode(nxt.pos)
                else_list.nodes.append(IfNode(*self.parse_control("if")))
            elif context == "with" and self.peek().kind == K_WITH:
                self.next()
                else_list = ListNode(nxt.pos)
                else_list.nodes.append(WithNode(*self.parse_control("with")))
            else:
                else_list, nxt = self.item_list()
                if nxt.kind != _END:
                    self.errorf("expected end; found %s" % nxt)
        self.chains = chains
        del scope.names[mark_names:]
        del scope.bound[mark_bound:]
        return pipe.pos, pipe, lst, else_list

    def chained(self, context, tok):
        """The IfNode (WithNode) of the ``{{else if ...}}`` (``{{else with ...}}``) ACTION token ``tok``, just
        past; from its ordinary tokens where its recipe would not parse, as when the else ended the list."""
        node = IfNode if context == "if" else WithNode
        k = self.i - 1
        try:
            return node(*self.parse_control(context, tok))
        except _Fallback:
            self.toks[k:k + 1] = L.action_tokens(self.text, tok.pos, self.words)
            self.i = k + 3  # past "{{", "else" and the keyword, as else_control and parse_control leave them
            if self.hi < k + 2:
                self.hi = k + 2
            return node(*self.parse_control(context))

    def parse_template_name(self, tok, context):
        """stringValue: a quoted or raw string naming a template."""
        if tok.kind in (STRING, RAWSTRING):
            return self.unquote(tok.val)
        self.unexpected(tok, context)

    def template_control(self):
        """Template: ``{{template stringValue pipeline?}}``; ``template`` is past."""
        context = "template clause"
        tok = self.next()
        name = self.parse_template_name(tok, context)
        pipe = None
        if self.next().kind != RIGHT:
            self.backup()
            pipe = self.pipeline(context, RIGHT)
        return TemplateNode(tok.pos, name, pipe)

    def block_control(self):
        """Block: ``{{block stringValue pipeline}} itemList {{end}}``; ``block`` is past.

        Shorthand for defining the template and executing it in place: the body becomes a
        tree of its own, the action a TemplateNode."""
        context = "block clause"
        tok = self.next()
        name = self.parse_template_name(tok, context)
        pipe = self.pipeline(context, RIGHT)
        self.definition(name, context)
        return TemplateNode(tok.pos, name, pipe)

    # ------------------------------------------------------------ pipelines
    def declare(self, var, elem=False):
        """Give the declared ``var`` a new slot in the tree's variable array."""
        tree = self.scope.tree
        var.slot = tree.nvars
        var.elem = elem
        tree.nvars += 1
        return var

    def resolve(self, name):
        """(slot, elem) of the innermost visible variable ``name``; (None, False) if none."""
        for bname, slot, elem in reversed(self.scope.bound):
            if bname == name:
                return slot, elem
        return None, False

    def pipeline(self, context, end):
        """Pipeline: ``declarations? command ("|" command)*`` up to the token ``end``
        (``}}``, or ``)`` for a parenthesized pipeline).

        declarations: ``$x :=`` | ``$x =`` | (range only) ``$i, $e :=``. Declared variables
        get their slots after the commands are parsed, so the commands see the outer ones."""
        toks = self.toks
        pipe = PipeNode(self.peek().pos, [])
        scope = self.scope
        while True:
            v = self.peek()
            if v.kind != VAR:
                break
            save = self.i
            self.next()
            nxt = self.peek()
            if nxt.kind == ASSIGN or nxt.kind == DECLARE:
                pipe.is_assign = nxt.kind == ASSIGN
                self.next()
                pipe.decl.append(VariableNode(v.pos, v.val))
                scope.names.append(v.val)
                break
            if nxt.kind == CHAR and nxt.val == ",":
                self.next()
                pipe.decl.append(VariableNode(v.pos, v.val))
                scope.names.append(v.val)
                if context == "range" and len(pipe.decl) < 2:
                    if self.peek().kind in (VAR, RIGHT, RPAREN):
                        continue
                    self.errorf("range can only initialize variables")
                self.errorf("too many declarations in %s" % context)
            # Not a declaration: put the variable back.
            self.i = save
            break
        cmds = pipe.cmds
        while True:
            i = self.i
            self.i = i + 1
            if i > self.hi:
                self.hi = i
            tok = toks[i]
            kind = tok.kind
            if kind == end:
                self.check_pipeline(pipe, context)
                break
            if kind in _OPERAND_START:
                self.i = i
                cmds.append(self.command())
            else:
                self.unexpected(tok, context)
        self.bind(pipe, context)
        return pipe

    def bind(self, pipe, context):
        """Bind the variables ``pipe`` declares, after its commands: those see the outer ones."""
        if pipe.decl:
            if pipe.is_assign:
                for v in pipe.decl:
                    v.slot = self.resolve(v.ident[0])[0]
            else:
                ranged = context == "range"
                bound = self.scope.bound
                for k, v in enumerate(pipe.decl):
                    elem = ranged and k == len(pipe.decl) - 1
                    self.declare(v, elem)
                    bound.append((v.ident[0], v.slot, elem))

    def simple_pipeline(self, recipe, base, context):
        """pipeline() of an ACTION token's tokens, from its recipe's pipeline ``recipe`` (see
        lexer._recipe) and the position ``base`` it is relative to; raises _Fallback where
        they would not parse (an unknown function, an undeclared variable, break or continue
        as keyword). Its checks read the recipe's summary of names; a pipeline that declares
        nothing is a RecipePipe, whose nodes are built only if something reads them."""
        pos, declared, is_assign, commands, (words, variables) = recipe
        if words and not self.funcs.keys() >= words:  # an unknown function, or break/continue as keyword
            raise _Fallback()
        names = self.scope.names
        for _vpos, name in declared:  # visible to the pipeline's own commands, as in Go
            names.append(name)
        resolved = ()
        if variables:
            for name in variables:
                if name not in names:
                    if declared:
                        del names[len(names) - len(declared):]
                    raise _Fallback()
            resolved = tuple(map(self.resolve, variables))  # before bind: the commands see the outer ones
        if words:
            self.idents.update(words)
        if not declared:
            pipe = _new(RecipePipe)
            pipe.pos = base + pos
            pipe.stored = (commands, base, resolved)
            return pipe
        pipe = _new(PipeNode)
        pipe.pos = base + pos
        pipe.decl = [VariableNode(base + vpos, name) for vpos, name in declared]
        pipe.cmds = build_commands(commands, base, iter(resolved))
        pipe.is_assign = is_assign
        self.bind(pipe, context)
        return pipe

    def check_pipeline(self, pipe, context):
        """Go's checkPipeline: at least one command, and no literal after the first stage."""
        if not pipe.cmds:
            self.errorf("missing value for %s" % context)
        for i, c in enumerate(pipe.cmds[1:]):
            if isinstance(c.args[0], _LITERALS):
                self.errorf("non executable command in pipeline stage %d" % (i + 2))

    def command(self):
        """command: ``operand (space operand)*``, up to ``|`` (consumed), ``}}`` or ``)``
        (left for the pipeline). Operands must be separated by spaces."""
        toks = self.toks
        cmd = CommandNode(toks[self.i].pos)
        args = cmd.args
        while True:
            op = self.operand()
            if op is not None:
                args.append(op)
            i = self.i
            self.i = i + 1
            if i > self.hi:
                self.hi = i
            tok = toks[i]
            kind = tok.kind
            if kind == RIGHT or kind == RPAREN:
                self.i = i
                break
            if kind == PIPE:
                break
            if tok.space and op is not None:
                # Spaces separate this operand from the next one.
                self.i = i
                continue
            self.unexpected(tok, "operand")
        if not args:
            self.errorf("empty command")
        return cmd

    def operand(self):
        """operand: ``term .Field*``; None when the next token starts no term.

        Fields right after a term (no space between) chain onto it: on a field or a
        variable they extend its name, on anything else they make a ChainNode."""
        node = self.term()
        if node is None:
            return None
        toks = self.toks
        i = self.i
        tok = toks[i]
        if tok.kind != FIELD or tok.space:
            return node
        pos = tok.pos
        names = []
        while tok.kind == FIELD and not tok.space:
            names.append(tok.val[1:])
            i += 1
            tok = toks[i]
        self.i = i
        if i > self.hi:
            self.hi = i
        if node.__class__ is FieldNode or node.__class__ is VariableNode:
            # .a.b or $x.a.b: one longer name, positioned at the first chained field (as Go).
            node.pos = pos
            node.ident.extend(names)
            return node
        if isinstance(node, (BoolNode, StringNode, NumberNode, NilNode, DotNode)):
            self.errorf("unexpected . after term %s" % go_quote(str(node)))
        chain = ChainNode(pos, node)
        chain.field = names
        return chain

    def term(self):
        """term: ``literal | function | "." | .Field | $ | "(" pipeline ")"``; literal is
        a number, character, string, ``nil`` or boolean, function an identifier the
        function map defines. Returns None (token not consumed) for anything else."""
        i = self.i
        tok = self.toks[i]
        self.i = i + 1
        if i > self.hi:
            self.hi = i
        kind, val, pos = tok.kind, tok.val, tok.pos
        if kind == FIELD:
            return FieldNode(pos, val)
        if kind == IDENT:
            if val not in self.funcs:
                self.errorf("function %s not defined" % go_quote(val))
            self.idents.add(val)
            return IdentifierNode(pos, val)
        if kind == STRING or kind == RAWSTRING:
            return StringNode(pos, val, self.unquote(val))
        if kind == VAR:
            return self.use_var(pos, val)
        if kind == DOT:
            return DotNode(pos)
        if kind == LPAREN:
            return self.pipeline("parenthesized pipeline", RPAREN)
        if kind == NUMBER or kind == CHARCONST or kind == COMPLEX:
            return self.number(pos, val, kind)
        if kind == BOOL:
            return BoolNode(pos, val == "true")
        if kind == NIL:
            return NilNode(pos)
        self.backup()
        return None

    def use_var(self, pos, name):
        """``$x`` (or ``$x.a.b``): the variable must be declared and visible here."""
        var = VariableNode(pos, name)
        head = var.ident[0]
        if head not in self.scope.names:
            self.errorf("undefined variable %s" % go_quote(head))
        var.slot, var.elem = self.resolve(head)
        return var

    def number(self, pos, text, typ):
        """Go's newNumber: a number or character literal with every interpretation it admits
        (int, uint, float, complex), as exec picks one by the type expected."""
        n = NumberNode(pos, text)
        try:
            (n.is_int, n.is_uint, n.is_float, n.is_complex, n.int_val, n.float_val,
             n.complex_val) = L.number_fields(text, typ)
        except ValueError as exc:
            self.errorf(str(exc))
        return n


def parse(name, text, funcs):
    """Parse ``text`` as template ``name``; ``funcs`` is the set of known function names.

    Returns ``{template name: Tree}`` for the text and every define/block in it."""
    return Parser(name, text, funcs).parse()
