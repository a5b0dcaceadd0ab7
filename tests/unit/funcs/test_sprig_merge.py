"""merge/mergeOverwrite follow dario.cat/mergo (Merge, MergeWithOverwrite) exactly, as in Helm.

Destinations taken from .Values are deep-copied: merge mutates its destination, and every
case of a batch shares one .Values in the Helm render."""
import pytest

from sprig_oracle import oracle_render, evaluate

VALUES = {"base": {"a": 1, "l": [1, 2], "m": {"x": 1, "yy": {"z": 2}}, "e": "", "z": 0, "f": False,
                   "em": {}, "el": []},
          "over": {"a": 2, "l": [3], "m": {"yy": {"z": 3, "w": 4}}, "e": "set", "z": 5,
                   "f": True, "em": {"k": 1}, "el": [9], "new": {"deep": [1]}},
          "zeros": {"a": 0, "l": [], "m": {}, "e": "", "f": False}}

PAIRS = [
    ('(dict "a" 1)', '(dict "a" 2 "b" 3)'), ('(dict "a" 0)', '(dict "a" 2)'), ('(dict "a" "")', '(dict "a" "x")'),
    ('(dict "a" false)', '(dict "a" true)'), ('(dict "a" nil)', '(dict "a" 1)'), ('(dict "a" 1)', '(dict "a" nil)'),
    ('(dict "a" (list))', '(dict "a" (list 1))'), ('(dict "a" (list 1))', '(dict "a" (list))'),
    ('(dict "a" (list 1))', '(dict "a" (list 2 3))'), ('(dict "a" (dict))', '(dict "a" (dict "b" 1))'),
    ('(dict "a" (dict "b" 1))', '(dict "a" (dict))'), ('(dict "a" (dict "b" 1))', '(dict "a" (dict "b" 2 "c" 3))'),
    ('(dict "a" (dict "b" 0))', '(dict "a" (dict "b" 2))'), ('(dict "a" 1)', '(dict "a" (dict "b" 2))'),
    ('(dict "a" (dict "b" 1))', '(dict "a" 5)'), ('(dict "a" "s")', '(dict "a" (list 1))'),
    ('(dict "a" (list 1))', '(dict "a" "s")'), ('(dict "a" (list 1))', '(dict "a" (dict "k" 1))'),
    ('(dict "a" (dict "k" 1))', '(dict "a" (list 1))'), ('(dict)', '(dict "a" (dict "b" (dict "c" 1)))'),
    ('(dict "a" (dict "b" (dict "c" 1)))', '(dict "a" (dict "b" (dict "d" 2)))'), ('(dict "a" 1)', '(dict)'),
    ('(dict "a" 1.5)', '(dict "a" 0)'), ('(dict "a" 0.0)', '(dict "a" 2.5)'), ('(dict "a" (list nil))', '(dict "a" (list))'),
    ('(deepCopy .Values.base)', '.Values.over'), ('(deepCopy .Values.over)', '.Values.base'),
    ('(deepCopy .Values.base)', '.Values.zeros'), ('(deepCopy .Values.zeros)', '.Values.base'), ('(dict "a" (dict "b" nil))', '(dict "a" (dict "b" (dict "c" 1)))'),
    ('(dict "a" (dict "b" (dict "c" 1)))', '(dict "a" (dict "b" nil))'), ('(dict "a" "")', '(dict "a" nil)'),
]

CASES = ([f"merge {a} {b}" for a, b in PAIRS] + [f"mergeOverwrite {a} {b}" for a, b in PAIRS]
         + [f"mustMerge {a} {b} (dict \"extra\" 1)" for a, b in PAIRS[:6]]
         + [f"mustMergeOverwrite {a} {b} (dict \"a\" 9)" for a, b in PAIRS[:6]]
         + ['merge (dict "a" 1)', 'mergeOverwrite (dict "a" 1) (dict) (dict "b" 2) (dict "a" 3)',
            'merge (dict "a" (dict "x" 1)) (dict "a" (dict "y" 2)) (dict "a" (dict "x" 3 "z" 4))',
            'merge (dict) (deepCopy .Values)', 'mergeOverwrite (dict) (deepCopy .Values.base) (deepCopy .Values.over)'])


@pytest.fixture(scope="module")
def expected(tmp_path_factory):
    return oracle_render(tmp_path_factory.mktemp("merge"), CASES, VALUES)


@pytest.mark.parametrize("case", CASES)
def test_merge_output_matches_helm(case, expected):
    assert evaluate(case, VALUES) == expected[case]
