"""Hostile charts (alias bombs, deep nesting, runaway recursion, archive path tricks) end in Helm's error
or a clear one of ours, within bounded time and memory, and nothing is written outside the chart.

Ours runs in a child process limited to 1 GiB of address space and a timeout, so a blow-up fails the test
instead of the machine; Helm (the pinned oracle) says what the answer should be.
"""
import io
import json
import os
import subprocess
import sys
import tarfile

import pytest

import helm_oracle

MEMORY = 1 << 30
TIMEOUT = 180
CHART_YAML = "apiVersion: v2\nname: c\nversion: 0.1.0\n"

RUNNER = """
import json, resource, sys
resource.setrlimit(resource.RLIMIT_AS, (%d, %d))
sys.path[:0] = %r
from ansible_collections.helmless.core.plugins.module_utils.render import RenderError, render_release
try:
    out = render_release(sys.argv[1], "rel", "ns")
    print(json.dumps(["ok", out.manifest]))
except RenderError as exc:
    print(json.dumps(["error", str(exc)]))
""" % (MEMORY, MEMORY, sys.path)


def _chart(root, templates, values=""):
    os.makedirs(os.path.join(root, "templates"))
    with open(os.path.join(root, "Chart.yaml"), "w") as fh:
        fh.write(CHART_YAML)
    with open(os.path.join(root, "values.yaml"), "w") as fh:
        fh.write(values)
    for name, text in templates.items():
        with open(os.path.join(root, "templates", name), "w") as fh:
            fh.write(text)
    return root


def _archive(path, extra):
    with tarfile.open(path, "w:gz") as tf:
        for name, data, kind, link in [("c/Chart.yaml", CHART_YAML.encode(), tarfile.REGTYPE, ""),
                                       ("c/templates/t.yaml", b"x: 1\n", tarfile.REGTYPE, "")] + extra:
            info = tarfile.TarInfo(name)
            info.size, info.type, info.linkname = len(data), kind, link
            tf.addfile(info, io.BytesIO(data))
    return path


def _alias_bomb(tmp):
    lines = ['a0: &a0 ["x","x","x","x","x","x","x","x","x","x"]']
    lines += ["a%d: &a%d [%s]" % (i, i, ",".join(["*a%d" % (i - 1)] * 10)) for i in range(1, 10)]
    return _chart(tmp, {"t.yaml": "n: {{ len .Values.a9 }}\n"}, "\n".join(lines) + "\n")


def _nested(depth):
    return lambda tmp: _chart(tmp, {"t.yaml": "x: 1\n"}, "a: %s%s\n" % ("[" * depth, "]" * depth))


CASES = {
    "alias bomb (a billion laughs in values.yaml)": _alias_bomb,
    "values nested beyond go-yaml's max depth": _nested(10001),
    "values nested 3000 deep": _nested(3000),
    "a template that includes itself": lambda tmp: _chart(
        tmp, {"t.yaml": '{{define "r"}}{{include "r" .}}{{end}}{{include "r" .}}\n'}),
    "huge value (4 MiB string)": lambda tmp: _chart(
        tmp, {"t.yaml": "n: {{ len .Values.s }}\n"}, "s: %s\n" % ("x" * (4 << 20))),
    "archive entry escaping the chart (../)": lambda tmp: _archive(
        tmp + ".tgz", [("c/../../evil.txt", b"pwned", tarfile.REGTYPE, "")]),
    "archive entry with an absolute path": lambda tmp: _archive(
        tmp + ".tgz", [(os.path.join(tmp, "evil.txt").lstrip("/"), b"pwned", tarfile.REGTYPE, ""),
                       ("/" + os.path.join(tmp, "evil-abs.txt").lstrip("/"), b"pwned", tarfile.REGTYPE, "")]),
    "archive symlink to /etc/passwd": lambda tmp: _archive(
        tmp + ".tgz", [("c/templates/link.yaml", b"", tarfile.SYMTYPE, "/etc/passwd")]),
}
# Ours differs on purpose: Helm renders the first (we stop with a clear error at Python's recursion limit,
# a known gap); for the second Helm 4.3.2 only says "unable to load chart archive", we also say why.
OURS_STRICTER = {"values nested 3000 deep": "nested too deeply to render"}


def _helm(path):
    try:
        return "ok", "".join(text for _name, text in sorted(helm_oracle.render(path, name="rel",
                                                                             namespace="ns").items()))
    except helm_oracle.HelmError as exc:
        return "error", str(exc)


@pytest.mark.parametrize("case", sorted(CASES))
def test_hostile_input_ends_in_helms_answer_within_bounds(tmp_path, case):
    root = str(tmp_path / "chart")
    path = CASES[case](root)
    proc = subprocess.run([sys.executable, "-c", RUNNER, path], capture_output=True, text=True, timeout=TIMEOUT,
                          check=False)
    assert proc.returncode == 0 and proc.stdout, "crashed or ran out of memory:\n%s" % proc.stderr[-2000:]
    kind, text = json.loads(proc.stdout)
    if case in OURS_STRICTER:
        assert (kind, OURS_STRICTER[case] in text) == ("error", True), text
    else:
        helm_kind, helm_text = _helm(path)
        assert kind == helm_kind, "Helm: %s %s\nours: %s %s" % (helm_kind, helm_text[:300], kind, text[:300])
        if kind == "error":
            assert text in helm_text, "Helm: %s\nours: %s" % (helm_text, text)
    written = {os.path.join(d, f) for d, _dirs, files in os.walk(str(tmp_path)) for f in files}
    assert not [p for p in written if "evil" in p], written
