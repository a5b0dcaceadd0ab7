"""Block-style YAML output exactly as go-yaml's emitter (``emitterc.go``) writes it.

One emitter serves both ``toYaml`` (yaml.v2: sequences not indented under keys, lines
folded at column 80) and ``toYamlPretty`` (yaml.v3: sequences indented, no folding).
The state variables (column, whitespace, indention, indent) and the scalar writers
follow libyaml's so that indentation, quoting and folding agree byte for byte.
"""
import re
from functools import cmp_to_key

from .resolve import needs_quotes
from ..regexcache import regex

BEST_INDENT = 2
BREAKS = "\r\n\x85\u2028\u2029"

# go-yaml's is_printable: \n, 0x20-0x7E, U+00A0-U+D7FF, U+E000-U+FFFD except the BOM. The classes
# below are spelled as the complement's ranges: a negated class this wide takes Python ~15 ms to
# compile, paid by every task at import.
_SPECIAL = regex("[\x00-\x09\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufeff\ufffe-\U0010ffff]")
_BREAK = regex("[\r\n\x85\u2028\u2029]")
_BREAK_SPACE = regex("[\r\n\x85\u2028\u2029] ")
_SPACE_BREAK = regex(" [\r\n\x85\u2028\u2029]")
_BLOCK_IND = regex(
    "^(?:---|\\.\\.\\.|[#,\\[\\]{}&*!|>'\"%@`]|[?:-](?:[ \t]|\\Z))"
    "|.:(?:[ \t]|\\Z)|[ \t\r\n\x85\u2028\u2029\x00]#", re.S)
# Strings that are certainly plain (no indicator, no special or break character).
_SIMPLE = regex(r"[A-Za-z0-9_/(][A-Za-z0-9_./()=+\-]*(?: +[A-Za-z0-9_./()=+\-]+)*\Z")
_ESCAPE = regex('[\x00-\x1f\x7f-\x9f\ud800-\udfff\ufeff\ufffe-\U0010ffff]|["\\\\\u2028\u2029]')
_ESCAPES = {"\0": "\\0", "\a": "\\a", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\v": "\\v", "\f": "\\f",
            "\r": "\\r", "\x1b": "\\e", '"': '\\"', "\\": "\\\\", "\x85": "\\N", "\xa0": "\\_",
            "\u2028": "\\L", "\u2029": "\\P"}
_SPACES = regex(" +")

PLAIN, SINGLE, DOUBLE, LITERAL = 1, 2, 3, 4


def _escape(m):
    ch = m.group(0)
    e = _ESCAPES.get(ch)
    if e is not None:
        return e
    o = ord(ch)
    if o <= 0xFF:
        return "\\x%02X" % o
    if o <= 0xFFFF:
        return "\\u%04X" % o
    return "\\U%08X" % o


def _digit_run(s, i):
    """The number formed by the digit run at s[i:] (int64 wrap-around as in Go) and its end."""
    n = 0
    j = i
    ln = len(s)
    while j < ln and s[j].isdecimal():
        d = ord(s[j]) - 48
        n = n * 10 + d
        j += 1
    if n >= 1 << 63:
        n = ((n + (1 << 63)) % (1 << 64)) - (1 << 63)
    return n, j


def _natural_cmp(v3):
    """go-yaml's ``keyList.Less`` for string keys as a cmp function (v3 tracks digits)."""
    def cmp(a, b):
        digits = False
        la, lb = len(a), len(b)
        for i in range(min(la, lb)):
            ca, cb = a[i], b[i]
            if ca == cb:
                digits = ca.isdecimal()
                continue
            al, bl = ca.isalpha(), cb.isalpha()
            if al and bl:
                return -1 if ca < cb else 1
            if al or bl:
                if v3 and digits:
                    return -1 if al else 1
                return -1 if bl else 1
            # Go starts both numbers at 1 instead of 0 when a zero follows non-zero digits.
            one = False
            if ca == "0" or cb == "0":
                j = i - 1
                while j >= 0 and a[j].isdecimal():
                    if a[j] != "0":
                        one = True
                        break
                    j -= 1
            na, ai = _digit_run(a, i)
            nb, bi = _digit_run(b, i)
            if one:
                na, nb = _digit_run("1" + a[i:ai], 0)[0], _digit_run("1" + b[i:bi], 0)[0]
            if na != nb:
                return -1 if na < nb else 1
            if ai != bi:
                return -1 if ai < bi else 1
            return -1 if ca < cb else 1
        if la == lb:
            return 0
        return -1 if la < lb else 1
    return cmp


