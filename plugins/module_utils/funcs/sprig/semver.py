"""Sprig ``semver``/``semverCompare``: thin template functions over the shared
Masterminds/semver port in ``module_utils/semver``."""
from ...govalue.signature import go_signature
from ...semver import Version, check, parse_constraints


@go_signature("string")
def semver(version):
    return Version.parse(version)


@go_signature("string", "string")
def semverCompare(constraint, version):
    return check(parse_constraints(constraint), Version.parse(version))


FUNCS = {"semver": semver, "semverCompare": semverCompare}
