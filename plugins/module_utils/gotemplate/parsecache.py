"""Parsed templates kept on disk, so a chart seen before skips lexing and parsing in a fresh process.

Every Ansible task is a new process, so the in-memory parse cache of template.py starts empty each
time. An entry here is the parser's output for one template file — its trees, before they are ever
compiled or run, and the identifiers it looked up as functions — keyed by the template's name and
text, the parser's break/continue switches and ``ENGINE``: a hash of this package's source and the
value model's, so any change to the template engine invalidates every entry. A chart's templates are
one entry for all of them (``save_bundle``, keyed by every name and text), written after a render
parsed them: one file to create and read per chart instead of one per template (hundreds, for the
largest charts); the texts its templates parse with ``tpl`` are one more (``TplPack``), and a single
template parsed on its own has an entry of its own.

Trees are stored as nested tuples of plain values (``encode``) in ``marshal`` format, not pickled:
pickling slotted nodes was the largest cost of a cold kube-prometheus-stack render (0.48 s to write
its trees, against 0.14 s in this form), and marshal reads plain values at C speed. Lists of nodes
are decoded when first read (``_StoredList``), which exec does when it first runs them, and the pipeline
of a simple action that declares nothing is stored as the parser left it, its lexer recipe
(``parser.RecipePipe``: plain tuples already, shared by every occurrence of the action in a template). The text
itself is not stored: the caller has it, and it is part of the key. See diskcache for the guarantees
(atomic writes, corrupt or foreign entries ignored, ``HELMLESS_CACHE=off``).
"""
import marshal

from ..diskcache import MARSHAL_KEY, Store, digest, dumps, enabled
from . import nodes as N
from .parser import RecipePipe

MAX_BYTES = 256 * 1024 * 1024
PACK_MAX_CHARS = 1024 * 1024
# Every module of this package and of the value model it parses literals with (strconv, unquote): the
# parse trees are instances of their classes and their code built them.
ENGINE_MODULES = {
    "gotemplate": ("__init__", "builtins", "calls", "errors", "exec", "lexer", "nodes", "parsecache", "parser",
                   "template"),
    "govalue": ("__init__", "cast", "fmt", "gopath", "re2", "reflect", "signature", "strconv", "unquote", "values"),
}
_state = {}


def engine_digest():
    """Hash of the template engine's source (every module of ENGINE_MODULES), computed once per process."""
    if "engine" not in _state:
        from ..codecache import source_digest  # lazy: importing codecache installs its zip finder; modules opt in
        root = __name__.rsplit(".", 2)[0]
        _state["engine"] = source_digest([root + "." + package + ("" if m == "__init__" else "." + m)
                                          for package, modules in ENGINE_MODULES.items() for m in modules])
    return _state["engine"]


def _store():
    if "store" not in _state:
        _state["store"] = Store("templates", MAX_BYTES) if enabled() else None
    return _state["store"]


def key(name, text, flags):
    return digest("templates", engine_digest(), *MARSHAL_KEY, name, text, repr(flags))


def load(name, text, flags, funcs):
    """``(trees, idents)`` parsed from ``text`` before, or None; only when every ident is in ``funcs``."""
    store = _store()
    if store is None:
        return None
    payload = store.get(key(name, text, flags))
    if payload is None:
        return None
    try:
        return _decoded(name, text, marshal.loads(payload), funcs)
    except (EOFError, ValueError, TypeError, IndexError):  # a damaged or foreign entry is a miss
        return None


def save(name, text, flags, trees, idents):
    """Keep ``trees`` (not yet compiled) for the next process that parses the same text."""
    store = _store()
    if store is not None:
        store.put(key(name, text, flags), dumps(_encoded(trees, idents)))


def bundle_key(items, flags):
    parts = ["bundle", engine_digest(), *MARSHAL_KEY, repr(flags)]
    for name, text in items:
        parts += [name, text]
    return digest(*parts)


def load_bundle(key, items, funcs):
    """``[(trees, idents)]`` for the ``(name, text)`` pairs ``items``, kept together by save_bundle under ``key``
    (their bundle_key), or None."""
    store = _store()
    if store is None:
        return None
    payload = store.get(key)
    if payload is None:
        return None
    try:
        entries = marshal.loads(payload)
        if len(entries) != len(items):
            return None
        payload = None
        found = []
        for index, (name, text) in enumerate(items):  # each template's bytes go once it is decoded
            entry, entries[index] = entries[index], None
            found.append(_decoded(name, text, marshal.loads(entry), funcs))
    except (EOFError, ValueError, TypeError, IndexError):  # a damaged or foreign entry is a miss
        return None
    return None if None in found else found


def save_bundle(key, parsed):
    """Keep the ``(trees, idents)`` of each of a chart's templates as one entry under ``key`` (the bundle_key of
    their ``(name, text)`` pairs, in ``parsed``'s order): a chart's
    templates are one file to read or write, not one each (creating hundreds of files was a third of a
    cold kube-prometheus-stack render). Each template is encoded and marshalled on its own, so the nested
    tuples of one template at a time are alive, not those of the whole chart (15 MB of kube-prometheus-stack's
    peak memory)."""
    store = _store()
    if store is not None:
        store.put(key, dumps([dumps(_encoded(trees, idents)) for trees, idents in parsed]))


