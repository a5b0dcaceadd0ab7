"""Parser for Go templates, following text/template/parse/parse.go.

Besides Go's checks (functions defined, variables declared), the parser resolves every
variable to a slot of its template's variable array, so execution never searches a
variable stack by name.
"""
import math

from ..govalue.strconv import go_quote, parse_complex_literal, parse_float_literal, parse_int_literal
from ..govalue.unquote import unquote, unquote_char
from . import lexer as L
from .errors import ParseError
from .lexer import (ASSIGN, BOOL, CHAR, CHARCONST, COMPLEX, DECLARE, DOT, EOF, ERROR, FIELD, IDENT,
                    K_BLOCK, K_BREAK, K_CONTINUE, K_DEFINE, K_ELSE, K_END, K_IF, K_RANGE, K_TEMPLATE,
                    K_WITH, LEFT, LPAREN, NIL, NUMBER, PIPE, RAWSTRING, RIGHT, RPAREN, STRING, TEXT, VAR)
from .nodes import (ActionNode, BoolNode, BreakNode, ChainNode, CommandNode, ContinueNode,
                    DotNode, FieldNode, IdentifierNode, IfNode, ListNode, NilNode, NumberNode,
                    PipeNode, RangeNode, StringNode, TemplateNode, TextNode, Tree, VariableNode,
                    WithNode, is_empty_tree)

_OPERAND_START = frozenset((BOOL, CHARCONST, COMPLEX, DOT, FIELD, IDENT, NUMBER, NIL, RAWSTRING,
                            STRING, VAR, LPAREN))
_END = "end"
_ELSE = "else"


