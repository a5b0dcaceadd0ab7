"""TemplateSet: Go's *template.Template with its shared namespace of named templates.

Trees are immutable once parsed and are shared between clones (Helm's ``tpl`` clones the
set for every call), and parse results are cached by text, so re-rendering the same
chart neither re-parses nor re-compiles its templates; parse results also persist on disk
(parsecache), so a fresh process skips parsing what an earlier one parsed.
"""
from ..gcpolicy import paused
from ..govalue.strconv import go_quote
from . import lexer, parsecache
from .builtins import BUILTINS
from .calls import Func, err
from .errors import ExecError
from .exec import UNSET, compile_tree
from .nodes import is_empty_tree
from .parser import Parser

_MISSINGKEY = {"zero": "zero", "error": "error", "default": "default", "invalid": "default"}
_PARSE_CACHE = {}
_PARSE_CACHE_MAX_CHARS = 64 * 1024 * 1024
_cached_chars = [0]


def _remember(key, trees, flags, idents):
    if _cached_chars[0] + len(key[1]) > _PARSE_CACHE_MAX_CHARS:
        _PARSE_CACHE.clear()
        _cached_chars[0] = 0
    _cached_chars[0] += len(key[1])
    _PARSE_CACHE[key] = (trees, flags, idents)


def _parsed():
    """What follows the parsing of a whole set: the lexer's memo tables go. A chart's actions repeat
    within it more than across charts, and the tables would otherwise live through execution (4 MB of
    kube-prometheus-stack's peak)."""
    lexer.forget()


class _Ctx(object):
    """Execution state shared by the closures: the set, its functions, the template name."""
    __slots__ = ("ts", "funcs", "name", "depth")

    def __init__(self, ts, name, depth):
        self.ts = ts
        self.funcs = ts._resolved
        self.name = name
        self.depth = depth

    def enter(self, name):
        return _Ctx(self.ts, name, self.depth + 1)


def _builtins():
    return BUILTINS


