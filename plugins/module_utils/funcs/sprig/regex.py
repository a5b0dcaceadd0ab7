"""Sprig regex functions (regex.go) with Go RE2 semantics (see govalue/re2.py)."""
import functools
import re
from functools import lru_cache

from ...govalue.re2 import translate, RegexpError
from ...govalue.signature import go_signature
from ...govalue.strconv import go_quote
from ...govalue.values import StringSlice
from ...goyaml.gojson import NilList
from ._go import GoPanic
from ...regexcache import regex


class GoRegexp(object):
    """A compiled Go regexp: ``rx`` (Python pattern) and ``names`` per group number."""

    def __init__(self, expr):
        pattern, self.names = translate(expr)
        self.expr = expr
        try:
            self.rx = regex(pattern)
        except re.error as exc:
            raise RegexpError("regexp/syntax: internal error", str(exc))

    def matches(self, s, n=-1):
        """Go's allMatches: successive non-overlapping matches (Match objects)."""
        if n < 0:
            n = len(s) + 1
        out = []
        pos, prev_end = 0, -1
        while len(out) < n and pos <= len(s):
            m = self.rx.search(s, pos)
            if m is None:
                break
            accept = True
            if m.end() == pos:
                accept = m.start() != prev_end
                pos += 1
            else:
                pos = m.end()
            prev_end = m.end()
            if accept:
                out.append(m)
        return out

    def expand(self, template, m):
        """Regexp.Expand: $1, ${1}, $name, ${name}, $$."""
        out = []
        t = template
        while t:
            i = t.find("$")
            if i < 0:
                break
            out.append(t[:i])
            t = t[i + 1:]
            if t.startswith("$"):
                out.append("$")
                t = t[1:]
                continue
            name, num, rest = _extract(t)
            if name is None:
                out.append("$")
                continue
            t = rest
            if num >= 0:
                if num <= self.rx.groups and m.group(num) is not None:
                    out.append(m.group(num))
            else:
                for gi, gname in enumerate(self.names):
                    if gname == name and m.group(gi) is not None:
                        out.append(m.group(gi))
                        break
        out.append(t)
        return "".join(out)

    def replace_all(self, s, repl):
        """Go's replaceAll: repl(match) for every match, skipping an empty match
        right after the previous one."""
        out = []
        last = 0
        pos = 0
        n = len(s)
        while pos <= n:
            m = self.rx.search(s, pos)
            if m is None:
                break
            out.append(s[last:m.start()])
            if m.end() > last or m.start() == 0:
                out.append(repl(m))
            last = m.end()
            width = 1 if pos < n else 0
            if pos + width > m.end():
                pos += width
            elif pos + 1 > m.end():
                pos += 1
            else:
                pos = m.end()
        out.append(s[last:])
        return "".join(out)

    def split(self, s, n):
        if n == 0:
            return NilList()
        if self.expr and not s:
            return [""]
        out = []
        beg = end = 0
        for m in self.matches(s, n):
            if n > 0 and len(out) == n - 1:
                break
            end = m.start()
            if m.end() != 0:
                out.append(s[beg:end])
            beg = m.end()
        if end != len(s):
            out.append(s[beg:])
        return out


def _extract(t):
    brace = False
    if t.startswith("{"):
        brace = True
        t = t[1:]
    i = 0
    while i < len(t) and (t[i].isalnum() or t[i] == "_"):
        i += 1
    if i == 0:
        return None, -1, None
    name = t[:i]
    if brace:
        if i >= len(t) or t[i] != "}":
            return None, -1, None
        i += 1
    num = -1
    if name.isdigit() and name.isascii() and not (name[0] == "0" and len(name) > 1):
        num = int(name) if len(name) < 9 else -1
    return name, num, t[i:]


@lru_cache(maxsize=256)
def compile_go(expr):
    return GoRegexp(expr)


def quote_meta(s):
    """regexp.QuoteMeta."""
    return "".join("\\" + c if c in "\\.+*?()|[]{}^$" else c for c in s)


def _compile(regex):
    return compile_go(regex)


@go_signature("string", "string")
def mustRegexMatch(regex, s):
    return _compile(regex).rx.search(s) is not None


@go_signature("string", "string")
def regexMatch(regex, s):
    try:
        return mustRegexMatch(regex, s)
    except RegexpError:
        return False


def _must(fn):
    """The non-must variants use MustCompile: a bad pattern panics."""
    @functools.wraps(fn)
    def wrapper(regex, *args):
        try:
            return fn(regex, *args)
        except RegexpError as exc:
            raise GoPanic("regexp: Compile(%s): %s" % (_go_quote(regex), exc))
    return wrapper


def _go_quote(s):
    """regexp's quote(): backquoted when strconv.CanBackquote allows it."""
    if all((c == "\t" or " " <= c <= "~" or c > "\x7f") and c not in "`\ufeff\ufffd"
           and not "\udc80" <= c <= "\udcff" for c in s):
        return "`" + s + "`"
    return go_quote(s)


@go_signature("string", "string", "int")
def mustRegexFindAll(regex, s, n):
    return StringSlice([m.group(0) for m in _compile(regex).matches(s, n)]) or NilList()


@go_signature("string", "string")
def mustRegexFind(regex, s):
    ms = _compile(regex).matches(s, 1)
    return ms[0].group(0) if ms else ""


@go_signature("string", "string", "string")
def mustRegexReplaceAll(regex, s, repl):
    r = _compile(regex)
    return r.replace_all(s, lambda m: r.expand(repl, m))


@go_signature("string", "string", "string")
def mustRegexReplaceAllLiteral(regex, s, repl):
    return _compile(regex).replace_all(s, lambda m: repl)


@go_signature("string", "string", "int")
def mustRegexSplit(regex, s, n):
    parts = _compile(regex).split(s, n)
    return parts if isinstance(parts, NilList) else StringSlice(parts)


@go_signature("string")
def regexQuoteMeta(s):
    return quote_meta(s)


FUNCS = {
    "regexMatch": regexMatch, "mustRegexMatch": mustRegexMatch,
    "regexFindAll": _must(mustRegexFindAll), "mustRegexFindAll": mustRegexFindAll,
    "regexFind": _must(mustRegexFind), "mustRegexFind": mustRegexFind,
    "regexReplaceAll": _must(mustRegexReplaceAll), "mustRegexReplaceAll": mustRegexReplaceAll,
    "regexReplaceAllLiteral": _must(mustRegexReplaceAllLiteral),
    "mustRegexReplaceAllLiteral": mustRegexReplaceAllLiteral,
    "regexSplit": _must(mustRegexSplit), "mustRegexSplit": mustRegexSplit,
    "regexQuoteMeta": regexQuoteMeta,
}