class _End(object):
    def __init__(self, pos, kind):
        self.pos = pos
        self.kind = kind

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
    def __init__(self, name, text, funcs):
        self.name = name
        self.text = text
        self.funcs = funcs
        self.toks = L.lex(text, "break" not in funcs, "continue" not in funcs)
        self.i = 0
        self.hi = 0
        self.range_depth = 0
        self.action_pos = -1
        self.trees = {}
        self.scope = None
        self.idents = set()

    # ------------------------------------------------------------ tokens
    # Space runs are not tokens (see lexer), so "non space" variants are the plain ones.
    def next(self):
        i = self.i
        self.i = i + 1
        if i > self.hi:
            self.hi = i
        return self.toks[i]

    def peek(self):
        i = self.i
        if i > self.hi:
            self.hi = i
        return self.toks[i]

    def backup(self, n=1):
        self.i -= n

    next_non_space = next
    peek_non_space = peek

    def line_of(self, pos):
        return self.text.count("\n", 0, pos) + 1

    def errorf(self, msg):
        raise ParseError(self.name, self.line_of(self.toks[self.hi][2]), msg)

    def expect(self, typ, context):
        tok = self.next_non_space()
        if tok[0] != typ:
            self.unexpected(tok, context)
        return tok

    def unexpected(self, tok, context):
        if tok[0] == ERROR:
            extra = ""
            line = self.line_of(tok[2])
            action_line = self.line_of(self.action_pos) if self.action_pos >= 0 else 0
            if action_line and action_line != line:
                extra = " in action started at %s:%d" % (self.name, action_line)
                if tok[1].endswith(" action"):
                    extra = extra[len(" in action"):]
            self.errorf("%s%s" % (tok[1], extra))
        self.errorf("unexpected %s in %s" % (L.token_str(tok), context))

    # ------------------------------------------------------------ trees
    def parse(self):
        """Parse the text; returns {name: Tree} like Go's treeSet."""
        tree = Tree(self.name, self.name, self.text)
        self.scope = _Scope(tree)
        tree.root = ListNode(self.peek()[2])
        while self.peek()[0] != EOF:
            if self.peek()[0] == LEFT:
                save = self.i
                self.next()
                if self.next_non_space()[0] == K_DEFINE:
                    self.parse_definition()
                    continue
                self.i = save
            n = self.text_or_action()
            if isinstance(n, _End):
                self.errorf("unexpected %s" % n)
            tree.root.nodes.append(n)
        self.add(tree)
        return self.trees

    def add(self, tree):
        old = self.trees.get(tree.name)
        if old is None or is_empty_tree(old.root):
            self.trees[tree.name] = tree
            return
        if not is_empty_tree(tree.root):
            self.errorf("template: multiple definition of template %s" % go_quote(tree.name))

    def parse_definition(self):
        context = "define clause"
        tok = self.next_non_space()
        if tok[0] not in (STRING, RAWSTRING):
            self.unexpected(tok, context)
        name = self.unquote(tok[1])
        self.expect(RIGHT, context)
        outer = self.scope
        tree = Tree(name, self.name, self.text)
        self.scope = _Scope(tree)
        tree.root, end = self.item_list()
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
        lst = ListNode(self.peek_non_space()[2])
        while self.peek_non_space()[0] != EOF:
            n = self.text_or_action()
            if isinstance(n, _End):
                return lst, n
            lst.nodes.append(n)
        self.errorf("unexpected EOF")

    def text_or_action(self):
        tok = self.next_non_space()
        if tok[0] == TEXT:
            return TextNode(tok[2], tok[1])
        if tok[0] == LEFT:
            self.action_pos = tok[2]
            try:
                return self.action()
            finally:
                self.action_pos = -1
        self.unexpected(tok, "input")

    def action(self):
        tok = self.next_non_space()
        t = tok[0]
        if t == K_BLOCK:
            return self.block_control()
        if t == K_BREAK:
            return self.break_control(tok[2], "break")
        if t == K_CONTINUE:
            return self.break_control(tok[2], "continue")
        if t == K_ELSE:
            return self.else_control()
        if t == K_END:
            return _End(self.expect(RIGHT, "end")[2], _END)
        if t == K_IF:
            return IfNode(*self.parse_control("if"))
        if t == K_RANGE:
            return RangeNode(*self.parse_control("range"))
        if t == K_TEMPLATE:
            return self.template_control()
        if t == K_WITH:
            return WithNode(*self.parse_control("with"))
        self.backup()
        tok = self.peek()
        return ActionNode(tok[2], self.pipeline("command", RIGHT))

    def break_control(self, pos, word):
        tok = self.next_non_space()
        if tok[0] != RIGHT:
            self.unexpected(tok, "{{%s}}" % word)
        if self.range_depth == 0:
            self.errorf("{{%s}} outside {{range}}" % word)
        return BreakNode(pos) if word == "break" else ContinueNode(pos)

    def else_control(self):
        peek = self.peek_non_space()
        if peek[0] in (K_IF, K_WITH):
            return _End(peek[2], _ELSE)
        tok = self.expect(RIGHT, "else")
        return _End(tok[2], _ELSE)

    def parse_control(self, context):
        scope = self.scope
        mark_names = len(scope.names)
        mark_bound = len(scope.bound)
        pipe = self.pipeline(context, RIGHT)
        if context == "range":
            self.range_depth += 1
        after_pipe = len(scope.bound)
        lst, nxt = self.item_list()
        if context == "range":
            self.range_depth -= 1
        else_list = None
        if nxt.kind == _ELSE:
            del scope.bound[after_pipe:]
            if context == "if" and self.peek()[0] == K_IF:
                self.next()
                else_list = ListNode(nxt.pos)
                else_list.nodes.append(IfNode(*self.parse_control("if")))
            elif context == "with" and self.peek()[0] == K_WITH:
                self.next()
                else_list = ListNode(nxt.pos)
                else_list.nodes.append(WithNode(*self.parse_control("with")))
            else:
                else_list, nxt = self.item_list()
                if nxt.kind != _END:
                    self.errorf("expected end; found %s" % nxt)
        del scope.names[mark_names:]
        del scope.bound[mark_bound:]
        return pipe.pos, pipe, lst, else_list

    def parse_template_name(self, tok, context):
        if tok[0] in (STRING, RAWSTRING):
            return self.unquote(tok[1])
        self.unexpected(tok, context)

    def template_control(self):
        context = "template clause"
        tok = self.next_non_space()
        name = self.parse_template_name(tok, context)
        pipe = None
        if self.next_non_space()[0] != RIGHT:
            self.backup()
            pipe = self.pipeline(context, RIGHT)
        return TemplateNode(tok[2], name, pipe)

    def block_control(self):
        context = "block clause"
        tok = self.next_non_space()
        name = self.parse_template_name(tok, context)
        pipe = self.pipeline(context, RIGHT)
        outer = self.scope
        tree = Tree(name, self.name, self.text)
        self.scope = _Scope(tree)
        depth = self.range_depth
        self.range_depth = 0
        tree.root, end = self.item_list()
        self.range_depth = depth
        if end.kind != _END:
            self.errorf("unexpected %s in %s" % (end, context))
        self.scope = outer
        self.add(tree)
        return TemplateNode(tok[2], name, pipe)

    # ------------------------------------------------------------ pipelines
    def declare(self, var, elem=False):
        tree = self.scope.tree
        var.slot = tree.nvars
        var.elem = elem
        tree.nvars += 1
        return var

    def resolve(self, name):
        for bname, slot, elem in reversed(self.scope.bound):
            if bname == name:
                return slot, elem
        return None, False

    def pipeline(self, context, end):
        tok = self.peek_non_space()
        pipe = PipeNode(tok[2], [])
        scope = self.scope
        while True:
            v = self.peek_non_space()
            if v[0] != VAR:
                break
            save = self.i
            self.next()
            nxt = self.peek()
            if nxt[0] in (ASSIGN, DECLARE):
                pipe.is_assign = nxt[0] == ASSIGN
                self.next_non_space()
                pipe.decl.append(VariableNode(v[2], v[1]))
                scope.names.append(v[1])
                break
            if nxt[0] == CHAR and nxt[1] == ",":
                self.next_non_space()
                pipe.decl.append(VariableNode(v[2], v[1]))
                scope.names.append(v[1])
                if context == "range" and len(pipe.decl) < 2:
                    if self.peek_non_space()[0] in (VAR, RIGHT, RPAREN):
                        continue
                    self.errorf("range can only initialize variables")
                self.errorf("too many declarations in %s" % context)
            # Not a declaration: put the variable back.
            self.i = save
            break
        while True:
            tok = self.next_non_space()
            t = tok[0]
            if t == end:
                self.check_pipeline(pipe, context)
                break
            if t in _OPERAND_START:
                self.backup()
                pipe.cmds.append(self.command())
            else:
                self.unexpected(tok, context)
        # Bind declared variables after the commands: they see the outer ones.
        if pipe.decl:
            if pipe.is_assign:
                for v in pipe.decl:
                    v.slot = self.resolve(v.ident[0])[0]
            else:
                ranged = context == "range"
                for k, v in enumerate(pipe.decl):
                    elem = ranged and k == len(pipe.decl) - 1
                    self.declare(v, elem)
                    scope.bound.append((v.ident[0], v.slot, elem))
        return pipe

    def check_pipeline(self, pipe, context):
        if not pipe.cmds:
            self.errorf("missing value for %s" % context)
        for i, c in enumerate(pipe.cmds[1:]):
            if isinstance(c.args[0], (BoolNode, DotNode, NilNode, NumberNode, StringNode)):
                self.errorf("non executable command in pipeline stage %d" % (i + 2))

    def command(self):
        cmd = CommandNode(self.peek()[2])
        args = cmd.args
        while True:
            op = self.operand()
            if op is not None:
                args.append(op)
            tok = self.next()
            t = tok[0]
            if t == RIGHT or t == RPAREN:
                self.i -= 1
                break
            if t == PIPE:
                break
            if tok[3] and op is not None:
                # Spaces separate this operand from the next one.
                self.i -= 1
                continue
            self.unexpected(tok, "operand")
        if not args:
            self.errorf("empty command")
        return cmd

    def operand(self):
        node = self.term()
        if node is None:
            return None
        tok = self.peek()
        if tok[0] == FIELD and not tok[3]:
            chain = ChainNode(tok[2], node)
            while tok[0] == FIELD and not tok[3]:
                chain.add(tok[1])
                self.i += 1
                tok = self.peek()
            if isinstance(node, FieldNode):
                return FieldNode(chain.pos, str(chain))
            if isinstance(node, VariableNode):
                var = VariableNode(chain.pos, str(chain))
                var.slot, var.elem = node.slot, node.elem
                return var
            if isinstance(node, (BoolNode, StringNode, NumberNode, NilNode, DotNode)):
                self.errorf("unexpected . after term %s" % go_quote(str(node)))
            return chain
        return node

    def term(self):
        i = self.i
        tok = self.toks[i]
        self.i = i + 1
        if i > self.hi:
            self.hi = i
        t, val, pos = tok[0], tok[1], tok[2]
        if t == FIELD:
            return FieldNode(pos, val)
        if t == IDENT:
            if val not in self.funcs:
                self.errorf("function %s not defined" % go_quote(val))
            self.idents.add(val)
            return IdentifierNode(pos, val)
        if t == STRING or t == RAWSTRING:
            return StringNode(pos, val, self.unquote(val))
        if t == VAR:
            return self.use_var(pos, val)
        if t == DOT:
            return DotNode(pos)
        if t == LPAREN:
            return self.pipeline("parenthesized pipeline", RPAREN)
        if t == NUMBER or t == CHARCONST or t == COMPLEX:
            return self.number(pos, val, t)
        if t == BOOL:
            return BoolNode(pos, val == "true")
        if t == NIL:
            return NilNode(pos)
        self.backup()
        return None

    def use_var(self, pos, name):
        var = VariableNode(pos, name)
        head = var.ident[0]
        if head not in self.scope.names:
            self.errorf("undefined variable %s" % go_quote(head))
        var.slot, var.elem = self.resolve(head)
        return var

    def number(self, pos, text, typ):
        n = NumberNode(pos, text)
        if typ == CHARCONST:
            try:
                r, tail = unquote_char(text[1:], "'")
            except ValueError as exc:
                self.errorf(str(exc))
            if tail != "'":
                self.errorf("malformed character constant: %s" % text)
            n.is_int = n.is_uint = n.is_float = True
            n.int_val = r
            n.float_val = float(r)
            return n
        if typ == COMPLEX or text.endswith("i"):
            c = parse_complex_literal(text)
            if c is None:
                if typ == COMPLEX:
                    self.errorf("expected integer")
            else:
                n.is_complex = True
                n.complex_val = c
                _simplify_complex(n)
                return n
        u = parse_int_literal(text, unsigned=True)
        if u is not None:
            n.is_uint = True
            n.int_val = u
        i = parse_int_literal(text, unsigned=False)
        if i is not None:
            n.is_int = True
            n.int_val = i
            if i == 0:
                n.is_uint = True
        if n.is_int or n.is_uint:
            n.is_float = True
            n.float_val = float(n.int_val)
        else:
            f = parse_float_literal(text)
            if f is not None:
                if not any(ch in text for ch in ".eEpP"):
                    self.errorf("integer overflow: %s" % go_quote(text))
                n.is_float = True
                n.float_val = f
                if math.isfinite(f) and float(int(f)) == f:
                    iv = int(f)
                    if -(1 << 63) <= iv < (1 << 63):
                        n.is_int = True
                        n.int_val = iv
                    elif 0 <= iv < (1 << 64):
                        n.is_uint = True
                        n.int_val = iv
        if not (n.is_int or n.is_uint or n.is_float):
            self.errorf("illegal number syntax: %s" % go_quote(text))
        return n


def _simplify_complex(n):
    """A complex constant with zero imaginary part is also a float (and maybe an int)."""
    c = n.complex_val
    if c.imag == 0:
        n.is_float = True
        n.float_val = c.real
        if float(int(c.real)) == c.real:
            n.is_int = True
            n.int_val = int(c.real)


def parse(name, text, funcs):
    """Parse ``text`` as template ``name``; ``funcs`` is the set of known function names.

    Returns ``{template name: Tree}`` for the text and every define/block in it."""
    return Parser(name, text, funcs).parse()