_V2_KEY = cmp_to_key(_natural_cmp(False))
_V3_KEY = cmp_to_key(_natural_cmp(True))
# Keys without digits and non-ASCII: letters after every other character, else code order.
_LETTER_LAST = {c: c + 0x80 for c in range(ord("A"), ord("Z") + 1)}
_LETTER_LAST.update({c: c + 0x80 for c in range(ord("a"), ord("z") + 1)})
_NEEDS_CMP = regex(r"[0-9]|[^\x00-\x7f]")


def sorted_keys(d, v3=False):
    """Map keys in go-yaml's natural order."""
    keys = list(d)
    if len(keys) < 2:
        return keys
    for k in keys:
        if _NEEDS_CMP.search(k):
            keys.sort(key=_V3_KEY if v3 else _V2_KEY)
            return keys
    keys.sort(key=lambda k: k.translate(_LETTER_LAST))
    return keys


_SPECIAL_V3 = regex("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufeff\ufffe-\U0010ffff]")


_SIMPLE_KEYS = {}
_PLAIN_VALUES = {}
# Exact types written by format_scalar; subclasses (Uint8, ...) go through convert().
_FAST_SCALAR_TYPES = frozenset((type(None), bool, int, float))


def _simple_key(k):
    """Whether key ``k`` is written plain as a simple key (cached: keys repeat a lot)."""
    r = _SIMPLE_KEYS.get(k)
    if r is None:
        r = bool(_SIMPLE.match(k)) and len(k) <= 128 and not needs_quotes(k)
        if len(_SIMPLE_KEYS) < 50000:
            _SIMPLE_KEYS[k] = r
    return r


def analyze(s, v3=False):
    """Return (plain_allowed, single_allowed, block_allowed, multiline) in block context.

    yaml.v3 lets a TAB into literal blocks (only plain and single-quoted refuse it).
    """
    if v3:
        special = _SPECIAL_V3.search(s) is not None
        if not special and "\t" in s:
            plain, single, block, multiline = analyze(s.replace("\t", "x"))
            return False, False, block, multiline
    else:
        special = _SPECIAL.search(s) is not None
    line_breaks = _BREAK.search(s) is not None
    break_space = line_breaks and _BREAK_SPACE.search(s) is not None
    space_break = line_breaks and _SPACE_BREAK.search(s) is not None
    first, last = s[0], s[-1]
    edge = first == " " or last == " " or first in BREAKS or last in BREAKS
    plain = not (edge or break_space or space_break or special or line_breaks
                 or _BLOCK_IND.search(s) is not None)
    single = not (break_space or space_break or special)
    block = not (last == " " or space_break or special)
    return plain, single, block, line_breaks


