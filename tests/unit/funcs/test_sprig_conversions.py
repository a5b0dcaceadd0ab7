"""spf13/cast and strconv conversions behind int/int64/float64/atoi/toDecimal match Go."""
import pytest

from sprig_oracle import oracle_render, evaluate

INPUTS = ["1e", "+.5", "-", ".", "1.2.3", "0x", "0x1.8p1", "0x1p-2", "Inf", "+Inf", "-inf", "nan", "NaN",
          "infinity", "1_000.5", "1__0", "_1", "1_", "0_7", "0x_1F", "0b_1", "00", "-0", "+0", "1e10",
          "1E+2", "  3", "3 ", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
          "-9223372036854775809", "0777", "0o777", "0O7", "0B11", "0X1f", "1.", "1.50", "10.000", ".0",
          "0.0", "-3.00", "1e-5", "1e400", "-1e400", "4.9e-324", "1e-400", "0x1p1024", "١٢", "12a",
          "", "true", "0.", "08", "0b2", "1,000", "+-1", "0x8000000000000000", "9_223_372_036_854_775_807"]

CASES = ([f'int "{s}"' for s in INPUTS] + [f'int64 "{s}"' for s in INPUTS]
         + [f'float64 "{s}"' for s in INPUTS] + [f'atoi "{s}"' for s in INPUTS]
         + [f'toDecimal "{s}"' for s in INPUTS]
         + ['int 1e19', 'int -1e19', 'int 2.5e9', 'float64 9223372036854775807', 'int64 true',
            'toDecimal true', 'toDecimal nil', 'toDecimal 1.5', 'toDecimal -8', 'int (list 1)', 'float64 (dict)'])


JSON_INPUTS = ['{"a":1,}', '{"a" 1}', '{"a":1 "b":2}', '[1,]', '[1 2]', '{1:2}', 'tru', 'nul', 'falsy',
               '"\\x"', '"\\u12G4"', '"a\tb"', '-', '-a', '1.', '1.e5', '1e', '01', '1 2', '{}x', 'é',
               '"\\ud800"', '"\\ud83d\\ude00"', '"\\ud800\\u0041"', '1e400', '[1e400, 2]',
               '{"a":{"b":[true,false,null,-0.5e-3]}}', '  [ ]  ', '"\\/\\b\\f"', '{"a":1,"a":2}',
               '[', '{"a":', '"abc', '', ' ', '\'x\'', '{"a":1}}', 'NaN', '[.5]', '{"\\u00e9":1}']
CASES += [f"mustFromJson `{j}`" for j in JSON_INPUTS]


@pytest.fixture(scope="module")
def expected(tmp_path_factory):
    return oracle_render(tmp_path_factory.mktemp("conv"), CASES)


@pytest.mark.parametrize("case", CASES)
def test_conversion_matches_go(case, expected):
    assert evaluate(case) == expected[case]
