"""Tokenizer for Go templates, following text/template/parse/lex.go.

The whole text is tokenized up front into :class:`Token` tuples ``(kind, val, pos, space)``
(``pos`` is a character offset into the text).  Unlike Go, runs of spaces inside actions
are not tokens: each token records whether spaces preceded it, which is all the parser
needs from them.  A lexical error becomes a final ``ERROR`` token, as the
Go lexer emits ``itemError`` and stops; the parser reports it when it gets there.
"""
import re
from collections import namedtuple

from ..govalue.strconv import go_quote

# Token kinds, Go's itemType.
(EOF, ERROR, TEXT, LEFT, RIGHT, SPACE, FIELD, IDENT, VAR, STRING, RAWSTRING, CHARCONST,
 NUMBER, COMPLEX, BOOL, DOT, NIL, PIPE, LPAREN, RPAREN, DECLARE, ASSIGN, CHAR, COMMENT,
 KEYWORD) = range(25)

# Keyword tokens carry their word as value; their kind is KEYWORD + index.
KEYWORDS = ("block", "break", "continue", "define", "else", "end", "if", "range", "template", "with")
K_BLOCK, K_BREAK, K_CONTINUE, K_DEFINE, K_ELSE, K_END, K_IF, K_RANGE, K_TEMPLATE, K_WITH = (
    KEYWORD + i for i in range(len(KEYWORDS)))
_WORD_KIND = dict((w, KEYWORD + i) for i, w in enumerate(KEYWORDS))
_WORD_KIND.update(true=BOOL, false=BOOL, nil=NIL)

Token = namedtuple("Token", "kind val pos space")
Token.__doc__ = """One lexeme: its kind, its text, its offset, and whether spaces preceded it."""
# tuple.__new__ builds a Token in C; Token(...) would run the Python-level __new__ per token.
_new = tuple.__new__

_SPACE = " \t\r\n"


def _is_alnum(ch):
    return ch == "_" or ch.isalpha() or ch.isdigit()


def _u(ch):
    """Go's %#U: U+002D '-'."""
    o = ord(ch)
    s = "U+%04X" % o
    if ch.isprintable():
        s += " '" + ch + "'"
    return s


def lex(text, break_ok=True, continue_ok=True):
    """Tokenize ``text``; returns the token list (ending with EOF or ERROR, repeated).

    ``break_ok``/``continue_ok``: whether those words are keywords (Go turns them into
    identifiers when the function map defines them)."""
    toks = []
    append = toks.append
    n = len(text)
    pos = 0
    words = _WORD_KIND
    if not (break_ok and continue_ok):
        words = dict(words)
        if not break_ok:
            del words["break"]
        if not continue_ok:
            del words["continue"]
    while True:
        i = text.find("{{", pos)
        if i < 0:
            if pos < n:
                append(_new(Token, (TEXT, text[pos:], pos, False)))
            append(_new(Token, (EOF, "", n, False)))
            return _pad(toks)
        j = i + 2
        trim = j + 1 < n and text[j] == "-" and text[j + 1] in _SPACE
        if i > pos:
            chunk = text[pos:i]
            if trim:
                chunk = chunk.rstrip(_SPACE)
            if chunk:
                append(_new(Token, (TEXT, chunk, pos, False)))
        if trim:
            j += 2
        if text.startswith("/*", j):
            k = text.find("*/", j + 2)
            if k < 0:
                append(_new(Token, (ERROR, "unclosed comment", j, False)))
                return _pad(toks)
            k += 2
            if text.startswith(" -}}", k) or text.startswith("\t-}}", k) or \
                    text.startswith("\r-}}", k) or text.startswith("\n-}}", k):
                pos = k + 4
                while pos < n and text[pos] in _SPACE:
                    pos += 1
            elif text.startswith("}}", k):
                pos = k + 2
            else:
                append(_new(Token, (ERROR, "comment ends before closing delimiter", j, False)))
                return _pad(toks)
            continue
        append(_new(Token, (LEFT, "{{", i, False)))
        pos = _lex_action(text, j, append, words)
        if pos < 0:
            return _pad(toks)


# One token inside an action, after the spaces before it.  A word, field or variable must
# end at a terminator (Go's atTerminator); one that does not matches ``badword`` instead.
_TERMINATED = r"(?=[ \t\r\n.,|:)(]|\}\}|\Z)"
_TOKEN = re.compile(r"""
    (?P<space>[ \t\r\n]*)
    (?:
      (?P<field>\.(?![0-9])\w*)""" + _TERMINATED + r"""
    | (?P<word>(?![0-9])\w+)""" + _TERMINATED + r"""
    | (?P<close>\}\})
    | (?P<string>"(?:[^"\\\n]|\\[^\n])*")
    | (?P<var>\$\w*)""" + _TERMINATED + r"""
    | (?P<punct>[=|(),])
    | (?<=[ \t\r\n])(?P<trimclose>-\}\})     # a trim marker needs one space before it
    | (?P<badword>\.(?![0-9])\w*|(?![0-9])\w+|\$\w*)
    | (?P<number>[+\-.0-9])                    # scanned by _scan_number
    | (?P<rawstring>`[^`]*`)
    | (?P<charconst>'(?:[^'\\\n]|\\[^\n])*')
    | (?P<declare>:=)
    | (?P<other>[^ \t\r\n])
    )""", re.X | re.S)
