"""``tpl`` of texts whose parse tree is empty, generated over every place a ``tpl`` can run, against Helm.

Go's ``tpl`` parses its text as a new template named like the parent (``gotpl``) and executes that new
template. When the tree is empty (blanks, comments, defines only) the shared set keeps an earlier
``gotpl`` (an enclosing tpl's text), but the new template still runs its own tree. Each text below is
put at each level below, one chart per pair, and rendered by us and by the pinned Helm.
"""
import pytest

from test_engine_cases import CHART, oracle, ours, write_chart

# Texts with an empty tree, as Go string literals (they are embedded in templates).
TEXTS = {
    "empty": '""',
    "blanks": '"  \\n "',
    "comment": '"{{/* c */}}"',
    "trimmed_comment": '" {{- /* c */ -}} "',
    "comment_between_blanks": '" {{/* c */}} "',
    "define_only": '"{{ define \\"x\\" }}X{{ end }}"',
    "define_between_blanks": '" {{ define \\"x\\" }}X{{ end }}\\n"',
    "define_of_the_parent_name": '"{{ define \\"gotpl\\" }}G{{ end }}"',
    "block_and_comment": '"{{/* c */}}{{ block \\"x\\" . }}B{{ end }}"',
}

# Where the tpl runs; %s is the text. Each yields a template file's body.
LEVELS = {
    "template_file": 'a: {{ tpl %s . | quote }}\n',
    "template_file_without_template_object": 'a: {{ tpl %s (dict "k" 1) | quote }}\n',
    "inside_tpl": 'a: {{ tpl "[{{ tpl %s . }}]out" . | quote }}\n',
    "inside_tpl_with_a_guard": 'a: {{ tpl "{{ if not .stop }}[{{ tpl %s (dict \\"stop\\" true) }}]{{ end }}out" . '
                               '| quote }}\n',
    "inside_include_inside_tpl": 'a: {{ tpl "<{{ include \\"inc\\" . }}>" . | quote }}\n',
    "inside_tpl_inside_include": 'a: {{ include "viatpl" . | quote }}\n',
    "then_include_its_define": 'a: {{ tpl (print %s "{{ include \\"x\\" . }}") . | quote }}\n',
}

HELPERS = ('{{- define "inc" }}i{{ tpl %s . }}i{{ end }}'
           '{{- define "viatpl" }}{{ tpl "({{ tpl %s . }})" . }}{{ end }}')


def _escaped(literal):
    """A Go string literal put inside another double-quoted template literal."""
    return literal.replace("\\", "\\\\").replace('"', '\\"')


def _files(text, level):
    body = LEVELS[level]
    inner = _escaped(TEXTS[text]) if level.startswith("inside_tpl") and "include" not in level else TEXTS[text]
    files = {"Chart.yaml": CHART % "parent", "templates/t.yaml": body % inner if "%s" in body else body}
    if "include" in level and level != "then_include_its_define":
        files["templates/_h.tpl"] = HELPERS % (TEXTS[text], _escaped(TEXTS[text]))
    return files


PAIRS = sorted((t, lv) for t in TEXTS for lv in LEVELS
               if lv != "then_include_its_define" or "define" in t or "block" in t)


@pytest.mark.parametrize("text,level", PAIRS, ids=["%s-%s" % p for p in PAIRS])
def test_tpl_of_an_empty_tree_renders_as_helm(text, level, tmp_path):
    path = write_chart(str(tmp_path / "parent"), _files(text, level))
    expected, expected_error = oracle(path)
    actual, actual_error = ours(path)
    assert actual_error == expected_error
    if expected_error is None:
        assert actual[0] == expected[0]
        assert actual[1] == expected[1]


def test_nested_empty_tpl_does_not_rerun_the_enclosing_text(tmp_path):
    """The issue's reproduction: an empty nested tpl used to re-run its parent until the depth guard."""
    path = write_chart(str(tmp_path / "parent"), {
        "Chart.yaml": CHART % "parent",
        "templates/t.yaml": 'a: {{ tpl "{{ tpl \\"\\" . }}x" . | quote }}\n'
                            'b: {{ tpl "{{ if not .stop }}[{{ tpl \\"\\" (dict \\"stop\\" true) }}]{{ end }}OUT" . '
                            '| quote }}\n',
    })
    expected, expected_error = oracle(path)
    assert expected_error is None, expected_error
    actual, actual_error = ours(path)
    assert actual_error is None, actual_error
    assert actual[0] == expected[0]
    assert 'a: "x"' in actual[0]["parent/templates/t.yaml"]
    assert 'b: "[]OUT"' in actual[0]["parent/templates/t.yaml"]
