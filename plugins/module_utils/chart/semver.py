"""Masterminds/semver v3 versions and constraints, as Helm uses them for chart versions.

Only what the chart model needs: ``NewVersion`` validity and ``Constraints.Check``
(``IsCompatibleRange`` in chartutil).  Wildcards (``1.2.x``, ``*``), ``~``, ``^``,
hyphen ranges, ``||`` and ``,``/space-separated AND groups are supported; a
prerelease version only satisfies a constraint that itself names a prerelease.
"""

import re

_VERSION_RE = re.compile(
    r"^v?([0-9]+)(\.[0-9]+)?(\.[0-9]+)?"
    r"(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?"
    r"(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?$")
_CV = (r"v?([0-9|x|X|\*]+)(\.[0-9|x|X|\*]+)?(\.[0-9|x|X|\*]+)?"
       r"(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?"
       r"(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?")
_OPS = r"(==|!=|=|>=|>|<=|<|~>|~|\^)"
_CONSTRAINT_RE = re.compile(r"^\s*%s?\s*(%s)\s*$" % (_OPS, _CV))
_FIND_RE = re.compile(r"%s?\s*(%s)" % (_OPS, _CV))
_HYPHEN_RE = re.compile(r"\s*(%s)\s+-\s+(%s)\s*" % (_CV, _CV))
_WILD = ("x", "X", "*")


class Version(object):
    __slots__ = ("major", "minor", "patch", "pre", "original")

    def __init__(self, major, minor, patch, pre, original):
        self.major, self.minor, self.patch, self.pre, self.original = major, minor, patch, pre, original

    def _cmp_pre(self, other):
        if self.pre == other.pre:
            return 0
        if not self.pre:
            return 1
        if not other.pre:
            return -1
        a, b = self.pre.split("."), other.pre.split(".")
        for x, y in zip(a, b):
            if x == y:
                continue
            xn, yn = x.isdigit(), y.isdigit()
            if xn and yn:
                return -1 if int(x) < int(y) else 1
            if xn:
                return -1
            if yn:
                return 1
            return -1 if x < y else 1
        return (len(a) > len(b)) - (len(a) < len(b))

    def compare(self, other):
        for x, y in ((self.major, other.major), (self.minor, other.minor), (self.patch, other.patch)):
            if x != y:
                return -1 if x < y else 1
        return self._cmp_pre(other)


def parse_version(text):
    """``semver.NewVersion``; ``None`` when ``text`` is not a valid version."""
    match = _VERSION_RE.match(text)
    if not match:
        return None
    pre = match.group(5) or ""
    for part in pre.split(".") if pre else ():
        if part.isdigit() and len(part) > 1 and part[0] == "0":
            return None
    nums = [int(match.group(1)), int((match.group(2) or ".0")[1:]), int((match.group(3) or ".0")[1:])]
    if any(n >= 2 ** 64 for n in nums):
        return None
    return Version(nums[0], nums[1], nums[2], pre, text)


def is_valid_version(text):
    return parse_version(text) is not None


class _Constraint(object):
    def __init__(self, op, text):
        match = _CONSTRAINT_RE.match(op + text) if op else _CONSTRAINT_RE.match(text)
        parts = [match.group(3), (match.group(4) or "")[1:], (match.group(5) or "")[1:]]
        self.op = op
        self.major_dirty = parts[0] in _WILD
        self.minor_dirty = self.major_dirty or parts[1] in _WILD or parts[1] == ""
        self.patch_dirty = self.minor_dirty or parts[2] in _WILD or parts[2] == ""
        self.dirty = self.major_dirty or parts[1] in _WILD or parts[2] in _WILD
        nums = [0 if p in _WILD or p == "" else int(p) for p in parts]
        pre = match.group(7) or ""
        self.con = Version(nums[0], nums[1], nums[2], pre, text)
        self.orig_minor_empty = parts[1] == ""
        self.orig_patch_empty = parts[2] == ""

    def check(self, v):
        if v.pre and not self.con.pre:
            return False
        c = self.con
        op = self.op
        if op in ("", "=", "=="):
            if self.dirty or self.orig_minor_empty or self.orig_patch_empty:
                return self._wild_eq(v)
            return v.compare(c) == 0
        if op == "!=":
            if self.dirty or self.orig_minor_empty or self.orig_patch_empty:
                return not self._wild_eq(v)
            return v.compare(c) != 0
        if op == ">":
            if self.major_dirty:
                return False
            if self.minor_dirty and not self.orig_minor_empty or self.orig_minor_empty:
                return v.major > c.major
            if self.patch_dirty:
                return v.major > c.major or (v.major == c.major and v.minor > c.minor)
            return v.compare(c) > 0
        if op == ">=":
            return v.compare(c) >= 0
        if op == "<":
            return v.compare(c) < 0
        if op == "<=":
            if self.dirty or self.orig_minor_empty or self.orig_patch_empty:
                if self.major_dirty:
                    return True
                if v.major != c.major:
                    return v.major < c.major
                if self.minor_dirty:
                    return True
                return v.minor <= c.minor
            return v.compare(c) <= 0
        if op in ("~", "~>"):
            if v.compare(c) < 0:
                return False
            if self.major_dirty:
                return True
            if v.major != c.major:
                return False
            if c.minor != v.minor and not self.minor_dirty:
                return False
            return True
        if op == "^":
            if v.compare(c) < 0:
                return False
            if self.major_dirty:
                return True
            if c.major > 0 or self.minor_dirty:
                return v.major == c.major
            if c.minor > 0 or self.patch_dirty:
                return v.major == 0 and v.minor == c.minor
            return v.major == 0 and v.minor == 0 and v.patch == c.patch
        return False

    def _wild_eq(self, v):
        c = self.con
        if self.major_dirty:
            return True
        if v.major != c.major:
            return False
        if self.minor_dirty:
            return True
        if v.minor != c.minor:
            return False
        if self.patch_dirty:
            return True
        return v.patch == c.patch and v._cmp_pre(c) == 0


def parse_constraints(text):
    """``semver.NewConstraint``: a list of AND groups; ``None`` when invalid."""
    groups = []
    for group in text.split("||"):
        group = _HYPHEN_RE.sub(lambda m: " >= %s, <= %s " % (m.group(1), m.group(11)), group)
        items = []
        rest = group
        for match in _FIND_RE.finditer(group):
            items.append(_Constraint(match.group(1) or "", match.group(2)))
            rest = rest.replace(match.group(0), "", 1)
        if not items or rest.replace(",", " ").strip():
            return None
        groups.append(items)
    return groups


def is_compatible_range(constraint, version):
    """chartutil ``IsCompatibleRange``: does ``version`` satisfy ``constraint``?"""
    groups = parse_constraints(constraint)
    ver = parse_version(version)
    if groups is None or ver is None:
        return False
    return any(all(item.check(ver) for item in group) for group in groups)
