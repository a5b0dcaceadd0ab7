"""Helpers for the chart tests: tiny charts on disk and the Helm oracle (helm_oracle)."""

import json
import os

import helm_oracle

from ansible_collections.helmless.core.plugins.module_utils.chart import load_chart


def write_chart(root, name="c", chart_yaml=None, files=None, version="0.1.0"):
    """Write a chart directory ``root/name``; ``files`` maps relative paths to str/bytes."""
    path = os.path.join(str(root), name)
    os.makedirs(path, exist_ok=True)
    if chart_yaml is None:
        chart_yaml = "apiVersion: v2\nname: %s\nversion: %s\n" % (name.rsplit("/", 1)[-1], version)
    files = dict(files or {})
    files.setdefault("Chart.yaml", chart_yaml)
    for rel, content in files.items():
        full = os.path.join(path, rel)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "wb") as handle:
            handle.write(content.encode("utf-8") if isinstance(content, str) else content)
    return path


def render(path, values=None, **kwargs):
    """The oracle's render of the chart at ``path``."""
    kwargs.setdefault("name", "rel")
    kwargs.setdefault("namespace", "ns")
    with helm_oracle.Chart.load(path) as chart:
        return chart.render(values or {}, **kwargs)


def oracle_json(path, expression, values=None, template="zz-probe.yaml", **kwargs):
    """Add ``templates/<template>`` printing ``toJson <expression>`` to the chart at ``path``
    and return the decoded JSON the oracle renders."""
    probe = os.path.join(path, "templates", template)
    os.makedirs(os.path.dirname(probe), exist_ok=True)
    with open(probe, "w") as handle:
        handle.write("{{ toJson %s }}" % expression)
    out = render(path, values, **kwargs)
    name = helm_oracle.Chart.load(path).name
    return json.loads(out["%s/templates/%s" % (name, template)])


def ours(path):
    return load_chart(path)


def jsonable(value):
    """Our values as the oracle's JSON would decode them (bytes are base64 in Go JSON)."""
    return json.loads(json.dumps(value, default=_default))


def _default(value):
    import base64
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    go_json = getattr(value, "go_json_value", None)
    if go_json is not None:
        return go_json()
    raise TypeError(type(value))


PROBE = ('{{ $f := list }}{{ range $k, $_ := .Files }}{{ $f = append $f $k }}{{ end }}'
         '{{ toJson (dict "values" .Values "chart" .Chart "subcharts" (keys .Subcharts | sortAlpha) '
         '"files" $f "release" .Release) }}')
PROBE_NAME = "zz-probe.yaml"


def probed_copy(src, root):
    """Copy the chart at ``src`` under ``root`` without its templates, with a probe template in
    every chart (root and nested) that prints what the chart's templates would see."""
    import shutil
    dst = os.path.join(str(root), os.path.basename(os.path.normpath(src)))
    shutil.copytree(src, dst, symlinks=False)
    for dirpath, dirnames, filenames in os.walk(dst):
        if "Chart.yaml" in filenames:
            tdir = os.path.join(dirpath, "templates")
            if os.path.isdir(tdir):
                shutil.rmtree(tdir)
            os.makedirs(tdir)
            with open(os.path.join(tdir, PROBE_NAME), "w") as handle:
                handle.write(PROBE)
    return dst


def add_probes(path):
    """Add the probe template to every chart under ``path`` (keeping its templates)."""
    for dirpath, _dirnames, filenames in os.walk(path):
        if "Chart.yaml" in filenames:
            tdir = os.path.join(dirpath, "templates")
            os.makedirs(tdir, exist_ok=True)
            with open(os.path.join(tdir, PROBE_NAME), "w") as handle:
                handle.write(PROBE)
    return path


def oracle_scopes(path, values=None):
    """``{chart full path: probe JSON}`` for every chart the oracle renders."""
    out = {}
    suffix = "/templates/" + PROBE_NAME
    for name, text in render(path, values).items():
        if name.endswith(suffix):
            out[name[:-len(suffix)]] = json.loads(text)
    return out


def our_scopes(path, values=None, warnings=None, **options):
    """The same view computed by our chart package."""
    from ansible_collections.helmless.core.plugins.module_utils.chart.dependencies import process_dependencies
    from ansible_collections.helmless.core.plugins.module_utils.chart.values import (
        ReleaseOptions, chart_scopes, to_render_values)
    chart = load_chart(path)
    process_dependencies(chart, values, warnings)
    top = to_render_values(chart, values, ReleaseOptions("rel", "ns"), warnings=warnings, **options)
    out = {}
    for sub, scope in chart_scopes(chart, top):
        if sub.is_library():
            continue
        out[sub.chart_full_path()] = jsonable({
            "values": scope["Values"], "chart": scope["Chart"], "subcharts": sorted(scope["Subcharts"]),
            "files": sorted(scope["Files"]), "release": scope["Release"]})
    return out
