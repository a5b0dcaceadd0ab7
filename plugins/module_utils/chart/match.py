"""Path patterns: Go's ``path.Match`` (used by .helmignore) and gobwas/glob (``.Files.Glob``)."""

import re

from ..errors import HelmlessError
from ..regexcache import regex


class BadPattern(HelmlessError, ValueError):
    """Go's ``filepath.ErrBadPattern``."""

    def __init__(self):
        ValueError.__init__(self, "syntax error in pattern")


def _go_class(pattern, i, out):
    """Translate a Go character class starting after ``[``; return the index after ``]``."""
    n = len(pattern)
    negate = i < n and pattern[i] == "^"
    if negate:
        i += 1
    ranges = []
    first = True
    while True:
        if i >= n:
            raise BadPattern()
        if pattern[i] == "]" and not first:
            i += 1
            break
        first = False
        lo, i = _class_char(pattern, i)
        hi = lo
        if i < n and pattern[i] == "-":
            hi, i = _class_char(pattern, i + 1)
        if lo > hi:
            raise BadPattern()
        ranges.append(re.escape(lo) + ("-" + re.escape(hi) if hi != lo else ""))
    out.append("[" + ("^" if negate else "") + "".join(ranges) + "]")
    return i


def _class_char(pattern, i):
    n = len(pattern)
    if i >= n or pattern[i] in "-]":
        raise BadPattern()
    if pattern[i] == "\\":
        i += 1
        if i >= n:
            raise BadPattern()
    return pattern[i], i + 1


def go_match_regex(pattern):
    """Compile Go's ``path.Match`` pattern (``*``, ``?``, ``[^a-z]``, ``\\`` escapes)."""
    out = []
    i, n = 0, len(pattern)
    while i < n:
        ch = pattern[i]
        if ch == "*":
            out.append("[^/]*")
            i += 1
        elif ch == "?":
            out.append("[^/]")
            i += 1
        elif ch == "[":
            i = _go_class(pattern, i + 1, out)
        elif ch == "\\":
            if i + 1 >= n:
                raise BadPattern()
            out.append(re.escape(pattern[i + 1]))
            i += 2
        else:
            out.append(re.escape(ch))
            i += 1
    return regex("(?s)" + "".join(out) + r"\Z")


def go_match(pattern, name):
    """Go's ``path.Match``; raises :class:`BadPattern` for a malformed pattern."""
    return go_match_regex(pattern).match(name) is not None


def glob_regex(pattern):
    """Compile a gobwas/glob pattern with ``/`` as separator.

    ``*`` stays within one path segment, ``**`` crosses segments, ``?`` is one
    non-separator character, ``[a-z]``/``[!a-z]`` are classes, ``{a,b}`` alternatives,
    and ``\\`` escapes.  Raises ``ValueError`` for a malformed pattern.
    """
    out, i = _glob_part(pattern, 0, False)
    if i != len(pattern):
        raise ValueError("unexpected %r" % pattern[i:])
    return regex("(?s)" + out + r"\Z")


def _glob_part(pattern, i, in_braces):
    out = []
    n = len(pattern)
    while i < n:
        ch = pattern[i]
        if in_braces and ch in ",}":
            break
        if ch == "*":
            if i + 1 < n and pattern[i + 1] == "*":
                out.append(".*")
                i += 2
                while i < n and pattern[i] == "*":
                    i += 1
            else:
                out.append("[^/]*")
                i += 1
        elif ch == "?":
            out.append("[^/]")
            i += 1
        elif ch == "[":
            end = pattern.find("]", i + 1)
            if end < 0:
                raise ValueError("unclosed class")
            body = pattern[i + 1:end]
            negate = body.startswith("!")
            if negate:
                body = body[1:]
            if not body:
                raise ValueError("empty class")
            items = []
            j = 0
            while j < len(body):
                if j + 2 < len(body) and body[j + 1] == "-":
                    items.append(re.escape(body[j]) + "-" + re.escape(body[j + 2]))
                    j += 3
                else:
                    items.append(re.escape(body[j]))
                    j += 1
            out.append("[" + ("^/" if negate else "") + "".join(items) + "]")
            i = end + 1
        elif ch == "{":
            alts = []
            i += 1
            while True:
                part, i = _glob_part(pattern, i, True)
                alts.append(part)
                if i >= n:
                    raise ValueError("unclosed alternatives")
                if pattern[i] == "}":
                    i += 1
                    break
                i += 1
            out.append("(?:" + "|".join(alts) + ")")
        elif ch == "\\":
            if i + 1 >= n:
                raise ValueError("dangling escape")
            out.append(re.escape(pattern[i + 1]))
            i += 2
        else:
            out.append(re.escape(ch))
            i += 1
    return "".join(out), i
