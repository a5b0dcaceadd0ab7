"""Tokenizer for Go templates, following text/template/parse/lex.go.

The whole text is tokenized up front into :class:`Token` tuples ``(kind, val, pos, space)``
(``pos`` is a character offset into the text).  Unlike Go, runs of spaces inside actions
are not tokens: each token records whether spaces preceded it, which is all the parser
needs from them.  A lexical error becomes a final ``ERROR`` token, as the
Go lexer emits ``itemError`` and stops; the parser reports it when it gets there.

Most actions are simple (``{{ .Values.x }}``, ``{{ end }}``, ``{{- include "x" . | nindent 4 }}``):
one regular expression (``SIMPLE``) recognizes a whole such action at C speed, and it becomes one
``ACTION`` token whose value is ``(recipe, base)``: the action's structure with positions relative
to ``base`` (see ``_recipe``), which the parser turns into nodes directly (parser.py).  A chart
repeats most of its actions, so recipes are kept by action text and a repeated action costs one
dictionary lookup.  The SIMPLE language is a subset of what the token rules accept, tokenized the
same way, so ``action_tokens`` gives the parser the ordinary tokens of any such action when it
needs them.
"""
import math
import re
from collections import namedtuple

from ..govalue.strconv import go_quote, parse_complex_literal, parse_float_literal, parse_int_literal
from ..govalue.unquote import unquote, unquote_char
from ..regexcache import LazyRegex, regex

# Token kinds, Go's itemType.
(EOF, ERROR, TEXT, LEFT, RIGHT, SPACE, FIELD, IDENT, VAR, STRING, RAWSTRING, CHARCONST,
 NUMBER, COMPLEX, BOOL, DOT, NIL, PIPE, LPAREN, RPAREN, DECLARE, ASSIGN, CHAR, COMMENT,
 ACTION, KEYWORD) = range(26)

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
_TRIM_MARKS = ("- ", "-\t", "-\r", "-\n")
_SPACES = regex("[ \t\r\n]*")


def _is_alnum(ch):
    return ch == "_" or ch.isalpha() or ch.isdigit()


def _u(ch):
    """Go's %#U: U+002D '-'."""
    o = ord(ch)
    s = "U+%04X" % o
    if ch.isprintable():
        s += " '" + ch + "'"
    return s


def word_kinds(break_ok=True, continue_ok=True):
    """{word: token kind} for keywords, booleans and nil; ``break_ok``/``continue_ok``: whether
    those words are keywords (Go turns them into identifiers when the function map defines them)."""
    if break_ok and continue_ok:
        return _WORD_KIND
    words = dict(_WORD_KIND)
    if not break_ok:
        del words["break"]
    if not continue_ok:
        del words["continue"]
    return words


def lex(text, words=None):
    """Tokenize ``text`` with the keywords of ``words`` (see word_kinds; default all of them); returns
    the token list (ending with EOF or ERROR, repeated)."""
    if words is None:
        words = _WORD_KIND
    toks = []
    append = toks.append
    n = len(text)
    pos = 0
    find = text.find
    simple = SIMPLE.match
    recipes = _RECIPES
    spaces = _SPACES.match
    startswith = text.startswith
    while True:
        i = find("{{", pos)
        if i < 0:
            if pos < n:
                append(_new(Token, (TEXT, text[pos:], pos, False)))
            append(_new(Token, (EOF, "", n, False)))
            return _pad(toks)
        j = i + 2
        trim = startswith(_TRIM_MARKS, j)
        if i > pos:
            chunk = text[pos:i]
            if trim:
                chunk = chunk.rstrip(_SPACE)
            if chunk:
                append(_new(Token, (TEXT, chunk, pos, False)))
        if trim:
            j += 2
        if startswith("/*", j):
            k = find("*/", j + 2)
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
        k = find("}}", j) + 2
        recipe = recipes.get(text[j:k])
        if recipe is None:
            m = simple(text, j)
            recipe = None if m is None else _recipe(m, j)
            if recipe is not None:
                if j + recipe[1] + 2 == k:  # its text is the key: no string holds a "}}"
                    if len(recipes) >= 16384:
                        recipes.clear()
                    recipes[text[j:k]] = recipe
                append(_new(Token, (ACTION, (recipe, j), i, False)))
                pos = m.end()
                continue
        else:
            append(_new(Token, (ACTION, (recipe, j), i, False)))
            pos = spaces(text, k).end() if recipe[2] else k
            continue
        append(_new(Token, (LEFT, "{{", i, False)))
        pos = _lex_action(text, j, append, words)
        if pos < 0:
            return _pad(toks)


