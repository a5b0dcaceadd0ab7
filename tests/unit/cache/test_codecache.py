"""codecache: module_utils imported from a zip (as in AnsiballZ) compile once, then load from the cache."""
import importlib.util
import json
import marshal
import os
import subprocess
import sys
import zipfile

import pytest

from ansible_collections.helmless.core.plugins.module_utils import codecache, diskcache

UTILS = os.path.dirname(codecache.__file__)
PACKAGE = "ansible_collections/helmless/core/plugins/module_utils/"
SAMPLE = 'VALUE = "compiled from source"\n\n\ndef fail():\n    raise ValueError("boom")\n'
# Imports the sample from the zip like a module does: codecache first. Prints what the test checks.
CHILD = r"""
import json, sys, traceback
sys.path.insert(0, sys.argv[1])
from ansible_collections.helmless.core.plugins.module_utils import codecache
from ansible_collections.helmless.core.plugins.module_utils.perfsample import sample
try:
    sample.fail()
except ValueError:
    where = traceback.extract_tb(sys.exc_info()[2])[-1]
print(json.dumps({"value": sample.VALUE, "file": where.filename, "line": where.line,
                  "loader": type(sample.__loader__).__name__, "cached": sorted(codecache.SOURCE_DIGESTS)}))
"""


def build_zip(path, sample=SAMPLE):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for parent in ("ansible_collections/", "ansible_collections/helmless/", "ansible_collections/helmless/core/",
                       "ansible_collections/helmless/core/plugins/"):
            zf.writestr(parent + "__init__.py", "")
        for name in ("__init__.py", "diskcache.py", "codecache.py"):
            with open(os.path.join(UTILS, name)) as handle:
                zf.writestr(PACKAGE + name, handle.read())
        zf.writestr(PACKAGE + "perfsample/__init__.py", "")
        zf.writestr(PACKAGE + "perfsample/sample.py", sample)
    return str(path)


def run_child(zip_path, cache_dir, **env):
    full = dict(os.environ, HELMLESS_CACHE_DIR=str(cache_dir), PYTHONPATH="", **env)
    if "HELMLESS_CACHE" not in env:
        full.pop("HELMLESS_CACHE", None)
    proc = subprocess.run([sys.executable, "-c", CHILD, zip_path], env=full, capture_output=True, text=True,
                          check=True)
    return json.loads(proc.stdout)


def entries(cache_dir):
    code = os.path.join(str(cache_dir), "code")
    return sorted(os.listdir(code)) if os.path.isdir(code) else []


def sample_key():
    return diskcache.digest("code", importlib.util.MAGIC_NUMBER, SAMPLE.encode())


def test_a_zip_module_compiles_once_then_runs_the_cached_code_keyed_by_its_source(tmp_path):
    first = run_child(build_zip(tmp_path / "a.zip"), tmp_path / "cache")
    assert first["value"] == "compiled from source" and first["loader"] == "CachedZipLoader"
    assert sample_key() in entries(tmp_path / "cache")
    # Replace the entry's code: the next process (another zip, as every task has) must run it unparsed.
    store = diskcache.Store("code", codecache.MAX_BYTES, str(tmp_path / "cache"))
    store.put(sample_key(), marshal.dumps(compile(SAMPLE.replace("compiled from source", "from the cache"),
                                                  "elsewhere.py", "exec")))
    second = run_child(build_zip(tmp_path / "b.zip"), tmp_path / "cache")
    assert second["value"] == "from the cache"
    # Tracebacks name the zip the code runs from now, with its source line.
    assert second["file"] == str(tmp_path / "b.zip" / PACKAGE / "perfsample" / "sample.py")
    assert second["line"] == 'raise ValueError("boom")'


def test_changed_source_gets_a_new_entry(tmp_path):
    run_child(build_zip(tmp_path / "a.zip"), tmp_path / "cache")
    changed = run_child(build_zip(tmp_path / "b.zip", SAMPLE.replace("compiled", "changed")), tmp_path / "cache")
    assert changed["value"] == "changed from source"
    changed_key = diskcache.digest("code", importlib.util.MAGIC_NUMBER, SAMPLE.replace("compiled", "changed").encode())
    assert {sample_key(), changed_key} <= set(entries(tmp_path / "cache"))


@pytest.mark.parametrize("payload", [b"", b"\x00garbage", marshal.dumps("a string, not code")])
def test_a_corrupt_entry_compiles_from_source_and_is_rewritten(tmp_path, payload):
    run_child(build_zip(tmp_path / "a.zip"), tmp_path / "cache")
    store = diskcache.Store("code", codecache.MAX_BYTES, str(tmp_path / "cache"))
    store.put(sample_key(), payload)
    assert run_child(build_zip(tmp_path / "b.zip"), tmp_path / "cache")["value"] == "compiled from source"
    assert marshal.loads(store.get(sample_key())).co_filename.endswith("sample.py")


def test_with_the_cache_off_or_unwritable_modules_still_load_once_compiled(tmp_path):
    off = run_child(build_zip(tmp_path / "a.zip"), tmp_path / "cache", HELMLESS_CACHE="off")
    assert off["value"] == "compiled from source" and off["cached"] == []
    assert entries(tmp_path / "cache") == []
    (tmp_path / "file").write_text("")
    unwritable = run_child(build_zip(tmp_path / "b.zip"), tmp_path / "file" / "cache")
    assert unwritable["value"] == "compiled from source"


def test_outside_a_zip_nothing_is_installed():
    assert codecache.install() is None
    assert not any(isinstance(f, codecache.CachedZipFinder) for f in sys.meta_path)


def test_the_source_digest_of_a_file_module_changes_when_its_file_changes(tmp_path, monkeypatch):
    (tmp_path / "versioned_mod.py").write_text("VALUE = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "versioned_mod", raising=False)
    first = codecache.source_digest(["versioned_mod"])
    assert codecache.source_digest(["versioned_mod"]) == first
    stat = os.stat(tmp_path / "versioned_mod.py")
    (tmp_path / "versioned_mod.py").write_text("VALUE = 2\n")  # same size: the modification time tells
    os.utime(tmp_path / "versioned_mod.py", ns=(stat.st_atime_ns, stat.st_mtime_ns + 10 ** 9))
    assert codecache.source_digest(["versioned_mod"]) != first


def test_a_tree_with_no_source_to_list_has_no_code_version_rather_than_one_every_such_tree_shares(tmp_path):
    module = type(sys)("pkg")
    module.__path__ = [str(tmp_path / "absent")]
    assert codecache.tree_digest(module) is None
    archive = tmp_path / "payload.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("ns/other/__init__.py", "")
    module.__path__ = [os.path.join(str(archive), "ns", "pkg")]
    assert codecache.tree_digest(module) is None
