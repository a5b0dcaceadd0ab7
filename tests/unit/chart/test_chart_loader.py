"""Loading charts from directories and archives, compared with Helm's loader."""

import gzip
import io
import os
import tarfile

import helm_oracle
import pytest

import corpuskit
from chartkit import write_chart
from ansible_collections.helmless.core.plugins.module_utils.chart import ChartError, load_archive, load_chart


def _text(data):
    return data.decode("utf-8", "replace")


@pytest.mark.parametrize("form", ["archive", "directory"])
@pytest.mark.parametrize("name", corpuskit.names())
def test_corpus_chart_loads_like_helm(tmp_path, name, form):
    path = corpuskit.archive(name) if form == "archive" else corpuskit.unpack(name, tmp_path)
    chart = load_chart(path)
    with helm_oracle.Chart.load(path) as ref:
        assert chart.metadata == ref.metadata
        assert chart.values == ref.values
        assert sorted((n, _text(d)) for n, d in chart.templates) == sorted(
            (t["name"], t["data"]) for t in ref.templates)
        assert sorted((n, _text(d)) for n, d in chart.files) == sorted((f["name"], f["data"]) for f in ref.files)
        assert sorted((d.metadata["name"], d.metadata["version"]) for d in chart.dependencies) == sorted(
            (d["name"], d["version"]) for d in ref.dependencies)
        schema = ref.schema
        assert (chart.schema is None) == (schema is None)
        assert sorted((n, f, _text(d)) for n, f, d in chart.crd_objects()) == sorted(
            (c["name"], c["filename"], c["data"]) for c in ref.crds)


def _oracle_error(path):
    try:
        helm_oracle.Chart.load(path).close()
    except helm_oracle.HelmError as exc:
        return str(exc)
    return None


CHART_YAML_CASES = {
    "chart API v3 is refused": "apiVersion: v3\nname: x\nversion: 1.0.0\n",
    "unknown apiVersion is unsupported": "apiVersion: v9\nname: x\nversion: 1.0.0\n",
    "apiVersion key in another case": "APIVERSION: v9\nname: x\nversion: 1.0.0\n",
    "numeric apiVersion": "apiVersion: 2\nname: x\nversion: 1.0.0\n",
    "Chart.yaml that is a list": "- apiVersion: v2\n",
    "missing apiVersion means v1": "name: x\nversion: 1.0.0\n",
    "missing name": "apiVersion: v2\nversion: 1.0.0\n",
    "missing version": "apiVersion: v2\nname: x\n",
    "float version": "apiVersion: v2\nname: x\nversion: 1.0\n",
    "bad prerelease": "apiVersion: v2\nname: x\nversion: 1.0.0-01\n",
    "name with slash": "apiVersion: v2\nname: a/b\nversion: 1.0.0\n",
    "bad type": "apiVersion: v2\nname: x\nversion: 1.0.0\ntype: foo\n",
    "list as name": "apiVersion: v2\nname: [x]\nversion: 1.0.0\n",
    "string as bool": "apiVersion: v2\nname: x\nversion: 1.0.0\ndeprecated: \"yes\"\n",
    "bad alias": "apiVersion: v2\nname: x\nversion: 1.0.0\ndependencies:\n- name: a\n  alias: \"b c\"\n",
    "duplicate dependency": "apiVersion: v2\nname: x\nversion: 1.0.0\ndependencies:\n- name: a\n- name: a\n",
    "null dependency": "apiVersion: v2\nname: x\nversion: 1.0.0\ndependencies:\n- null\n",
    "null maintainer": "apiVersion: v2\nname: x\nversion: 1.0.0\nmaintainers:\n- null\n",
    "numbers become strings": "apiVersion: v2\nname: x\nversion: 1.0.0\nappVersion: 1.10\ndescription: 0.000001\n"
                              "keywords: [1, true, 2.5]\nannotations: {a: 1, b: true, c: 1.5}\nhome: 12345678\n",
    "keys match case-insensitively": "APIVERSION: v2\nName: x\nVersion: 1.0.0\nAppVersion: \"3\"\n",
    "library type": "apiVersion: v2\nname: x\nversion: 1.0.0\ntype: library\n",
    "sanitized strings": "apiVersion: v2\nname: x\nversion: 1.0.0\ndescription: \"a\\tb\\u0007c\"\n",
    "dependency fields": "apiVersion: v2\nname: x\nversion: 1.0.0\ndependencies:\n- name: a\n  version: ~1.2\n"
                         "  repository: https://x\n  condition: a.on\n  tags: [t1, 2]\n  alias: b\n"
                         "  import-values: [x, {child: c, parent: p}]\n",
}