def action_tokens(text, left, words):
    """The ordinary tokens (LEFT to RIGHT) of the SIMPLE action whose ``{{`` is at ``left``."""
    j = left + 2
    if text[j] == "-" and text[j + 1] in _SPACE:
        j += 2
    toks = [_new(Token, (LEFT, "{{", left, False))]
    _lex_action(text, j, toks.append, words)
    return toks


def _unquote_simple(quoted):
    """strconv.Unquote of a raw string, or of a string without escapes."""
    if quoted[0] == "`":
        return quoted[1:-1].replace("\r", "")
    return quoted[1:-1]


def right_pos(tok):
    """The position of the ``}}`` of an ACTION token (that of the RIGHT token it stands for)."""
    recipe, base = tok.val
    return base + recipe[1]


# Recipe heads and operand kinds.
(R_PIPE, R_END, R_ELSE, R_IF, R_WITH, R_RANGE, R_TEMPLATE, R_DEFINE, R_ELSE_IF, R_ELSE_WITH) = range(10)
_HEADS = {"if": R_IF, "with": R_WITH, "range": R_RANGE}
_ELSE_HEADS = {"if": R_ELSE_IF, "with": R_ELSE_WITH}  # {{else if}}, {{else with}}; {{else range}} is an error
(O_FIELD, O_DOT, O_VAR, O_WORD, O_STRING, O_NUMBER, O_PIPE, O_BOOL, O_NIL, O_BAR, O_CLOSE) = range(11)
_LITERAL_KINDS = (O_DOT, O_STRING, O_NUMBER, O_BOOL, O_NIL)
_PUNCT_OPERANDS = {"|": O_BAR, "(": O_PIPE, ")": O_CLOSE}
_RECIPES = {}
_NO_WORDS = frozenset()


_OPERANDS = {}  # operand text -> _operand's reading of it


def forget():
    """Empty the memo tables of action recipes and operands (see template._parsed)."""
    _RECIPES.clear()
    _OPERANDS.clear()


def _operand(word):
    """``(kind, node position in it, value, extra)`` (see _recipe) of the OPERAND token ``word``
    (O_BAR, O_PIPE, O_CLOSE for "|", "(", ")"); None for a keyword or a string with a bad escape."""
    c = word[0]
    if c == ".":
        if word == ".":
            return (O_DOT, 0, word, None)
        val = word[1:].split(".")
        return (O_FIELD, len(val[0]) + 1 if len(val) > 1 else 0, tuple(val), None)
    if c == "$":
        val = word.split(".")
        return (O_VAR, len(val[0]) if len(val) > 1 else 0, tuple(val), val[0])
    if c == '"' or c == "`":
        if "\\" not in word:
            return (O_STRING, 0, word, _unquote_simple(word))
        try:
            return (O_STRING, 0, word, unquote(word))
        except ValueError:
            return None  # a bad escape: the token rules report it
    if "0" <= c <= "9":
        return (O_NUMBER, 0, word, number_fields(word, NUMBER))
    if c in _PUNCT_OPERANDS:
        return (_PUNCT_OPERANDS[c], 0, word, None)
    wkind = _WORD_KIND.get(word)
    if wkind == BOOL:
        return (O_BOOL, 0, word, word == "true")
    if wkind == NIL:
        return (O_NIL, 0, word, None)
    if wkind is not None and word != "break" and word != "continue":
        return None  # a keyword as operand
    return (O_WORD, 0, word, None)


