"""Tokenizer for Go templates, following text/template/parse/lex.go.

The whole text is tokenized up front into ``(type, value, pos)`` tuples (``pos`` is a
character offset into the text).  A lexical error becomes a final ``ERROR`` token, as the
Go lexer emits ``itemError`` and stops; the parser reports it when it gets there.
"""
import re

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
_WORD = re.compile(r"[\w]*")
_SPACES = re.compile(r"[ \t\r\n]+")
_QUOTED = re.compile(r'"(?:[^"\\\n]|\\[^\n])*"')
_CHARC = re.compile(r"'(?:[^'\\\n]|\\[^\n])*'")


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
                append((TEXT, text[pos:], pos))
            append((EOF, "", n))
            return toks
        j = i + 2
        trim = j + 1 < n and text[j] == "-" and text[j + 1] in _SPACE
        if i > pos:
            chunk = text[pos:i]
            if trim:
                chunk = chunk.rstrip(_SPACE)
            if chunk:
                append((TEXT, chunk, pos))
        if trim:
            j += 2
        if text.startswith("/*", j):
            k = text.find("*/", j + 2)
            if k < 0:
                append((ERROR, "unclosed comment", j))
                return toks
            k += 2
            if text.startswith(" -}}", k) or text.startswith("\t-}}", k) or \
                    text.startswith("\r-}}", k) or text.startswith("\n-}}", k):
                pos = k + 4
                while pos < n and text[pos] in _SPACE:
                    pos += 1
            elif text.startswith("}}", k):
                pos = k + 2
            else:
                append((ERROR, "comment ends before closing delimiter", j))
                return toks
            continue
        append((LEFT, "{{", i))
        pos = _lex_action(text, j, toks, break_ok, continue_ok)
        if pos < 0:
            return toks


def _lex_action(text, pos, toks, break_ok, continue_ok):
    """Tokenize inside an action starting at ``pos``; returns the position after ``}}``
    (and its trim), or -1 after an error."""
    append = toks.append
    n = len(text)
    depth = 0
    while True:
        if pos >= n:
            append((ERROR, "unclosed action", pos))
            return -1
        c = text[pos]
        if c == "}" and text.startswith("}}", pos):
            if depth:
                append((ERROR, "unclosed left paren", pos))
                return -1
            append((RIGHT, "}}", pos))
            return pos + 2
        if c in _SPACE:
            if text.startswith("-}}", pos + 1):
                # " -}}": a trim-marked close right here.
                if depth:
                    append((ERROR, "unclosed left paren", pos))
                    return -1
                append((RIGHT, "}}", pos + 2))
                pos += 4
                while pos < n and text[pos] in _SPACE:
                    pos += 1
                return pos
            m = _SPACES.match(text, pos)
            end = m.end()
            if text.startswith("-}}", end):
                end -= 1
            append((SPACE, text[pos:end], pos))
            pos = end
            continue
        start = pos
        if c == "=":
            append((ASSIGN, "=", pos))
            pos += 1
        elif c == ":":
            if not text.startswith(":=", pos):
                append((ERROR, "expected :=", pos))
                return -1
            append((DECLARE, ":=", pos))
            pos += 2
        elif c == "|":
            append((PIPE, "|", pos))
            pos += 1
        elif c == '"':
            m = _QUOTED.match(text, pos)
            if m is None:
                append((ERROR, "unterminated quoted string", pos))
                return -1
            pos = m.end()
            append((STRING, m.group(), start))
        elif c == "`":
            k = text.find("`", pos + 1)
            if k < 0:
                append((ERROR, "unterminated raw quoted string", pos))
                return -1
            pos = k + 1
            append((RAWSTRING, text[start:pos], start))
        elif c == "$":
            pos = _WORD.match(text, pos + 1).end()
            err = _terminator(text, pos)
            if err:
                append((ERROR, err, start))
                return -1
            append((VAR, text[start:pos], start))
        elif c == "'":
            m = _CHARC.match(text, pos)
            if m is None:
                append((ERROR, "unterminated character constant", pos))
                return -1
            pos = m.end()
            append((CHARCONST, m.group(), start))
        elif c == "." and not (pos + 1 < n and "0" <= text[pos + 1] <= "9"):
            pos = _WORD.match(text, pos + 1).end()
            err = _terminator(text, pos)
            if err:
                append((ERROR, err, start))
                return -1
            if pos == start + 1:
                append((DOT, ".", start))
            else:
                append((FIELD, text[start:pos], start))
        elif c in "+-." or "0" <= c <= "9":
            pos = _scan_number(text, pos)
            if pos < 0:
                append((ERROR, "bad number syntax: %s" % _q(text[start:-pos - 1]), start))
                return -1
            typ = NUMBER
            if pos < n and text[pos] in "+-":
                p2 = _scan_number(text, pos)
                if p2 < 0 or text[p2 - 1] != "i":
                    end = -p2 - 1 if p2 < 0 else p2
                    append((ERROR, "bad number syntax: %s" % _q(text[start:end]), start))
                    return -1
                pos = p2
                typ = COMPLEX
            append((typ, text[start:pos], start))
        elif _is_alnum(c):
            pos = _WORD.match(text, pos).end()
            err = _terminator(text, pos)
            if err:
                append((ERROR, err, start))
                return -1
            word = text[start:pos]
            kt = _KEYWORD_TYPE.get(word)
            if kt is not None:
                if (kt == K_BREAK and not break_ok) or (kt == K_CONTINUE and not continue_ok):
                    append((IDENT, word, start))
                else:
                    append((kt, word, start))
            elif word == "true" or word == "false":
                append((BOOL, word, start))
            elif word == "nil":
                append((NIL, word, start))
            else:
                append((IDENT, word, start))
        elif c == "(":
            append((LPAREN, "(", pos))
            depth += 1
            pos += 1
        elif c == ")":
            depth -= 1
            if depth < 0:
                append((ERROR, "unexpected right paren", pos))
                return -1
            append((RPAREN, ")", pos))
            pos += 1
        elif ord(c) < 0x80 and c.isprintable():
            append((CHAR, c, pos))
            pos += 1
        else:
            append((ERROR, "unrecognized character in action: %s" % _u(c), pos))
            return -1


def _q(s):
    from .fmt import go_quote
    return go_quote(s)


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
    from .fmt import go_quote
    if len(val) > 10:
        return go_quote(val[:10]) + "..."
    return go_quote(val)
