#!/usr/bin/env python3
"""Template engine alone: a helper-heavy synthetic chart, our TemplateSet against Helm 4.

The chart (written to a temp dir) has N Deployment templates built from `include`d helpers,
`range`, `with`, `if`, `printf` and `index`, the shapes real charts repeat thousands of
times. Helm renders it whole; we parse and execute the same files with a TemplateSet and
minimal quote/nindent/default stand-ins, and check the outputs agree. Prints cold (first,
including parse and compile) and warm (median) times, in CPU seconds for ours.

    python3 benchmarks/gotemplate.py [-n 7] [--files 40]
"""
import argparse
import json
import os
import statistics
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))

HELPERS = """{{- define "c.name" -}}
{{- if .Values.nameOverride }}{{ .Values.nameOverride }}{{ else }}{{ .Chart.Name }}{{ end -}}
{{- end -}}
{{- define "c.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{ .Values.fullnameOverride }}
{{- else -}}
{{- $name := include "c.name" . -}}
{{- if eq $name .Release.Name }}{{ .Release.Name }}{{ else }}{{ printf "%s-%s" .Release.Name $name }}{{ end -}}
{{- end -}}
{{- end -}}
{{- define "c.labels" -}}
app.kubernetes.io/name: {{ include "c.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- range $k, $v := .Values.labels }}
{{ $k }}: {{ $v | quote }}
{{- end }}
{{- end -}}
{{- define "c.selector" -}}
app.kubernetes.io/name: {{ include "c.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}
"""

DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "c.fullname" . }}-%(i)d
  labels:
    {{- include "c.labels" . | nindent 4 }}
spec:
  {{- if .Values.enabled }}
  replicas: {{ .Values.replicas }}
  {{- end }}
  selector:
    matchLabels:
      {{- include "c.selector" . | nindent 6 }}
  template:
    spec:
      containers:
        - name: {{ include "c.name" . }}
          image: "{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}"
          ports:
          {{- range .Values.ports }}
            - name: {{ .name }}
              containerPort: {{ .port }}
          {{- end }}
          env:
          {{- range $k, $v := .Values.env }}
            - name: {{ $k }}
              value: {{ $v | quote }}
          {{- end }}
          {{- with .Values.resources }}
          resources:
            limits:
              cpu: {{ .limits.cpu }}
              memory: {{ index .limits "memory" }}
          {{- end }}
"""

VALUES = {
    "nameOverride": "", "fullnameOverride": "", "enabled": True, "replicas": 3,
    "image": {"repository": "nginx", "tag": "1.25"},
    "labels": {"app": "web", "tier": "frontend", "team": "core"},
    "ports": [{"name": "http", "port": 80}, {"name": "https", "port": 443}, {"name": "metrics", "port": 9090}],
    "env": {"A": "1", "B": "2", "C": "3", "D": "4", "E": "5"},
    "resources": {"limits": {"cpu": "100m", "memory": "128Mi"}},
}


def write_chart(root, nfiles):
    os.makedirs(os.path.join(root, "templates"))
    with open(os.path.join(root, "Chart.yaml"), "w") as fh:
        fh.write("apiVersion: v2\nname: c\nversion: 0.1.0\nappVersion: \"1.0\"\n")
    with open(os.path.join(root, "values.yaml"), "w") as fh:
        json.dump(VALUES, fh)
    files = {"c/templates/_helpers.tpl": HELPERS}
    for i in range(nfiles):
        files["c/templates/deploy%d.yaml" % i] = DEPLOYMENT % {"i": i}
    for name, text in files.items():
        with open(os.path.join(root, "templates", os.path.basename(name)), "w") as fh:
            fh.write(text)
    return files


def helm_times(root, runs):
    from helm_python import Chart
    times, out = [], None
    for _ in range(runs):
        chart = Chart.load(root)
        start = time.perf_counter()
        out = chart.render({}, name="rel", namespace="ns")
        times.append(time.perf_counter() - start)
    return times, out


def our_times(files, runs):
    from ansible_collections.helmless.core.plugins.module_utils.gotemplate import TemplateSet
    from ansible_collections.helmless.core.plugins.module_utils.govalue.fmt import format_value
    from ansible_collections.helmless.core.plugins.module_utils.govalue.strconv import go_quote

    def quote(*args):
        return " ".join(go_quote(a if isinstance(a, str) else format_value(a)) for a in args if a is not None)

    def nindent(n, s):
        return "\n" + "\n".join(" " * n + line for line in s.split("\n"))

    def default(d, v=None):
        return v if v else d
    values = json.loads(json.dumps(VALUES), parse_int=float)
    top = {"Values": values, "Release": {"Name": "rel", "Namespace": "ns"},
           "Chart": {"Name": "c", "AppVersion": "1.0"}}
    names = sorted(files, key=lambda n: (n.count("/"), n), reverse=True)
    times, out = [], None
    for _ in range(runs):
        start = time.process_time()
        ts = TemplateSet({"quote": quote, "nindent": nindent, "default": default})
        ts.add_funcs({"include": lambda n, d: ts.execute(n, d)})
        for name in names:
            ts.parse(name, files[name])
        out = dict((n, ts.execute(n, top).replace("<no value>", ""))
                   for n in names if not os.path.basename(n).startswith("_"))
        times.append(time.process_time() - start)
    return times, out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-n", "--runs", type=int, default=7)
    parser.add_argument("--files", type=int, default=40)
    args = parser.parse_args(argv)
    from render import _setup_import
    _setup_import()
    root = os.path.join(tempfile.mkdtemp(prefix="gotpl-bench-"), "c")
    files = write_chart(root, args.files)
    helm, helm_out = helm_times(root, args.runs)
    ours, our_out = our_times(files, args.runs)
    bad = [n for n in our_out if our_out[n] != helm_out.get(n)]
    print("outputs differ from Helm: %s" % (", ".join(bad[:5]) or "none"))
    h = statistics.median(helm)
    print("helm %.1f ms | ours cold %.1f ms, warm %.1f ms | warm ratio %.2f"
          % (h * 1e3, ours[0] * 1e3, statistics.median(ours[1:]) * 1e3, statistics.median(ours[1:]) / h))


if __name__ == "__main__":
    main()