def _recipe(m, base):
    """The SIMPLE match ``m`` as ``(head, right, trim, name, name_pos, pipe)``, positions relative to ``base``;
    None for an action the token rules reject whatever the functions and variables are (a missing
    pipeline, two variables outside range, a literal after a "|", a keyword as operand).

    ``right``: the ``}}``; ``trim``: whether it is ``-}}``; ``name``: a template's or define's name
    (unquoted) at ``name_pos`` (an ``{{else if}}``'s or ``{{else with}}``'s: the keyword's position);
    ``pipe``: None or ``(pos, declared, is_assign, commands, refs)``, ``declared``
    ``((pos, "$x"), ...)``, ``refs`` ``(frozenset of function names, tuple of variable names in text order)``
    of every command, parenthesized ones included (None in a parenthesized pipeline's own tuple), and a
    command ``(pos, operands)``, an operand ``(kind, pos, value, extra)``:
    O_FIELD (``value`` the ident tuple, ``pos`` at its first chained field as Go places it), O_DOT,
    O_VAR (``value`` the ident tuple, ``extra`` the variable's name), O_WORD (an identifier, or
    break/continue: the parser knows the function names), O_BOOL (``extra`` its value), O_NIL,
    O_STRING (``value`` quoted, ``extra`` unquoted), O_NUMBER (``extra`` its number_fields),
    O_PIPE (``value`` a parenthesized pipeline, ``pos`` its own)."""
    text = m.string
    kw, define, ctl, name, v1, v2, assign, cmds, close = m.groups()
    trim = close[0] == "-"
    right = m.start(9) + trim - base
    if kw is not None:
        return (R_END if kw == "end" else R_ELSE, right, trim, None, None, None)
    if define is not None:
        return (R_DEFINE, right, trim, _unquote_simple(define), None, None)
    head = R_PIPE if ctl is None else _HEADS[ctl]
    name_pos = None
    if ctl is not None and "else" in text[m.start():m.start(3)]:
        head = _ELSE_HEADS.get(ctl)
        if head is None:
            return None
        name_pos = m.start(3) - base  # the keyword's: where Go's else ends (its _End)
    if name is not None:
        head = R_TEMPLATE
        name_pos = m.start(4) - base
        name = _unquote_simple(name)
    if cmds is None:
        if v1 is not None or head != R_TEMPLATE:
            return None
        return (head, right, trim, name, name_pos, None)
    start = m.start(8)
    declared = ()
    if v1 is not None:
        declared = ((m.start(5) - base, v1),)
        if v2 is not None:
            if head != R_RANGE:
                return None
            declared += ((m.start(6) - base, v2),)
    if _several(cmds) is None:
        # One operand (half the actions of a chart: a field, an "if" on one): SIMPLE puts spaces, "|"
        # "(" or ")" between operands (a string holding one takes the loop). What the loop below builds.
        op = _OPERANDS.get(cmds)
        if op is None:
            op = _operand(cmds)
            if op is None:
                return None
            if len(_OPERANDS) >= 16384:
                _OPERANDS.clear()
            _OPERANDS[cmds] = op
        pos = start - base
        kind = op[0]
        pipe = (declared[0][0] if declared else pos, declared, assign is not None,
                [(pos, [(kind, pos + op[1], op[2], op[3])])],
                (frozenset((cmds,)) if kind == O_WORD else _NO_WORDS, (op[3],) if kind == O_VAR else ()))
        return (head, right, trim, name, name_pos, pipe)
    stop = m.end(8)
    cmds = []
    ops = None
    outer = []
    words = []
    variables = []
    operands = _OPERANDS
    new_command = True
    pos = start - base
    for spaces, word in OPERAND.findall(text, start, stop):
        pos += len(spaces)
        first = pos
        pos += len(word)
        op = operands.get(word)
        if op is None:
            op = _operand(word)
            if op is None:
                return None
            if len(operands) >= 16384:
                operands.clear()
            operands[word] = op
        kind = op[0]
        if kind == O_BAR:
            new_command = True
            continue
        if kind == O_CLOSE:
            if not outer:
                return None  # the token rules' "unexpected right paren"
            inner = (cmds[0][0], (), False, cmds, None)
            cmds, ops = outer.pop()
            ops.append((O_PIPE, inner[0], inner, None))
            continue
        if new_command:
            if ops is not None and kind in _LITERAL_KINDS:
                return None  # Go's checkPipeline: "non executable command in pipeline stage"
            ops = []
            cmds.append((first, ops))
            new_command = False
        if kind == O_PIPE:
            outer.append((cmds, ops))
            cmds = []
            ops = None
            new_command = True
        else:
            if kind == O_WORD:
                words.append(word)
            elif kind == O_VAR:
                variables.append(op[3])
            ops.append((kind, first + op[1], op[2], op[3]))
    if outer:
        return None  # the token rules' "unclosed left paren"
    pipe = (declared[0][0] if declared else start - base, declared, assign is not None, cmds,
            (frozenset(words), tuple(variables)))
    return (head, right, trim, name, name_pos, pipe)