@pytest.mark.parametrize("case", sorted(CHART_YAML_CASES))
def test_chart_yaml_is_decoded_and_validated_like_helm(tmp_path, case):
    path = write_chart(tmp_path, "x", CHART_YAML_CASES[case])
    expected = _oracle_error(path)
    if expected is not None:
        with pytest.raises(ChartError) as info:
            load_chart(path)
        assert str(info.value) == expected
    else:
        with helm_oracle.Chart.load(path) as ref:
            assert load_chart(path).metadata == ref.metadata


def test_missing_chart_yaml_is_reported(tmp_path):
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "values.yaml").write_text("a: 1\n")
    with pytest.raises(ChartError) as info:
        load_chart(str(tmp_path / "c"))
    assert str(info.value) == _oracle_error(str(tmp_path / "c"))
    assert str(info.value).startswith("unable to detect chart at %s" % (tmp_path / "c" / "Chart.yaml"))


def test_values_yaml_error_names_the_file(tmp_path):
    path = write_chart(tmp_path, files={"values.yaml": "a: [1\n"})
    with pytest.raises(ChartError) as info:
        load_chart(path)
    assert str(info.value).startswith("cannot load values.yaml")
    assert _oracle_error(path).startswith("cannot load values.yaml")


def test_multi_document_values_yaml_merges_documents(tmp_path):
    path = write_chart(tmp_path, files={"values.yaml": "a: 1\nl: [1, 2]\nm: {x: 1}\n---\nl: [3]\nm: {z: 2}\nb: 2\n"})
    with helm_oracle.Chart.load(path) as ref:
        assert load_chart(path).values == ref.values


def test_files_exclude_chart_parts_and_keep_others(tmp_path):
    path = write_chart(tmp_path, files={
        "values.yaml": "a: 1\n", "values.schema.json": "{}", "Chart.lock": "digest: x\n",
        "templates/a.yaml": "x", "templates/.hidden": "h", "crds/c.yaml": "kind: CRD\n",
        "files/bin.dat": b"\x00\xff\xfe", "README.md": "hi", "requirements.yaml": "dependencies: []\n",
        "charts/x.prov": "sig", "charts/_skip/Chart.yaml": "bogus: [", "charts/.dot/Chart.yaml": "bogus: [",
        ".helmignore": "README.md\n"})
    chart = load_chart(path)
    with helm_oracle.Chart.load(path) as ref:
        assert sorted(n for n, _ in chart.files) == sorted(f["name"] for f in ref.files)
        assert sorted(n for n, _ in chart.templates) == sorted(t["name"] for t in ref.templates)
    assert dict(chart.files)["files/bin.dat"] == b"\x00\xff\xfe"
    assert chart.schema == b"{}"


def test_apiversion_v1_keeps_requirements_files(tmp_path):
    path = write_chart(tmp_path, "x", "apiVersion: v1\nname: x\nversion: 1.0.0\n", files={
        "requirements.yaml": "dependencies:\n- name: sub\n  version: 1.0.0\n",
        "requirements.lock": "dependencies:\n- name: sub\n  version: 1.0.0\n",
        "charts/sub/Chart.yaml": "apiVersion: v1\nname: sub\nversion: 1.0.0\n"})
    chart = load_chart(path)
    with helm_oracle.Chart.load(path) as ref:
        assert chart.metadata == ref.metadata
        assert sorted(n for n, _ in chart.files) == sorted(f["name"] for f in ref.files)
    assert chart.lock["dependencies"][0]["name"] == "sub"


