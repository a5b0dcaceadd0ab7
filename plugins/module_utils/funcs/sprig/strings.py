"""Sprig string functions (strings.go, goutils, xstrings), byte-exact with Go."""
import secrets
import random as _random

from ...govalue.cast import strval
from ...govalue.fmt import format_value
from ...govalue.signature import go_signature
from ...govalue.strconv import go_quote
from ._go import (
    to_bytes, from_bytes, trim_space, trim_cutset, is_space, is_upper, is_lower, is_title, is_letter,
    is_digit, is_number, is_punct, to_upper, to_lower, to_title, GoPanic,
)

_rand = _random.SystemRandom()


@go_signature()
def hello():
    return "Hello!"


@go_signature("int", "string")
def abbrev(width, s):
    if width < 4:
        return s
    return _abbreviate_full(s, 0, width)


@go_signature("int", "int", "string")
def abbrevboth(left, right, s):
    if right < 4 or (left > 0 and right < 7):
        return s
    return _abbreviate_full(s, left, right)


def _abbreviate_full(s, offset, max_width):
    """goutils.AbbreviateFull (works on bytes)."""
    b = to_bytes(s)
    if not b:
        return ""
    if max_width < 4:
        return s
    n = len(b)
    if n <= max_width:
        return s
    if offset > n:
        offset = n
    if n - offset < max_width - 3:
        offset = n - (max_width - 3)
    ell = b"..."
    if offset <= 4:
        return from_bytes(b[:max_width - 3] + ell)
    if max_width < 7:
        return s
    if offset + max_width - 3 < n:
        inner = _abbreviate_full(from_bytes(b[offset:]), 0, max_width - 3)
        return "..." + inner
    return from_bytes(ell + b[n - (max_width - 3):])


@go_signature("int", "string")
def trunc(c, s):
    if s.isascii():
        if c < 0 and len(s) + c > 0:
            return s[len(s) + c:]
        return s[:c] if c >= 0 else s
    b = to_bytes(s)
    if c < 0 and len(b) + c > 0:
        return from_bytes(b[len(b) + c:])
    if c >= 0 and len(b) > c:
        return from_bytes(b[:c])
    return s


@go_signature("string")
def trim(s):
    return trim_space(s)


@go_signature("string")
def upper(s):
    return "".join(to_upper(c) for c in s)


@go_signature("string")
def lower(s):
    return "".join(to_lower(c) for c in s)


def _is_separator(ch):
    if ch <= "\x7f":
        return not (ch.isascii() and (ch.isalnum() or ch == "_"))
    if is_letter(ch) or is_digit(ch):
        return False
    return is_space(ch)


@go_signature("string")
def title(s):
    """strings.Title."""
    out = []
    prev = " "
    for ch in s:
        out.append(to_title(ch) if _is_separator(prev) else ch)
        prev = ch
    return "".join(out)


@go_signature("string")
def untitle(s):
    """goutils.Uncapitalize: lower the first rune of each space-separated word."""
    out = []
    nxt = True
    for ch in s:
        if is_space(ch):
            nxt = True
            out.append(ch)
        elif nxt:
            out.append(to_lower(ch))
            nxt = False
        else:
            out.append(ch)
    return "".join(out)


def _slice_error(lo, hi, length, form):
    if form == "alen":
        return GoPanic("runtime error: slice bounds out of range [:%d] with length %d" % (hi, length))
    if form == "acap":
        return GoPanic("runtime error: slice bounds out of range [:%d] with capacity %d" % (hi, length))
    return GoPanic("runtime error: slice bounds out of range [%d:%d]" % (lo, hi))