# One token inside an action, after the spaces before it.  A word, field or variable must
# end at a terminator (Go's atTerminator); one that does not matches ``badword`` instead.
_TERMINATED = r"(?=[ \t\r\n.,|:)(]|\}\}|\Z)"
_TOKEN = LazyRegex(r"""
    (?P<space>[ \t\r\n]*)
    (?:
      (?P<field>\.(?![0-9])\w*)""" + _TERMINATED + r"""
    | (?P<word>(?![0-9])\w+)""" + _TERMINATED + r"""
    | (?P<close>\}\})
    | (?P<string>"[^"\\\n]*(?:\\[^\n][^"\\\n]*)*")
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

# SIMPLE: a whole action of ASCII fields, variables, words, strings, raw strings, decimal integers
# and parenthesized pipelines without declarations, up to its "}}" (and the spaces a trim eats).
# Every operand is followed by spaces, "|", ")" or the close, as Go's atTerminator wants.  The regex
# only delimits (its groups in the order _recipe unpacks them); OPERAND then reads the operands, and
# the parser checks function and variable names. Parentheses are flat in it (a term is an operand
# after "(" and before ")" runs): a pipeline of any depth is one short regex, whose parentheses
# _recipe pairs (one deep, nested, the regex took four times the steps and left the 4% of actions
# nesting deeper, half of them "and (or ...)" conditions, to the token rules at every occurrence). Quoted strings are written unrolled (runs of plain
# characters between escapes): the same strings, matched in fewer steps (SIMPLE 15% faster). An operand
# is atomic and runs of spaces possessive: going back into either never matches where the whole failed
# (what follows an operand or a run of spaces is never more of it), so SIMPLE stops trying (a fifth faster,
# the same matches and groups for the corpus's 42k distinct actions and 30k variants of them).
_OP = r"""(?>(?:\.[A-Za-z_]\w*)+|\.|\$\w*(?:\.[A-Za-z_]\w*)*|[A-Za-z_]\w*|"[^"\\\n]*(?:\\[^\n][^"\\\n]*)*"|`[^`]*`|0|[1-9][0-9]{0,17})"""


_TERM = r"(?:\([ \t\r\n]*+)*+" + _OP + r"(?:[ \t\r\n]*+\))*"
_PIPELINE = _TERM + r"(?:(?:[ \t\r\n]*+\|[ \t\r\n]*+|[ \t\r\n]++)" + _TERM + ")*"
_VAR = r"\$\w*"
_KEYWORD_WORD = r"(?:block|break|continue|define|else|end|if|range|template|with)(?!\w)"
SIMPLE = LazyRegex(r"""[ \t\r\n]*(?:
      (?P<kw>end|else)
    | define[ \t\r\n]+(?P<define>"[^"\\\n]*"|`[^`]*`)
    | (?:(?:else[ \t\r\n]+)?(?P<ctl>if|with|range)[ \t\r\n]+
       | template[ \t\r\n]+(?P<name>"[^"\\\n]*"|`[^`]*`)(?:[ \t\r\n]+|(?=\}\}))
       | (?!""" + _KEYWORD_WORD + r"""))
      (?:(?P<v1>""" + _VAR + r""")(?:[ \t\r\n]*,[ \t\r\n]*(?P<v2>""" + _VAR + r"""))?
         (?:[ \t\r\n]+(?P<assign>=)|[ \t\r\n]*:=)[ \t\r\n]*)?
      (?P<cmds>""" + _PIPELINE + r""")?
    )[ \t\r\n]*(?P<close>\}\}|(?<=[ \t\r\n])-\}\}[ \t\r\n]*)""", re.X | re.A)
_several = regex(r"[ \t\r\n|()]").search  # in a SIMPLE pipeline, what only comes between operands
# The tokens of a SIMPLE action's pipeline, each with the spaces before it: an operand, "|", "(" or ")".
OPERAND = regex(r"""([ \t\r\n]*)(\||\(|\)|(?:\.[A-Za-z_]\w*)+|\.|\$\w*(?:\.[A-Za-z_]\w*)*|[A-Za-z_]\w*
    |"[^"\\\n]*(?:\\[^\n][^"\\\n]*)*"|`[^`]*`|[0-9]+)""", re.X | re.A)


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


_NUMBERS = {}  # number literal -> its fields: charts repeat a few literals (nindent 4) many times


def number_fields(text, typ):
    """Go's newNumber for a NUMBER, COMPLEX or CHARCONST literal: ``(is_int, is_uint, is_float,
    is_complex, int_val, float_val, complex_val)``, every interpretation it admits; a literal Go
    refuses raises ValueError with Go's message."""
    if typ == NUMBER:
        known = _NUMBERS.get(text)
        if known is None:
            known = _number_fields(text, typ)
            if len(_NUMBERS) >= 4096:
                _NUMBERS.clear()
            _NUMBERS[text] = known
        return known
    return _number_fields(text, typ)


def _number_fields(text, typ):
    is_int = is_uint = is_float = False
    int_val = 0
    float_val = 0.0
    if typ == CHARCONST:
        r, tail = unquote_char(text[1:], "'")
        if tail != "'":
            raise ValueError("malformed character constant: %s" % text)
        return True, True, True, False, r, float(r), 0j
    if typ == COMPLEX or text.endswith("i"):
        c = parse_complex_literal(text)
        if c is None:
            if typ == COMPLEX:
                raise ValueError("expected integer")
        else:
            # A complex constant with zero imaginary part is also a float (and maybe an int).
            if c.imag == 0:
                if float(int(c.real)) == c.real:
                    return True, False, True, True, int(c.real), c.real, c
                return False, False, True, True, 0, c.real, c
            return False, False, False, True, 0, 0.0, c
    u = parse_int_literal(text, unsigned=True)
    if u is not None:
        is_uint = True
        int_val = u
    i = parse_int_literal(text, unsigned=False)
    if i is not None:
        is_int = True
        int_val = i
        if i == 0:
            is_uint = True
    if is_int or is_uint:
        is_float = True
        float_val = float(int_val)
    else:
        f = parse_float_literal(text)
        if f is not None:
            if not any(ch in text for ch in ".eEpP"):
                raise ValueError("integer overflow: %s" % go_quote(text))
            is_float = True
            float_val = f
            if math.isfinite(f) and float(int(f)) == f:
                iv = int(f)
                if -(1 << 63) <= iv < (1 << 63):
                    is_int = True
                    int_val = iv
                elif 0 <= iv < (1 << 64):
                    is_uint = True
                    int_val = iv
    if not (is_int or is_uint or is_float):
        raise ValueError("illegal number syntax: %s" % go_quote(text))
    return is_int, is_uint, is_float, False, int_val, float_val, 0j


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
