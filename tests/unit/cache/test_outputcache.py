"""The output cache: the same inputs render from disk in a fresh process; any other input, or a template
that consulted randomness, the clock, the zone, DNS or the cluster, renders anew."""
import json
import os
import subprocess
import sys

import pytest

import corpuskit
from ansible_collections.helmless.core.plugins.module_utils import codecache, diskcache
from ansible_collections.helmless.core.plugins.module_utils.render import engine, outputcache, render_release

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

CHART = {
    "Chart.yaml": "apiVersion: v2\nname: app\nversion: 1.0.0\ndependencies:\n- name: sub\n  version: 0.1.0\n",
    "values.yaml": "greeting: hello\nsub:\n  color: blue\n",
    "files/motd.txt": "welcome\n",
    "templates/cm.yaml": (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n  namespace: {{ .Release.Namespace }}\n"
        "data:\n  greeting: {{ .Values.greeting | quote }}\n  revision: {{ .Release.Revision | quote }}\n"
        "  install: {{ .Release.IsInstall | quote }}\n  kube: {{ .Capabilities.KubeVersion.Version | quote }}\n"
        "  batch: {{ .Capabilities.APIVersions.Has \"example.com/v9\" | quote }}\n"
        "  motd: {{ .Files.Get \"files/motd.txt\" | quote }}\n  chart: {{ .Chart.Version | quote }}\n"),
    "charts/sub/Chart.yaml": "apiVersion: v2\nname: sub\nversion: 0.1.0\n",
    "charts/sub/values.yaml": "color: red\n",
    "charts/sub/templates/cm.yaml": (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-sub\ndata:\n"
        "  color: {{ .Values.color | quote }}\n"),
}


