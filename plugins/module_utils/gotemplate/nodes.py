"""Parse tree nodes (text/template/parse/node.go).

Each node prints itself as Go's ``String()`` does, because execution errors quote the
failing node (``at <.Values.a.b>``).  ``pos`` is a character offset into the tree's text.
"""
from ..govalue.strconv import go_quote


class Tree(object):
    """One named template: its root list, and the file (``parse_name``/``text``) it came from."""
    __slots__ = ("name", "parse_name", "text", "root", "nvars", "compiled")

    def __init__(self, name, parse_name, text):
        self.name = name
        self.parse_name = parse_name
        self.text = text
        self.root = None
        self.nvars = 1
        self.compiled = None

    def location(self, pos):
        """``parse_name:line:col`` with Go's 0-based byte column."""
        text = self.text[:pos]
        nl = text.rfind("\n")
        line = text.count("\n") + 1
        col = text[nl + 1:] if nl >= 0 else text
        return "%s:%d:%d" % (self.parse_name, line, len(col.encode("utf-8", "surrogateescape")))


class Node(object):
    __slots__ = ("pos", "tree")


class ListNode(Node):
    __slots__ = ("nodes",)

    def __init__(self, pos):
        self.pos = pos
        self.nodes = []

    def __str__(self):
        return "".join(str(n) for n in self.nodes)


class TextNode(Node):
    __slots__ = ("text",)

    def __init__(self, pos, text):
        self.pos = pos
        self.text = text

    def __str__(self):
        return self.text


class CommentNode(Node):
    __slots__ = ("text",)

    def __str__(self):
        return "{{" + self.text + "}}"


class PipeNode(Node):
    __slots__ = ("decl", "cmds", "is_assign")

    def __init__(self, pos, decl):
        self.pos = pos
        self.decl = decl
        self.cmds = []
        self.is_assign = False

    def __str__(self):
        s = ""
        if self.decl:
            s = ", ".join(str(v) for v in self.decl) + (" = " if self.is_assign else " := ")
        return s + " | ".join(str(c) for c in self.cmds)


class ActionNode(Node):
    __slots__ = ("pipe",)

    def __init__(self, pos, pipe):
        self.pos = pos
        self.pipe = pipe

    def __str__(self):
        return "{{%s}}" % self.pipe


class CommandNode(Node):
    __slots__ = ("args",)

    def __init__(self, pos):
        self.pos = pos
        self.args = []

    def __str__(self):
        parts = []
        for a in self.args:
            if isinstance(a, PipeNode):
                parts.append("(%s)" % a)
            else:
                parts.append(str(a))
        return " ".join(parts)


class IdentifierNode(Node):
    __slots__ = ("ident",)

    def __init__(self, pos, ident):
        self.pos = pos
        self.ident = ident

    def __str__(self):
        return self.ident


class VariableNode(Node):
    """``$x.a.b``: ``ident`` is ``["$x", "a", "b"]``.  ``slot`` is resolved by the parser."""
    __slots__ = ("ident", "slot", "elem")

    def __init__(self, pos, ident):
        self.pos = pos
        self.ident = ident.split(".")
        self.slot = None
        self.elem = False

    def __str__(self):
        return ".".join(self.ident)


class DotNode(Node):
    __slots__ = ()

    def __init__(self, pos):
        self.pos = pos

    def __str__(self):
        return "."


class NilNode(Node):
    __slots__ = ()

    def __init__(self, pos):
        self.pos = pos

    def __str__(self):
        return "nil"


class FieldNode(Node):
    """``.a.b``: ``ident`` is ``["a", "b"]``."""
    __slots__ = ("ident",)

    def __init__(self, pos, ident):
        self.pos = pos
        self.ident = ident[1:].split(".")

    def __str__(self):
        return "." + ".".join(self.ident)


class ChainNode(Node):
    """``(pipe).a.b``."""
    __slots__ = ("node", "field")

    def __init__(self, pos, node):
        self.pos = pos
        self.node = node
        self.field = []

    def __str__(self):
        if isinstance(self.node, PipeNode):
            s = "(%s)" % self.node
        else:
            s = str(self.node)
        return s + "".join("." + f for f in self.field)


class BoolNode(Node):
    __slots__ = ("value",)

    def __init__(self, pos, value):
        self.pos = pos
        self.value = value

    def __str__(self):
        return "true" if self.value else "false"


class NumberNode(Node):
    __slots__ = ("text", "is_int", "is_uint", "is_float", "is_complex", "int_val", "float_val",
                 "complex_val")

    def __init__(self, pos, text):
        self.pos = pos
        self.text = text
        self.is_int = self.is_uint = self.is_float = self.is_complex = False
        self.int_val = 0
        self.float_val = 0.0
        self.complex_val = 0j

    def __str__(self):
        return self.text


class StringNode(Node):
    __slots__ = ("quoted", "text")

    def __init__(self, pos, quoted, text):
        self.pos = pos
        self.quoted = quoted
        self.text = text

    def __str__(self):
        return self.quoted


class BranchNode(Node):
    __slots__ = ("pipe", "list", "else_list")
    KEYWORD = ""

    def __init__(self, pos, pipe, list_, else_list):
        self.pos = pos
        self.pipe = pipe
        self.list = list_
        self.else_list = else_list

    def __str__(self):
        if self.else_list is not None:
            return "{{%s %s}}%s{{else}}%s{{end}}" % (self.KEYWORD, self.pipe, self.list, self.else_list)
        return "{{%s %s}}%s{{end}}" % (self.KEYWORD, self.pipe, self.list)


class IfNode(BranchNode):
    __slots__ = ()
    KEYWORD = "if"


class RangeNode(BranchNode):
    __slots__ = ()
    KEYWORD = "range"


class WithNode(BranchNode):
    __slots__ = ()
    KEYWORD = "with"


class BreakNode(Node):
    __slots__ = ()

    def __init__(self, pos):
        self.pos = pos

    def __str__(self):
        return "{{break}}"


class ContinueNode(Node):
    __slots__ = ()

    def __init__(self, pos):
        self.pos = pos

    def __str__(self):
        return "{{continue}}"


class TemplateNode(Node):
    __slots__ = ("name", "pipe")

    def __init__(self, pos, name, pipe):
        self.pos = pos
        self.name = name
        self.pipe = pipe

    def __str__(self):
        if self.pipe is None:
            return "{{template %s}}" % go_quote(self.name)
        return "{{template %s %s}}" % (go_quote(self.name), self.pipe)


def is_empty_tree(node):
    """parse.IsEmptyTree: only whitespace text (and comments)."""
    if node is None:
        return True
    if isinstance(node, ListNode):
        return all(is_empty_tree(n) for n in node.nodes)
    if isinstance(node, TextNode):
        return not node.text.strip(" \t\r\n\v\f\x85\xa0")
    if isinstance(node, CommentNode):
        return True
    return False
