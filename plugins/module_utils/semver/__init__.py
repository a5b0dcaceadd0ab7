"""Masterminds/semver v3 (version.go, constraints.go), the one library Helm uses both for
Sprig's ``semver``/``semverCompare`` and for chart checks (``metadata.version`` validity,
dependency ``version`` ranges, ``kubeVersion``): loose version coercion, ``||``/``,``/space
AND, hyphen ranges, ``x``/``*`` wildcards, ``~``/``^``, and the rule that prerelease
versions only satisfy constraints that carry a prerelease themselves.
"""
import re
from functools import lru_cache

from ..govalue.strconv import go_quote
from ..govalue.values import GoStruct, Uint64
from ..errors import HelmlessError
from ..regexcache import LazyRegex

_NUM = "0123456789"
_ALLOWED = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-" + _NUM)
_MAX_LEN = 256
_U64 = (1 << 64) - 1


class SemverError(HelmlessError):
    pass


def _valid_idents(s):
    return all(p and set(p) <= _ALLOWED for p in s.split("."))


def _validate_prerelease(p):
    for part in p.split("."):
        if not part:
            raise SemverError("invalid prerelease string")
        if set(part) <= set(_NUM):
            if len(part) > 1 and part[0] == "0":
                raise SemverError("version segment starts with 0")
        elif not set(part) <= _ALLOWED:
            raise SemverError("invalid prerelease string")


def _parse_u64(seg):
    n = int(seg)
    if n > _U64:
        raise SemverError('error parsing version segment: strconv.ParseUint: parsing "%s": '
                          'value out of range' % seg)
    return n


class Version(GoStruct):
    """*semver.Version as templates see it (methods only; prints as String())."""

    GO_TYPE = "*semver.Version"
    GO_METHODS = ("Major", "Minor", "Patch", "Prerelease", "Metadata", "Original", "String",
                  "IncMajor", "IncMinor", "IncPatch", "LessThan", "GreaterThan", "Equal",
                  "Compare", "LessThanEqual", "GreaterThanEqual")

    def __init__(self, major, minor, patch, pre="", meta="", original=""):
        self.major, self.minor, self.patch = major, minor, patch
        self.pre, self.meta, self.original = pre, meta, original

    @classmethod
    def parse(cls, v):
        """semver.NewVersion (CoerceNewVersion)."""
        if len(v) > _MAX_LEN:
            raise SemverError("version string is too long (max %d bytes)" % _MAX_LEN)
        s = v[1:] if v.startswith("v") else v
        meta = pre = ""
        if "+" in s:
            s, meta = s.split("+", 1)
            if not _valid_idents(meta):
                raise SemverError("invalid semantic version")
        if "-" in s:
            s, pre = s.split("-", 1)
            if not _valid_idents(pre):
                raise SemverError("invalid semantic version")
        segs = s.split(".")
        if len(segs) > 3 or any(not x or not set(x) <= set(_NUM) for x in segs):
            raise SemverError("invalid semantic version")
        nums = [_parse_u64(x) for x in segs] + [0] * (3 - len(segs))
        if pre:
            _validate_prerelease(pre)
        return cls(nums[0], nums[1], nums[2], pre, meta, v)

    def String(self):
        s = "%d.%d.%d" % (self.major, self.minor, self.patch)
        if self.pre:
            s += "-" + self.pre
        if self.meta:
            s += "+" + self.meta
        return s

    def Major(self):
        return Uint64(self.major)

    def Minor(self):
        return Uint64(self.minor)

    def Patch(self):
        return Uint64(self.patch)

    def Prerelease(self):
        return self.pre

    def Metadata(self):
        return self.meta

    def Original(self):
        return self.original

    def _prefix(self):
        return "v" if self.original.startswith("v") else ""

    def _next(self, major, minor, patch):
        v = Version(major, minor, patch)
        v.original = self._prefix() + v.String()
        return v

    def IncPatch(self):
        if self.pre:
            return self._next(self.major, self.minor, self.patch)
        return self._next(self.major, self.minor, self.patch + 1)

    def IncMinor(self):
        return self._next(self.major, self.minor + 1, 0)

    def IncMajor(self):
        return self._next(self.major + 1, 0, 0)

    def Compare(self, o):
        return compare(self, o)

    def LessThan(self, o):
        return compare(self, o) < 0

    def LessThanEqual(self, o):
        return compare(self, o) <= 0

    def GreaterThan(self, o):
        return compare(self, o) > 0

    def GreaterThanEqual(self, o):
        return compare(self, o) >= 0

    def Equal(self, o):
        return compare(self, o) == 0

    def go_equal(self, o):
        return (self.major, self.minor, self.patch, self.pre, self.meta, self.original) == \
            (o.major, o.minor, o.patch, o.pre, o.meta, o.original)

    def go_json_value(self):
        """MarshalJSON: a Version marshals as its String()."""
        return self.String()


def _cmp(a, b):
    return (a > b) - (a < b)


def compare(v, o):
    d = _cmp(v.major, o.major) or _cmp(v.minor, o.minor) or _cmp(v.patch, o.patch)
    if d:
        return d
    if not v.pre and not o.pre:
        return 0
    if not v.pre:
        return 1
    if not o.pre:
        return -1
    return _compare_prerelease(v.pre, o.pre)


def _compare_prerelease(a, b):
    sa, sb = a.split("."), b.split(".")
    for i in range(max(len(sa), len(sb))):
        x = sa[i] if i < len(sa) else ""
        y = sb[i] if i < len(sb) else ""
        d = _compare_pre_part(x, y)
        if d:
            return d
    return 0


def _is_num(s):
    return bool(s) and set(s) <= set(_NUM)