def byte_slice(s, lo, hi):
    """Go's s[lo:hi] on a string, with Go's panic messages."""
    b = to_bytes(s)
    n = len(b)
    if hi is None:
        if lo < 0:
            raise GoPanic("runtime error: slice bounds out of range [%d:]" % lo)
        if lo > n:
            raise GoPanic("runtime error: slice bounds out of range [%d:%d]" % (lo, n))
        return from_bytes(b[lo:])
    if hi < 0:
        raise GoPanic("runtime error: slice bounds out of range [:%d]" % hi)
    if hi > n:
        raise _slice_error(lo, hi, n, "alen")
    if lo is None:
        return from_bytes(b[:hi])
    if lo < 0 or lo > hi:
        raise _slice_error(lo, hi, n, "b")
    return from_bytes(b[lo:hi])


@go_signature("int", "int", "string")
def substr(start, end, s):
    if start < 0:
        return byte_slice(s, None, end)
    if end < 0 or end > len(to_bytes(s)):
        return byte_slice(s, start, None)
    return byte_slice(s, start, end)


@go_signature("int", "string")
def repeat(count, s):
    if count < 0:
        raise GoPanic("strings: negative Repeat count")
    return s * count


@go_signature("string", "string")
def trimAll(a, b):
    return trim_cutset(b, a)


@go_signature("string", "string")
def trimSuffix(a, b):
    return b[:-len(a)] if a and b.endswith(a) else b


@go_signature("string", "string")
def trimPrefix(a, b):
    return b[len(a):] if a and b.startswith(a) else b


@go_signature("string")
def nospace(s):
    """goutils.DeleteWhiteSpace: works on bytes, re-encoding each kept byte as a rune."""
    b = to_bytes(s)
    kept = "".join(chr(c) for c in b if not is_space(chr(c)))
    return s if len(kept) == len(b) else kept


@go_signature("string")
def initials(s):
    """goutils.Initials: iterates bytes, so non-ASCII initials come out as Latin-1 runes."""
    out = []
    gap = True
    for byte in to_bytes(s):
        ch = chr(byte)
        if is_space(ch):
            gap = True
        elif gap:
            out.append(ch)
            gap = False
    return "".join(out)


_ALPHA = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
_NUM = "0123456789"


def _crypto_random(count, chars):
    if count == 0:
        return ""
    if count < 0:
        raise GoPanic("Requested random string length %d is less than 0." % count)
    return "".join(secrets.choice(chars) for _i in range(count))


@go_signature("int")
def randAlphaNum(count):
    return _crypto_random(count, _ALPHA + _NUM) if count >= 0 else ""


@go_signature("int")
def randAlpha(count):
    return _crypto_random(count, _ALPHA) if count >= 0 else ""


@go_signature("int")
def randAscii(count):
    return _crypto_random(count, "".join(chr(c) for c in range(32, 127))) if count >= 0 else ""


@go_signature("int")
def randNumeric(count):
    return _crypto_random(count, _NUM) if count >= 0 else ""


@go_signature("string")
def swapcase(s):
    """goutils.SwapCase (word-based: a lower-case rune after space becomes title case)."""
    out = []
    ws = True
    for ch in s:
        if is_upper(ch) or is_title(ch):
            out.append(to_lower(ch))
            ws = False
        elif is_lower(ch):
            out.append(to_title(ch) if ws else to_upper(ch))
            ws = False
        else:
            out.append(ch)
            ws = is_space(ch)
    return "".join(out)


@go_signature("string")
def shuffle(s):
    runes = list(s)
    _rand.shuffle(runes)
    return "".join(runes)


# ---------------------------------------------------------------- xstrings case

def _is_connector(ch):
    return ch in "-_" or is_space(ch)


def _is_alphabet(ch):
    if not is_letter(ch):
        return False
    o = ord(ch)
    if o < 0x3400:
        return True
    return not (0x3400 <= o <= 0x4DBF or 0x4E00 <= o <= 0x9FFF or 0xF900 <= o <= 0xFAFF
                or 0x20000 <= o <= 0x2FA1F)


_CONNECTOR, _PUNCT, _UPPER, _ALPHAW, _NUMBER, _OTHER = range(1, 7)


