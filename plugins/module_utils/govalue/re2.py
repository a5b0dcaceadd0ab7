"""Go ``regexp/syntax`` (RE2, Perl flags) translated to Python ``re``.

A Go pattern is parsed with Go's rules and error messages, then emitted as an equivalent
Python pattern: anchors, ``\\b``, ``\\d``/``\\s``/``\\w`` become their ASCII meanings, flags
become scoped groups, and named groups become numbered ones (names kept aside, since Go
accepts names Python does not).  Matching lives in Sprig's
regex functions (funcs/sprig/regex.py).
"""
import re
import unicodedata

from ..errors import HelmlessError

_MAX_RUNE = 0x10FFFF
_WORD = "[0-9A-Za-z_]"
_PERL = {"d": [(48, 57)], "s": [(9, 10), (12, 13), (32, 32)],
         "w": [(48, 57), (65, 90), (95, 95), (97, 122)]}
_POSIX = {
    "alnum": [(48, 57), (65, 90), (97, 122)], "alpha": [(65, 90), (97, 122)],
    "ascii": [(0, 127)], "blank": [(9, 9), (32, 32)], "cntrl": [(0, 31), (127, 127)],
    "digit": [(48, 57)], "graph": [(33, 126)], "lower": [(97, 122)], "print": [(32, 126)],
    "punct": [(33, 47), (58, 64), (91, 96), (123, 126)],
    "space": [(9, 13), (32, 32)], "upper": [(65, 90)],
    "word": [(48, 57), (65, 90), (95, 95), (97, 122)], "xdigit": [(48, 57), (65, 70), (97, 102)],
}


class RegexpError(HelmlessError):
    """Go's *syntax.Error: ``error parsing regexp: <code>: `<expr>```."""

    def __init__(self, code, expr):
        HelmlessError.__init__(self, "error parsing regexp: %s: `%s`" % (code, expr))


_CAT_TABLE = {}


def _build_categories():
    """Ranges of every Unicode general category, in one pass.  Planes 4-13 hold no
    assigned code points and planes 15-16 are private use, so only their edges are
    examined."""
    table = {}
    spans = [(0, 0x3FFFF), (0xE0000, 0xE0FFF)]
    for lo, hi in spans:
        prev, start = None, lo
        for cp in range(lo, hi + 1):
            c = unicodedata.category(chr(cp))
            if c != prev:
                if prev is not None:
                    table.setdefault(prev, []).append((start, cp - 1))
                prev, start = c, cp
        table.setdefault(prev, []).append((start, hi))
    table.setdefault("Co", []).extend([(0xF0000, 0xFFFFD), (0x100000, 0x10FFFD)])
    return table


def _category_ranges(cat):
    if not _CAT_TABLE:
        _CAT_TABLE.update(_build_categories())
    return [r for c, rs in _CAT_TABLE.items() if c == cat or (len(cat) == 1 and c[0] == cat)
            for r in rs]


_CATS = {"L", "Lu", "Ll", "Lt", "Lm", "Lo", "M", "Mn", "Mc", "Me", "N", "Nd", "Nl", "No",
         "P", "Pc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po", "S", "Sm", "Sc", "Sk", "So",
         "Z", "Zs", "Zl", "Zp", "C", "Cc", "Cf", "Cs", "Co"}


def _negate(ranges):
    out = []
    nxt = 0
    for lo, hi in sorted(ranges):
        if lo > nxt:
            out.append((nxt, lo - 1))
        nxt = max(nxt, hi + 1)
    if nxt <= _MAX_RUNE:
        out.append((nxt, _MAX_RUNE))
    return out


def _char(cp):
    if cp < 128 and (chr(cp).isalnum()):
        return chr(cp)
    if cp <= 0xFFFF:
        return "\\u%04x" % cp
    return "\\U%08x" % cp


def _size(ranges):
    return sum(hi - lo + 1 for lo, hi in ranges)


def _class_text(ranges, negate, fold):
    """The class of ``ranges`` (of every code point but those when ``negate``) as a Python class.

    Python compiles a class one code point at a time up to U+FFFF: ``[^a-z]`` written as its positive
    ranges costs milliseconds, ``[^a-z]`` itself microseconds, so without ``fold`` the smaller form is
    written. Under ``(?i)`` (``fold``) the class keeps the sign it was given: Go folds a class, then
    negates it, which is what Python's ``(?i:[^...])`` matches; a positive class Python folds as Go."""
    rest = _negate(ranges)
    own = _negate(rest)  # ``ranges`` sorted and merged
    if negate:
        own, rest = rest, own
    if not fold:
        negate = _size(rest) < _size(own)
    if negate and not rest:
        return "(?s:.)"
    if not negate and not own:
        return "(?!)"
    parts = []
    for lo, hi in rest if negate else own:
        parts.append(_char(lo) if lo == hi else _char(lo) + "-" + _char(hi))
    return ("[^" if negate else "[") + "".join(parts) + "]"


