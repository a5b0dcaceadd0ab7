"""Focused engine cases, each a tiny generated chart rendered by us and by real Helm 4.

Every case checks the rendered files, the stored manifest and the notes against the oracle
(or, when the oracle fails, that we fail with the same message).
"""
import os

import pytest

CHART = "apiVersion: v2\nname: %s\nversion: 0.1.0\n"
SUB_DEP = "apiVersion: v2\nname: parent\nversion: 0.1.0\ndependencies:\n%s"

CASES = {
    "documents_split_at_line_start_separators_keeping_blank_lines": {
        "Chart.yaml": CHART % "parent",
        "templates/cm.yaml": "kind: ConfigMap\ndata:\n  a: |\n    ---\n    b\n\n---\nkind: Secret\n  \t\n"
                             "--- # next\nkind: Service\n---\t\n\n\nkind: Pod\n\n\n",
    },
    "include_and_the_last_parsed_define_wins": {
        "Chart.yaml": CHART % "parent",
        "templates/_a.tpl": '{{- define "z" }}A{{ end }}',
        "templates/_b.tpl": '{{- define "z" }}B{{ end }}{{ define "empty" }}real{{ end }}',
        "templates/_c.tpl": '{{- define "empty" }}  {{ end }}',
        "templates/cm.yaml": 'a: {{ include "z" . }}\nb: {{ include "empty" . | quote }}\n'
                             'c: {{ template "z" }}\n',
    },
    "template_object_names_file_and_base_path_in_parent_and_subchart": {
        "Chart.yaml": SUB_DEP % "  - name: sub\n    version: 0.1.0\n",
        "templates/t.yaml": "name: {{ .Template.Name }}\nbase: {{ .Template.BasePath }}\n",
        "charts/sub/Chart.yaml": CHART % "sub",
        "charts/sub/templates/t.yaml": "name: {{ .Template.Name }}\nbase: {{ .Template.BasePath }}\n"
                                       "root: {{ .Chart.IsRoot }}\nchart: {{ .Chart.Name }}\n",
    },
    "subchart_values_globals_and_alias_scoping": {
        "Chart.yaml": SUB_DEP % "  - name: sub\n    version: 0.1.0\n    alias: other\n",
        "values.yaml": "global:\n  g: 1\nother:\n  x: from-parent\n",
        "templates/t.yaml": "g: {{ .Values.global.g }}\nsubs: {{ keys .Subcharts | sortAlpha }}\n",
        "charts/sub/Chart.yaml": CHART % "sub",
        "charts/sub/values.yaml": "x: default\ny: 2\nglobal:\n  h: 3\n",
        "charts/sub/templates/t.yaml": "x: {{ .Values.x }}\ny: {{ .Values.y }}\n"
                                       "g: {{ .Values.global.g }}\nh: {{ .Values.global.h }}\n"
                                       "name: {{ .Chart.Name }}\n",
    },
    "tpl_defines_stay_inside_and_values_render": {
        "Chart.yaml": CHART % "parent",
        "values.yaml": "msg: 'hello {{ .Release.Name }}'\nnum: 3\n",
        "templates/t.yaml": 'a: {{ tpl .Values.msg . }}\n'
                            'b: {{ tpl "{{ define \\"in\\" }}x{{ end }}{{ include \\"in\\" . }}" . }}\n'
                            'c: {{ tpl "{{ .missing }}" . }}\n',
    },
    "tpl_parse_error_is_reported_as_helm_does": {
        "Chart.yaml": CHART % "parent",
        "templates/t.yaml": 'a: {{ tpl "{{ .x " . }}\n',
    },
    "tpl_execution_error_is_reported_as_helm_does": {
        "Chart.yaml": CHART % "parent",
        "templates/t.yaml": 'a: {{ tpl "{{ .Values.a.b.c }}" . }}\n',
    },
    "required_fails_with_the_outermost_location": {
        "Chart.yaml": CHART % "parent",
        "templates/_h.tpl": '{{ define "r" }}{{ required "need foo" .Values.foo }}{{ end }}',
        "templates/t.yaml": 'x: 1\ny: {{ include "r" . }}\n',
    },
    "required_passes_false_and_zero": {
        "Chart.yaml": CHART % "parent",
        "values.yaml": "f: false\nz: 0\nl: []\n",
        "templates/t.yaml": 'a: {{ required "f" .Values.f }}\nb: {{ required "z" .Values.z }}\n'
                            'c: {{ required "l" .Values.l }}\n',
    },
    "fail_message_keeps_its_lines": {
        "Chart.yaml": CHART % "parent",
        "templates/t.yaml": '\n  {{- fail "line one\\nline two" }}\n',
    },
    "nested_include_error_is_a_multi_line_stack": {
        "Chart.yaml": CHART % "parent",
        "templates/_h.tpl": '{{ define "inner" }}{{ .Values.nope.key }}{{ end }}'
                           '{{ define "outer" }}{{ include "inner" . }}{{ end }}',
        "templates/t.yaml": 'a: {{ include "outer" . }}\n',
    },
    "function_error_inside_include_is_kept_raw": {
        "Chart.yaml": CHART % "parent",
        "templates/_h.tpl": '{{ define "inner" }}{{ index .Values.list 5 }}{{ end }}',
        "values.yaml": "list: [1]\n",
        "templates/t.yaml": 'a: {{ include "inner" . }}\n',
    },
    "include_of_an_undefined_template_fails_as_helm_does": {
        "Chart.yaml": CHART % "parent",
        "templates/t.yaml": 'a: {{ include "nope" . }}\n',
    },
    "include_recursion_is_bounded": {
        "Chart.yaml": CHART % "parent",
        "templates/_h.tpl": '{{ define "loop" }}{{ include "loop" . }}{{ end }}',
        "templates/t.yaml": 'a: {{ include "loop" . }}\n',
    },
    "parse_error_names_file_and_line": {
        "Chart.yaml": CHART % "parent",
        "templates/t.yaml": 'a: 1\nb: {{ nosuchfunc }}\n',
    },
    "no_value_is_removed_from_output": {
        "Chart.yaml": CHART % "parent",
        "templates/t.yaml": 'a: {{ .Values.missing }}\nb: <no value>\nc: {{ .Release.Nope }}\n',
    },
    "set_values_is_seen_by_later_templates_of_the_chart": {
        "Chart.yaml": CHART % "parent",
        "values.yaml": "a: 1\n",
        "templates/zzz.yaml": '{{- $_ := set $ "Values" (dict "a" 2) }}',
        "templates/aaa.yaml": "a: {{ .Values.a }}\n",
    },
    "notes_of_root_and_subchart_are_rendered_and_only_the_root_is_stored": {
        "Chart.yaml": SUB_DEP % "  - name: sub\n    version: 0.1.0\n",
        "templates/NOTES.txt": "Root notes for {{ .Release.Name }}\n",
        "templates/cm.yaml": "kind: ConfigMap\napiVersion: v1\nmetadata:\n  name: a\n",
        "charts/sub/Chart.yaml": CHART % "sub",
        "charts/sub/templates/NOTES.txt": "Sub notes\n",
    },
    "files_get_glob_lines_and_as_config": {
        "Chart.yaml": CHART % "parent",
        "files/a.txt": "alpha\nbeta\n",
        "files/b.conf": "k=v",
        "files/sub/c.txt": "deep",
        "templates/t.yaml": 'get: {{ .Files.Get "files/a.txt" | quote }}\n'
                            'lines: {{ .Files.Lines "files/a.txt" }}\n'
                            'glob: {{ range $p, $_ := .Files.Glob "files/*" }}{{ $p }} {{ end }}\n'
                            'deep: {{ range $p, $_ := .Files.Glob "files/**" }}{{ $p }} {{ end }}\n'
                            'cfg:\n{{ (.Files.Glob "files/*.txt").AsConfig | indent 2 }}\n'
                            'sec:\n{{ (.Files.Glob "files/b.*").AsSecrets | indent 2 }}\n',
    },
    "capabilities_defaults": {
        "Chart.yaml": CHART % "parent",
        "templates/t.yaml": "kv: {{ .Capabilities.KubeVersion }}\nmajor: {{ .Capabilities.KubeVersion.Major }}\n"
                            "minor: {{ .Capabilities.KubeVersion.Minor }}\n"
                            "policy: {{ .Capabilities.APIVersions.Has \"policy/v1\" }}\n"
                            "mon: {{ .Capabilities.APIVersions.Has \"monitoring.coreos.com/v1\" }}\n"
                            "apps: {{ .Capabilities.APIVersions.Has \"apps/v1/Deployment\" }}\n"
                            "semver: {{ semverCompare \">=1.20-0\" .Capabilities.KubeVersion.Version }}\n",
    },
    "release_object_and_chart_map": {
        "Chart.yaml": CHART % "parent" + "appVersion: 1.10\ndescription: d\n",
        "templates/t.yaml": "r: {{ .Release }}\nc: {{ .Chart.AppVersion }}\nd: {{ .Chart.Description }}\n"
                            "nope: {{ .Chart.Nope }}\nrev: {{ .Release.Revision }}\n",
    },
    "lookup_without_cluster_is_an_empty_map": {
        "Chart.yaml": CHART % "parent",
        "templates/t.yaml": 'a: {{ lookup "v1" "Secret" "ns" "x" }}\nb: {{ (lookup "v1" "Pod" "" "").items }}\n',
    },
    "yaml_and_json_helpers": {
        "Chart.yaml": CHART % "parent",
        "values.yaml": "m:\n  b: 1000000\n  a: [1, 'two', true]\n",
        "templates/t.yaml": "y: |\n{{ toYaml .Values.m | indent 2 }}\nj: {{ toJson .Values.m }}\n"
                            "e: {{ fromYaml \"[1]\" | toString | quote }}\nea: {{ fromYamlArray \"a: 1\" | toString | quote }}\n"
                            "fj: {{ (fromJson \"{\\\"x\\\": 1}\").x }}\n"
                            "t: {{ toToml .Values.m | quote }}\n",
    },
    "library_chart_contributes_only_defines": {
        "Chart.yaml": SUB_DEP % "  - name: lib\n    version: 0.1.0\n",
        "templates/t.yaml": 'a: {{ include "lib.x" . }}\n',
        "charts/lib/Chart.yaml": CHART % "lib" + "type: library\n",
        "charts/lib/templates/_x.tpl": '{{ define "lib.x" }}from-lib{{ end }}',
        "charts/lib/templates/real.yaml": "should: not-render\n",
    },
    "manifest_split_sort_and_hooks": {
        "Chart.yaml": CHART % "parent",
        "templates/a.yaml": "\n\n  \napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n"
                            "  x: |\n    hello\n    ---\n    world\n\n\n---\napiVersion: v1\nkind: Secret\n"
                            "metadata:\n  name: b\n---   \n# comment only\n---\n\n---\napiVersion: v1\n"
                            "kind: Namespace\nmetadata:\n  name: n\ndata:\n  k: |+\n    v\n\n\n",
        "templates/b.yaml": "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  annotations:\n"
                            "    helm.sh/hook: pre-install,post-upgrade\n    helm.sh/hook-weight: \"-5\"\n"
                            "---  foo: 1\nkind: Foo\n",
        "templates/c.yaml": "   \n\n",
        "templates/d.yaml": "kind: Zed\n---\nkind: Bar\n---\nkind: Service\n---\nkind: Deployment\n"
                            "---\nkind: ValidatingWebhookConfiguration\n---\nkind: PriorityClass\n",
        "templates/e.yaml": "kind: Job\nmetadata:\n  name: j\n  annotations:\n    helm.sh/hook: nonsense\n",
    },
    "invalid_yaml_document_fails_like_helm": {
        "Chart.yaml": CHART % "parent",
        "templates/b.yaml": "a: b\n---foo\nkind: Foo\n",
    },
    "tpl_rejects_a_template_that_is_not_a_string": {
        "Chart.yaml": CHART % "parent",
        "values.yaml": "num: 3\n",
        "templates/t.yaml": "a: {{ tpl .Values.num . }}\n",
    },
    "values_methods_win_over_keys": {
        "Chart.yaml": CHART % "parent",
        "values.yaml": "Table: shadowed\nsub:\n  k: v\n",
        "templates/t.yaml": 'a: {{ index .Values "Table" }}\nb: {{ .Values.Table "sub" }}\n'
                            'c: {{ .Values.AsMap.sub.k }}\n',
    },
    "import_values_from_child_exports_and_paths": {
        "Chart.yaml": SUB_DEP % ("  - name: sub\n    version: 0.1.0\n    import-values:\n      - data\n"
                                 "      - child: deep.inner\n        parent: fromchild\n"),
        "values.yaml": "fromchild:\n  keep: parent\n",
        "templates/t.yaml": "v: {{ toJson .Values }}\n",
        "charts/sub/Chart.yaml": CHART % "sub",
        "charts/sub/values.yaml": "exports:\n  data:\n    exported: 1\ndeep:\n  inner:\n    a: b\n",
    },
    "tags_and_conditions_select_subcharts": {
        "Chart.yaml": SUB_DEP % ("  - name: one\n    version: 0.1.0\n    condition: one.enabled\n"
                                 "  - name: two\n    version: 0.1.0\n    tags: [extra]\n"
                                 "  - name: three\n    version: 0.1.0\n    condition: nope.enabled,three.on\n"),
        "values.yaml": "one:\n  enabled: false\ntags:\n  extra: true\nthree:\n  on: false\n",
        "templates/t.yaml": "subs: {{ keys .Subcharts | sortAlpha }}\n",
        "charts/one/Chart.yaml": CHART % "one",
        "charts/one/templates/x.yaml": "one: here\n",
        "charts/two/Chart.yaml": CHART % "two",
        "charts/two/templates/x.yaml": "two: here\n",
        "charts/three/Chart.yaml": CHART % "three",
        "charts/three/templates/x.yaml": "three: here\n",
    },
    "kube_version_constraint_is_checked": {
        "Chart.yaml": CHART % "parent" + "kubeVersion: '<1.20.0'\n",
        "templates/t.yaml": "a: 1\n",
    },
    "include_with_a_name_that_is_not_a_string_fails": {
        "Chart.yaml": CHART % "parent",
        "templates/t.yaml": "a: {{ include 3 . }}\n",
    },
    "subchart_files_globals_and_nested_subcharts": {
        "Chart.yaml": SUB_DEP % "  - name: mid\n    version: 0.1.0\n",
        "values.yaml": "global:\n  region: eu\nmid:\n  leaf:\n    x: from-root\n",
        "charts/mid/Chart.yaml": SUB_DEP.replace("parent", "mid") % "  - name: leaf\n    version: 0.1.0\n",
        "charts/mid/values.yaml": "global:\n  region: us\n  tier: mid\n",
        "charts/mid/conf/a.bin": "\x00\x01binary",
        "charts/mid/templates/m.yaml": 'files: {{ .Files.Get "conf/a.bin" | b64enc }}\nregion: {{ .Values.global.region }}\n',
        "charts/mid/charts/leaf/Chart.yaml": CHART % "leaf",
        "charts/mid/charts/leaf/templates/l.yaml": "x: {{ .Values.x }}\ng: {{ toJson .Values.global }}\n"
                                                   "t: {{ .Template.Name }}\n",
        "templates/t.yaml": "subs: {{ toJson .Subcharts.mid.Values }}\n",
    },
    "tpl_sees_the_calling_template_and_includes_subchart_defines": {
        "Chart.yaml": SUB_DEP % "  - name: sub\n    version: 0.1.0\n",
        "values.yaml": "t: '{{ .Template.Name }} {{ include \"sub.x\" . }} {{ $.Release.Name }}'\n",
        "templates/t.yaml": "a: {{ tpl .Values.t . }}\n",
        "charts/sub/Chart.yaml": CHART % "sub",
        "charts/sub/templates/_x.tpl": '{{ define "sub.x" }}sub-define{{ end }}',
    },
    "chart_and_capabilities_render_as_helm_4_maps_and_structs": {
        "Chart.yaml": CHART % "parent" + "appVersion: '2.0'\nkeywords: [a, b]\n"
                      "maintainers:\n  - name: me\n    email: me@example.com\n",
        "templates/t.yaml": "chart: |\n{{ toYaml .Chart | indent 2 }}\n"
                            "helm: {{ .Capabilities.HelmVersion.Version }}\n"
                            "kv: {{ .Capabilities.KubeVersion.GitVersion }}\n",
    },
    "error_in_subchart_notes_fails_the_render": {
        "Chart.yaml": SUB_DEP % "  - name: sub\n    version: 0.1.0\n",
        "templates/cm.yaml": "a: 1\n",
        "charts/sub/Chart.yaml": CHART % "sub",
        "charts/sub/templates/NOTES.txt": '{{ fail "sub notes fail" }}',
    },
    "empty_and_comment_only_templates": {
        "Chart.yaml": CHART % "parent",
        "templates/empty.yaml": "",
        "templates/blank.yaml": "  \n\n",
        "templates/comment.yaml": "# just a comment\n",
        "templates/trimmed.yaml": "{{- if false }}x{{ end }}\n---\n",
    },
    "numbers_print_as_go_prints_float64": {
        "Chart.yaml": CHART % "parent",
        "values.yaml": "big: 1000000\nsmall: 0.00001\nint: 42\noct: 0777\nyes: yes\n",
        "templates/t.yaml": "big: {{ .Values.big }}\nsmall: {{ .Values.small }}\nint: {{ .Values.int }}\n"
                            "oct: {{ .Values.oct }}\nyes: {{ .Values.yes }}\nall: {{ .Values }}\n",
    },
}