def _next_word(s, i):
    """xstrings nextWord over a rune string from index i: (type, word, next index)."""
    n = len(s)
    r = s[i]
    j = i + 1
    if _is_connector(r):
        while j < n and _is_connector(s[j]):
            j += 1
        return _CONNECTOR, s[i:j], j
    if is_punct(r):
        while j < n and is_punct(s[j]):
            j += 1
        return _PUNCT, s[i:j], j
    if is_upper(r):
        if j >= n:
            return _UPPER, s[i:j], j
        r = s[j]
        if is_upper(r):
            prev = j
            j += 1
            while j < n and is_upper(s[j]):
                prev = j
                j += 1
            if j < n and _is_alphabet(s[j]):
                j = prev
        elif _is_alphabet(r):
            j += 1
            while j < n and _is_alphabet(s[j]) and not is_upper(s[j]):
                j += 1
        return _UPPER, s[i:j], j
    if _is_alphabet(r):
        while j < n and _is_alphabet(s[j]) and not is_upper(s[j]):
            j += 1
        return _ALPHAW, s[i:j], j
    if is_number(r):
        while j < n and is_number(s[j]):
            j += 1
        return _NUMBER, s[i:j], j
    while j < n and not (_is_connector(s[j]) or _is_alphabet(s[j]) or is_number(s[j])
                         or is_punct(s[j])):
        j += 1
    return _OTHER, s[i:j], j


def _to_lower(buf, wt, word, conn):
    if wt not in (_UPPER, _CONNECTOR):
        buf.append(word)
        return
    for ch in word:
        if _is_connector(ch):
            buf.append(conn)
        elif is_upper(ch):
            buf.append(to_lower(ch))
        else:
            buf.append(ch)


def _camel_to_lower(s, conn):
    """xstrings camelCaseToLowerCase (ToSnakeCase / ToKebabCase)."""
    if not s:
        return ""
    buf = []
    n = len(s)
    wt, word, pos = _next_word(s, 0)

    def nxt(p):
        if p >= n:
            return 0, "", p
        return _next_word(s, p)

    while pos < n:
        if wt != _CONNECTOR:
            _to_lower(buf, wt, word, conn)
        prev, last = wt, word
        wt, word, pos = nxt(pos)
        if prev == _NUMBER:
            while wt in (_ALPHAW, _NUMBER):
                _to_lower(buf, wt, word, conn)
                wt, word, pos = nxt(pos)
            if wt not in (0, _PUNCT, _CONNECTOR):
                buf.append(conn)
        elif prev == _CONNECTOR:
            _to_lower(buf, prev, last, conn)
        elif prev == _PUNCT:
            pass
        else:
            if wt != _NUMBER:
                if wt not in (_CONNECTOR, _PUNCT):
                    buf.append(conn)
                continue
            if pos >= n:
                continue
            last = word
            wt, word, pos = nxt(pos)
            if wt != _ALPHAW:
                _to_lower(buf, _NUMBER, last, conn)
                if wt not in (_CONNECTOR, _PUNCT):
                    buf.append(conn)
                continue
            buf.append(conn)
            _to_lower(buf, _NUMBER, last, conn)
            while wt in (_ALPHAW, _NUMBER):
                _to_lower(buf, wt, word, conn)
                wt, word, pos = nxt(pos)
            if wt not in (0, _CONNECTOR, _PUNCT):
                buf.append(conn)
    _to_lower(buf, wt, word, conn)
    return "".join(buf)


@go_signature("string")
def snakecase(s):
    return _camel_to_lower(s, "_")


@go_signature("string")
def kebabcase(s):
    return _camel_to_lower(s, "-")


@go_signature("string")
def camelcase(s):
    """xstrings.ToPascalCase."""
    if not s:
        return ""
    buf = []
    i, n = 0, len(s)
    first_upper = False
    r0 = ""
    while i < n:
        r0 = s[i]
        i += 1
        if not _is_connector(r0):
            first_upper = is_upper(r0)
            r0 = to_upper(r0)
            break
        buf.append(r0)
    if i >= n:
        # xstrings writes the last rune again here, even a connector ("_" -> "__").
        buf.append(r0)
        return "".join(buf)
    while i < n:
        r1 = r0
        r0 = s[i]
        i += 1
        if _is_connector(r0) and _is_connector(r1):
            buf.append(r1)
            continue
        if _is_connector(r1):
            first_upper = is_upper(r0)
            r0 = to_upper(r0)
        else:
            if first_upper:
                if is_upper(r0):
                    r0 = to_lower(r0)
                else:
                    first_upper = False
            buf.append(r1)
    buf.append(r0)
    return "".join(buf)