def _compare_pre_part(s, o):
    if s == o:
        return 0
    if o == "":
        return 1
    if s == "":
        return -1
    sn, on = _is_num(s), _is_num(o)
    if sn and on:
        return _cmp(int(s), int(o))
    if sn:
        return -1
    if on:
        return 1
    return 1 if s > o else -1


# ------------------------------------------------------------------ constraints

_CV = (r"v?([0-9|x|X|\*]+)(\.[0-9|x|X|\*]+)?(\.[0-9|x|X|\*]+)?"
       r"(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?"
       r"(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?")
_OPS = r"=||!=|>|<|>=|=>|<=|=<|~|~>|\^"
# Compiled on first use: ~2 ms of every task that checks no constraint.
_CONSTRAINT = LazyRegex(r"^\s*(%s)\s*(%s)\s*$" % (_OPS, _CV))
_RANGE = LazyRegex(r"\s*(%s)\s+-\s+(%s)\s*" % (_CV, _CV))
_FIND = LazyRegex(r"(%s)\s*(%s)" % (_OPS, _CV))
_VALID = LazyRegex(r"^(\s*(%s)\s*(%s)\s*\,?)+$" % (_OPS, _CV))


def _is_x(s):
    return s in ("x", "X", "*")


class _Constraint(object):
    def __init__(self, text):
        self.dirty = self.minor_dirty = self.patch_dirty = False
        if not text:
            self.op, self.orig = "", ""
            self.con = Version(0, 0, 0)
            self.dirty = True
            return
        m = _CONSTRAINT.match(text)
        if not m:
            raise SemverError("improper constraint: %s" % go_quote(text))
        self.op, self.orig = m.group(1), m.group(2)
        ver = m.group(2)
        g3, g4, g5, g6 = m.group(3), m.group(4) or "", m.group(5) or "", m.group(6) or ""
        if _is_x(g3):
            ver, self.dirty = "0.0.0%s" % g6, True
        elif _is_x(g4[1:]) or g4 == "":
            self.minor_dirty = self.dirty = True
            ver = "%s.0.0%s" % (g3, g6)
        elif _is_x(g5[1:]) or g5 == "":
            self.dirty = self.patch_dirty = True
            ver = "%s%s.0%s" % (g3, g4, g6)
        try:
            self.con = Version.parse(ver)
        except SemverError:
            raise SemverError("constraint Parser Error")

    def check(self, v):
        c = self.con
        if v.pre and not c.pre:
            return False
        op = self.op
        if op in ("", "="):
            return _tilde(v, self) if self.dirty else compare(v, c) == 0
        if op == "!=":
            if self.dirty:
                if c.major != v.major:
                    return True
                if c.minor != v.minor and not self.minor_dirty:
                    return True
                if self.minor_dirty:
                    return False
                if c.patch != v.patch and not self.patch_dirty:
                    return True
                if self.patch_dirty:
                    if v.pre or c.pre:
                        return _compare_prerelease(v.pre, c.pre) != 0
                    return False
            return compare(v, c) != 0
        if op == ">":
            if not self.dirty:
                return compare(v, c) == 1
            if v.major != c.major:
                return v.major > c.major
            if self.minor_dirty:
                return False
            if self.patch_dirty:
                return v.minor > c.minor
            return compare(v, c) == 1
        if op == "<":
            return compare(v, c) < 0
        if op in (">=", "=>"):
            return compare(v, c) >= 0
        if op in ("<=", "=<"):
            if not self.dirty:
                return compare(v, c) <= 0
            if v.major > c.major:
                return False
            if v.major == c.major and v.minor > c.minor and not self.minor_dirty:
                return False
            return True
        if op in ("~", "~>"):
            return _tilde(v, self)
        if op == "^":
            if compare(v, c) < 0:
                return False
            if c.major > 0 or self.minor_dirty:
                return v.major == c.major
            if c.major == 0 and v.major > 0:
                return False
            if c.minor > 0 or self.patch_dirty:
                return v.minor == c.minor
            return v.minor == c.minor and v.patch == c.patch
        return False


def _tilde(v, cs):
    c = cs.con
    if compare(v, c) < 0:
        return False
    if c.major == 0 and c.minor == 0 and c.patch == 0 and not cs.minor_dirty \
            and not cs.patch_dirty:
        return True
    if v.major != c.major:
        return False
    if v.minor != c.minor and not cs.minor_dirty:
        return False
    return True


def _rewrite_range(text):
    out = text
    for m in _RANGE.finditer(text):
        out = out.replace(m.group(0), ">= %s, <= %s" % (m.group(1), m.group(11)), 1)
    return out


@lru_cache(maxsize=512)
def parse_constraints(text):
    """semver.NewConstraint: OR groups, each a tuple of AND constraints (immutable, so
    charts that test the same constraint on every render parse it once)."""
    text = _rewrite_range(text)
    groups = []
    for part in text.split("||"):
        if not _VALID.match(part):
            raise SemverError("improper constraint: %s" % go_quote(part))
        found = [m.group(0) for m in _FIND.finditer(part)] or [part]
        groups.append(tuple(_Constraint(s) for s in found))
    return tuple(groups)


def check(groups, v):
    return any(all(c.check(v) for c in g) for g in groups)


def is_valid_version(text):
    """Helm's ``isValidSemver``: does ``semver.NewVersion`` accept ``text``?"""
    try:
        Version.parse(text)
    except SemverError:
        return False
    return True


def is_compatible_range(constraint, version):
    """chartutil ``IsCompatibleRange``: false when either side does not parse."""
    try:
        return check(parse_constraints(constraint), Version.parse(version))
    except SemverError:
        return False
