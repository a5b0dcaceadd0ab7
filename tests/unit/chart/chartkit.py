"""Helpers for the chart tests: tiny charts on disk and the Helm oracle (helm_python)."""

import json
import os

import helm_python

from ansible_collections.helmless.core.plugins.module_utils.chart import load_chart

SHARED = os.environ.get("HELMLESS_SHARED", os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "shared"))
CHARTS = os.path.abspath(os.path.join(SHARED, "charts"))


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
    with helm_python.Chart.load(path) as chart:
        return chart.render(values or {}, **kwargs)


def oracle_json(path, expression, values=None, template="zz-probe.yaml", **kwargs):
    """Add ``templates/<template>`` printing ``toJson <expression>`` to the chart at ``path``
    and return the decoded JSON the oracle renders."""
    probe = os.path.join(path, "templates", template)
    os.makedirs(os.path.dirname(probe), exist_ok=True)
    with open(probe, "w") as handle:
        handle.write("{{ toJson %s }}" % expression)
    out = render(path, values, **kwargs)
    name = helm_python.Chart.load(path).name
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
