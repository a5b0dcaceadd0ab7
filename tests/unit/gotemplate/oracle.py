"""Run template cases through real Helm at the pinned version (helm_oracle) and through our TemplateSet.

A case is a template text (the chart's ``templates/t.yaml``), values and optional extra
template files.  Both sides see the values as Helm does (numbers are float64), Helm's
``<no value>`` stripping is applied to our output, and errors are compared in Go's flat
form: Helm 4 prints exec errors as an indented block per location, which is folded back.
"""
import atexit
import json
import os
import shutil
import tempfile

import yaml

from ansible_collections.helmless.core.plugins.module_utils.gotemplate import (
    ExecError, ParseError, TemplateSet)

CHART = "c"
_CACHE = {}
_ROOT = None


def _root():
    global _ROOT
    if _ROOT is None:
        _ROOT = tempfile.mkdtemp(prefix="gotpl-oracle-")
        atexit.register(shutil.rmtree, _ROOT, True)
    return _ROOT


def _key(template, values, files):
    return json.dumps([template, values, sorted((files or {}).items())], sort_keys=True)


def _write_chart(root, files, values):
    if os.path.isdir(root):
        shutil.rmtree(root)
    os.makedirs(os.path.join(root, "templates"))
    with open(os.path.join(root, "Chart.yaml"), "w") as fh:
        fh.write("apiVersion: v2\nname: %s\nversion: 0.1.0\n" % CHART)
    with open(os.path.join(root, "values.yaml"), "w") as fh:
        yaml.safe_dump(values or {}, fh)
    for name, text in files.items():
        path = os.path.join(root, "templates", name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8", errors="surrogateescape") as fh:
            fh.write(text)


def fold_helm4_error(text):
    """Helm 4's multi-line exec error → Go's one-line ``template: LOC: executing ...`` chain."""
    if text.startswith(("template: ", "parse error")) or "\n  executing " not in text:
        return text
    blocks = []
    for line in text.split("\n"):
        if line.startswith("    "):
            blocks[-1][2].append(line[4:])
        elif line.startswith("  "):
            blocks[-1][1] = line[2:]
        else:
            blocks.append([line, None, []])
    parts = []
    for loc, func, msg in blocks:
        if func is None:
            parts.append("\n".join([loc] + msg))
        else:
            parts.append("template: %s: %s %s" % (loc, func, "\n".join(msg)))
    return " ".join(parts)


def oracle(template, values=None, files=None):
    """('ok', text) or ('error', message) from real Helm, cached per session."""
    key = _key(template, values, files)
    if key in _CACHE:
        return _CACHE[key]
    from helm_oracle import Chart
    root = os.path.join(_root(), "case%d" % len(_CACHE))
    all_files = dict(files or {})
    all_files["t.yaml"] = template
    _write_chart(root, all_files, values)
    try:
        with Chart.load(root) as chart:
            out = chart.render({}, name="rel", namespace="ns")
        res = ("ok", out.get("%s/templates/t.yaml" % CHART, ""))
    except Exception as exc:
        res = ("error", fold_helm4_error(str(exc)))
    _CACHE[key] = res
    return res


def _file_order(names):
    """Helm's sortTemplates: deepest paths first, then reverse lexical order."""
    return sorted(names, key=lambda n: (n.count("/"), n), reverse=True)


def _drop_nulls(table):
    """Helm's values coalescing deletes keys whose value is null (in nested tables too)."""
    return dict((k, _drop_nulls(v) if isinstance(v, dict) else v)
                for k, v in table.items() if v is not None)


def ours(template, values=None, files=None, funcs=None):
    """('ok', text) or ('error', message) from our engine, set up as Helm sets up Go's."""
    vals = _drop_nulls(json.loads(json.dumps(values or {}), parse_int=float))
    ts = TemplateSet(funcs or {}, missingkey="zero")
    all_files = dict(files or {})
    all_files["t.yaml"] = template
    names = ["%s/templates/%s" % (CHART, n) for n in all_files]
    try:
        for name in _file_order(names):
            ts.parse(name, all_files[name[len(CHART) + 11:]])
    except ParseError as exc:
        tokens = str(exc).split(": ")
        return ("error", "parse error at (%s): %s" % (tokens[1], tokens[-1]))
    name = "%s/templates/t.yaml" % CHART
    top = {
        "Values": vals,
        "Release": {"Name": "rel", "Namespace": "ns", "IsInstall": True, "IsUpgrade": False,
                    "Revision": 1, "Service": "Helm"},
        "Chart": {"Name": CHART, "Version": "0.1.0"},
        "Template": {"Name": name, "BasePath": "%s/templates" % CHART},
    }
    try:
        return ("ok", ts.execute(name, top).replace("<no value>", ""))
    except ExecError as exc:
        return ("error", str(exc))