class Emitter(object):
    """Writes one document; ``v3`` selects yaml.v3's layout rules."""

    nil_types = ()

    def __init__(self, v3=False):
        self.v3 = v3
        self.best_width = (1 << 31) - 1 if v3 else 80
        self.out = []
        self.column = 0
        self.whitespace = True
        self.indention = True
        self.indent = -1
        self.indents = []
        self.mapping_context = False
        self.simple_key_context = False

    # -- low level (libyaml's write_indent / write_indicator) ---------------------------
    def write_indent(self):
        indent = self.indent if self.indent > 0 else 0
        if not self.indention or self.column > indent or (self.column == indent and not self.whitespace):
            self.out.append("\n")
            self.column = 0
        if self.column < indent:
            self.out.append(" " * (indent - self.column))
            self.column = indent
        self.whitespace = True
        self.indention = True

    def write_indicator(self, ind, need_ws, is_ws, is_indention):
        if need_ws and not self.whitespace:
            self.out.append(" ")
            self.column += 1
        self.out.append(ind)
        self.column += len(ind)
        self.whitespace = is_ws
        self.indention = self.indention and is_indention

    def increase_indent(self, flow, indentless):
        self.indents.append(self.indent)
        if self.indent < 0:
            self.indent = BEST_INDENT if flow else 0
        elif not indentless:
            self.indent += BEST_INDENT

    # -- nodes ---------------------------------------------------------------------------
    def node(self, v, mapping=False, simple_key=False):
        self.mapping_context = mapping
        self.simple_key_context = simple_key
        if isinstance(v, str):
            self.string(self.prep_str(v))
        elif type(v) in self.nil_types:
            self.scalar("null", PLAIN)
        elif isinstance(v, dict):
            if not v:
                self.write_indicator("{", True, True, False)
                self.write_indicator("}", False, False, False)
            else:
                self.block_mapping(v)
        elif isinstance(v, list):
            if not v:
                self.write_indicator("[", True, True, False)
                self.write_indicator("]", False, False, False)
            else:
                self.block_sequence(v)
        elif v is None or isinstance(v, (bool, int, float)):
            self.scalar(self.format_scalar(v), PLAIN)
        else:
            self.node(self.convert(v), mapping, simple_key)

    def block_sequence(self, seq):
        self.increase_indent(False, (not self.v3) and self.mapping_context and not self.indention)
        ind = self.indent
        out = self.out
        for item in seq:
            text = self.fast_text(item, ind + 2)
            if text is not None:
                # The common case inlined: write_indent, "-", one plain scalar.
                col = self.column
                if not self.indention or col > ind or (col == ind and not self.whitespace):
                    out.append("\n")
                    col = 0
                out.append(" " * (ind - col) + "- " + text if col < ind else "- " + text)
                self.column = ind + 2 + len(text)
                self.whitespace = self.indention = False
                continue
            self.write_indent()
            self.write_indicator("-", True, False, True)
            self.node(item)
        self.indent = self.indents.pop()

    def block_mapping(self, d):
        d = self.prep_keys(d)
        self.increase_indent(False, False)
        ind = self.indent
        out = self.out
        for k in sorted_keys(d, self.v3):
            v = d[k]
            simple = _simple_key(k)
            if simple:
                text = self.fast_text(v, ind + len(k) + 2)
                if text is not None:
                    # The common case inlined: write_indent, plain key, ":", plain scalar.
                    col = self.column
                    if not self.indention or col > ind or (col == ind and not self.whitespace):
                        out.append("\n")
                        col = 0
                    line = k + ": " + text
                    out.append(" " * (ind - col) + line if col < ind else line)
                    self.column = ind + len(line)
                    self.whitespace = self.indention = False
                    continue
            self.write_indent()
            if simple:
                self.mapping_context = True
                self.simple_key_context = True
                self.scalar(k, PLAIN)
                self.write_indicator(":", False, False, False)
            else:
                style, multiline = self.select_style(k, simple_key=True)
                if not multiline and (len(k) if k.isascii() else len(k.encode("utf-8"))) <= 128:
                    self.mapping_context = True
                    self.simple_key_context = True
                    self.scalar(k, style)
                    self.write_indicator(":", False, False, False)
                else:
                    self.write_indicator("?", True, False, True)
                    self.mapping_context = True
                    self.simple_key_context = False
                    self.string(k)
                    self.write_indent()
                    self.write_indicator(":", True, False, True)
            self.node(v, mapping=True)
        self.indent = self.indents.pop()

    def fast_text(self, v, col):
        """The plain one-line text of ``v`` written at column ``col``, or None when the
        general writer is needed (quoting, folding, blocks, containers)."""
        if isinstance(v, str):
            plain = _PLAIN_VALUES.get(v)
            if plain is None:
                plain = bool(_SIMPLE.match(v)) and not needs_quotes(v)
                if len(_PLAIN_VALUES) < 50000:
                    _PLAIN_VALUES[v] = plain
            if not plain or (col + len(v) > self.best_width and " " in v):
                return None
            return v
        if type(v) in _FAST_SCALAR_TYPES:
            return self.format_scalar(v)
        return None

    # -- scalars -------------------------------------------------------------------------
    def select_style(self, s, simple_key):
        if "\n" in s:
            style = LITERAL
        elif needs_quotes(s):
            style = DOUBLE
        else:
            style = PLAIN
        if not s:
            return DOUBLE, False
        plain, single, block, multiline = analyze(s, self.v3)
        if simple_key and multiline:
            style = DOUBLE
        if style == PLAIN and not plain:
            style = SINGLE
        if style == SINGLE and not single:
            style = DOUBLE
        if style == LITERAL and (not block or simple_key):
            style = DOUBLE
        return style, multiline

    def string(self, s):
        if _SIMPLE.match(s) and not needs_quotes(s):
            self.scalar(s, PLAIN)
            return
        style = self.select_style(s, self.simple_key_context)[0]
        self.scalar(s, style)

    def scalar(self, v, style):
        self.increase_indent(True, False)
        allow_breaks = not self.simple_key_context
        if style == PLAIN:
            if not self.whitespace:
                self.out.append(" ")
                self.column += 1
            self.write_folded(v, allow_breaks, PLAIN)
            self.whitespace = False
            self.indention = False
        elif style == SINGLE:
            self.write_indicator("'", True, False, False)
            if _BREAK.search(v):
                self.write_single_multiline(v, allow_breaks)
            else:
                self.write_folded(v.replace("'", "''"), allow_breaks, SINGLE)
            self.write_indicator("'", False, False, False)
            self.whitespace = False
            self.indention = False
        elif style == DOUBLE:
            self.write_indicator('"', True, False, False)
            self.write_folded(_ESCAPE.sub(_escape, v), allow_breaks, DOUBLE)
            self.write_indicator('"', False, False, False)
            self.whitespace = False
            self.indention = False
        else:
            self.write_literal(v)
        self.indent = self.indents.pop()

    def format_scalar(self, v):
        """Plain text of a non-string scalar."""
        if v is None:
            return "null"
        if v is True:
            return "true"
        if v is False:
            return "false"
        return self.format_number(v)

    def format_number(self, v):
        """Plain text of an int or float."""
        raise NotImplementedError

    def prep_keys(self, d):
        """The mapping with its keys prepared like string values."""
        return d

    def prep_str(self, s):
        """A string (value or key) as it reaches the emitter."""
        return s

    def convert(self, v):
        """Another Go value (bytes, struct) in terms of the basic types."""
        raise NotImplementedError

    def write_folded(self, text, allow_breaks, style):
        """Write a one-line scalar body, breaking at a space once column > best_width."""
        col = self.column
        n = len(text)
        if not allow_breaks or col + n <= self.best_width or " " not in text:
            self.out.append(text)
            self.column = col + n
            return
        out = self.out
        start = 0
        indent = self.indent if self.indent > 0 else 0
        for m in _SPACES.finditer(text):
            i = m.start()
            run = m.end() - i
            if col + (i - start) <= self.best_width:
                continue
            if style != PLAIN and (i == 0 or i >= n - 1):
                continue
            if style != DOUBLE and run > 1:
                continue
            out.append(text[start:i])
            out.append("\n" + " " * indent)
            col = indent
            if style == DOUBLE and run > 1:
                out.append("\\")
                col += 1
            start = i + 1
        out.append(text[start:])
        self.column = col + (n - start)

    def write_single_multiline(self, v, allow_breaks):
        spaces = breaks = False
        n = len(v)
        for i, ch in enumerate(v):
            if ch == " ":
                if allow_breaks and not spaces and self.column > self.best_width and 0 < i < n - 1 \
                        and v[i + 1] != " ":
                    self.write_indent()
                else:
                    self.out.append(" ")
                    self.column += 1
                spaces = True
            elif ch in BREAKS:
                if not breaks and ch == "\n":
                    self.out.append("\n")
                    self.column = 0
                self.out.append(ch)
                self.column = 0
                self.indention = True
                breaks = True
            else:
                if breaks:
                    self.write_indent()
                self.out.append("''" if ch == "'" else ch)
                self.column += 2 if ch == "'" else 1
                self.indention = False
                spaces = breaks = False

    def write_literal(self, v):
        self.write_indicator("|", True, False, False)
        if v[0] == " " or v[0] in BREAKS:
            self.write_indicator(str(BEST_INDENT), False, False, False)
        last = v[-1]
        if last not in BREAKS:
            chomp = "-"
        elif len(v) == 1 or v[-2] in BREAKS:
            chomp = "+"
        else:
            chomp = ""
        if chomp:
            self.write_indicator(chomp, False, False, False)
        out = self.out
        out.append("\n")
        pad = " " * (self.indent if self.indent > 0 else 0)
        parts = _BREAK.split(v)
        seps = _BREAK.findall(v)
        for idx, line in enumerate(parts):
            if line:
                out.append(pad + line)
            if idx < len(seps):
                out.append(seps[idx])
        if last in BREAKS:
            self.column = 0
        else:
            self.column = len(pad) + len(parts[-1])
        self.indention = last in BREAKS
        self.whitespace = True

    def document(self, v):
        self.node(v)
        self.write_indent()
        return "".join(self.out)
