"""Helm 4.3's duration helpers (mustToDuration, durationSeconds ... durationTruncateTo) print exactly what
the Helm oracle prints, for every kind of argument asDuration reads and refuses."""
import pytest

from sprig_oracle import _as_yaml_numbers, _Values, as_helm_text, oracle_render
from ansible_collections.helmless.core.plugins.module_utils.gotemplate import TemplateSet
from ansible_collections.helmless.core.plugins.module_utils.render.engine import base_funcs

VALUES = {"f": 60.5, "i": 90, "s": "2m", "neg": -3, "big": 1e300, "l": [1], "m": {"a": 1}}
ARGS = ['"1h2m3s"', '"90"', '"2.5"', '" 1m "', '"1e3"', '"-1.5h"', '"0"', '"+5s"', '"1_000"', '"0x1p4"',
        '"NaN"', '"Inf"', '"-inf"', '""', '"   "', '"x"', '"1h x"', "3725", "-7", "1.5", "0.000000001",
        "10000000000", "-10000000000", "9223372036", "1e10", "(add 1 2)", "(div 7 2)", "(float64 3)",
        ".Values.f", ".Values.i", ".Values.s", ".Values.neg", ".Values.big", ".Values.l", ".Values.m",
        ".Values.missing", "nil", "true", '(mustToDuration "90s")', "(now)", '(toDate "2006-01-02" "2024-01-01")']
HELPERS = ["durationSeconds", "durationMilliseconds", "durationMicroseconds", "durationNanoseconds",
           "durationMinutes", "durationHours", "durationDays", "durationWeeks"]
CASES = ["mustToDuration %s" % a for a in ARGS] + ["%s %s" % (h, a) for h in HELPERS for a in ARGS] + [
    '%s %s %s' % (fn, v, m) for fn in ("durationRoundTo", "durationTruncateTo")
    for v in ('"1h2m31s"', '"-1h2m31s"', '"x"', "3725", "1.75") for m in ('"1m"', '"1h"', '"x"', "0", "-1", "60")
] + [
    'typeOf (mustToDuration "1s")', 'kindOf (mustToDuration "1s")', 'toJson (mustToDuration "1s")',
    'toYaml (durationRoundTo "90s" "1m")', 'printf "%v|%s" (mustToDuration "1s") (mustToDuration "2s")',
    '(mustToDuration "90s").Minutes', '(mustToDuration "-90s").Abs', '(mustToDuration "1h30m").Truncate 3600000000000',
    'toString (mustToDuration "1ms")', 'duration (mustToDuration "1s")', 'durationRound (mustToDuration "1s")',
    'typeOf (durationSeconds "1s")', 'list (mustToDuration "1s") (durationMinutes "1s")',
]


def _render(funcs, case, values):
    ts = TemplateSet(dict(funcs), missingkey="zero")
    try:
        ts.parse("c/templates/t.txt", "{{ %s }}" % case)
        out = ts.execute("c/templates/t.txt", {"Values": _Values(_as_yaml_numbers(values))})
    except Exception as exc:
        text = str(exc)
        return "ERROR " + text.split("error calling ", 1)[1] if "error calling " in text else text
    return as_helm_text(out.replace("<no value>", ""))


@pytest.fixture(scope="module")
def expected(tmp_path_factory):
    return oracle_render(tmp_path_factory.mktemp("durations"), CASES, VALUES)


@pytest.mark.parametrize("case", CASES)
def test_duration_helper_prints_like_helm(expected, case):
    assert _render(base_funcs(), case, VALUES) == expected[case]