class TplPack(object):
    """The trees of the texts a chart's templates parse while they run (``tpl``), kept as one entry next to
    the chart's bundle and keyed by the same templates: a render writes it once, however many texts it
    parsed, instead of an entry per text (istiod's templates parse 32, a fifth of its first render), and the
    next process reads it with the bundle. Texts parsed in one process are added to those read; past
    PACK_MAX_CHARS of text the entry keeps only this process's."""

    def __init__(self, key):
        self.key = key
        self.kept = []  # [(name, text, flags, payload)] as read: written back without encoding them again
        self.added = []  # [(name, text, flags, trees, idents)] parsed by this process

    def read(self, funcs):
        """``[(name, text, flags, trees, idents)]`` of the stored entry, those whose functions ``funcs`` has."""
        store = _store()
        payload = store.get(self.key) if store is not None else None
        if payload is None:
            return []
        found = []
        try:
            kept = marshal.loads(payload)
            for name, text, flags, entry in kept:
                decoded = _decoded(name, text, marshal.loads(entry), funcs)
                if decoded is not None:
                    found.append((name, text, flags) + decoded)
        except (EOFError, ValueError, TypeError, IndexError):  # a damaged or foreign entry is a miss
            return []
        self.kept = kept
        return found

    def add(self, name, text, flags, trees, idents):
        self.added.append((name, text, flags, trees, idents))

    def write(self):
        """Store what was read and what was added, once, if anything was added."""
        store = _store()
        if not self.added or store is None:
            return
        added = [(name, text, flags, dumps(_encoded(trees, idents)))
                 for name, text, flags, trees, idents in self.added]
        fresh = {(name, text, flags) for name, text, flags, _payload in added}
        kept = [entry for entry in self.kept if tuple(entry[:3]) not in fresh]
        if sum(len(entry[1]) for entry in kept + added) > PACK_MAX_CHARS:
            kept = []
        store.put(self.key, dumps(kept + added))
        self.kept, self.added = kept + added, []


def tpl_pack(key):
    """The TplPack of the chart whose templates' bundle_key is ``key``."""
    return TplPack(digest("tpl", key))


def _encoded(trees, idents):
    return tuple(sorted(idents)), [(tname, tree.nvars, encode(tree.root)) for tname, tree in trees.items()]


def _decoded(name, text, entry, funcs):
    """``(trees, idents)`` of one stored entry; None when it uses an ident ``funcs`` lacks."""
    idents, stored = entry
    idents = frozenset(idents)
    if not idents.issubset(funcs):
        return None
    trees = {}
    for tname, nvars, root in stored:
        tree = trees[tname] = N.Tree(tname, name, text)
        tree.nvars = nvars
        tree.root = decode(root)
    return trees, idents


# Node kinds in the stored form: (kind, pos, fields...).
(_LIST, _TEXT, _ACTION, _PIPE, _COMMAND, _IDENT, _VAR, _DOT, _NIL, _FIELD, _CHAIN, _BOOL, _NUMBER,
 _STRING, _IF, _RANGE, _WITH, _BREAK, _CONTINUE, _TEMPLATE, _RECIPE_PIPE) = range(21)


def encode(n):
    """``n`` and its subtree as nested tuples of plain values (what marshal stores)."""
    try:
        return _ENCODERS[n.__class__](n)
    except KeyError:
        raise ValueError("cannot store node %r" % n) from None


# One encoder per node class, each calling its children's directly: a cold render encodes every node of
# the chart (some 54k for kube-prometheus-stack), so no per-node chain of class tests.
_ENCODERS = {}


def _pipe(n):
    return (_PIPE, n.pos, [_ENCODERS[d.__class__](d) for d in n.decl],
            [_ENCODERS[c.__class__](c) for c in n.cmds], n.is_assign)


def _recipe_pipe(n):
    """A RecipePipe as its recipe, unless something built its nodes already."""
    if n.stored is None:
        return _pipe(n)
    commands, base, resolved = n.stored
    return (_RECIPE_PIPE, n.pos, commands, base, resolved)


def _branch(kind):
    def encode_branch(n):
        pipe, other = n.pipe, n.else_list
        return (kind, n.pos, _ENCODERS[pipe.__class__](pipe), _ENCODERS[n.list.__class__](n.list),
                None if other is None else _ENCODERS[other.__class__](other))
    return encode_branch


