"""The document cache: a fresh process reuses the parsed value of a YAML document it parsed before; any
doubt (damage, another reader, a value marshal cannot keep, a parse error) means parsing again."""
import marshal
import os

import pytest

from ansible_collections.helmless.core.plugins.module_utils import goyaml
from ansible_collections.helmless.core.plugins.module_utils.goyaml import doccache, loader
from ansible_collections.helmless.core.plugins.module_utils.plan.manifest import parse_manifest
from ansible_collections.helmless.core.plugins.module_utils.render import manifest

DOC = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  on: yes\n  count: 2\n  text: %s\n" % ("x" * 1000)
SMALL = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n"


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("HELMLESS_CACHE_DIR", str(tmp_path))
    fresh_process(monkeypatch)
    return tmp_path


def fresh_process(monkeypatch):
    monkeypatch.setattr(doccache, "_state", {"memo": {}})


def forbid_parsing(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("parsed although the cache holds this document")
    monkeypatch.setattr(goyaml, "iter_documents", refuse)


def entries(cache_dir):
    folder = os.path.join(str(cache_dir), "documents")
    return sorted(os.listdir(folder)) if os.path.isdir(folder) else []


def test_a_fresh_process_reads_a_document_parsed_before_without_parsing(cache_dir, monkeypatch):
    expected = manifest._load_yaml(DOC)
    assert len(entries(cache_dir)) == 1
    fresh_process(monkeypatch)
    forbid_parsing(monkeypatch)
    assert manifest._load_yaml(DOC) == expected
    assert expected["data"] == {"true": True, "count": 2.0, "text": "x" * 1000}  # go-yaml v2 typing, then JSON


def test_a_document_under_the_disk_minimum_is_kept_in_the_process_only(cache_dir, monkeypatch):
    assert len(SMALL) < doccache.DISK_MIN_BYTES <= len(DOC)
    expected = manifest._load_yaml(SMALL)
    assert entries(cache_dir) == []
    forbid_parsing(monkeypatch)
    assert manifest._load_yaml(SMALL) == expected == {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "b"}}


def test_every_call_gets_a_value_of_its_own(cache_dir):
    first = manifest._load_yaml(DOC)
    first["data"]["count"] = "changed"
    assert manifest._load_yaml(DOC)["data"]["count"] == 2.0


def test_the_planner_and_the_renderer_read_one_text_each_their_own_way(cache_dir):
    chunk = "---\n# Source: c/templates/a.yaml\n" + DOC
    planned = parse_manifest(chunk)[0].obj
    assert planned["data"]["count"] == 2 and isinstance(planned["data"]["count"], int)
    rendered = manifest._load_yaml(chunk)
    assert rendered["data"]["count"] == 2.0 and isinstance(rendered["data"]["count"], float)
    assert len(entries(cache_dir)) == 2


def test_a_damaged_entry_is_parsed_again_with_the_same_value_and_rewritten(cache_dir, monkeypatch):
    expected = manifest._load_yaml(DOC)
    (name,) = entries(cache_dir)
    path = os.path.join(str(cache_dir), "documents", name)
    with open(path, "rb") as handle:
        data = handle.read()
    with open(path, "wb") as handle:
        handle.write(data[:-3])
    fresh_process(monkeypatch)
    assert manifest._load_yaml(DOC) == expected
    with open(path, "rb") as handle:
        assert handle.read() == data


def test_a_document_that_does_not_parse_is_not_kept_and_fails_every_time(cache_dir, monkeypatch):
    bad = "a: [1\n"
    for _attempt in range(2):
        with pytest.raises(goyaml.YAMLError):
            manifest._load_yaml(bad)
        fresh_process(monkeypatch)
    assert entries(cache_dir) == []


def test_a_value_marshal_cannot_keep_exactly_is_parsed_every_time(cache_dir, monkeypatch):
    calls = []

    def reader(text):
        calls.append(text)
        return {"value": goyaml.NilMap()}
    for _attempt in range(2):
        assert isinstance(doccache.cached(reader, DOC)["value"], goyaml.NilMap)
    assert len(calls) == 2 and entries(cache_dir) == []


def test_with_the_cache_off_nothing_is_written(cache_dir, monkeypatch):
    monkeypatch.setenv("HELMLESS_CACHE", "off")
    assert manifest._load_yaml(DOC)["kind"] == "ConfigMap"
    assert entries(cache_dir) == []


def test_the_version_covers_every_module_of_the_yaml_package():
    package = os.path.dirname(loader.__file__)
    modules = {name[:-3] for name in os.listdir(package) if name.endswith(".py")}
    assert modules == set(doccache._MODULES)


def _manifest(count, text="v"):
    return "".join("---\n# Source: c/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-%d\n"
                   "data:\n  k: %s\n" % (i, text) for i in range(count))


def test_a_manifest_of_small_documents_is_one_entry_a_fresh_process_reads_without_parsing(cache_dir, monkeypatch):
    text = _manifest(40)
    expected = [r.obj for r in parse_manifest(text)]
    assert all(len(chunk) < doccache.DISK_MIN_BYTES for chunk in text.split("---")) and len(entries(cache_dir)) == 1
    fresh_process(monkeypatch)
    forbid_parsing(monkeypatch)
    assert [r.obj for r in parse_manifest(text)] == expected and len(expected) == 40


def test_a_rendered_file_of_many_documents_is_one_entry_too(cache_dir, monkeypatch):
    files = {"c/templates/cm.yaml": _manifest(30)}
    expected = [m.obj for m in manifest.sort_manifests(files)[1]]
    fresh_process(monkeypatch)
    forbid_parsing(monkeypatch)
    assert [m.obj for m in manifest.sort_manifests(files)[1]] == expected


