"""payloadcache: Ansible builds a module's payload once per version of the sources, not once per playbook run."""
import os
import shutil
import subprocess
import sys
import zlib

import pytest

from ansible_collections.helmless.core.plugins.module_utils import diskcache
from ansible_collections.helmless.core.plugins.plugin_utils import payloadcache

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
DEMO = os.path.join(ROOT, "playbooks", "charts", "webapp")
BUILT = "ANSIBALLZ: Creating module"
REUSED = "ANSIBALLZ: using cached module"


def render(cache_dir, **env):
    """``ansible -m helmless.core.template`` on the demo chart in a fresh process; returns its debug output."""
    full = dict(os.environ, HELMLESS_CACHE_DIR=str(cache_dir), ANSIBLE_DEBUG="1", ANSIBLE_LOCALHOST_WARNING="false",
                ANSIBLE_COLLECTIONS_PATH=os.path.join(ROOT, ".build", "collections"), **env)
    if "HELMLESS_CACHE" not in env:
        full.pop("HELMLESS_CACHE", None)
    proc = subprocess.run(["ansible", "localhost", "-e", "ansible_python_interpreter=" + sys.executable,
                           "-m", "helmless.core.template", "-a", "chart_ref=" + DEMO], env=full,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "localhost | SUCCESS" in proc.stdout
    return proc.stdout + proc.stderr


def entries(cache_dir):
    folder = os.path.join(str(cache_dir), "ansiballz")
    return sorted(n for n in os.listdir(folder) if not n.endswith(".tmp")) if os.path.isdir(folder) else []


@pytest.mark.ansible_core
def test_the_second_ansible_process_runs_the_payload_the_first_one_built(tmp_path):
    first = render(tmp_path)
    assert BUILT in first and REUSED not in first
    assert len(entries(tmp_path)) == 1
    second = render(tmp_path)
    assert REUSED in second and BUILT not in second


@pytest.mark.ansible_core
@pytest.mark.parametrize("damage", ["flipped", "garbage"])
def test_a_damaged_entry_is_ignored_the_payload_built_again_and_the_entry_rewritten(tmp_path, damage):
    render(tmp_path)
    (name,) = entries(tmp_path)
    path = os.path.join(str(tmp_path), "ansiballz", name)
    with open(path, "rb") as handle:
        data = handle.read()
    if damage == "flipped":
        data = data[:-1] + bytes([data[-1] ^ 0xFF])
    else:  # a valid header and checksum over something that is not an archive of payload files
        payload = b"\x00" * 32 + b"not an archive"
        data = diskcache._HEADER.pack(diskcache._MAGIC, diskcache.FORMAT, bytes.fromhex(name),
                                      zlib.crc32(payload)) + payload
    with open(path, "wb") as handle:
        handle.write(data)
    out = render(tmp_path)
    assert BUILT in out and REUSED not in out
    assert payloadcache._unpack(diskcache.Store("ansiballz", 1 << 30, str(tmp_path)).get(name), "ansible_collections.")


@pytest.mark.ansible_core
def test_with_the_cache_off_or_unwritable_the_payload_is_built_as_ansible_does(tmp_path):
    render(tmp_path)
    assert BUILT in render(tmp_path, HELMLESS_CACHE="off")
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert BUILT in render(blocker / "cache")


def test_the_key_changes_with_any_module_utils_source_and_with_the_module(tmp_path, monkeypatch):
    shutil.copytree(os.path.join(ROOT, "plugins"), str(tmp_path / "plugins"))
    monkeypatch.setattr(payloadcache, "_COLLECTION", str(tmp_path / "plugins"))

    def key(module="template"):
        return payloadcache.PayloadCache.for_action("helmless.core." + module, lookup=str(tmp_path / "lookup"),
                                                    store=diskcache.Store("ansiballz", 1 << 20, str(tmp_path))).key()

    before = key()
    assert key("release") != before
    with open(str(tmp_path / "plugins" / "module_utils" / "gotemplate" / "lexer.py"), "a") as handle:
        handle.write("\n")
    assert key() != before


def test_an_archive_naming_a_file_of_another_module_or_outside_the_cache_is_refused():
    prefix = "ansible_collections.helmless.core.plugins.modules.template-"
    good = {prefix + "ZIP_DEFLATED-none": b"payload"}
    assert payloadcache._unpack(payloadcache._pack(good), prefix) == good
    for name in ("ansible_collections.helmless.core.plugins.modules.release-ZIP_DEFLATED-none",
                 prefix + "x" + os.sep + ".." + os.sep + "escape"):
        assert payloadcache._unpack(payloadcache._pack({name: b"payload"}), prefix) == {}
