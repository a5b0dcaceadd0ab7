"""Sprig list, dict, default, math, encoding, reflection, path and URL functions agree with Helm."""
import pytest

from sprig_oracle import oracle_render, evaluate

VALUES = {
    "nums": [1, 2, 3], "flag": False, "zero": 0, "num": 1000000, "f": 1.5, "s": "x",
    "empty": "", "emptyList": [], "emptyMap": {}, "m": {"a": 1, "b": {"c": "d"}},
    "mixed": ["a", 1000000, None, True], "port": 8080, "neg": -3.7,
}

CASES = [
    # lists
    'list 1 "a" 2.5 nil', 'list', 'tuple 1 2', 'append (list 1 2) 3', 'push (list) "x"',
    'prepend (list 1 2) 0', 'first (list 1 2 3)', 'first (list)', 'last (list 1 2 3)', 'last (list)',
    'rest (list 1 2 3)', 'rest (list)', 'initial (list 1 2 3)', 'initial (list)',
    'reverse (list 1 2 3)', 'reverse (list)', 'uniq (list 1 2 1 "1" 2.0 2)', 'uniq .Values.nums',
    'without (list 1 2 3 2) 2', 'without (list 1 2 3) 2 3 4', 'has 2 (list 1 2)', 'has 2 .Values.nums',
    'has 2.0 .Values.nums', 'has "a" (list)', 'has nil (list nil)',
    'slice (list 1 2 3 4)', 'slice (list 1 2 3 4) 1', 'slice (list 1 2 3 4) 1 3', 'slice (list)',
    'slice (list 1 2) 3', 'slice (list 1 2 3) 2 1', 'slice "abc" 1',
    'concat (list 1 2) (list 3) (list)', 'concat', 'concat (list 1) "x"',
    'chunk 2 (list 1 2 3 4 5)', 'chunk 3 (list 1 2 3)', 'chunk 2 (list)', 'chunk 5 (list 1 2)',
    'compact (list 1 0 "" nil false "a" (list) (dict))', 'mustCompact (list "" "x")',
    'first "abc"', 'mustFirst 1', 'last (dict)', 'rest 1.5', 'initial true', 'reverse "x"',
    'uniq 2', 'without "abc" 1', 'has 1 "abc"', 'append "x" 1', 'prepend 1 2', 'chunk 2 "x"',
    'first nil', 'append nil 1',
    'mustAppend (list 1) 2', 'mustPrepend (list 1) 0', 'mustLast (list 1 2)', 'mustRest (list 1 2)',
    'mustInitial (list 1 2)', 'mustReverse (list 1 2)', 'mustUniq (list 1 1)', 'mustWithout (list 1 2) 1',
    'mustHas 1 (list 1)', 'mustSlice (list 1 2 3) 1 2', 'mustChunk 1 (list 1 2)',
    'join "," (list "a" 1 nil 2.5)', 'join "-" .Values.mixed', 'join "," "abc"', 'join "," nil',
    'join "," (list)', 'sortAlpha (list "b" "a" 10 9 "B")', 'sortAlpha "x"', 'sortAlpha nil',
    'sortAlpha (list)', 'toStrings (list 1 "a" nil 2.5)', 'toStrings 3', 'toStrings nil',
    'split "$" "foo$bar$baz"', 'split "," ""', 'split "" "abc"', 'splitn "$" 2 "foo$bar$baz"',
    'splitn "$" 0 "a$b"', 'splitn "$" -1 "a$b$c"', 'splitn "" 2 "abc"', 'splitList "," "a,b,,c"',
    'splitList "" "héllo"', 'splitList "," ""',
    # dicts
    'dict "a" 1 "b" "x"', 'dict "k"', 'dict', 'dict 1 2 true 3 nil 4', 'get (dict "a" 1) "a"',
    'get (dict "a" 1) "b"', 'set (dict "a" 1) "b" 2', 'unset (dict "a" 1 "b" 2) "a"',
    'unset (dict) "x"', 'hasKey (dict "a" nil) "a"', 'hasKey (dict) "a"',
    'pluck "a" (dict "a" 1) (dict "b" 2) (dict "a" 3)', 'pluck "a"',
    'keys (dict "b" 1 "a" 2) | sortAlpha', 'keys (dict "a" 1) (dict "a" 2) | sortAlpha', 'keys',
    'pick (dict "a" 1 "b" 2 "c" 3) "a" "c" "z"', 'omit (dict "a" 1 "b" 2 "c" 3) "a" "z"',
    'values (dict "a" 1) | first', 'values (dict)',
    'dig "a" "b" "def" (dict "a" (dict "b" 5))', 'dig "a" "x" "def" (dict "a" (dict "b" 5))',
    'dig "a" "def" (dict "a" nil)', 'dig "a" "b" "def" (dict "a" 1)', 'dig "a" "def" 5',
    'dig 1 "def" (dict)', 'dig "a" (dict)',
    'merge (dict "x" false "y" 1 "n" (dict "p" 0 "q" 1)) (dict "x" true "y" 2 "z" 3 "n" (dict "p" 5 "r" 6))',
    'mergeOverwrite (dict "x" 1 "y" 2) (dict "x" 0 "z" 3)',
    'mergeOverwrite (dict "x" 1 "y" 2) (dict "x" nil)',
    'merge (dict "l" (list 1)) (dict "l" (list 2 3))', 'merge (dict "l" (list)) (dict "l" (list 2 3))',
    'mergeOverwrite (dict "l" (list 1)) (dict "l" (list))', 'merge (dict "a" "s") (dict "a" (dict "x" 1))',
    'mergeOverwrite (dict "a" (dict "x" 1)) (dict "a" "s")', 'merge (dict "a" (dict "x" 1)) (dict "a" (dict))',
    'mergeOverwrite (dict "a" (dict "x" 1 "y" 2)) (dict "a" (dict "x" 0))',
    'merge (dict) (dict "a" 1) (dict "a" 2 "b" 3)', 'mustMerge (dict "a" "") (dict "a" "z")',
    'mustMergeOverwrite (dict "a" 1) (dict "a" 2)', 'merge (dict "a" 0) (dict "a" nil)',
    'deepCopy (dict "a" (list 1 2))', 'mustDeepCopy (list 1 (dict "b" 2))', 'deepCopy 5',
    # defaults
    'default "d" nil', 'default "d" ""', 'default "d" 0', 'default "d" 0.0', 'default "d" false',
    'default "d" (list)', 'default "d" (dict)', 'default "d" "x"', 'default "d" 1', 'default "d"',
    'default true .Values.flag', 'default 5 .Values.zero', 'default "d" .Values.missing',
    'empty nil', 'empty 0', 'empty ""', 'empty (list 0)', 'empty .Values.emptyMap', 'empty 0.1',
    'empty false', 'empty true', 'coalesce 0 "" nil "x" "y"', 'coalesce 0 ""', 'coalesce',
    'all 1 "a" true', 'all 1 ""', 'all', 'any 0 "" 1', 'any 0 ""', 'any',
    'ternary "a" "b" true', 'ternary "a" "b" false', 'ternary 1 2 (empty "")',
    'toPrettyJson (dict "a" 1 "b" (list 1 2) "c" (dict))', 'toPrettyJson (list)', 'toPrettyJson 1.5',
    'toRawJson (dict "h" "<a&b>")', 'toRawJson .Values', 'mustToRawJson (list 1 "x")',
    'mustToPrettyJson (dict "z" nil)', 'toJson (dict "h" "<a>\\u2028\\b\\f\\x01")', 'toJson 1e21',
    'toJson 1e20', 'toJson 0.000001', 'toJson 0.0000001', 'toJson -1e-7', 'toJson .Values.num',
    'mustToJson (dict "k" (list 1.5 2))',
    'mustFromJson "{\\"a\\": [1, 2.5, \\"x\\", null, true]}"', 'mustFromJson "[]"',
    'mustFromJson "{"', 'mustFromJson ""', 'mustFromJson "x"', 'mustFromJson "1 2"',
    'fromJson "{\\"a\\":1}"',
    # math
    'add 1 2', 'add 1.5 1.5', 'add', 'add "3" "0x10"', 'add1 5', 'add1 "x"', 'sub 5 7',
    'div 7 2', 'div -7 2', 'div 7 -2', 'div 1 0', 'mod 7 3', 'mod -7 3', 'mod 7 -3', 'mod 1 0',
    'mul 2 3 4', 'mul 5', 'max 1 5 3', 'biggest 1 2', 'min 3 1.9', 'min 5', 'max -1 "3"',
    'add 9223372036854775807 1', 'mul 4294967296 4294967296',
    'addf 1.1 2.2', 'addf', 'add1f 1.5', 'subf 1.1 0.1', 'subf 10 1 2 3', 'divf 1 3', 'divf 10 4',
    'divf 2 3', 'divf -2 3', 'divf 1 0', 'mulf 1000 1000', 'mulf 1.1 1.1', 'mulf 0.1 3',
    'maxf 1 2.5 -3', 'minf 1 2.5 -3', 'maxf "x"', 'floor 1.7', 'floor -1.2', 'ceil 1.2', 'ceil "2.1"',
    'round 3.14159 2', 'round 2.5 0', 'round -2.5 0', 'round 1.005 2', 'round 1.25 1 0.6',
    'round 123.456 -1',
    'int "12abc"', 'int "010"', 'int "0x1F"', 'int "3.0"', 'int "3.5"', 'int 3.9', 'int -3.9',
    'int true', 'int nil', 'int "1_000"', 'int "0b101"', 'int "0o17"', 'int "+12"', 'int " 1"',
    'int64 "99999999999999999999"', 'int64 "42"', 'int .Values.f', 'int "3."', 'int "3.00"',
    'float64 "1e3"', 'float64 "1.5"', 'float64 "x"', 'float64 3', 'float64 true', 'float64 "inf"',
    'float64 "1_000"', 'float64 "0x1p-2"', 'float64 ".5"', 'float64 "1e400"', 'float64 nil',
    'atoi "12"', 'atoi "12a"', 'atoi "-5"', 'atoi "+5"', 'atoi "99999999999999999999"', 'atoi "0x10"',
    'atoi " 1"', 'atoi "1_0"',
    'toDecimal "777"', 'toDecimal 777', 'toDecimal "8"', 'toDecimal 10.0', 'toDecimal "-17"',
    'seq 5', 'seq 0', 'seq -3', 'seq 2 5', 'seq 5 2', 'seq 0 2 10', 'seq 10 -2 0', 'seq 10 2 0',
    'seq', 'seq 1 2 3 4', 'seq 1 0 5',
    'until 5', 'until -3', 'until 0', 'untilStep 0 10 3', 'untilStep 10 0 -3', 'untilStep 0 10 -1',
    'untilStep 10 0 2', 'untilStep 0 10 0',
    # encoding
    'b64enc "hello"', 'b64enc ""', 'b64dec "aGVsbG8="', 'b64dec "!!!"', 'b64dec "aGVsbG8"',
    'b64dec "aGVsbA=="', 'b64dec "aGVsbA="', 'b64dec "aGVs\\nbA=="', 'b64dec "aGVsbA==x"',
    'b64dec "a"', 'b64dec "ab=c"', 'b64dec "YQ"', 'b64dec "=="',
    'b32enc "hello"', 'b32dec "NBSWY3DP"', 'b32dec "NBSWY3D"', 'b32dec "1234"', 'b32dec "NBSWY3DPEE======"',
    'b32dec "NBSWY==="', 'b32dec "NB======"', 'b32dec "NBS====="',
    'sha1sum "abc"', 'sha256sum "abc"', 'sha512sum "abc"', 'adler32sum "abc"', 'sha256sum ""',
    # reflection
    'typeOf 1', 'typeOf 1.5', 'typeOf "s"', 'typeOf true', 'typeOf nil', 'typeOf (list)',
    'typeOf (dict)', 'typeOf .Values.nums', 
    'typeIs "int" 1', 'typeIs "string" 1', 'typeIsLike "int" 1', 'kindOf 1', 'kindOf 1.5',
    'kindOf "s"', 'kindOf nil', 'kindOf (list)', 'kindOf (dict)', 'kindOf true', 'kindIs "map" (dict)',
    'kindIs "slice" "x"', 'deepEqual 1 1', 'deepEqual 1 1.0', 'deepEqual (list 1) (list 1)',
    'deepEqual (dict "a" 1) (dict "a" 1)', 'deepEqual nil nil', 'deepEqual (list) (list nil)',
    'deepEqual .Values.nums (list 1.0 2.0 3.0)',
    # paths
    'base "/a/b.txt"', 'base ""', 'base "/"', 'base "a/b/"', 'base "///"', 'dir "/a/b/c"',
    'dir "a"', 'dir ""', 'dir "/"', 'dir "a/b/"', 'clean "a//b/../c/./d"', 'clean ""', 'clean "/../a"',
    'clean "../../a/"', 'clean "//x"', 'ext "a/b.tar.gz"', 'ext "a.b/c"', 'ext "x."', 'isAbs "/a"',
    'isAbs "a"', 'osBase "/x/y"', 'osDir "/x/y"', 'osClean "x/../.."', 'osExt "f.go"', 'osIsAbs "/"',
    # url
    'urlParse "https://user:pa%20ss@example.com:8080/p/a%20th?q=1&r=2#frag%21"',
    'urlParse "mailto:joe@example.com"', 'urlParse "/rel/path?x"', 'urlParse "http://[::1]:80/"',
    'urlParse "http://h/?"', 'urlParse "a:b"', 'urlParse ""', 'urlParse "//host/p"',
    'urlParse "http://h:port"', 'urlParse "1http://x"', 'urlParse "http://h/%zz"', 'urlParse ":foo"',
    'urlParse "foo:bar/baz"', 'urlParse "cache_object:foo/bar"', 'urlParse "http://u@h"',
    'urlJoin (dict "scheme" "https" "host" "h:1" "path" "/a b" "query" "x=1" "fragment" "f g")',
    'urlJoin (dict "scheme" "mailto" "opaque" "x@y")', 'urlJoin (dict "path" "a:b")',
    'urlJoin (dict "host" "h" "path" "p")', 'urlJoin (dict "userinfo" "u:p" "host" "h")',
    'urlJoin (dict)', 'urlJoin (dict "host" 1)', 'urlJoin (dict "scheme" "http" "path" "/x")',
    'urlJoin (urlParse "https://user:pa%20ss@example.com:8080/p/a%20th?q=1#f")',
]


@pytest.fixture(scope="module")
def expected(tmp_path_factory):
    return oracle_render(tmp_path_factory.mktemp("data"), CASES, VALUES)


@pytest.mark.parametrize("case", CASES)
def test_data_function_output_matches_helm(case, expected):
    assert evaluate(case, VALUES) == expected[case]
