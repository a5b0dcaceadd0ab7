"""The template engine renders every case exactly as real Helm 4 does (output or error)."""
import pytest

from .cases import EXEC, EXTRA, LEXER, MULTI, OTHER_VALUES, PARSER, V
from .oracle import oracle, ours


def _ids(prefix, items):
    return ["%s%03d" % (prefix, i) for i in range(len(items))]


def _check(template, values=None, files=None):
    expected = oracle(template, values, files)
    got = ours(template, values, files)
    assert got == expected, "template %r" % template


@pytest.mark.parametrize("template", LEXER, ids=_ids("lex", LEXER))
def test_lexing_matches_helm(template):
    _check(template, V)


@pytest.mark.parametrize("template", PARSER, ids=_ids("parse", PARSER))
def test_parsing_matches_helm(template):
    _check(template, V)


@pytest.mark.parametrize("template", EXEC, ids=_ids("exec", EXEC))
def test_execution_matches_helm(template):
    _check(template, V)


@pytest.mark.parametrize("template,files", MULTI, ids=_ids("multi", MULTI))
def test_templates_across_files_match_helm(template, files):
    _check(template, V, files)


@pytest.mark.parametrize("template,values", OTHER_VALUES, ids=_ids("values", OTHER_VALUES))
def test_other_values_match_helm(template, values):
    _check(template, values)


@pytest.mark.parametrize("template", EXTRA, ids=_ids("extra", EXTRA))
def test_more_execution_cases_match_helm(template):
    _check(template, V)