class TemplateSet(object):
    """Named templates plus a function map, as Go's template.Template with Funcs/Option.

    ``funcs`` maps names to Python callables (see signature.py); they override the
    builtins, like Go's FuncMap.  ``missingkey`` is Go's option: ``zero`` (Helm),
    ``default``/``invalid`` or ``error``.  ``name`` is the root template's name, used in
    ``no template "x" associated with template "gotpl"``.
    """

    def __init__(self, funcs=None, missingkey="zero", name="gotpl"):
        if missingkey not in _MISSINGKEY:
            raise ValueError("unrecognized option missingkey=%s" % missingkey)
        self.missingkey = _MISSINGKEY[missingkey]
        self.name = name
        self._funcs = dict(_builtins())
        if funcs:
            self._funcs.update(funcs)
        self._resolved = {}
        self._trees = {}
        self._pack = None  # parsecache.TplPack of the chart being rendered (preload), shared by clones

    def add_funcs(self, funcs):
        """Add or replace functions (Go's Funcs)."""
        self._funcs.update(funcs)
        for name in funcs:
            self._resolved.pop(name, None)

    def resolve(self, name, ctx, tree, node):
        """The Func entry for ``name`` (built once, then looked up by the closures)."""
        fn = self._funcs.get(name)
        if fn is None:
            raise err(ctx, tree, node, "%s is not a defined function" % go_quote(name))
        builtin = name if _builtins().get(name) is fn else None
        f = self._resolved[name] = Func(name, fn, builtin)
        return f

    def parse(self, name, text, disk=True):
        """Parse ``text`` as template ``name``; its define/block templates join the set. ``disk``: look
        the text up in (and add it to) the disk cache; preload does that for a whole chart at once, and
        makes the texts parsed after it (``tpl``) one entry (write_pack) instead of one each."""
        self._install(self._parsed_trees(name, text, disk))
        return self

    def parse_new(self, name, text):
        """Go's ``t.New(name).Parse(text)``: parse into the set, and return the tree the new template
        itself executes. That is the text's own tree even when it is empty (blanks, comments, defines
        only) and the set keeps an earlier definition of ``name``: Helm's ``tpl`` runs it, not the set's."""
        trees = self._parsed_trees(name, text, True)
        self._install(trees)
        return trees[name]

    def _parsed_trees(self, name, text, disk):
        key = (name, text)
        funcs = self._funcs
        flags = self._flags()
        hit = self._hit(key, flags)
        if hit is not None:
            return hit[0]
        pack = self._pack if disk else None
        with paused():  # parsing only allocates nodes that live on
            stored = parsecache.load(name, text, flags, funcs) if disk and pack is None else None
            if stored is None:
                parser = Parser(name, text, funcs)
                trees, idents = parser.parse(), frozenset(parser.idents)
                if pack is not None:
                    pack.add(name, text, flags, trees, idents)
                elif disk:
                    parsecache.save(name, text, flags, trees, idents)
            else:
                trees, idents = stored
        _remember(key, trees, flags, idents)
        return trees

    def _install(self, trees):
        """Go's AddParseTree: an empty tree does not replace an existing definition of its name."""
        for tname, tree in trees.items():
            old = self._trees.get(tname)
            if old is not None and is_empty_tree(tree.root) and old.root is not None:
                continue
            self._trees[tname] = tree

    def _flags(self):
        """The parser's switches: ``break`` and ``continue`` are keywords unless functions have those names."""
        return ("break" in self._funcs, "continue" in self._funcs)

    def _hit(self, key, flags):
        hit = _PARSE_CACHE.get(key)
        if hit is not None and hit[1] == flags and hit[2].issubset(self._funcs):
            return hit
        return None

    def preload(self, items):
        """Ready ``parse(name, text, disk=False)`` of each ``(name, text)`` pair of ``items`` from one disk
        cache entry for all of them (parsecache.load_bundle). Returns ``keep()``, to call once every item
        is parsed: it stores that entry when there was none, and drops the lexer's memo tables."""
        funcs = self._funcs
        flags = self._flags()
        missing = [key for key in items if self._hit(key, flags) is None]
        if not missing:
            return _parsed
        key = parsecache.bundle_key(missing, flags)  # hashes every template's text: once per render
        self._pack = parsecache.tpl_pack(key)
        with paused():
            for name, text, pack_flags, trees, idents in self._pack.read(funcs):
                _remember((name, text), trees, pack_flags, idents)
            found = parsecache.load_bundle(key, missing, funcs)
        if found is not None:
            for key, (trees, idents) in zip(missing, found):
                _remember(key, trees, flags, idents)
            return _parsed

        def keep():
            parsed = [self._hit(key, flags) for key in missing]
            if None not in parsed:
                parsecache.save_bundle(key, [(hit[0], hit[2]) for hit in parsed])
            _parsed()
        return keep

    def write_pack(self):
        """Store the texts parsed since preload (see parse) as one entry, once the set has run."""
        if self._pack is not None:
            self._pack.write()

    def has(self, name):
        return name in self._trees

    def names(self):
        return list(self._trees)

    def clone(self):
        """A copy sharing the parsed trees: later parses and add_funcs don't leak back."""
        new = TemplateSet.__new__(TemplateSet)
        new.missingkey = self.missingkey
        new.name = self.name
        new._funcs = dict(self._funcs)
        new._resolved = dict(self._resolved)
        new._trees = dict(self._trees)
        new._pack = self._pack
        return new

    def execute(self, name, data):
        """Execute template ``name`` with ``data`` as dot; returns the raw Go output."""
        tree = self._trees.get(name)
        if tree is None:
            raise ExecError(None, None, None, "template: no template %s associated with template %s"
                            % (go_quote(name), go_quote(self.name)))
        return self.execute_tree(tree, data)

    def execute_tree(self, tree, data):
        """Execute ``tree`` (from parse_new) with ``data`` as dot, in this set."""
        run = tree.compiled or compile_tree(tree)
        out = []
        tvars = [data]
        if tree.nvars > 1:
            tvars.extend([UNSET] * (tree.nvars - 1))
        run(_Ctx(self, tree.name, 0), data, tvars, out.append)
        return "".join(out)
