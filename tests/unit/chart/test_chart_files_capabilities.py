"""``.Files`` methods and ``.Capabilities`` against what Helm's templates print."""

import base64
import json

import pytest

from chartkit import render, write_chart
from ansible_collections.helmless.core.plugins.module_utils.chart import ChartError, load_chart
from ansible_collections.helmless.core.plugins.module_utils.chart.files import Files
from ansible_collections.helmless.core.plugins.module_utils.chart.values import (
    Capabilities, ReleaseOptions, to_render_values)

FILES = {
    "files/a.txt": "hello\nworld\n", "files/b.txt": "no newline", "files/sub/c.yaml": "k: v\n",
    "files/sub/deep/d.json": '{"x": 1}', "files/bin.dat": b"\x00\xff\xfe\x01", "files/empty.txt": "",
    "conf/x.conf": "a=1\n\n", "README.md": "# readme\n", "crds/crd.yaml": "kind: CustomResourceDefinition\n",
    "files/unicode.txt": "héllo ✓\n", ".hidden": "h",
}
GLOBS = ["files/*", "files/**", "**.txt", "files/*.txt", "files/?.txt", "files/[ab].txt", "files/[!a].txt",
         "files/{a,b}.txt", "*", "**", "conf/*", "files/sub/*", "nomatch/*", "[", "files/\\a.txt", "**/*.yaml"]


@pytest.fixture(scope="module")
def chart_dir(tmp_path_factory):
    return write_chart(tmp_path_factory.mktemp("files"), "f", files=dict(FILES))


def _oracle(chart_dir, body):
    import os
    os.makedirs(os.path.join(chart_dir, "templates"), exist_ok=True)
    with open(os.path.join(chart_dir, "templates", "probe.yaml"), "w") as handle:
        handle.write(body)
    return render(chart_dir)["f/templates/probe.yaml"]


def _files(chart_dir):
    return Files.from_chart(load_chart(chart_dir))


def test_files_hold_what_helm_exposes(chart_dir):
    expected = json.loads(_oracle(chart_dir, "{{ toJson .Files }}"))
    assert {k: base64.b64encode(v).decode() for k, v in _files(chart_dir).items()} == expected


@pytest.mark.parametrize("pattern", GLOBS)
def test_glob_selects_like_helm(chart_dir, pattern):
    body = '{{ range $k, $v := .Files.Glob %s }}{{ $k }}\n{{ end }}' % json.dumps(pattern)
    expected = _oracle(chart_dir, body).split("\n")[:-1]
    assert sorted(_files(chart_dir).Glob(pattern)) == expected


@pytest.mark.parametrize("name", sorted(FILES) + ["missing.txt"])
def test_get_and_lines_match_helm(chart_dir, name):
    body = '{{ toJson (list (.Files.Get %s) (.Files.Lines %s) (.Files.GetBytes %s)) }}' % ((json.dumps(name),) * 3)
    get, lines, raw = json.loads(_oracle(chart_dir, body))
    files = _files(chart_dir)
    assert files.Get(name).encode("utf-8", "surrogateescape").decode("utf-8", "replace") == get
    assert [line.encode("utf-8", "surrogateescape").decode("utf-8", "replace") for line in files.Lines(name)] == lines
    assert base64.b64encode(files.GetBytes(name)).decode() == (raw or "")


@pytest.mark.parametrize("pattern", ["files/*", "conf/*", "files/sub/**", "nomatch/*"])
def test_as_config_and_as_secrets_print_like_helm(chart_dir, pattern):
    body = '{{ (.Files.Glob %s).AsConfig }}\n---\n{{ (.Files.Glob %s).AsSecrets }}' % (json.dumps(pattern),
                                                                                      json.dumps(pattern))
    config, secrets = _oracle(chart_dir, body).split("\n---\n")
    selected = _files(chart_dir).Glob(pattern)
    assert selected.AsConfig() == config
    assert selected.AsSecrets() == secrets


def test_files_methods_win_over_keys(chart_dir):
    files = _files(chart_dir)
    assert files.go_method("Get") is not None and files.go_method("files/a.txt") is None
    assert files.GO_TYPE == "engine.files"


def _capabilities_json(tmp_path):
    path = write_chart(tmp_path, files={"templates/t.yaml":
                                        '{{ toJson .Capabilities }}\n{{ .Capabilities.KubeVersion }}|'
                                        '{{ .Capabilities.KubeVersion.GitVersion }}|{{ .Capabilities.APIVersions }}|'
                                        '{{ .Capabilities.APIVersions.Has "apps/v1" }}'})
    return render(path)["c/templates/t.yaml"]


def test_default_capabilities_are_helms(tmp_path):
    text, printed = _capabilities_json(tmp_path).split("\n", 1)
    caps = Capabilities()
    expected = json.loads(text)
    # GoVersion is runtime.Version() of whatever built the oracle; we report Helm's release toolchain.
    expected["HelmVersion"]["go_version"] = caps.HelmVersion.GoVersion
    assert expected == caps.go_json_value()
    kube, git, apis, has = printed.split("|")
    assert kube == caps.KubeVersion.String() and git == caps.KubeVersion.GitVersion()
    assert apis == "[" + " ".join(caps.APIVersions) + "]"
    assert has == "true" and caps.APIVersions.Has("apps/v1") and not caps.APIVersions.Has("apps/v9")


def test_capabilities_json_keeps_struct_field_order(tmp_path):
    text = _capabilities_json(tmp_path).split("\n", 1)[0]
    assert list(json.loads(text)) == list(Capabilities().go_json_value())


@pytest.mark.parametrize("version", ["1.30", "v1.29.3", "1.33.4-gke.1245000", "1.30.0+k3s1", "v1.31.2"])
def test_kube_version_option_matches_helm(tmp_path, version):
    import helm_oracle
    path = write_chart(tmp_path, "kv", files={"templates/t.yaml": (
        '{{ printf "%s|%s|%s|%s" .Capabilities.KubeVersion.String .Capabilities.KubeVersion.Version '
        '.Capabilities.KubeVersion.Major .Capabilities.KubeVersion.Minor }}')})
    expected = helm_oracle.render(path, kube_version=version)["kv/templates/t.yaml"]
    caps = Capabilities(kube_version=version, api_versions=["monitoring.coreos.com/v1"])
    kv = caps.KubeVersion
    assert "|".join((kv.String(), kv.Version, kv.Major, kv.Minor)) == expected
    assert caps.APIVersions[-1] == "monitoring.coreos.com/v1" and caps.APIVersions.Has("monitoring.coreos.com/v1")


def test_bad_kube_version_is_an_error():
    with pytest.raises(ChartError):
        Capabilities(kube_version="banana")


def test_release_object_matches_helm(tmp_path):
    path = write_chart(tmp_path, files={"templates/t.yaml": "{{ toJson .Release }}"})
    for kwargs in ({}, {"revision": 4, "is_install": False, "is_upgrade": True}):
        expected = json.loads(render(path, **kwargs)["c/templates/t.yaml"])
        options = ReleaseOptions("rel", "ns", kwargs.get("revision", 1), kwargs.get("is_install", True),
                                 kwargs.get("is_upgrade", False))
        top = to_render_values(load_chart(path), {}, options)
        assert top["Release"] == expected
        assert type(top["Release"]["Revision"]) is int
