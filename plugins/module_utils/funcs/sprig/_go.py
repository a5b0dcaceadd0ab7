"""Go's ``unicode`` and ``strings`` rules Sprig's string functions rely on, byte conversion,
and the panic text/template recovers as a call error.

Strings are Python ``str``; Go strings holding invalid UTF-8 carry those bytes as lone
surrogates (``surrogateescape``), the same convention as ``govalue/fmt.py``.
"""
import unicodedata

from ...errors import HelmlessError


# ------------------------------------------------------------------ bytes

def to_bytes(s):
    return s.encode("utf-8", "surrogateescape")


def from_bytes(b):
    return b.decode("utf-8", "surrogateescape")


# ------------------------------------------------------------------ unicode

_SPACE = frozenset("\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
                   "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000")


def is_space(ch):
    """unicode.IsSpace."""
    return ch in _SPACE


def is_upper(ch):
    return unicodedata.category(ch) == "Lu"


def is_lower(ch):
    return unicodedata.category(ch) == "Ll"


def is_title(ch):
    return unicodedata.category(ch) == "Lt"


def is_letter(ch):
    return unicodedata.category(ch)[0] == "L"


def is_digit(ch):
    return unicodedata.category(ch) == "Nd"


def is_number(ch):
    return unicodedata.category(ch)[0] == "N"


def is_punct(ch):
    return unicodedata.category(ch)[0] == "P"


_SPECIAL_LOWER = {"\u0130": "i"}


def to_upper(ch):
    """unicode.ToUpper (simple case mapping: one rune in, one rune out)."""
    if ch < "\x80":
        return ch.upper()
    u = ch.upper()
    return u if len(u) == 1 else ch


def to_lower(ch):
    if ch < "\x80":
        return ch.lower()
    if ch in _SPECIAL_LOWER:
        return _SPECIAL_LOWER[ch]
    u = ch.lower()
    return u if len(u) == 1 else ch


def to_title(ch):
    if ch < "\x80":
        return ch.upper()
    u = ch.title()
    return u if len(u) == 1 else to_upper(ch)


def trim_space(s):
    """strings.TrimSpace."""
    return trim_cutset(s, _SPACE)


def trim_cutset(s, cutset):
    """strings.Trim: drop leading and trailing characters that are in ``cutset``."""
    i, j = 0, len(s)
    while i < j and s[i] in cutset:
        i += 1
    while j > i and s[j - 1] in cutset:
        j -= 1
    return s[i:j]


# ------------------------------------------------------------------ panics

class GoPanic(HelmlessError):
    """A Go runtime panic recovered by text/template as a call error."""
