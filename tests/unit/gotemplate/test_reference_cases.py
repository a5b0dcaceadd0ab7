"""The conformance table of the engine reference (§6), through the whole render engine.

Each case is rendered by our render_release (template engine + Sprig + Helm functions) and
by real Helm, as the chart's NOTES.txt (so any text, not only YAML, can be compared);
errors compare as Helm prints them.
"""
import os

import pytest

from ansible_collections.helmless.core.plugins.module_utils.render import render_release

CASES = [
    ("{{ .Values.a }}|{{ .Values.b }}|{{ .Values.c }}", "a: 1000000\nb: 100000\nc: 12345678\n", {}),
    ("{{ .Values.d }}|{{ .Values.e }}|{{ .Values.f }}", "d: 1.5\ne: 0.00001\nf: 0.0001\n", {}),
    ("{{ 1000000 }}|{{ 1000000.0 }}|{{ 0x10 }}|{{ 'a' }}|{{ 017 }}", "", {}),
    ("{{ .Values.oct }}|{{ .Values.hex }}|{{ .Values.ver }}", "oct: 0777\nhex: 0x1F\nver: 1.10\n", {}),
    ("{{ .Values.a }}|{{ .Values.b }}|{{ .Values.d }}", "a: yes\nb: on\nd: y\n", {}),
    ("{{ .Values }}", "y: 1\nn: 2\nyes: 4\n'no': 5\n", {}),
    ("{{ .Values.m }}|{{ .Values.l }}", "m: {b: 2, a: 1, c: {d: x}}\nl: [a, 1, true, null]\n", {}),
    ("[{{ .Values.missing }}][{{ .Values.nul }}][{{ printf \"%v\" .Values.missing }}]", "nul: null\n", {}),
    ("[{{ \"<no value>\" }}][{{ .Values.s }}]", "s: 'x<no value>y'\n", {}),
    ("{{ .Values.a.b }}", "x: 1\n", {}),
    ("{{ .Values.a.b | default \"x\" }}", "z: 1\n", {}),
    ("{{ (.Values.a | default dict).b | default \"x\" }}", "z: 1\n", {}),
    ("{{ printf \"%d\" .Values.port }}|{{ printf \"%d\" (int .Values.port) }}", "port: 8080\n", {}),
    ("{{ print 1 2 }}|{{ print \"a\" 1 \"b\" }}|{{ print 1 \"a\" 2 }}", "", {}),
    ("{{ eq .Values.num 1 }}", "num: 1\n", {}),
    ("{{ eq .Values.num 1.0 }}|{{ eq (int .Values.num) 1 }}", "num: 1\n", {}),
    ("{{ eq .Values.s \"a\" \"b\" \"c\" }}|{{ eq .Values.missing \"x\" }}|{{ eq .Values.missing nil }}", "s: c\n", {}),
    ("{{ and 1 0 \"x\" }}|{{ and 1 2 }}|{{ or 0 \"\" nil }}|{{ or .Values.missing \"def\" }}", "", {}),
    ("{{ if and .Values.a .Values.a.b }}yes{{ else }}no{{ end }}", "x: 1\n", {}),
    ("{{ range $k, $v := .Values }}{{ $k }}={{ if $v }}T{{ else }}F{{ end }} {{ end }}",
     "a: 0\nc: ''\nd: '0'\ne: []\nf: {}\nh: 'false'\nj: [0]\n", {}),
    ("{{ .Values.f | default true }}|{{ .Values.z | default 5 }}", "f: false\nz: 0\n", {}),
    ("a  {{- 1 -}}  b\n{{- 2 }}\n  {{- /* c */ -}}\n  x {{3}}", "", {}),
    ("{{-3}}|{{- /* ok */ -}}x", "", {}),
    ("{{-/* bad */}}", "", {}),
    ("items:\n{{- range .Values.l }}\n  - {{ . }}\n{{- end }}\nend", "l: [a, b]\n", {}),
    ("{{ range $k, $v := .Values.m }}{{ $k }}={{ $v }},{{ end }}", "m: {b: 1, a: 2, B: 3, a10: 4, a2: 5, _x: 6}\n", {}),
    ("{{ range $i, $v := .Values.l }}{{ if eq $v 3.0 }}{{ continue }}{{ end }}{{ if eq $v 5.0 }}{{ break }}{{ end }}"
     "{{ $v }},{{ end }}", "l: [1,2,3,4,5,6]\n", {}),
    ("{{ $c := 0 }}{{ range .Values.l }}{{ $c = add $c 1 }}{{ end }}{{ $c }}|{{ $x := 1 }}{{ if true }}{{ $x := 2 }}"
     "{{ $x }}{{ end }}{{ $x }}", "l: [a,b,c]\n", {}),
    ("{{ range .Values.l }}x{{ else }}empty{{ end }}|{{ range .Values.missing }}x{{ else }}none{{ end }}", "l: []\n", {}),
    ("{{ range 3 }}{{ . }}{{ end }}", "", {}),
    ("{{ range .Values.num }}x{{ end }}", "num: 3\n", {}),
    ("{{ with .Values.a }}a{{ else with .Values.b }}b={{ . }}{{ end }}", "b: 2\n", {}),
    ("{{ include \"x\" . | indent 2 }}", "",
     {"_h.tpl": "{{- define \"x\" -}}\nname: {{ .Chart.Name }}\nrel: {{ .Release.Name }}\n{{- end -}}"}),
    ("{{ $v := 1 }}{{ include \"u\" . }}", "", {"_h.tpl": "{{ define \"u\" }}{{ $v }}{{ end }}"}),
    ("{{ include \"z\" . }}", "", {"_a.tpl": "{{ define \"z\" }}A{{ end }}", "_b.tpl": "{{ define \"z\" }}B{{ end }}"}),
    ("{{ tpl .Values.t . }}|{{ tpl \"{{ .Values.missing }}x\" . }}", "t: '{{ .Release.Name }}-{{ .Values.num }}'\nnum: 5\n", {}),
    ("{{ tpl \"{{ .Values.a.b }}\" . }}", "x: 1\n", {}),
    ("{{ required \"need foo\" .Values.foo }}", "", {}),
    ("{{ required \"x\" .Values.f }}|{{ required \"x\" .Values.z }}", "f: false\nz: 0\n", {}),
    ("x: {{ include \"r\" . }}", "", {"_h.tpl": "{{ define \"r\" }}{{ required \"deep missing\" .Values.x }}{{ end }}"}),
    ("{{ include \"a\" . }}", "",
     {"_h.tpl": "{{ define \"a\" }}{{ include \"b\" . }}{{ end }}{{ define \"b\" }}{{ .Values.nope.key }}{{ end }}"}),
    ("{{ quote \"a\\\"b\" }}|{{ quote .Values.num }}|{{ quote .Values.missing }}|{{ squote \"it's\" }}|{{ quote 1 2 }}",
     "num: 1000000\n", {}),
    ("a:{{ \"x\\ny\\n\" | nindent 2 }}", "", {}),
    ("{{ .Values.num | indent 2 }}", "num: 1\n", {}),
    ("{{ trunc 2 \"héllo\" | printf \"%q\" }}|{{ len \"hé\" }}|{{ index \"abc\" 1 }}", "", {}),
    ("{{ $a := dict \"x\" false \"y\" 1 }}{{ merge $a (dict \"x\" true \"y\" 2 \"z\" 3) }}|{{ $a }}", "", {}),
    ("{{ $_ := merge .Values.m (dict \"new\" 1) }}{{ .Values.m }}", "m: {a: 1}\n", {}),
    ("{{ .Values.Table }}", "Table: x\n", {}),
    ("{{ index .Values \"my-key\" }}", "my-key: a\n", {}),
    ("{{ .Values.my-key }}", "my-key: a\n", {}),
    ("{{ typeOf .Values.i }}|{{ typeOf .Values.missing }}|{{ typeOf 1 }}|{{ kindOf .Values.missing }}", "i: 1\n", {}),
    ("{{ slice \"abc\" 1 }}", "", {}),
    ("{{ printf \"%T|%T|%T\" .Values .Files .Capabilities.APIVersions }}|{{ printf \"%d|%#v\" .Values .Values }}",
     "a: 1\n", {}),
    ("{{ .Values.Table \"nope\" }}", "a: 1\n", {}),
    ("{{ 1 | 2 }}", "", {}),
    ("{{ nosuchfunc 1 }}", "", {}),
    ("{{ $nope }}", "", {}),
]


def _write(root, template, values, files):
    os.makedirs(os.path.join(root, "templates"))
    with open(os.path.join(root, "Chart.yaml"), "w") as fh:
        fh.write("apiVersion: v2\nname: mychart\nversion: 0.1.0\n")
    with open(os.path.join(root, "values.yaml"), "w") as fh:
        fh.write(values)
    all_files = dict(files)
    all_files["NOTES.txt"] = template
    for name, text in all_files.items():
        with open(os.path.join(root, "templates", name), "w") as fh:
            fh.write(text)


def _helm(root):
    from helm_oracle import Chart
    try:
        with Chart.load(root) as chart:
            return ("ok", chart.render({}, name="rel", namespace="ns").get("mychart/templates/NOTES.txt"))
    except Exception as exc:
        return ("error", str(exc))


def _ours(root):
    try:
        return ("ok", render_release(root, name="rel", namespace="ns").notes)
    except Exception as exc:
        return ("error", str(exc))


@pytest.mark.parametrize("template,values,files", CASES, ids=["ref%02d" % i for i in range(len(CASES))])
def test_reference_case_renders_as_helm(tmp_path, template, values, files):
    root = str(tmp_path / "mychart")
    _write(root, template, values, files)
    assert _ours(root) == _helm(root)
