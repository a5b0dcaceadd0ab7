"""Real Helm at the pinned version (helm_oracle) as the oracle for the goyaml tests.

Many cases share one chart: values.yaml holds every case under its own key
(``c0000: <value>``, written as JSON, which go-yaml reads back unchanged) and one
template per case and function prints the Go result.  Results are cached per process.
"""
import json
import os
import re
import tempfile

_YAML_UNSAFE = re.compile("[\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]")
_CACHE = {}


def json_as_yaml(value):
    """JSON text that go-yaml v2 parses back to exactly ``value``."""
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return _YAML_UNSAFE.sub(lambda m: "\\u%04x" % ord(m.group(0)), text)


def write_chart(root, values_text, templates, files=None):
    os.makedirs(os.path.join(root, "templates"), exist_ok=True)
    for name, data in (files or {}).items():
        with open(os.path.join(root, name), "wb") as fh:
            fh.write(data)
    with open(os.path.join(root, "Chart.yaml"), "w") as fh:
        fh.write("apiVersion: v2\nname: c\nversion: 0.1.0\n")
    with open(os.path.join(root, "values.yaml"), "w", encoding="utf-8") as fh:
        fh.write(values_text)
    for name, text in templates.items():
        with open(os.path.join(root, "templates", name), "w", encoding="utf-8") as fh:
            fh.write(text)


def render_chart(root):
    from helm_oracle import Chart
    with Chart.load(root) as chart:
        return chart.render({}, name="rel", namespace="ns")


def render_batch(key, values_text, templates, files=None):
    """{template name: output} for one chart; cached per process under ``key``."""
    if key not in _CACHE:
        root = tempfile.mkdtemp(prefix="goyaml-oracle-")
        write_chart(root, values_text, templates, files)
        rendered = render_chart(root)
        _CACHE[key] = {name: rendered.get("c/templates/" + name) for name in templates}
    return _CACHE[key]


def render_values(key, values, funcs):
    """Apply each Go template function (or ``expr %s`` pattern) to each value: {(index, func): output}."""
    if key not in _CACHE:
        parts = []
        templates = {}
        for i, v in enumerate(values):
            parts.append('"c%04d": %s' % (i, json_as_yaml(v)))
            for j, f in enumerate(funcs):
                expr = f % (".Values.c%04d" % i) if "%s" in f else "%s .Values.c%04d" % (f, i)
                templates["t%04d-%d.txt" % (i, j)] = "{{ %s }}" % expr
        text = "{" + ",\n".join(parts) + "}\n"
        out = render_batch(key + "/raw", text, templates)
        _CACHE[key] = {(i, f): out["t%04d-%d.txt" % (i, j)] for i in range(len(values))
                       for j, f in enumerate(funcs)}
    return _CACHE[key]


def render_snippets(key, snippets, exprs):
    """Load each YAML snippet as ``.Values.cNNNN`` and print each expr (``X`` = the value)."""
    if key not in _CACHE:
        lines = []
        templates = {}
        for i, snip in enumerate(snippets):
            lines.append("c%04d:" % i)
            lines.extend("  " + ln if ln else "" for ln in snip.split("\n"))
            for j, e in enumerate(exprs):
                templates["t%04d-%d.txt" % (i, j)] = "{{ %s }}" % e.replace("X", ".Values.c%04d" % i)
        out = render_batch(key + "/raw", "\n".join(lines) + "\n", templates)
        _CACHE[key] = {(i, j): out["t%04d-%d.txt" % (i, j)] for i in range(len(snippets))
                       for j in range(len(exprs))}
    return _CACHE[key]


def values_from_yaml(text):
    """Helm's ReadValues (sigs.k8s.io/yaml.Unmarshal into a map): value or ('ERROR', msg)."""
    from helm_oracle import values_from_yaml as vfy
    try:
        return vfy(text)
    except Exception as exc:  # the oracle's error type carries Go's message
        return ("ERROR", str(exc))


def chart_values(values_text):
    """A chart's loaded values.yaml (Helm 4 LoadValues): dict or ('ERROR', msg)."""
    from helm_oracle import Chart
    root = tempfile.mkdtemp(prefix="goyaml-values-")
    write_chart(root, values_text, {"t.txt": "x"})
    try:
        with Chart.load(root) as chart:
            return chart.values
    except Exception as exc:
        return ("ERROR", str(exc))