def write_chart(root, files):
    for rel, text in files.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as handle:
            handle.write(text)
    return root


def oracle(path):
    from helm_oracle import Chart, Config, HelmError
    try:
        rendered = Chart.load(path).render({}, name="rel", namespace="ns")
        release = Config(storage_driver="memory").install(
            Chart.load(path), "rel", {}, namespace="ns", dry_run="client")
    except HelmError as exc:
        return None, str(exc)
    return (rendered, release["manifest"], release.get("notes", ""), _hooks(release["hooks"])), None


def _hooks(hooks):
    """What a hook record holds from rendering (Helm's release JSON field names; last_run is the executor's)."""
    return [(h["name"], h["kind"], h["path"], h["manifest"], h["events"], h.get("weight", 0),
             h.get("delete_policies", []), h.get("output_log_policies", [])) for h in hooks]


def ours(path):
    from ansible_collections.helmless.core.plugins.module_utils.render import (
        RenderError, render_release)
    try:
        result = render_release(path, name="rel", namespace="ns")
    except RenderError as exc:
        return None, str(exc)
    return (result.rendered, result.manifest, result.notes, _hooks([h.to_dict() for h in result.hooks])), None


@pytest.mark.parametrize("case", sorted(CASES))
def test_engine_case_matches_helm(case, tmp_path):
    path = write_chart(str(tmp_path / "parent"), CASES[case])
    expected, expected_error = oracle(path)
    actual, actual_error = ours(path)
    if expected_error is not None:
        assert actual_error == expected_error
        return
    assert actual_error is None, actual_error
    assert actual[0] == expected[0]
    assert actual[1] == expected[1]
    assert actual[2] == expected[2]
    assert actual[3] == expected[3]
