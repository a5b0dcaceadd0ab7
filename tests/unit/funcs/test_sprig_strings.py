"""Sprig string functions agree with real Helm on byte-exact output."""
import pytest

from sprig_oracle import oracle_render, evaluate

CASES = [
    'hello',
    'trunc 3 "hello"', 'trunc -3 "hello"', 'trunc 10 "hi"', 'trunc -10 "hi"', 'trunc 0 "hi"',
    'trunc 2 "héllo"', 'trunc -2 "héllo"',
    'abbrev 5 "hello world"', 'abbrev 3 "hello world"', 'abbrev 20 "hello"', 'abbrev 4 "hello"',
    'abbrevboth 5 10 "1234 5678 9123 4567"', 'abbrevboth 0 4 "abcdefghijkl"',
    'abbrevboth 4 10 "abcdefghijklmno"', 'abbrevboth 10 10 "abcdefghijklmno"',
    'abbrevboth 1 6 "abcdefghij"', 'abbrevboth 20 8 "abcdefghijklmnopqrstuvwxyz"',
    'trim "  \\t hi \\n"', 'trim "\\x1chi\\x1f"', 'trim "\\u00a0x\\u3000"',
    'upper "straße"', 'upper "héllo"', 'lower "İSTANBUL"', 'lower "HÉLLO"',
    'title "hello world-foo bar_baz o\'neil"', 'title "ǆemal 3rd x.y"', 'title "ÿes élan"',
    'untitle "Hello World  FOO"', 'untitle "ÉCOLE"',
    'substr 1 3 "hello"', 'substr -1 3 "hello"', 'substr 2 -1 "hello"', 'substr 2 99 "hello"',
    'substr 0 0 "hello"', 'substr 5 5 "hello"', 'substr 3 1 "hello"', 'substr -1 9 "hello"',
    'substr 7 -1 "hello"', 'substr 1 2 "héllo"',
    'repeat 3 "ab"', 'repeat 0 "ab"', 'repeat -1 "ab"',
    'trimAll "$" "$$5.00$"', 'trimall "ab" "abcba"', 'trimAll "" "xx"',
    'trimSuffix "-" "hello-"', 'trimSuffix "" "x"', 'trimPrefix "-" "-hello"', 'trimPrefix "zz" "a"',
    'nospace "hello w o r l d"', 'nospace " a\\tb\\nc\\u00a0d "',
    'initials "First Try"', 'initials " a  b c"', 'initials "élan vital"', 'initials ""',
    'swapcase "This Is A.Test"', 'swapcase "hello wORLD ǅx"', 'swapcase "  a"',
    'snakecase "FirstName"', 'snakecase "HTTPServer"', 'snakecase "NoHTTPS"', 'snakecase "GO_PATH"',
    'snakecase "GO PATH"', 'snakecase "GO-PATH"', 'snakecase "http2xx"', 'snakecase "HTTP20xOK"',
    'snakecase "Duration2m3s"', 'snakecase "Bld4Floor3rd"', 'snakecase "a.b.c"', 'snakecase "fooBar!Baz"',
    'snakecase "  leading space"', 'snakecase "x__y"', 'snakecase "ÉcoleNormale"', 'snakecase "a1B2"',
    'snakecase "ABC"', 'snakecase "aBC"', 'snakecase "A"', 'snakecase "123abc"', 'snakecase "abc123"',
    'kebabcase "FirstName"', 'kebabcase "HTTPServer"', 'kebabcase "foo_bar baz"', 'kebabcase "myVar2Name"',
    'camelcase "http_server"', 'camelcase "some_words"', 'camelcase "_complex__case_"',
    'camelcase "some words"', 'camelcase "GOLANG_IS_GREAT"', 'camelcase "_"', 'camelcase "a"',
    'camelcase "__a"', 'camelcase "hello-world"', 'camelcase "AbC_dEf"', 'camelcase "x_"',
    'wrap 5 "Hello World"', 'wrap 10 "The quick brown fox jumps over the lazy dog"',
    'wrap 3 "averyveryverylongword and more"', 'wrap 0 "a b c"', 'wrap 5 "  lead  spaces here"',
    'wrapWith 5 "\\t" "Hello World"', 'wrapWith 3 "|" "averylongword x"', 'wrapWith 4 "" "abc def ghi"',
    'contains "cat" "catch"', 'contains "dog" "catch"', 'hasPrefix "ca" "cat"', 'hasSuffix "at" "cat"',
    'hasPrefix "" "x"',
    'quote "a" "b"', 'quote 1 2', 'quote nil', 'quote "a" nil "b"', 'quote "tab\\there"',
    'quote "héllo☃"', 'quote "\\u00a0\\u200b"', 'quote 1.5', 'quote 1000000.0', 'quote true',
    'quote (list 1 "a")', 'quote (dict "a" 1)', 'quote', 'quote ""',
    'squote "a" "b"', 'squote 1 nil 2', 'squote "it\'s"', 'squote 1e6',
    'cat "a" "" "b"', 'cat "a" nil "b"', 'cat 1 2.5 true', 'cat', 'cat " x "', 'cat (list 1 2) (dict)',
    'indent 2 "x\\ny\\n"', 'indent 0 "a"', 'indent 4 ""', 'indent -1 "a"',
    'nindent 2 "a\\nb"',
    'replace " " "-" "I Am Henry VIII"', 'replace "" "-" "abc"', 'replace "" "-" ""', 'replace "a" "" "banana"',
    'plural "one" "many" 1', 'plural "one" "many" 2', 'plural "one" "many" 0',
    'toString 1', 'toString 1.5', 'toString 1e6', 'toString nil', 'toString true',
    'toString (list 1 2)', 'toString (dict "b" 2 "a" 1)', 'toString "x"',
    'toString 0.00001', 'toString 123456789.0', 'toString -0.0',
]


@pytest.fixture(scope="module")
def expected(tmp_path_factory):
    return oracle_render(tmp_path_factory.mktemp("strings"), CASES)


@pytest.mark.parametrize("case", CASES)
def test_string_function_output_matches_helm(case, expected):
    assert evaluate(case) == expected[case]