def write_chart(root, files=None):
    for rel, text in (CHART if files is None else files).items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return str(root)


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("HELMLESS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(outputcache, "_state", {})
    return tmp_path / "cache"


@pytest.fixture
def runs(monkeypatch):
    """How many times templates were executed (Engine.render), by this process."""
    count = []
    real = engine.Engine.render

    def counting(self, chart, top):
        count.append(1)
        return real(self, chart, top)
    monkeypatch.setattr(engine.Engine, "render", counting)
    return count


def entries(cache_dir):
    folder = cache_dir / "rendered"
    return sorted(n for n in os.listdir(folder) if not n.endswith((".tmp", ".pruned"))) if folder.is_dir() else []


def render(chart, **kwargs):
    kwargs.setdefault("name", "web")
    kwargs.setdefault("namespace", "apps")
    return render_release(chart, **kwargs)


def test_the_same_inputs_render_from_the_cache_in_a_fresh_process_exactly_as_without_it(cache_dir, tmp_path):
    """Real charts, each rendered by three processes: cache off, first with the cache, second with it."""
    code = r"""
import json, sys
sys.path.insert(0, %r)
from ansible_collections.helmless.core.plugins.module_utils.render import engine, render_release
calls = []
real = engine.Engine.render
engine.Engine.render = lambda self, chart, top: calls.append(1) or real(self, chart, top)
out = {}
for chart in sys.argv[1:]:
    r = render_release(chart, name="rel", namespace="ns")
    out[chart] = [r.manifest, r.notes, [[h.path, h.manifest] for h in r.hooks], sorted(r.rendered.items())]
print(json.dumps({"out": out, "executed": len(calls)}))
""" % os.path.join(ROOT, ".build", "collections")
    charts = [corpuskit.archive(name) for name in ("nats", "cert-manager", "argo-cd", "metrics-server")]

    def run(**env):
        full = dict(os.environ, HELMLESS_CACHE_DIR=str(cache_dir), **env)
        proc = subprocess.run([sys.executable, "-c", code] + charts, capture_output=True, text=True, env=full,
                              check=False)
        assert proc.returncode == 0, proc.stderr[-2000:]
        return json.loads(proc.stdout)
    without = run(HELMLESS_CACHE="off")
    first, second = run(), run()
    assert len(entries(cache_dir)) == len(charts)
    assert first["executed"] == len(charts) and second["executed"] == 0
    assert second["out"] == first["out"] == without["out"]


@pytest.mark.parametrize("change", [
    "values", "release name", "namespace", "revision", "install", "kube version", "api versions", "template",
    "file", "default values", "chart version", "subchart values", "subchart template"])
def test_any_other_input_renders_anew(cache_dir, tmp_path, runs, change):
    chart = write_chart(tmp_path / "app")
    before = render(chart)
    assert render(chart).manifest == before.manifest and len(runs) == 1
    kwargs, edits = {}, {}
    if change == "values":
        kwargs["values"] = {"greeting": "hi"}
    elif change == "release name":
        kwargs["name"] = "api"
    elif change == "namespace":
        kwargs["namespace"] = "prod"
    elif change == "revision":
        kwargs["revision"] = 2
    elif change == "install":
        kwargs.update(is_install=False, is_upgrade=True)
    elif change == "kube version":
        kwargs["kube_version"] = "v1.31.2"
    elif change == "api versions":
        kwargs["api_versions"] = ["example.com/v9"]
    elif change == "template":
        edits["templates/cm.yaml"] = CHART["templates/cm.yaml"] + "  extra: \"1\"\n"
    elif change == "file":
        edits["files/motd.txt"] = "goodbye\n"
    elif change == "default values":
        edits["values.yaml"] = "greeting: bonjour\nsub:\n  color: blue\n"
    elif change == "chart version":
        edits["Chart.yaml"] = CHART["Chart.yaml"].replace("version: 1.0.0", "version: 1.0.1")
    elif change == "subchart values":
        edits["values.yaml"] = "greeting: hello\n"
    elif change == "subchart template":
        edits["charts/sub/templates/cm.yaml"] = CHART["charts/sub/templates/cm.yaml"] + "  shade: dark\n"
    write_chart(tmp_path / "app", edits)
    after = render(chart, **kwargs)
    assert len(runs) == 2
    assert after.manifest != before.manifest
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HELMLESS_CACHE", "off")
        assert after.manifest == render(chart, **kwargs).manifest


@pytest.mark.parametrize("template", [
    "{{ randAlphaNum 8 }}", "{{ now | date \"2006\" }}", "{{ date \"2006\" 0 }}", "{{ toDate \"2006\" \"2024\" }}",
    "{{ getHostByName \"localhost\" }}", "{{ uuidv4 }}"])
def test_a_render_that_consulted_randomness_the_clock_the_zone_or_dns_is_not_kept(cache_dir, tmp_path, runs, template):
    chart = write_chart(tmp_path / "app", dict(CHART, **{"templates/x.yaml": "# %s\n" % template}))
    render(chart)
    render(chart)
    assert len(runs) == 2 and entries(cache_dir) == []


def test_a_render_that_looked_up_the_cluster_is_not_kept_and_one_that_did_not_is(cache_dir, tmp_path, runs):
    chart = write_chart(tmp_path / "app", dict(CHART, **{
        "templates/x.yaml": "# {{ (lookup \"v1\" \"Namespace\" \"\" \"apps\").metadata.uid }}\n"}))
    seen = []

    def lookup(api_version, kind, namespace, name):
        seen.append(name)
        return {"metadata": {"uid": "uid-%d" % len(seen)}}
    assert "uid-1" in render(chart, lookup=lookup).manifest
    assert "uid-2" in render(chart, lookup=lookup).manifest
    assert entries(cache_dir) == []
    plain = write_chart(tmp_path / "plain")
    render(plain, lookup=lookup)
    render(plain, lookup=lookup)
    assert len(runs) == 3 and len(entries(cache_dir)) == 1 and len(seen) == 2


def test_without_a_client_lookup_is_an_empty_map_and_kept_apart_from_a_render_with_one(cache_dir, tmp_path, runs):
    chart = write_chart(tmp_path / "app", dict(CHART, **{
        "templates/x.yaml": "# uid={{ (lookup \"v1\" \"Namespace\" \"\" \"apps\").metadata }}\n"}))
    assert render(chart).rendered["app/templates/x.yaml"] == "# uid=\n" == render(chart).rendered["app/templates/x.yaml"]
    found = render(chart, lookup=lambda *a: {"metadata": {"uid": "live"}}).rendered["app/templates/x.yaml"]
    assert found == "# uid=map[uid:live]\n"
    assert len(runs) == 2


def test_a_damaged_or_foreign_entry_renders_anew(cache_dir, tmp_path, runs):
    chart = write_chart(tmp_path / "app")
    expected = render(chart).manifest
    (name,) = entries(cache_dir)
    path = cache_dir / "rendered" / name
    store = diskcache.Store("rendered", outputcache.MAX_BYTES, str(cache_dir))
    for payload in (None, b"\x00garbage", __import__("marshal").dumps({"not": "pairs"}),
                    __import__("marshal").dumps([("templates/cm.yaml", 7)])):
        if payload is None:
            path.write_bytes(path.read_bytes()[:-9])  # truncated: the diskcache checksum fails
        else:
            store.put(name, payload)
        assert render(chart).manifest == expected
    assert len(runs) == 5


def test_cache_off_or_unwritable_renders_and_keeps_nothing(cache_dir, tmp_path, runs, monkeypatch):
    chart = write_chart(tmp_path / "app")
    monkeypatch.setenv("HELMLESS_CACHE", "off")
    outputcache._state.clear()
    expected = render(chart).manifest
    render(chart)
    assert len(runs) == 2 and not (cache_dir / "rendered").exists()
    monkeypatch.delenv("HELMLESS_CACHE")
    outputcache._state.clear()
    blocker = tmp_path / "blocker"
    blocker.write_text("a file, not a directory")
    monkeypatch.setenv("HELMLESS_CACHE_DIR", str(blocker))
    assert render(chart).manifest == expected == render(chart).manifest
    assert len(runs) == 4


def test_values_of_a_type_it_cannot_digest_render_anew(cache_dir, tmp_path, runs):
    chart = write_chart(tmp_path / "app")
    render(chart, values={"greeting": frozenset()})
    render(chart, values={"greeting": frozenset()})
    assert len(runs) == 2 and entries(cache_dir) == []


def test_equal_values_of_other_types_are_other_inputs(cache_dir, tmp_path, runs):
    chart = write_chart(tmp_path / "app")
    chart_text = "templates/t.yaml"
    write_chart(tmp_path / "app", {chart_text: "# {{ printf \"%T %v\" .Values.v .Values.v }}\n"})
    kinds = (1, True, "1", [1], {"1": 1})
    outputs = [render(chart, values={"v": v}).rendered["app/" + chart_text] for v in kinds]
    assert len(set(outputs)) == len(kinds) and len(runs) == len(kinds) and len(entries(cache_dir)) == len(kinds)
    assert outputs == [render(chart, values={"v": v}).rendered["app/" + chart_text] for v in kinds]
    assert len(runs) == len(kinds)


def test_the_code_version_follows_every_module_utils_source_on_disk_and_in_a_zip(tmp_path):
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "mod.py").write_text("X = 1\n")
    module = type(sys)("pkg")
    module.__path__ = [str(package)]
    first = codecache.tree_digest(module)
    (package / "sub" / "mod.py").write_text("X = 22\n")
    assert codecache.tree_digest(module) != first
    import zipfile
    digests = []
    for text in ("X = 1\n", "X = 2\n"):
        archive = tmp_path / ("payload%d.zip" % len(digests))
        with zipfile.ZipFile(archive, "w") as zf:
            zf.writestr("ns/pkg/__init__.py", "")
            zf.writestr("ns/pkg/sub/mod.py", text)
        module.__path__ = [os.path.join(str(archive), "ns", "pkg")]
        digests.append(codecache.tree_digest(module))
    assert None not in digests and digests[0] != digests[1]  # same size, other content: the CRC tells