HELMIGNORE_CASES = [
    "*.txt", "docs/", "/top.txt", "docs/*.md", "!keep.txt", "a?.txt", "[ab].txt", "# comment\n\nnested",
    "templates/skip.yaml", "*.txt\n!keep.txt", "sub/", "[^a].txt",
]


@pytest.mark.parametrize("rules", HELMIGNORE_CASES)
def test_helmignore_rules_select_the_same_files_as_helm(tmp_path, rules):
    path = write_chart(tmp_path, files={
        ".helmignore": rules, "top.txt": "1", "keep.txt": "2", "a1.txt": "3", "b.txt": "4", "c.txt": "5",
        "docs/readme.md": "6", "docs/deep/x.md": "7", "nested/top.txt": "8", "templates/skip.yaml": "x",
        "templates/ok.yaml": "y", "sub/file": "9"})
    expected = _oracle_error(path)
    if expected is not None:
        with pytest.raises(ChartError) as info:
            load_chart(path)
        assert str(info.value) == expected
        return
    chart = load_chart(path)
    with helm_oracle.Chart.load(path) as ref:
        assert sorted(n for n, _ in chart.files) == sorted(f["name"] for f in ref.files)
        assert sorted(n for n, _ in chart.templates) == sorted(t["name"] for t in ref.templates)


def test_helmignore_with_double_star_is_refused(tmp_path):
    path = write_chart(tmp_path, files={".helmignore": "**/x\n"})
    with pytest.raises(ChartError, match=r"double-star \(\*\*\) syntax is not supported"):
        load_chart(path)
    assert _oracle_error(path) is not None


def test_only_the_top_level_helmignore_applies(tmp_path):
    path = write_chart(tmp_path, "p", files={
        "charts/sub/Chart.yaml": "apiVersion: v2\nname: sub\nversion: 1.0.0\n",
        "charts/sub/.helmignore": "secret.txt\n", "charts/sub/secret.txt": "s"})
    chart = load_chart(path)
    assert [n for n, _ in chart.dependencies[0].files] == sorted(["secret.txt", ".helmignore"])


def test_utf8_bom_is_stripped(tmp_path):
    path = write_chart(tmp_path, "b", files={"Chart.yaml": b"\xef\xbb\xbfapiVersion: v2\nname: b\nversion: 1.0.0\n",
                                             "values.yaml": b"\xef\xbb\xbfa: 1\n"})
    chart = load_chart(path)
    assert chart.name == "b" and chart.values == {"a": 1}


