"""Sprig ``semver``/``semverCompare``: thin template functions over the shared
Masterminds/semver port in ``module_utils/semver``."""
from ._go import gofunc
from ...semver import Version, check, parse_constraints


@gofunc("string")
def semver(version):
    return Version.parse(version)


@gofunc("string", "string")
def semverCompare(constraint, version):
    return check(parse_constraints(constraint), Version.parse(version))


FUNCS = {"semver": semver, "semverCompare": semverCompare}
