"""Chart archives load exactly as Helm loads them, and are refused exactly where Helm refuses them.

Each case is a tar built here; the expectation is what the Helm oracle makes of the same bytes: the chart it
loads (metadata, values, templates, files) or its error message, word for word.
"""
import io
import tarfile

import helm_oracle
import pytest

from ansible_collections.helmless.core.plugins.module_utils.chart import ChartError, load_chart

CHART = b"apiVersion: v2\nname: c\nversion: 1.0.0\n"
SUB = b"apiVersion: v2\nname: sub\nversion: 2.0.0\n"
REG, SYM, LNK, FIFO = tarfile.REGTYPE, tarfile.SYMTYPE, tarfile.LNKTYPE, tarfile.FIFOTYPE


def _tgz(entries):
    """A gzipped tar of ``(name, data)`` or ``(name, None, type, linkname)`` entries, in order."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz", format=tarfile.PAX_FORMAT) as tar:
        for entry in entries:
            info = tarfile.TarInfo(entry[0])
            info.type = entry[2] if len(entry) > 2 else REG
            if len(entry) > 3:
                info.linkname = entry[3]
            payload = entry[1] or b""
            info.size = len(payload) if info.type == REG else 0
            tar.addfile(info, io.BytesIO(payload) if info.type == REG else None)
    return buf.getvalue()


CASES = {
    "leading slash drops the empty first element": [
        ("/Chart.yaml", CHART), ("/values.yaml", b"a: 1\n"), ("/templates/t.yaml", b"x: {{ .Values.a }}\n")],
    "leading slash before the chart dir": [("/c/Chart.yaml", CHART), ("/c/templates/t.yaml", b"x: 1\n")],
    "dot slash prefix": [("./c/Chart.yaml", CHART), ("./c/templates/t.yaml", b"x: 1\n")],
    "dot slash without a chart dir": [("./Chart.yaml", CHART), ("./templates/t.yaml", b"x: 1\n")],
    "dot slash directory entry": [("./", None, tarfile.DIRTYPE), ("./Chart.yaml", CHART)],
    "duplicate values": [("c/Chart.yaml", CHART), ("c/values.yaml", b"a: 1\n"), ("c/values.yaml", b"a: 2\n"),
                         ("c/templates/t.yaml", b"a: {{ .Values.a }}\n")],
    "duplicate template": [("c/Chart.yaml", CHART), ("c/templates/t.yaml", b"first: 1\n"),
                           ("c/templates/t.yaml", b"second: 2\n")],
    "duplicate file": [("c/Chart.yaml", CHART), ("c/files/f", b"one"), ("c/files/f", b"two"),
                       ("c/templates/t.yaml", b"f: {{ .Files.Get \"files/f\" }}\n")],
    "duplicate Chart.yaml": [("c/Chart.yaml", CHART), ("c/Chart.yaml", CHART.replace(b"1.0.0", b"3.0.0"))],
    "mixed top directories": [("c/Chart.yaml", CHART), ("other/templates/t.yaml", b"x: 1\n")],
    "dot segments are cleaned": [("c/Chart.yaml", CHART), ("c/a/../templates/t.yaml", b"x: 1\n"),
                                 ("c/./files//f", b"f")],
    "backslash names": [("c\\Chart.yaml", CHART), ("c\\templates\\t.yaml", b"x: 1\n")],
    "symlink is an empty file": [("c/Chart.yaml", CHART), ("c/files/a", b"x"),
                                 ("c/files/link", None, SYM, "/etc/passwd")],
    "hard link is an empty file": [("c/Chart.yaml", CHART), ("c/files/hard", None, LNK, "c/Chart.yaml")],
    "fifo is an empty file": [("c/Chart.yaml", CHART), ("c/files/p", None, FIFO)],
    "subchart in the archive": [("c/Chart.yaml", CHART), ("c/charts/sub/Chart.yaml", SUB),
                                ("c/charts/sub/values.yaml", b"s: 1\n")],
    "utf8 bom is stripped": [("c/Chart.yaml", b"\xef\xbb\xbf" + CHART), ("c/values.yaml", b"\xef\xbb\xbfa: 1\n")],
    # refused
    "parent directory": [("c/Chart.yaml", CHART), ("c/../../etc/passwd", b"x")],
    "dot dot prefix of a name": [("c/Chart.yaml", CHART), ("c/..x", b"x")],
    "absolute after the first element": [("c/Chart.yaml", CHART), ("c//etc/x", b"x")],
    "drive letter": [("c/Chart.yaml", CHART), ("c/C:/x", b"x")],
    "Chart.yaml at the top": [("Chart.yaml", CHART)],
    "bare top entry": [("c", b"x")],
    "Chart.yaml as the top directory": [("Chart.yaml/x", b"x"), ("c/Chart.yaml", CHART)],
    "no Chart.yaml": [("c/values.yaml", b"a: 1\n")],
    "only directories": [("c/", None, tarfile.DIRTYPE)],
}


def _oracle(path):
    try:
        ref = helm_oracle.Chart.load(path)
    except helm_oracle.HelmError as exc:
        return "error", str(exc)
    return "ok", {"metadata": ref.metadata, "values": ref.values,
                  "templates": sorted((t["name"], t["data"]) for t in ref.templates),
                  "files": sorted((f["name"], f["data"]) for f in ref.files),
                  "dependencies": sorted(d["name"] for d in ref.dependencies)}


def _ours(path):
    try:
        chart = load_chart(path)
    except ChartError as exc:
        return "error", str(exc)
    text = lambda data: data.decode("utf-8", "replace")  # noqa: E731  (Go's JSON: invalid UTF-8 as U+FFFD)
    return "ok", {"metadata": chart.metadata, "values": chart.values,
                  "templates": sorted((n, text(d)) for n, d in chart.templates),
                  "files": sorted((n, text(d)) for n, d in chart.files),
                  "dependencies": sorted(d.name for d in chart.dependencies)}


@pytest.mark.parametrize("case", sorted(CASES))
def test_archive_loads_or_is_refused_exactly_like_helm(tmp_path, case):
    path = tmp_path / "c-1.0.0.tgz"
    path.write_bytes(_tgz(CASES[case]))
    assert _ours(str(path)) == _oracle(str(path))


@pytest.mark.parametrize("case", ["leading slash drops the empty first element", "duplicate values",
                                  "duplicate template", "duplicate file"])
def test_archive_renders_like_helm(tmp_path, case):
    from ansible_collections.helmless.core.plugins.module_utils.render import render_release
    path = tmp_path / "c-1.0.0.tgz"
    path.write_bytes(_tgz(CASES[case]))
    assert render_release(str(path), name="rel", namespace="ns").rendered == helm_oracle.render(
        path, name="rel", namespace="ns")


def test_a_big_file_in_a_chart_directory_loads_like_helm(tmp_path):
    """Helm 4.3 caps the whole chart, not each file (4.2 refused a file over 5 MiB)."""
    chart = tmp_path / "c"
    (chart / "files").mkdir(parents=True)
    (chart / "Chart.yaml").write_bytes(CHART)
    (chart / "files" / "big.bin").write_bytes(b"x" * (6 * 1024 * 1024))
    assert _ours(str(chart)) == _oracle(str(chart))