def _tgz(entries, top="c"):
    """A gzipped tar from ``(name, data_or_None, kind, linkname)`` entries."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for entry in entries:
            name, data = entry[0], entry[1]
            kind = entry[2] if len(entry) > 2 else tarfile.REGTYPE
            info = tarfile.TarInfo(name)
            info.type = kind
            if len(entry) > 3:
                info.linkname = entry[3]
            payload = data or b""
            info.size = len(payload) if kind == tarfile.REGTYPE else 0
            tar.addfile(info, io.BytesIO(payload) if kind == tarfile.REGTYPE else None)
    return buf.getvalue()


CHART = b"apiVersion: v2\nname: c\nversion: 1.0.0\n"


def test_archive_loads_like_helm(tmp_path):
    data = _tgz([("c/Chart.yaml", CHART), ("c/values.yaml", b"a: 1\n"), ("c/templates/t.yaml", b"x"),
                 ("c/charts/sub/Chart.yaml", b"apiVersion: v2\nname: sub\nversion: 2.0.0\n"),
                 ("c/.helmignore", b"values.yaml\n")])
    archive = tmp_path / "c-1.0.0.tgz"
    archive.write_bytes(data)
    chart = load_chart(str(archive))
    with helm_oracle.Chart.load(str(archive)) as ref:
        assert chart.metadata == ref.metadata
        assert chart.values == ref.values
        assert [d.name for d in chart.dependencies] == [d["name"] for d in ref.dependencies]


def test_subchart_archives_inside_charts_are_loaded(tmp_path):
    sub = _tgz([("sub/Chart.yaml", b"apiVersion: v2\nname: sub\nversion: 2.0.0\n"), ("sub/values.yaml", b"s: 1\n")],
               "sub")
    path = write_chart(tmp_path, "p", files={"charts/sub-2.0.0.tgz": sub})
    chart = load_chart(path)
    assert [(d.name, d.values) for d in chart.dependencies] == [("sub", {"s": 1})]


def test_symlink_inside_the_archive_tree_is_allowed():
    chart = load_archive(_tgz([("c/Chart.yaml", CHART), ("c/a.txt", b"x"), ("c/link", None, tarfile.SYMTYPE, "a.txt")]))
    assert "link" in dict(chart.files)


def test_oversized_archive_is_refused(monkeypatch):
    from ansible_collections.helmless.core.plugins.module_utils.chart import loader
    monkeypatch.setattr(loader, "MAX_CHART_SIZE", 1000)
    with pytest.raises(ChartError, match="larger than the maximum size 1000"):
        load_archive(_tgz([("c/Chart.yaml", CHART), ("c/big", b"x" * 2000)]))


def test_gzip_bomb_is_stopped_at_the_limit(monkeypatch):
    from ansible_collections.helmless.core.plugins.module_utils.chart import loader
    monkeypatch.setattr(loader, "MAX_CHART_SIZE", 10000)
    with pytest.raises(ChartError, match="larger than the maximum size"):
        load_archive(_tgz([("c/Chart.yaml", CHART)] + [("c/f%d" % i, b"\x00" * 3000) for i in range(5)]))


def test_non_archive_file_is_reported(tmp_path):
    values = tmp_path / "values.yaml"
    values.write_text("a: 1\n")
    with pytest.raises(ChartError) as info:
        load_chart(str(values))
    assert str(info.value) == "file '%s' seems to be a YAML file, but expected a gzipped archive" % values
    other = tmp_path / "thing.tgz"
    other.write_bytes(b"hello")
    with pytest.raises(ChartError, match="does not appear to be a gzipped archive"):
        load_chart(str(other))


def test_corrupt_gzip_is_a_chart_error():
    with pytest.raises(ChartError):
        load_archive(gzip.compress(b"not a tar")[:-4] + b"xxxx")


def test_missing_path_is_reported(tmp_path):
    with pytest.raises(ChartError, match="no such file or directory"):
        load_chart(str(tmp_path / "nope"))


def test_chart_path_helpers(tmp_path):
    path = write_chart(tmp_path, "p", files={
        "charts/sub/Chart.yaml": "apiVersion: v2\nname: sub\nversion: 1.0.0\ntype: library\n",
        "charts/sub/templates/_h.tpl": "x", "charts/sub/templates/x.yaml": "y",
        "charts/sub/crds/a.yaml": "k", "charts/sub/crds/b.txt": "k"})
    chart = load_chart(path)
    sub = chart.dependencies[0]
    assert chart.is_root() and not sub.is_root()
    assert sub.parent is chart and sub.is_library()
    assert sub.chart_path() == sub.chart_full_path() == "p/charts/sub" and sub.dotted_path() == "p.sub"
    assert [n for n, _ in sub.renderable_templates()] == ["templates/_h.tpl"]
    assert [(n, f) for n, f, _ in chart.crd_objects()] == [("crds/a.yaml", "p/charts/sub/crds/a.yaml")]


YAML_ERROR_CASES = {
    "Chart.yaml syntax": ("Chart.yaml", "apiVersion: v2\nname: x\nversion: 1.0.0\nfoo: [\n"),
    "Chart.yaml tab": ("Chart.yaml", "apiVersion: v2\nname: x\n\tversion: 1.0.0\n"),
    "values.yaml syntax": ("values.yaml", "a: 1\nb: [1\n"),
    "values.yaml duplicate key": ("values.yaml", "a: 1\na: 2\n"),
    "values.yaml list": ("values.yaml", "- 1\n- 2\n"),
    "values.yaml scalar": ("values.yaml", "hello\n"),
    "values.yaml second document": ("values.yaml", "a: 1\n---\nb: [\n"),
    "values.yaml bad separator": ("values.yaml", "a: 1\n--- x\nb: 2\n"),
    "Chart.lock syntax": ("Chart.lock", "dependencies: [\n"),
    "subchart values.yaml": ("charts/sub/values.yaml", "a: [\n"),
    "subchart Chart.yaml": ("charts/sub/Chart.yaml", "name: [\n"),
}


@pytest.mark.parametrize("case", sorted(YAML_ERROR_CASES))
def test_yaml_errors_name_the_file_like_helm(tmp_path, case):
    rel, content = YAML_ERROR_CASES[case]
    files = {rel: content}
    if rel.startswith("charts/sub/") and rel != "charts/sub/Chart.yaml":
        files["charts/sub/Chart.yaml"] = "apiVersion: v2\nname: sub\nversion: 1.0.0\n"
    path = write_chart(tmp_path, "x", files=files)
    expected = _oracle_error(path)
    if expected is None:
        load_chart(path)
        return
    with pytest.raises(ChartError) as info:
        load_chart(path)
    assert str(info.value) == expected


def test_crd_files_are_chosen_like_helm(tmp_path):
    names = ["crds/a.yaml", "crds/b.YAML", "crds/c.yml", "crds/d.json", "crds/e.txt", "crds/sub/f.yaml", "other/g.yaml"]
    path = write_chart(tmp_path, "cr", files={name: "kind: X\n" for name in names})
    with helm_oracle.Chart.load(path) as ref:
        assert sorted(n for n, _ in load_chart(path).crds()) == sorted(c["name"] for c in ref.crds)


def test_nested_subchart_archives_share_one_size_budget(monkeypatch):
    from ansible_collections.helmless.core.plugins.module_utils.chart import loader
    monkeypatch.setattr(loader, "MAX_CHART_SIZE", 20000)
    sub = _tgz([("sub/Chart.yaml", b"apiVersion: v2\nname: sub\nversion: 1.0.0\n"), ("sub/big", b"\x00" * 12000)], "sub")
    parts = [("c/Chart.yaml", CHART)] + [("c/charts/s%d-1.0.0.tgz" % i, sub) for i in range(3)]
    with pytest.raises(ChartError, match="larger than the maximum size 20000"):
        load_archive(_tgz(parts))


@pytest.mark.parametrize("length", [4096, 8192])
def test_a_last_line_of_a_buffer_multiple_without_newline_is_kept_like_helm(tmp_path, length):
    """Helm 4.3 reads a values file's unterminated last line whatever its length (4.2 dropped it at 4096*n)."""
    text = "a: 1\nb: " + "x" * (length - 3)
    path = write_chart(tmp_path, files={"values.yaml": text,
                                        "templates/t.yaml": "n: {{ len .Values.b }}\na: {{ .Values.a }}\n"})
    (tmp_path / "user.yaml").write_text(text.replace("a: 1", "a: 2"))
    assert load_chart(path).values == helm_oracle.Chart.load(path).values
    from ansible_collections.helmless.core.plugins.module_utils.render import render_release
    ours = render_release(path, values_files=[str(tmp_path / "user.yaml")], name="rel", namespace="ns")
    assert ours.rendered == helm_oracle.render(path, values_files=[tmp_path / "user.yaml"], name="rel",
                                               namespace="ns")
