"""diskcache.Store: content-addressed entries that survive forks, bad disks and bad bytes."""
import os
import subprocess
import sys
import time

import pytest

from ansible_collections.helmless.core.plugins.module_utils import diskcache
from ansible_collections.helmless.core.plugins.module_utils.diskcache import Store, digest


@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.delenv("HELMLESS_CACHE", raising=False)
    return Store("things", 1 << 20, str(tmp_path))


def test_a_stored_payload_reads_back_under_its_key_and_a_missing_key_is_a_miss(store):
    key = digest("a", b"b")
    assert store.put(key, b"payload")
    assert store.get(key) == b"payload"
    assert store.get(digest("other")) is None
    assert os.listdir(store.directory) == [key]


def test_keys_of_different_part_lists_differ_even_when_their_concatenations_match():
    assert digest("ab", "c") != digest("a", "bc")
    assert digest("ab", "c") == digest(b"ab", b"c")


def test_helmless_cache_off_reads_and_writes_nothing(store, monkeypatch):
    key = digest("k")
    assert store.put(key, b"v")
    monkeypatch.setenv("HELMLESS_CACHE", "off")
    assert store.get(key) is None
    assert not store.put(digest("k2"), b"v")
    assert os.listdir(store.directory) == [key]


def test_an_unwritable_cache_directory_is_a_silent_miss(tmp_path, monkeypatch):
    monkeypatch.delenv("HELMLESS_CACHE", raising=False)
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    store = Store("things", 1 << 20, str(blocker / "cache"))
    assert store.put(digest("k"), b"v") is False
    assert store.get(digest("k")) is None


@pytest.mark.parametrize("damage", ["truncated", "flipped", "foreign", "empty", "other format"])
def test_a_damaged_or_foreign_entry_is_a_miss_and_the_next_write_repairs_it(store, damage):
    key, other = digest("k"), digest("other")
    store.put(key, b"payload" * 10)
    store.put(other, b"another payload")
    path = os.path.join(store.directory, key)
    data = open(path, "rb").read()
    if damage == "truncated":
        data = data[:len(data) - 5]
    elif damage == "flipped":
        data = data[:-1] + bytes([data[-1] ^ 1])
    elif damage == "foreign":
        data = open(os.path.join(store.directory, other), "rb").read()
    elif damage == "empty":
        data = b""
    else:
        data = data[:4] + b"\xff\xff" + data[6:]
    with open(path, "wb") as handle:
        handle.write(data)
    assert store.get(key) is None
    assert store.put(key, b"payload" * 10)
    assert store.get(key) == b"payload" * 10


def test_pruning_removes_the_oldest_entries_down_to_three_quarters_of_the_bound_and_stale_temp_files(store):
    keys = [digest(str(i)) for i in range(10)]
    for age, key in enumerate(keys):
        store.put(key, b"x" * 1000)
        os.utime(os.path.join(store.directory, key), (1000 + age, 1000 + age))
    stale = os.path.join(store.directory, keys[0] + ".123.abcd.tmp")
    open(stale, "wb").close()
    os.utime(stale, (1, 1))
    store.prune(max_bytes=5000)
    left = sorted(os.listdir(store.directory))
    assert left == sorted(keys[7:])  # 3 * 1040 bytes <= 3750
    assert sum(os.path.getsize(os.path.join(store.directory, n)) for n in left) <= 5000 * 3 // 4


def _held(store):
    return sum(os.path.getsize(os.path.join(store.directory, n)) for n in os.listdir(store.directory))


def test_a_process_prunes_on_its_first_write_when_no_process_did_within_the_interval(tmp_path, monkeypatch):
    monkeypatch.delenv("HELMLESS_CACHE", raising=False)
    first = Store("things", 2500, str(tmp_path))
    for i in range(5):
        first.put(digest(str(i)), b"x" * 1000)  # no pruning after the first write of this process
    assert len(os.listdir(first.directory)) == 5
    Store("things", 2500, str(tmp_path)).put(digest("new"), b"x" * 1000)
    assert len(os.listdir(first.directory)) == 6, "pruned again within PRUNE_INTERVAL of the last pruning"
    stamp = first.directory + ".pruned"
    old = time.time() - diskcache.PRUNE_INTERVAL - 1
    os.utime(stamp, (old, old))
    Store("things", 2500, str(tmp_path)).put(digest("newer"), b"x" * 1000)
    assert _held(first) <= 2500
    assert time.time() - os.stat(stamp).st_mtime < diskcache.PRUNE_INTERVAL


def test_a_first_write_into_a_cache_never_pruned_prunes_it(tmp_path, monkeypatch):
    monkeypatch.delenv("HELMLESS_CACHE", raising=False)
    folder = tmp_path / "things"
    folder.mkdir()
    for i in range(5):
        (folder / digest(str(i))).write_bytes(b"x" * 1000)
    Store("things", 2500, str(tmp_path)).put(digest("new"), b"x" * 1000)
    assert _held(Store("things", 2500, str(tmp_path))) <= 2500


WRITER = r"""
import sys, time
sys.path.insert(0, sys.argv[1])
from ansible_collections.helmless.core.plugins.module_utils.diskcache import Store
payload = bytes.fromhex(sys.argv[4]) * 4096
while time.time() < float(sys.argv[5]):  # start together
    pass
print(all(Store("things", 1 << 24, sys.argv[2]).put(sys.argv[3], payload) for _ in range(20)))
"""


def test_many_processes_writing_one_entry_at_once_all_succeed_and_leave_one_whole_entry(tmp_path, monkeypatch):
    monkeypatch.delenv("HELMLESS_CACHE", raising=False)
    key, chunk = digest("shared"), os.urandom(64)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    collections = os.path.join(root, ".build", "collections")
    start = "%f" % (time.time() + 1.5)
    writers = [subprocess.Popen([sys.executable, "-c", WRITER, collections, str(tmp_path), key, chunk.hex(), start],
                                stdout=subprocess.PIPE, text=True) for _ in range(8)]
    assert [w.communicate()[0].strip() for w in writers] == ["True"] * 8
    store = Store("things", 1 << 24, str(tmp_path))
    assert os.listdir(store.directory) == [key]
    assert store.get(key) == chunk * 4096


def test_the_cache_root_follows_helmless_cache_dir_then_xdg_cache_home(monkeypatch, tmp_path):
    monkeypatch.setenv("HELMLESS_CACHE_DIR", str(tmp_path / "explicit"))
    assert diskcache.cache_root() == str(tmp_path / "explicit")
    monkeypatch.delenv("HELMLESS_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert diskcache.cache_root() == str(tmp_path / "xdg" / "helmless.core")
