"""Tokenizer for Go templates, following text/template/parse/lex.go.

The whole text is tokenized up front into ``(type, value, pos, space_before)`` tuples
(``pos`` is a character offset into the text).  Unlike Go, runs of spaces inside actions
are not tokens: each token records whether spaces preceded it, which is all the parser
needs from them.  A lexical error becomes a final ``ERROR`` token, as the
Go lexer emits ``itemError`` and stops; the parser reports it when it gets there.
"""
import re

from ..govalue.strconv import go_quote

(EOF, ERROR, TEXT, LEFT, RIGHT, SPACE, FIELD, IDENT, VAR, STRING, RAWSTRING, CHARCONST,
 NUMBER, COMPLEX, BOOL, DOT, NIL, PIPE, LPAREN, RPAREN, DECLARE, ASSIGN, CHAR, COMMENT,
 KEYWORD) = range(25)

# Keyword tokens carry their word as value; their type is KEYWORD + index.
KEYWORDS = ("block", "break", "continue", "define", "else", "end", "if", "range", "template", "with")
K_BLOCK, K_BREAK, K_CONTINUE, K_DEFINE, K_ELSE, K_END, K_IF, K_RANGE, K_TEMPLATE, K_WITH = (
    KEYWORD + i for i in range(len(KEYWORDS)))
_KEYWORD_TYPE = dict((w, KEYWORD + i) for i, w in enumerate(KEYWORDS))

_SPACE = " \t\r\n"
_TERMINATORS = frozenset(" \t\r\n.,|:)(")


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
    """Tokenize ``text``; returns the token list (ending with EOF or ERROR)."""
    toks = []
    append = toks.append
    n = len(text)
    pos = 0
    while True:
        i = text.find("{{", pos)
        if i < 0:
            if pos < n:
                append((TEXT, text[pos:], pos, False))
            append((EOF, "", n, False))
            return _pad(toks)
        j = i + 2
        trim = j + 1 < n and text[j] == "-" and text[j + 1] in _SPACE
        if i > pos:
            chunk = text[pos:i]
            if trim:
                chunk = chunk.rstrip(_SPACE)
            if chunk:
                append((TEXT, chunk, pos, False))
        if trim:
            j += 2
        if text.startswith("/*", j):
            k = text.find("*/", j + 2)
            if k < 0:
                append((ERROR, "unclosed comment", j, False))
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
                append((ERROR, "comment ends before closing delimiter", j, False))
                return _pad(toks)
            continue
        append((LEFT, "{{", i, False))
        pos = _lex_action(text, j, toks, break_ok, continue_ok)
        if pos < 0:
            return _pad(toks)


_TOKEN = re.compile(r"""
    ([ \t\r\n]*)                              # 1 spaces before the token
    (?:
      (\}\})                                  # 2 close
    | (?<=[ \t\r\n])(-\}\})                  # 3 trim close (needs one space before it)
    | ("(?:[^"\\\n]|\\[^\n])*")            # 4 string
    | (`[^`]*`)                               # 5 raw string
    | ('(?:[^'\\\n]|\\[^\n])*')            # 6 char constant
    | (\$\w*)                                 # 7 variable
    | (\.(?![0-9])\w*)                        # 8 field or dot
    | ([+\-.0-9])                              # 9 number start
    | (\w+)                                   # 10 identifier, keyword
    | (:=)                                    # 11
    | ([=|(),])                               # 12 punctuation
    | ([^ \t\r\n])                           # 13 anything else
    )""", re.X | re.S)
_PUNCT = {"=": ASSIGN, "|": PIPE, "(": LPAREN, ")": RPAREN, ",": CHAR}


