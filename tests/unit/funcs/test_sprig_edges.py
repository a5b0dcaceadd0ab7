"""More Sprig edge cases against Helm: Unicode, numbers from values files, nesting, mutation."""
import pytest

from sprig_oracle import oracle_render, evaluate
from ansible_collections.helmless.core.plugins.module_utils.funcs.sprig import SPRIG_FUNCS as F

VALUES = {"num": 1000000, "f": 0.1, "big": 12345678, "l": ["b", "a", 3, None], "m": {"k": [1, {"x": None}]},
          "s": "Hello", "t": True, "neg": -2.5, "str_num": "42"}

CASES = [
    'wrap 1 "a b c"', 'wrap 2 "ab cd ef"', 'wrap 4 "  ab"', 'wrap 3 "héllo wörld"', 'wrapWith 2 "<br>" "abcdef"',
    'wrap 10 ""', 'wrapWith 0 "|" "abc"', 'wrap 5 "one\\ntwo three four"', 'wrap 6 "a  b  c  d"',
    'abbrev 6 "héllo wörld"', 'abbrevboth 3 7 "abcdefghijkl"', 'abbrevboth 7 7 "abcdefghijklmnop"',
    'abbrevboth -1 10 "abcdefghijklmnop"', 'abbrev 10 ""', 'abbrevboth 0 5 "abcdefg"',
    'title "HELLO wORLD"', 'title "a-b_c.d,e;f:g!h?i"', 'title "日本 語"', 'title ""', 'title "ßtraße"',
    'upper "ǆ ǳ ﬁ"', 'lower "ǅ Σ ΑΣ"', 'untitle "  Hello"', 'swapcase "ǅemal ßtraße"', 'swapcase "ÀÉ îô"',
    'initials "  "', 'initials "a\\tb\\nc"', 'camelcase "hello_wörld"', 'camelcase "123_abc"',
    'camelcase "-leading-dash"', 'camelcase "trailing_"', 'camelcase "ALLCAPS"', 'camelcase "a b  c"',
    'snakecase "XMLHttpRequest"', 'snakecase "already_snake"', 'snakecase "with space"', 'snakecase "日本Go"',
    'snakecase "A1B2C3"', 'snakecase "v2Api"', 'snakecase "IPv6Address"', 'kebabcase "HTTP2Server"',
    'kebabcase "--x--"', 'snakecase "a.B"', 'snakecase "Hello, World!"', 'snakecase "über_Straße"',
    'trunc 1 "日本"', 'substr 0 1 "日本"', 'trimAll "日" "日本日"', 'trimAll "ab" "bbaxab"',
    'nospace "日 本"', 'repeat 2 "日"', 'replace "日" "x" "日本日"', 'indent 2 "a\\r\\nb"',
    'quote "\\x00\\x7f\\u2028"', 'squote nil', 'quote .Values.num', 'squote .Values.f', 'cat .Values.l',
    'quote .Values.l', 'toString .Values.m', 'toString .Values.big', 'toString .Values.neg', 'cat .Values.t nil .Values.num',
    'join ", " .Values.l', 'sortAlpha .Values.l', 'uniq .Values.l', 'has nil .Values.l', 'has 3.0 .Values.l',
    'has 3 .Values.l', 'without .Values.l nil 3.0', 'first .Values.l', 'last .Values.l', 'compact .Values.l',
    'default "x" .Values.l', 'empty .Values.m', 'coalesce .Values.nothing .Values.s', 'ternary "y" "n" .Values.t',
    'int .Values.num', 'int64 .Values.neg', 'float64 .Values.str_num', 'add .Values.num 1', 'mul .Values.f 10',
    'mulf .Values.f 3', 'addf .Values.f 0.2', 'subf .Values.num 0.5', 'divf .Values.num 3', 'max .Values.neg -3',
    'maxf .Values.neg -3', 'round .Values.neg 0', 'floor .Values.neg', 'ceil .Values.neg', 'int "-0x10"',
    'atoi .Values.str_num', 'toDecimal .Values.str_num', 'add1 .Values.t', 'sub "10" 2.9', 'div 10.9 3',
    'dict "a" .Values.l "b" .Values.m', 'pluck "k" .Values.m', 'dig "m" "k" "d" .Values', 'hasKey .Values.m "k"',
    'keys .Values.m', 'values .Values.m', 'get .Values.m "k"', 'typeOf .Values.num', 'kindOf .Values.l',
    'typeOf .Values', 'kindOf .Values', 'deepEqual .Values.m (dict "k" (list 1.0 (dict "x" nil)))',
    'toJson .Values.m', 'toPrettyJson .Values.l', 'toRawJson .Values.num', 'toJson .Values.big', 'toJson .Values.f',
    'mustToJson .Values', 'regexFindAll "[a-z]" .Values.s -1', 'regexReplaceAll "(l+)" .Values.s "<${1}>"',
    'semverCompare ">=1" "1.0.0"', 'b64enc .Values.s', 'sha256sum .Values.s', 'urlParse "http://x/%e6%97%a5"',
    'base "日本/語.txt"', 'ext "日本/語.txt"', 'chunk 3 .Values.l', 'slice .Values.l 1 2', 'reverse .Values.l',
    'concat .Values.l (list 1)', 'append .Values.l 9', 'prepend .Values.l 0', 'rest .Values.l', 'initial .Values.l',
    'toStrings .Values.l', 'splitList "," "a,,b," | join "|"', 'split " " "a b" | toString', 'list .Values.num 1 "1"',
    'seq 3 | splitList " " | join ","', 'until 3 | join "-"', 'dict "x" 1 | toJson', 'list | toJson',
    'merge (dict "a" (dict "b" 1)) .Values.m', 'mergeOverwrite (dict "k" "v") .Values.m', 'omit .Values.m "k"',
    'pick .Values.m "k" "none"', 'chunk 0 (list 1 2)', 'chunk -1 (list 1 2)', 'chunk -2 (list)',
    'rest (list) | toJson', 'initial (list) | toJson', 'concat | toJson', 'concat (list) (list) | toJson',
    'regexFindAll "x" "abc" -1 | toJson', 'regexSplit "x" "abc" 0 | toJson', 'mustToRawJson (rest (list))',
    'slice (list) | toJson', 'compact (list) | toJson', 'uniq (list) | toJson', 'until 0 | toJson',
    'keys (dict) | toJson', 'sortAlpha (list) | toJson', 'toStrings nil | toJson', 'chunk 2 (list) | toJson',
    'without (list) 1 | toJson', 'reverse (list) | toJson', 'pluck "a" | toJson', 'values (dict) | toJson',
    'list | toJson', 'regexFindAll "x" "abc" 0 | toJson', 'deepCopy (rest (list)) | toJson',
    'toPrettyJson (rest (list))', 'toRawJson (dict "a" (rest (list)))', 'deepEqual (rest (list)) (list)',
    'deepEqual (rest (list)) (initial (list))', 'empty (rest (list))', 'rest (list)', 'typeOf (rest (list))',
    'append (rest (list)) 1', 'default "d" (rest (list))', 'get (dict) "x" | typeOf', 'set (dict) "k" nil', 'unset .Values.m "zz"',
]


@pytest.fixture(scope="module")
def expected(tmp_path_factory):
    return oracle_render(tmp_path_factory.mktemp("edges"), CASES, VALUES)


@pytest.mark.parametrize("case", CASES)
def test_edge_case_output_matches_helm(case, expected):
    assert evaluate(case, VALUES) == expected[case]


def test_set_and_unset_mutate_and_return_the_same_dict():
    d = {"a": 1}
    assert F["set"](d, "b", 2) is d and d == {"a": 1, "b": 2}
    assert F["unset"](d, "a") is d and d == {"b": 2}


def test_merge_mutates_its_destination_and_append_copies():
    dst = {"a": {"x": 1}}
    assert F["merge"](dst, {"a": {"y": 2}}) is dst and dst == {"a": {"x": 1, "y": 2}}
    lst = [1]
    assert F["append"](lst, 2) == [1, 2] and lst == [1]


def test_deep_copy_does_not_share_nested_values():
    src = {"a": [{"b": 1}]}
    cp = F["deepCopy"](src)
    cp["a"][0]["b"] = 2
    assert src["a"][0]["b"] == 1