def _repeat_valid(tree, n):
    """regexp/syntax repeatIsValid: nested counted repeats may not exceed 1000 in total."""
    if tree is None:
        return True
    if tree[0] == "rep":
        m = tree[2]
        if m == 0:
            return True
        if m < 0:
            m = tree[1]
        if m > n:
            return False
        if m > 0:
            n //= m
        return all(_repeat_valid(t, n) for t in tree[3])
    return all(_repeat_valid(t, n) for t in tree[1])


class _Parser(object):
    def __init__(self, expr):
        self.s = expr
        self.i = 0
        self.names = [None]
        self.flags = set()
        self.tree = None

    # -- helpers
    def err(self, code, text):
        raise RegexpError(code, text)

    def wrap(self, text, flag_dependent):
        fl = "".join(f for f in "is" if f in self.flags and f in flag_dependent)
        return "(?%s:%s)" % (fl, text) if fl else text

    # -- grammar
    def parse(self):
        out = self.alternation(0)
        if self.i < len(self.s):
            self.err("unexpected )", self.s)
        return out

    def alternation(self, depth):
        if depth > 1000:
            self.err("expression nests too deeply", self.s)
        branches = [self.concat(depth)]
        trees = [self.tree]
        while self.i < len(self.s) and self.s[self.i] == "|":
            self.i += 1
            branches.append(self.concat(depth))
            trees.append(self.tree)
        self.tree = ("alt", trees)
        return "|".join(branches)

    def concat(self, depth):
        """A sequence of repeated atoms; ``self.tree`` is left describing it (groups and
        counted repeats, for Go's nested repeat-size check)."""
        items, trees = [], []
        while self.i < len(self.s) and self.s[self.i] not in "|)":
            start = self.i
            self.tree = None
            atom = self.atom(depth)
            if atom is None:
                # a bare flag group such as (?i): applies to the rest of this group
                continue
            tree = self.tree
            if isinstance(atom, list):
                # \Q...\E: separate literals, so a repetition applies to the last one
                if not atom:
                    # empty \Q\E: a following repetition applies to the previous item
                    if items and self.i < len(self.s) and self.s[self.i] in "*+?{":
                        text, tree = self.repeat(items.pop(), start, trees.pop())
                        items.append(text)
                        trees.append(tree)
                    continue
                items.extend(atom[:-1])
                trees.extend([None] * (len(atom) - 1))
                atom = atom[-1]
            text, tree = self.repeat(atom, start, tree)
            items.append(text)
            trees.append(tree)
        self.tree = ("cat", trees)
        return "".join(items)

    def repeat(self, atom, start, tree):
        """Apply the repetition operators after an atom: (text, tree)."""
        s = self.s
        last_op = None
        while self.i < len(s):
            c = s[self.i]
            op_start = self.i
            counted = None
            if c in "*+?":
                self.i += 1
                q = c
            elif c == "{":
                m = re.match(r"\{(\d+)(,(\d*))?\}", s[self.i:])
                if not m:
                    break
                lo = int(m.group(1))
                hi = m.group(3)
                if lo > 1000 or (hi and int(hi) > 1000) or (hi and int(hi) < lo):
                    self.err("invalid repeat count", m.group(0))
                self.i += m.end()
                q = m.group(0)
                counted = (lo, lo if m.group(2) is None else (int(hi) if hi else -1))
            else:
                break
            lazy = False
            if self.i < len(s) and s[self.i] == "?":
                self.i += 1
                lazy = True
            if last_op is not None:
                self.err("invalid nested repetition operator", s[last_op:self.i])
            if atom == "":
                self.err("missing argument to repetition operator", s[op_start:self.i])
            if "U" in self.flags:
                lazy = not lazy
            atom = "(?:%s)%s%s" % (atom, q, "?" if lazy else "")
            if counted is None:
                tree = ("star", [tree])
            else:
                tree = ("rep", counted[0], counted[1], [tree])
                if (counted[0] >= 2 or counted[1] >= 2) and not _repeat_valid(tree, 1000):
                    self.err("invalid repeat count", s[op_start:self.i])
            last_op = op_start
        return atom, tree

    def atom(self, depth):
        s = self.s
        c = s[self.i]
        if c in "*+?":
            self.err("missing argument to repetition operator", c)
        if c == "{" and re.match(r"\{(\d+)(,(\d*))?\}", s[self.i:]):
            m = re.match(r"\{(\d+)(,(\d*))?\}", s[self.i:])
            self.err("missing argument to repetition operator", m.group(0))
        if c == "(":
            return self.group(depth)
        if c == "[":
            return self.char_class()
        if c == "\\":
            return self.escape()
        self.i += 1
        if c == ".":
            return "(?s:.)" if "s" in self.flags else "[^\\n]"
        if c == "^":
            return "(?m:^)" if "m" in self.flags else "\\A"
        if c == "$":
            return "(?m:$)" if "m" in self.flags else "\\Z"
        return self.wrap(re.escape(c), "i")

    def group(self, depth):
        s = self.s
        start = self.i
        name = None
        if s.startswith("(?", self.i):
            t = s[self.i:]
            if t.startswith("(?P<") or t.startswith("(?<"):
                begin = 4 if t.startswith("(?P<") else 3
                end = t.find(">")
                if end < 0:
                    if t.startswith("(?P") and not t.startswith("(?P<"):
                        self.err("invalid or unsupported Perl syntax", t[:3])
                    self.err("invalid named capture", t)
                name = t[begin:end]
                if not name or not all(ch.isascii() and (ch.isalnum() or ch == "_") for ch in name):
                    self.err("invalid named capture", t[:end + 1])
                self.i += end + 1
            elif t.startswith("(?P"):
                self.err("invalid or unsupported Perl syntax", t[:3])
            else:
                return self.flag_group(depth, start)
        else:
            self.i += 1
        self.names.append(name)
        return "(" + self._group_body(depth, set(self.flags)) + ")"

    def _group_body(self, depth, outer_flags):
        """A group's alternation up to its ``)``; flags set inside end with the group."""
        body = self.alternation(depth + 1)
        self.tree = ("grp", [self.tree])
        self.flags = outer_flags
        if self.i >= len(self.s) or self.s[self.i] != ")":
            self.err("missing closing )", self.s)
        self.i += 1
        return body

    def flag_group(self, depth, start):
        """Go's parsePerlFlags for ``(?flags)`` and ``(?flags:...)``."""
        s = self.s
        j = self.i + 2
        flags = set(self.flags)
        neg = False
        saw = False
        c = ""
        while j < len(s):
            c = s[j]
            j += 1
            if c in "imsU":
                if neg:
                    flags.discard(c)
                else:
                    flags.add(c)
                saw = True
                continue
            if c == "-":
                if neg:
                    break
                neg, saw = True, False
                continue
            if c in ":)":
                if neg and not saw:
                    break
                self.i = j
                if c == ")":
                    self.flags = flags
                    return None
                saved = self.flags
                self.flags = flags
                return "(?:" + self._group_body(depth, saved) + ")"
            break
        self.err("invalid or unsupported Perl syntax", s[start:j])

    def escape(self):
        s = self.s
        start = self.i
        if self.i + 1 >= len(s):
            self.err("trailing backslash at end of expression", "")
        c = s[self.i + 1]
        self.i += 2
        if c == "A":
            return "\\A"
        if c == "z":
            return "\\Z"
        if c == "b":
            return "(?:(?<=%s)(?!%s)|(?<!%s)(?=%s))" % (_WORD, _WORD, _WORD, _WORD)
        if c == "B":
            return "(?:(?<=%s)(?=%s)|(?<!%s)(?!%s))" % (_WORD, _WORD, _WORD, _WORD)
        if c == "Q":
            end = s.find("\\E", self.i)
            lit = s[self.i:] if end < 0 else s[self.i:end]
            self.i = len(s) if end < 0 else end + 2
            return [self.wrap(re.escape(ch), "i") for ch in lit]
        self.i = start
        found = self.class_escape()
        if found is not None:
            return self.wrap(_class_text(found[0], found[1], "i" in self.flags), "i")
        cp = self.single_escape()
        return self.wrap(re.escape(chr(cp)), "i")

    def class_escape(self):
        """\\d \\s \\w (and negations) or \\p{..}: ``(ranges, negated)``, else None (position kept)."""
        s = self.s
        c = s[self.i + 1]
        if c.lower() in _PERL:
            self.i += 2
            return _PERL[c.lower()], c.isupper()
        if c in "pP":
            start = self.i
            if self.i + 2 >= len(s):
                self.err("invalid character class range", s[start:])
            if s[self.i + 2] == "{":
                end = s.find("}", self.i)
                if end < 0:
                    self.err("invalid character class range", s[start:])
                name = s[self.i + 3:end]
                self.i = end + 1
            else:
                name = s[self.i + 2]
                self.i += 3
            neg = c == "P"
            if name.startswith("^"):
                neg, name = not neg, name[1:]
            if name == "Any":
                r = [(0, _MAX_RUNE)]
            elif name in _CATS:
                r = _category_ranges(name)
            else:
                self.err("invalid character class range", s[start:self.i])
            return r, neg
        return None

    def single_escape(self):
        """A one-rune escape at self.i (the backslash); returns the code point."""
        s = self.s
        start = self.i
        c = s[self.i + 1]
        self.i += 2
        simple = {"a": 7, "f": 12, "t": 9, "n": 10, "r": 13, "v": 11}
        if c in simple:
            return simple[c]
        if c in "01234567":
            if c != "0" and not (self.i < len(s) and s[self.i] in "01234567"):
                self.err("invalid escape sequence", s[start:self.i])
            digits = c
            while len(digits) < 3 and self.i < len(s) and s[self.i] in "01234567":
                digits += s[self.i]
                self.i += 1
            return int(digits, 8)
        if c == "x":
            hexd = "0123456789abcdefABCDEF"
            if self.i >= len(s):
                self.err("invalid escape sequence", s[start:self.i])
            if s[self.i] == "{":
                self.i += 1
                r, nhex = 0, 0
                while True:
                    if self.i >= len(s):
                        self.err("invalid escape sequence", s[start:self.i])
                    h = s[self.i]
                    self.i += 1
                    if h == "}":
                        break
                    if h not in hexd:
                        self.err("invalid escape sequence", s[start:self.i])
                    r = r * 16 + int(h, 16)
                    nhex += 1
                    if r > _MAX_RUNE:
                        self.err("invalid escape sequence", s[start:self.i])
                if nhex == 0:
                    self.err("invalid escape sequence", s[start:self.i])
                return r
            h = s[self.i:self.i + 2]
            self.i += len(h)
            if len(h) < 2 or h[0] not in hexd or h[1] not in hexd:
                self.err("invalid escape sequence", s[start:self.i])
            return int(h, 16)
        if c < "\x80" and not c.isalnum():
            return ord(c)
        self.err("invalid escape sequence", s[start:self.i])

    def char_class(self):
        s = self.s
        start = self.i
        self.i += 1
        neg = False
        if self.i < len(s) and s[self.i] == "^":
            neg = True
            self.i += 1
        ranges = []
        mixed = False  # a negated part: \W, \P{..}, [:^..:]
        first = True
        while self.i < len(s) and (s[self.i] != "]" or first):
            first = False
            if s.startswith("[:", self.i):
                end = s.find(":]", self.i + 2)
                if end >= 0:
                    name = s[self.i + 2:end]
                    pneg = name.startswith("^")
                    cls = _POSIX.get(name.lstrip("^"))
                    if cls is None:
                        self.err("invalid character class range", s[self.i:end + 2])
                    ranges += _negate(cls) if pneg else cls
                    mixed = mixed or pneg
                    self.i = end + 2
                    continue
            if s[self.i] == "\\" and self.i + 1 < len(s):
                found = self.class_escape()
                if found is not None:
                    ranges += _negate(found[0]) if found[1] else found[0]
                    mixed = mixed or found[1]
                    continue
            rstart = self.i
            lo = self.class_char(start)
            hi = lo
            if s.startswith("-", self.i) and self.i + 1 < len(s) and s[self.i + 1] != "]":
                self.i += 1
                hi = self.class_char(start)
                if hi < lo:
                    self.err("invalid character class range", s[rstart:self.i])
            ranges.append((lo, hi))
        if self.i >= len(s):
            self.err("missing closing ]", s[start:])
        self.i += 1
        fold = "i" in self.flags
        if fold and mixed:  # Go folds each part before negating it: Python's folding of the whole is closest
            ranges, neg = (_negate(ranges) if neg else ranges), False
        return self.wrap(_class_text(ranges, neg, fold), "i")

    def class_char(self, class_start):
        s = self.s
        if self.i >= len(s):
            self.err("missing closing ]", s[class_start:])
        if s[self.i] == "\\":
            if self.i + 1 >= len(s):
                self.err("trailing backslash at end of expression", "")
            return self.single_escape()
        c = s[self.i]
        self.i += 1
        return ord(c)


def translate(expr):
    """(Python pattern, group names by number) for the Go pattern ``expr``."""
    p = _Parser(expr)
    return p.parse(), p.names
