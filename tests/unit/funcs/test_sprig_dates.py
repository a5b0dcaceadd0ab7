"""Sprig date functions: Go layouts, zones, durations and parsing agree with Helm."""
import re

import pytest

from sprig_oracle import oracle_render, evaluate
from ansible_collections.helmless.core.plugins.module_utils.funcs.sprig import SPRIG_FUNCS

T = '(toDate "2006-01-02T15:04:05.999999999Z07:00" "2024-03-05T07:08:09.012300+01:30")'
LAYOUTS = [
    "2006-01-02", "Mon Jan _2 15:04:05 MST 2006", "02 Jan 06 15:04 -0700", "2006-01-02T15:04:05Z07:00",
    "3:04PM", "3:04:05 pm", "15:04:05.000", "15:04:05.999999999", "15:04:05,999", ".00 .9 .999",
    "__2 002", "Monday January 2", "-07 -07:00 -0700 -070000 -07:00:00", "Z07 Z0700 Z07:00",
    "_2006 06", "Jan Janx", "Mon Monx", "hello", "01/02 03:04:05",
]

CASES = (
    ['date "%s" %s' % (lay, T) for lay in LAYOUTS]
    + ['dateInZone "%s" %s "%s"' % (lay, T, z) for lay in ("2006-01-02 15:04:05 MST -07:00", "Z07:00 MST")
       for z in ("UTC", "America/New_York", "Asia/Kolkata", "Nowhere/Else", "", "Local", "Australia/Adelaide")]
    + [
        'date "2006-01-02 15:04:05" 0', 'date "2006-01-02" 86400', 'date "15:04:05 MST" 1700000000',
        'date_in_zone "2006-01-02 15:04 MST" 1700000000 "Europe/Berlin"', 'htmlDate 1700000000',
        'htmlDateInZone 1700000000 "Asia/Tokyo"', 'date "2006" (toDate "2006" "1999")',
        'toDate "2006-01-02" "2024-02-29"', 'toDate "2006-01-02" "2024-02-30"', 'toDate "2006-01-02" "junk"',
        'toDate "2006-01-02 15:04" "2024-01-02 25:00"', 'toDate "2006-01-02" "2024-01-02x"',
        'toDate "Jan 2 2006" "feb 3 2020"', 'toDate "02/01/06 3PM" "05/07/21 4PM"',
        'toDate "2006-01-02 MST" "2020-01-01 UTC"', 'toDate "2006-01-02 MST" "2020-01-01 PST"', 'toDate "2006-01-02 MST" "2020-01-01 GMT+3"',
        'toDate "2006-01-02 MST" "2020-01-01 GMT-11"', 'toDate "2006-01-02 MST" "2020-01-01 ChST"',
        'toDate "2006-01-02 MST" "2020-01-01 CEST"', 'toDate "2006-01-02 MST" "2020-01-01 WITA"',
        'toDate "2006-01-02 MST" "2020-01-01 AWSTT"', 'toDate "2006-01-02 MST" "2020-01-01 +03"',
        'mustToDate "2006-01-02 MST" "2020-01-01 PS"', 'mustToDate "2006-01-02 MST" "2020-01-01 CESX"',
        'mustToDate "2006-01-02 MST" "2020-01-01 GMT+30"', 'mustToDate "2006-01-02 MST" "2020-01-01 ABCDEFG"',
        'toDate "2006-01-02 MST" "2020-01-01 GMT"', 'toDate "2006-01-02 -0700" "2020-01-01 +0530"',
        'toDate "2006-01-02 Z07:00" "2020-01-01 Z"', 'toDate "15:04:05" "12:30:45.25"',
        'toDate "2006-01-02T15:04:05Z07:00" "2020-06-01T10:00:00-04:00"',
        'mustToDate "2006-01-02" "2024-02-30"', 'mustToDate "2006-01-02" "junk"',
        'mustToDate "2006-01-02" "2024-13-01"', 'mustToDate "2006-01-02" "2024-01-02x"',
        'mustToDate "15:04" "24:00"', 'mustToDate "Jan" "Foo"', 'mustToDate "2006-01-02" "2024-1-02"',
        'unixEpoch (toDate "2006-01-02" "2024-02-29")', 'unixEpoch %s' % T,
        'dateModify "+1h30m" %s' % T, 'dateModify "-48h" %s' % T, 'dateModify "bad" %s' % T,
        'date_modify "1.5h" %s' % T, 'mustDateModify "10m" %s' % T, 'mustDateModify "10" %s' % T,
        'must_date_modify "1d" %s' % T, 'mustDateModify "" %s' % T, 'mustDateModify "-" %s' % T,
        'dateModify "1h" (toDate "2006" "junk")', T, 'toDate "2006" "junk"',
        'duration "90"', 'duration "3600"', 'duration "0"', 'duration "-61"', 'duration "1.5"',
        'duration "x"', 'duration (int64 90)', 'duration (int64 100000)', 'duration 1.5',
        'duration "9223372036"', 'duration "9223372037"',
        'durationRound "2h10m"', 'durationRound "400h"', 'durationRound "9000h"', 'durationRound "45s"',
        'durationRound "1s"', 'durationRound "-3h"', 'durationRound "61s"', 'durationRound "xx"',
        'durationRound (int64 3600000000000)', 'durationRound 1.5', 'durationRound "721h"',
        'durationRound "1.5ms"', 'durationRound "1h1m1s1ms1us1ns"',
        'dateModify "1.000000001s" %s' % T, 'dateModify "1us" %s' % T, 'dateModify "1µs" %s' % T,
        'dateModify "3ms" %s' % T, 'dateModify "-1.5ms" %s' % T,
        'toPrettyJson (dict "t" %s "v" (semver "v1.2"))' % T, 'toRawJson (list %s)' % T,
        'mustToRawJson (toDate "2006" "junk")',
    ]
)


@pytest.fixture(scope="module")
def expected(tmp_path_factory):
    return oracle_render(tmp_path_factory.mktemp("dates"), CASES)


@pytest.mark.parametrize("case", CASES)
def test_date_function_output_matches_helm(case, expected):
    assert evaluate(case) == expected[case]


def test_now_prints_like_go_time_with_a_monotonic_reading():
    out = evaluate("now")
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)? [-+]\d{4} \S+ m=\+\d+\.\d{9}", out)


def test_date_of_a_non_time_value_formats_the_current_time():
    assert SPRIG_FUNCS["date"]("2006", 1.5) == SPRIG_FUNCS["now"]().Format("2006")


def test_ago_of_a_fixed_time_is_a_whole_second_duration():
    then = SPRIG_FUNCS["toDate"]("2006-01-02", "2020-01-01")
    assert re.fullmatch(r"\d+h\d+m\d+s", SPRIG_FUNCS["ago"](then))
    assert SPRIG_FUNCS["ago"](SPRIG_FUNCS["now"]()) == "0s"