def _lex_action(text, pos, toks, break_ok, continue_ok):
    """Tokenize inside an action starting at ``pos``; returns the position after ``}}``
    (and its trim), or -1 after an error.  Tokens are (type, value, pos, space_before)."""
    append = toks.append
    n = len(text)
    depth = 0
    match = _TOKEN.match
    while True:
        m = match(text, pos)
        if m is None:
            # Only spaces up to the end of the text.
            append((ERROR, "unclosed action", n, True))
            return -1
        k = m.lastindex
        sp = m.end(1) > pos
        start = m.start(k) if k is not None else m.end()
        if k is None or k == 1:
            append((ERROR, "unclosed action", n, True))
            return -1
        end = m.end()
        if k == 2 or k == 3:
            if depth:
                append((ERROR, "unclosed left paren", start, sp))
                return -1
            if k == 2:
                append((RIGHT, "}}", start, sp))
                return end
            append((RIGHT, "}}", start + 1, sp))
            while end < n and text[end] in _SPACE:
                end += 1
            return end
        if k == 8 or k == 7 or k == 10:
            if end < n:
                c = text[end]
                if c not in _TERMINATORS and not text.startswith("}}", end):
                    append((ERROR, "bad character %s" % _u(c), start, sp))
                    return -1
            word = m.group(k)
            if k == 8:
                append((DOT, ".", start, sp) if end == start + 1 else (FIELD, word, start, sp))
            elif k == 7:
                append((VAR, word, start, sp))
            else:
                kt = _KEYWORD_TYPE.get(word)
                if kt is not None:
                    if (kt == K_BREAK and not break_ok) or (kt == K_CONTINUE and not continue_ok):
                        kt = IDENT
                    append((kt, word, start, sp))
                elif word == "true" or word == "false":
                    append((BOOL, word, start, sp))
                elif word == "nil":
                    append((NIL, word, start, sp))
                else:
                    append((IDENT, word, start, sp))
            pos = end
        elif k == 12:
            c = m.group(12)
            if c == "(":
                depth += 1
            elif c == ")":
                depth -= 1
                if depth < 0:
                    append((ERROR, "unexpected right paren", start, sp))
                    return -1
            append((_PUNCT[c], c, start, sp))
            pos = end
        elif k == 4:
            append((STRING, m.group(4), start, sp))
            pos = end
        elif k == 9:
            end = _scan_number(text, start)
            if end < 0:
                append((ERROR, "bad number syntax: %s" % go_quote(text[start:-end - 1]), start, sp))
                return -1
            typ = NUMBER
            if end < n and text[end] in "+-":
                p2 = _scan_number(text, end)
                if p2 < 0 or text[p2 - 1] != "i":
                    stop = -p2 - 1 if p2 < 0 else p2
                    append((ERROR, "bad number syntax: %s" % go_quote(text[start:stop]), start, sp))
                    return -1
                end = p2
                typ = COMPLEX
            append((typ, text[start:end], start, sp))
            pos = end
        elif k == 5:
            append((RAWSTRING, m.group(5), start, sp))
            pos = end
        elif k == 6:
            append((CHARCONST, m.group(6), start, sp))
            pos = end
        elif k == 11:
            append((DECLARE, ":=", start, sp))
            pos = end
        else:
            c = m.group(13)
            if c == '"':
                append((ERROR, "unterminated quoted string", start, sp))
                return -1
            if c == "`":
                append((ERROR, "unterminated raw quoted string", start, sp))
                return -1
            if c == "'":
                append((ERROR, "unterminated character constant", start, sp))
                return -1
            if c == ":":
                append((ERROR, "expected :=", start, sp))
                return -1
            if ord(c) < 0x80 and c.isprintable():
                append((CHAR, c, start, sp))
                pos = end
                continue
            append((ERROR, "unrecognized character in action: %s" % _u(c), start, sp))
            return -1


def _pad(toks):
    """Repeat the final EOF/ERROR token so the parser may look ahead past it."""
    toks.extend([toks[-1]] * 3)
    return toks


def _terminator(text, pos):
    """Go's atTerminator check after a word; returns an error message or None."""
    if pos >= len(text):
        return None
    c = text[pos]
    if c in _TERMINATORS or text.startswith("}}", pos):
        return None
    return "bad character %s" % _u(c)


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
    typ, val = tok[0], tok[1]
    if typ == EOF:
        return "EOF"
    if typ == ERROR:
        return val
    if typ >= KEYWORD or typ == NIL or typ == DOT:
        return "<%s>" % val
    if len(val) > 10:
        return go_quote(val[:10]) + "..."
    return go_quote(val)