_KIND = {"string": STRING, "var": VAR, "rawstring": RAWSTRING, "charconst": CHARCONST,
         "declare": DECLARE}
_PUNCT = {"=": ASSIGN, "|": PIPE, "(": LPAREN, ")": RPAREN, ",": CHAR}
_UNTERMINATED = {'"': "unterminated quoted string", "`": "unterminated raw quoted string",
                 "'": "unterminated character constant", ":": "expected :="}


def _lex_action(text, pos, append, words):
    """Tokenize inside an action starting at ``pos``; returns the position after ``}}``
    (and its trim), or -1 after an error."""
    n = len(text)
    depth = 0
    match = _TOKEN.match
    kinds = _KIND
    while True:
        m = match(text, pos)
        group = m.lastgroup if m is not None else "space"
        if group == "space":
            # Only spaces up to the end of the text.
            append(_new(Token, (ERROR, "unclosed action", n, True)))
            return -1
        start = m.end(1)
        sp = start > pos
        end = m.end()
        if group == "field":
            if end == start + 1:
                append(_new(Token, (DOT, ".", start, sp)))
            else:
                append(_new(Token, (FIELD, text[start:end], start, sp)))
        elif group == "word":
            word = text[start:end]
            append(_new(Token, (words.get(word, IDENT), word, start, sp)))
        elif group in kinds:
            append(_new(Token, (kinds[group], text[start:end], start, sp)))
        elif group == "close" or group == "trimclose":
            if depth:
                append(_new(Token, (ERROR, "unclosed left paren", start, sp)))
                return -1
            if group == "close":
                append(_new(Token, (RIGHT, "}}", start, sp)))
                return end
            append(_new(Token, (RIGHT, "}}", start + 1, sp)))
            while end < n and text[end] in _SPACE:
                end += 1
            return end
        elif group == "punct":
            c = text[start]
            if c == "(":
                depth += 1
            elif c == ")":
                depth -= 1
                if depth < 0:
                    append(_new(Token, (ERROR, "unexpected right paren", start, sp)))
                    return -1
            append(_new(Token, (_PUNCT[c], c, start, sp)))
        elif group == "number":
            end = _scan_number(text, start)
            if end < 0:
                append(_new(Token, (ERROR, "bad number syntax: %s" % go_quote(text[start:-end - 1]), start, sp)))
                return -1
            kind = NUMBER
            if end < n and text[end] in "+-":
                p2 = _scan_number(text, end)
                if p2 < 0 or text[p2 - 1] != "i":
                    stop = -p2 - 1 if p2 < 0 else p2
                    append(_new(Token, (ERROR, "bad number syntax: %s" % go_quote(text[start:stop]), start, sp)))
                    return -1
                end = p2
                kind = COMPLEX
            append(_new(Token, (kind, text[start:end], start, sp)))
        elif group == "badword":
            append(_new(Token, (ERROR, "bad character %s" % _u(text[end]), start, sp)))
            return -1
        else:
            c = text[start]
            if c in _UNTERMINATED:
                append(_new(Token, (ERROR, _UNTERMINATED[c], start, sp)))
                return -1
            if ord(c) < 0x80 and c.isprintable():
                append(_new(Token, (CHAR, c, start, sp)))
            else:
                append(_new(Token, (ERROR, "unrecognized character in action: %s" % _u(c), start, sp)))
                return -1
        pos = end


def _pad(toks):
    """Repeat the final EOF/ERROR token so the parser may look ahead past it."""
    toks.extend([toks[-1]] * 3)
    return toks


def _accept_run(text, pos, chars):
    n = len(text)
    while pos < n and text[pos] in chars:
        pos += 1
    return pos


def _scan_number(text, pos):
    """Go's scanNumber; returns the end, or ``-end - 1`` when the number is malformed."""
    n = len(text)
    if pos < n and text[pos] in "+-":
        pos += 1
    digits = "0123456789_"
    if pos < n and text[pos] == "0":
        pos += 1
        if pos < n and text[pos] in "xX":
            pos += 1
            digits = "0123456789abcdefABCDEF_"
        elif pos < n and text[pos] in "oO":
            pos += 1
            digits = "01234567_"
        elif pos < n and text[pos] in "bB":
            pos += 1
            digits = "01_"
    pos = _accept_run(text, pos, digits)
    if pos < n and text[pos] == ".":
        pos = _accept_run(text, pos + 1, digits)
    if len(digits) == 11 and pos < n and text[pos] in "eE":
        pos += 1
        if pos < n and text[pos] in "+-":
            pos += 1
        pos = _accept_run(text, pos, "0123456789_")
    if len(digits) == 23 and pos < n and text[pos] in "pP":
        pos += 1
        if pos < n and text[pos] in "+-":
            pos += 1
        pos = _accept_run(text, pos, "0123456789_")
    if pos < n and text[pos] == "i":
        pos += 1
    if pos < n and _is_alnum(text[pos]):
        return -(pos + 1) - 1
    return pos


def token_str(tok):
    """Go's item.String() for error messages."""
    typ, val = tok.kind, tok.val
    if typ == EOF:
        return "EOF"
    if typ == ERROR:
        return val
    if typ >= KEYWORD or typ == NIL or typ == DOT:
        return "<%s>" % val
    if len(val) > 10:
        return go_quote(val[:10]) + "..."
    return go_quote(val)
