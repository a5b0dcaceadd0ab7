"""Every corpus chart, with default values and each values file, renders as real Helm at the pin does.

Byte-identical per template and for the stored manifest (random lines masked, SPEC §2), against the Helm
oracle and against the real helm CLI (``install --dry-run=client -o json``); charts Helm refuses must fail
here with the same kind of error and Helm's exact text. A missing corpus fails collection.
"""
import pytest

from render_corpus import cases, compare

CASES = cases()


@pytest.mark.parametrize("chart,values", [(c, v) for _, c, v in CASES], ids=[i for i, _, _ in CASES])
def test_corpus_chart_renders_byte_identical_to_helm(chart, values):
    problems = compare(chart, values)
    assert not problems, "\n".join(problems)