def test_a_document_that_does_not_parse_fails_at_itself_and_the_manifest_is_not_kept(cache_dir, monkeypatch):
    chunks = [doc for doc in doccache.cached_all(goyaml.load, ["a: 1\n", "b: 2\n"])]
    assert chunks == [{"a": 1.0}, {"b": 2.0}]
    seen = []
    loaded = doccache.cached_all(goyaml.load, ["a: 1\n", "c: [1\n", "b: 2\n" * 500])
    seen.append(next(loaded))
    with pytest.raises(goyaml.YAMLError):
        next(loaded)
    assert seen == [{"a": 1.0}]
    before = entries(cache_dir)
    fresh_process(monkeypatch)
    with pytest.raises(goyaml.YAMLError):
        list(doccache.cached_all(goyaml.load, ["a: 1\n", "c: [1\n", "b: 2\n" * 500]))
    assert entries(cache_dir) == before


def _truncate_the_entry(cache_dir):
    """Cut the cache's only entry in half; its name, path and whole bytes."""
    (name,) = entries(cache_dir)
    path = os.path.join(str(cache_dir), "documents", name)
    with open(path, "rb") as handle:
        data = handle.read()
    with open(path, "wb") as handle:
        handle.write(data[:len(data) // 2])
    return name, path, data


def test_a_damaged_manifest_entry_is_parsed_again_and_rewritten(cache_dir, monkeypatch):
    text = _manifest(40)
    expected = [r.obj for r in parse_manifest(text)]
    name, path, data = _truncate_the_entry(cache_dir)
    fresh_process(monkeypatch)
    assert [r.obj for r in parse_manifest(text)] == expected
    with open(path, "rb") as handle:
        assert handle.read() == data


def test_each_document_of_a_manifest_read_from_its_entry_is_a_value_of_its_own(cache_dir, monkeypatch):
    text = _manifest(3)
    parse_manifest(text)
    fresh_process(monkeypatch)
    first = parse_manifest(text)
    first[0].obj["data"]["k"] = "changed"
    assert parse_manifest(text)[0].obj["data"]["k"] == "v"
    assert parse_manifest(_manifest(3, "w"))[0].obj["data"]["k"] == "w"


def _small_files(count, secret="s3cret"):
    files = {"c/templates/cm-%02d.yaml" % i: SMALL.replace("name: b", "name: cm-%d" % i) for i in range(count)}
    files["c/templates/secret.yaml"] = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\nstringData:\n  p: %s\n" % secret
    return files


def test_a_render_of_small_files_is_one_entry_a_fresh_process_reads_without_parsing(cache_dir, monkeypatch):
    files = _small_files(8)
    expected = [m.obj for m in manifest.sort_manifests(files)[1]]
    assert all(len(text) < doccache.DISK_MIN_BYTES for text in files.values()) and len(entries(cache_dir)) == 1
    fresh_process(monkeypatch)
    forbid_parsing(monkeypatch)
    assert [m.obj for m in manifest.sort_manifests(files)[1]] == expected and len(expected) == 9


def test_a_render_with_new_values_parses_only_the_file_they_changed(cache_dir, monkeypatch):
    manifest.sort_manifests(_small_files(8))
    assert len(entries(cache_dir)) == 1  # one entry for the render, by file
    fresh_process(monkeypatch)
    parsed = []
    real = goyaml.iter_documents

    def counting(text, *args, **kwargs):
        parsed.append(text)
        return real(text, *args, **kwargs)
    monkeypatch.setattr(goyaml, "iter_documents", counting)
    found = [m.obj for m in manifest.sort_manifests(_small_files(8, "other"))[1]]
    assert len(parsed) == 1 and "other" in parsed[0]
    assert [obj["stringData"] for obj in found if obj["kind"] == "Secret"] == [{"p": "other"}] and len(found) == 9
    assert len(entries(cache_dir)) == 1  # rewritten in place: the next render of these files reads it
    fresh_process(monkeypatch)
    forbid_parsing(monkeypatch)
    assert [m.obj for m in manifest.sort_manifests(_small_files(8, "other"))[1]] == found


def test_a_damaged_render_entry_is_parsed_again_and_rewritten(cache_dir, monkeypatch):
    expected = [m.obj for m in manifest.sort_manifests(_small_files(3))[1]]
    name, path, data = _truncate_the_entry(cache_dir)
    fresh_process(monkeypatch)
    assert [m.obj for m in manifest.sort_manifests(_small_files(3))[1]] == expected
    with open(path, "rb") as handle:
        assert handle.read() == data
    for foreign in (["not", "runs"], {"key": "not a bundle"}, {"key": b"not marshal"}):  # whole, yet not ours
        doccache._store().put(name, marshal.dumps(foreign))
        fresh_process(monkeypatch)
        assert [m.obj for m in manifest.sort_manifests(_small_files(3))[1]] == expected


def test_a_file_that_does_not_parse_is_named_and_nothing_of_the_render_is_kept(cache_dir):
    files = _small_files(3)
    files["c/templates/cm-01.yaml"] = "a: [1\n"
    with pytest.raises(manifest.RenderManifestError, match="YAML parse error on c/templates/cm-01.yaml"):
        manifest.sort_manifests(files)
    kept = entries(cache_dir)
    with pytest.raises(manifest.RenderManifestError):
        manifest.sort_manifests(files)
    assert entries(cache_dir) == kept == []  # nothing of the render