def test_the_code_version_leaves_out_exactly_the_packages_above_render_in_the_layer_table():
    import re
    with open(os.path.join(ROOT, "docs", "dev", "ARCHITECTURE.md")) as handle:
        rows = re.findall(r"^\|\s*(\d+)\s*\|\s*`(\w+)`\s*\|", handle.read(), re.M)
    layers = {name: int(layer) for layer, name in rows}
    assert sorted(outputcache.ABOVE_RENDER) == sorted(p for p, layer in layers.items() if layer > layers["render"])


def test_the_code_version_does_not_follow_a_skipped_package_and_follows_every_other(tmp_path):
    package = tmp_path / "pkg"
    for sub in ("low", "high"):
        (package / sub).mkdir(parents=True)
        (package / sub / "mod.py").write_text("X = 1\n")
    (package / "__init__.py").write_text("")
    module = type(sys)("pkg")
    module.__path__ = [str(package)]
    first = codecache.tree_digest(module, ("high",))
    (package / "high" / "mod.py").write_text("X = 22\n")
    assert codecache.tree_digest(module, ("high",)) == first
    (package / "low" / "mod.py").write_text("X = 22\n")
    assert codecache.tree_digest(module, ("high",)) != first
    import zipfile
    digests = []
    for low, high in (("X = 1\n", "X = 1\n"), ("X = 1\n", "X = 2\n"), ("X = 2\n", "X = 2\n")):
        archive = tmp_path / ("payload%d.zip" % len(digests))
        with zipfile.ZipFile(archive, "w") as zf:
            zf.writestr("ns/pkg/__init__.py", "")
            zf.writestr("ns/pkg/low/mod.py", low)
            zf.writestr("ns/pkg/high/mod.py", high)
        module.__path__ = [os.path.join(str(archive), "ns", "pkg")]
        digests.append(codecache.tree_digest(module, ("high",)))
    assert None not in digests and digests[0] == digests[1] != digests[2]