_ENCODERS.update({
    N.TextNode: lambda n: (_TEXT, n.pos, n.text),
    N.ListNode: lambda n: (_LIST, n.pos, [_ENCODERS[c.__class__](c) for c in n.nodes]),
    N.ActionNode: lambda n: (_ACTION, n.pos, _ENCODERS[n.pipe.__class__](n.pipe)),
    N.PipeNode: _pipe,
    RecipePipe: _recipe_pipe,
    N.CommandNode: lambda n: (_COMMAND, n.pos, [_ENCODERS[a.__class__](a) for a in n.args]),
    N.FieldNode: lambda n: (_FIELD, n.pos, n.ident),
    N.IdentifierNode: lambda n: (_IDENT, n.pos, n.ident),
    N.StringNode: lambda n: (_STRING, n.pos, n.quoted, n.text),
    N.VariableNode: lambda n: (_VAR, n.pos, n.ident, n.slot, n.elem),
    N.DotNode: lambda n: (_DOT, n.pos),
    N.IfNode: _branch(_IF),
    N.RangeNode: _branch(_RANGE),
    N.WithNode: _branch(_WITH),
    N.ChainNode: lambda n: (_CHAIN, n.pos, _ENCODERS[n.node.__class__](n.node), n.field),
    N.NilNode: lambda n: (_NIL, n.pos),
    N.BoolNode: lambda n: (_BOOL, n.pos, n.value),
    N.NumberNode: lambda n: (_NUMBER, n.pos, n.text, n.is_int, n.is_uint, n.is_float, n.is_complex, n.int_val,
                             n.float_val, n.complex_val),
    N.TemplateNode: lambda n: (_TEMPLATE, n.pos, n.name,
                               None if n.pipe is None else _ENCODERS[n.pipe.__class__](n.pipe)),
    N.BreakNode: lambda n: (_BREAK, n.pos),
    N.ContinueNode: lambda n: (_CONTINUE, n.pos),
})


_new = object.__new__
_LIST_NODES = N.ListNode.__dict__["nodes"]  # the slot, under the property of _StoredList


class _StoredList(N.ListNode):
    """A ListNode whose items are decoded when first read.

    exec compiles the body of an if, with or range the first time it runs, so a body that
    never runs (most of a chart whose features are switched off) is never decoded either."""
    __slots__ = ("stored",)

    @property
    def nodes(self):
        try:
            return _LIST_NODES.__get__(self)
        except AttributeError:
            items = list(map(decode, self.stored))
            _LIST_NODES.__set__(self, items)
            self.stored = None  # its tuples are garbage now
            return items


def decode(t):
    """The node ``encode`` gave ``t`` for; slots are set directly, as the parser left them."""
    kind = t[0]
    if kind == _TEXT:
        n = _new(N.TextNode)
        n.pos, n.text = t[1], t[2]
    elif kind == _LIST:
        n = _new(_StoredList)
        n.pos, n.stored = t[1], t[2]
    elif kind == _COMMAND:
        n = _new(N.CommandNode)
        n.pos, n.args = t[1], list(map(decode, t[2]))
    elif kind == _FIELD:
        n = _new(N.FieldNode)
        n.pos, n.ident = t[1], t[2]
    elif kind == _RECIPE_PIPE:
        n = _new(RecipePipe)
        n.pos, n.stored = t[1], t[2:]
    elif kind == _PIPE:
        n = _new(N.PipeNode)
        n.pos, n.decl, n.cmds, n.is_assign = t[1], list(map(decode, t[2])), list(map(decode, t[3])), t[4]
    elif kind == _ACTION:
        n = _new(N.ActionNode)
        n.pos, n.pipe = t[1], decode(t[2])
    elif kind == _IDENT:
        n = _new(N.IdentifierNode)
        n.pos, n.ident = t[1], t[2]
    elif kind == _STRING:
        n = _new(N.StringNode)
        n.pos, n.quoted, n.text = t[1], t[2], t[3]
    elif kind == _VAR:
        n = _new(N.VariableNode)
        n.pos, n.ident, n.slot, n.elem = t[1], t[2], t[3], t[4]
    elif kind == _DOT:
        n = _new(N.DotNode)
        n.pos = t[1]
    elif _IF <= kind <= _WITH:
        n = _new((N.IfNode, N.RangeNode, N.WithNode)[kind - _IF])
        n.pos, n.pipe, n.list = t[1], decode(t[2]), decode(t[3])
        n.else_list = None if t[4] is None else decode(t[4])
    elif kind == _CHAIN:
        n = _new(N.ChainNode)
        n.pos, n.node, n.field = t[1], decode(t[2]), t[3]
    elif kind == _NIL:
        n = _new(N.NilNode)
        n.pos = t[1]
    elif kind == _BOOL:
        n = _new(N.BoolNode)
        n.pos, n.value = t[1], t[2]
    elif kind == _NUMBER:
        n = _new(N.NumberNode)
        (n.pos, n.text, n.is_int, n.is_uint, n.is_float, n.is_complex, n.int_val, n.float_val,
         n.complex_val) = t[1:]
    elif kind == _TEMPLATE:
        n = _new(N.TemplateNode)
        n.pos, n.name, n.pipe = t[1], t[2], None if t[3] is None else decode(t[3])
    elif kind == _BREAK:
        n = _new(N.BreakNode)
        n.pos = t[1]
    elif kind == _CONTINUE:
        n = _new(N.ContinueNode)
        n.pos = t[1]
    else:
        raise ValueError("unknown node kind %r" % (kind,))
    return n