# ---------------------------------------------------------------- wrap

def _wrap_custom(s, width, nl, long_words):
    """goutils.WrapCustom (byte offsets)."""
    b = to_bytes(s)
    if not b:
        return ""
    nlb = to_bytes(nl or "\n")
    if width < 1:
        width = 1
    n = len(b)
    off = 0
    out = bytearray()
    while n - off > width:
        if b[off] == 0x20:
            off += 1
            continue
        end = width + off + 1
        sp = b.rfind(b" ", off, min(end, n))
        if sp >= off:
            out += b[off:sp] + nlb
            off = sp + 1
        elif long_words:
            out += b[off:width + off] + nlb
            off += width
        else:
            e = width + off
            idx = b.find(b" ", e)
            if idx >= 0:
                out += b[off:idx] + nlb
                off = idx + 1
            else:
                out += b[off:]
                off = n
    out += b[off:]
    return from_bytes(bytes(out))


@go_signature("int", "string")
def wrap(width, s):
    return _wrap_custom(s, width, "", False)


@go_signature("int", "string", "string")
def wrapWith(width, sep, s):
    return _wrap_custom(s, width, sep, True)


@go_signature("string", "string")
def contains(sub, s):
    return sub in s


@go_signature("string", "string")
def hasPrefix(p, s):
    return s.startswith(p)


@go_signature("string", "string")
def hasSuffix(p, s):
    return s.endswith(p)


@go_signature(variadic="interface {}")
def quote(*args):
    return " ".join(go_quote(strval(a)) for a in args if a is not None)


@go_signature(variadic="interface {}")
def squote(*args):
    return " ".join("'" + format_value(a) + "'" for a in args if a is not None)


@go_signature(variadic="interface {}")
def cat(*args):
    return " ".join(format_value(a) for a in args if a is not None)


@go_signature("int", "string")
def indent(spaces, s):
    pad = repeat(spaces, " ")
    return pad + s.replace("\n", "\n" + pad)


@go_signature("int", "string")
def nindent(spaces, s):
    return "\n" + indent(spaces, s)


@go_signature("string", "string", "string")
def replace(old, new, src):
    if old == "":
        # strings.Replace with an empty old inserts new around every rune.
        return new + new.join(src) + new if src else new
    return src.replace(old, new)


@go_signature("string", "string", "int")
def plural(one, many, count):
    return one if count == 1 else many


@go_signature("interface {}")
def toString(v):
    return strval(v)


FUNCS = {
    "hello": hello, "abbrev": abbrev, "abbrevboth": abbrevboth, "trunc": trunc,
    "trim": trim, "upper": upper, "lower": lower, "title": title, "untitle": untitle,
    "substr": substr, "repeat": repeat, "trimall": trimAll, "trimAll": trimAll,
    "trimSuffix": trimSuffix, "trimPrefix": trimPrefix, "nospace": nospace,
    "initials": initials, "randAlphaNum": randAlphaNum, "randAlpha": randAlpha,
    "randAscii": randAscii, "randNumeric": randNumeric, "swapcase": swapcase,
    "shuffle": shuffle, "snakecase": snakecase, "camelcase": camelcase,
    "kebabcase": kebabcase, "wrap": wrap, "wrapWith": wrapWith, "contains": contains,
    "hasPrefix": hasPrefix, "hasSuffix": hasSuffix, "quote": quote, "squote": squote,
    "cat": cat, "indent": indent, "nindent": nindent, "replace": replace,
    "plural": plural, "toString": toString,
}
