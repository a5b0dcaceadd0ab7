"""Sprig regex functions (regex.go) with Go RE2 semantics (see _re2.py)."""
import functools

from ._go import gofunc, GoPanic
from ._re2 import compile_go, quote_meta, RegexpError


def _compile(regex):
    return compile_go(regex)


@gofunc("string", "string")
def mustRegexMatch(regex, s):
    return _compile(regex).rx.search(s) is not None


@gofunc("string", "string")
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
    from ._go import go_quote
    return go_quote(s)


@gofunc("string", "string", "int")
def mustRegexFindAll(regex, s, n):
    return [m.group(0) for m in _compile(regex).matches(s, n)]


@gofunc("string", "string")
def mustRegexFind(regex, s):
    ms = _compile(regex).matches(s, 1)
    return ms[0].group(0) if ms else ""


@gofunc("string", "string", "string")
def mustRegexReplaceAll(regex, s, repl):
    r = _compile(regex)
    return r.replace_all(s, lambda m: r.expand(repl, m))


@gofunc("string", "string", "string")
def mustRegexReplaceAllLiteral(regex, s, repl):
    return _compile(regex).replace_all(s, lambda m: repl)


@gofunc("string", "string", "int")
def mustRegexSplit(regex, s, n):
    return _compile(regex).split(s, n)


@gofunc("string")
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
