"""A function parameter of a named Go type (sprig.certificate, time.Time) takes only values of that
type: any other value fails at the argument, in Go's words, before the function runs."""
import pytest

from ansible_collections.helmless.core.plugins.module_utils.render.engine import base_funcs

from .oracle import oracle, ours

CASES = [
    '{{ genSignedCert "a" nil nil 1 (dict) }}',
    '{{ genSignedCert "a" nil nil 1 (list 1) }}',
    '{{ genSignedCert "a" nil nil 1 now }}',
    '{{ genSignedCert "a" nil nil 1 "x" }}',
    '{{ genSignedCert "a" nil nil 1 nil }}',
    '{{ genSignedCert "a" nil nil 1 .Values.missing }}',
    '{{ $c := dict "Cert" "x" "Key" "y" }}{{ genSignedCertWithKey "a" nil nil 1 $c "k" }}',
    '{{ dict | genSignedCert "a" nil nil 1 }}',
    '{{ genSignedCert "a" nil nil 1 (genCA "x" 1) | typeOf }}',
    '{{ dateModify "1h" (dict) }}',
    '{{ dateModify "1h" (genCA "x" 1) }}',
    '{{ dateModify "1h" 3 }}',
    '{{ dateModify "1h" .Values.missing }}',
    '{{ genCA "x" 1 | dateModify "1h" }}',
    '{{ dateModify "1h" (toDate "2006-01-02" "2020-01-01") }}',
]


@pytest.mark.parametrize("template", CASES)
def test_an_argument_of_another_type_fails_as_helm_fails(template):
    assert ours(template, funcs=base_funcs()) == oracle(template)
