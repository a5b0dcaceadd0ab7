"""Discovery/OpenAPI disk cache: TTL for documents that change in place, misses for anything doubtful."""
import json
import time

import pytest

from ansible_collections.helmless.core.plugins.module_utils.diskcache import digest
from ansible_collections.helmless.core.plugins.module_utils.kube import cache as kube_cache
from ansible_collections.helmless.core.plugins.module_utils.kube.cache import DiskCache


@pytest.fixture
def disk(tmp_path, monkeypatch):
    monkeypatch.delenv("HELMLESS_CACHE", raising=False)
    return DiskCache(str(tmp_path))


def test_a_document_reads_back_until_its_ttl_has_passed(disk, monkeypatch):
    disk.store({"v1": {"Pod": {"name": "pods"}}}, "discovery", "https://h", "v1.35.4")
    assert disk.load("discovery", "https://h", "v1.35.4", ttl=60) == {"v1": {"Pod": {"name": "pods"}}}
    assert disk.load("discovery", "https://h", "v1.35.5", ttl=60) is None
    later = time.time() + 61
    monkeypatch.setattr(kube_cache.time, "time", lambda: later)
    assert disk.load("discovery", "https://h", "v1.35.4", ttl=60) is None
    assert disk.load("discovery", "https://h", "v1.35.4") == {"v1": {"Pod": {"name": "pods"}}}  # no TTL


def test_an_entry_that_is_not_a_cache_document_is_a_miss(disk):
    key = ("openapi", "https://h", "/openapi/v3/api/v1?hash=X")
    disk._store.put(digest("kube", *key), b"{not json")
    assert disk.load(*key) is None
    disk._store.put(digest("kube", *key), json.dumps(["a", "list"]).encode())
    assert disk.load(*key) is None


def test_with_the_cache_off_documents_are_fetched_every_time(disk, monkeypatch):
    monkeypatch.setenv("HELMLESS_CACHE", "off")
    disk.store({"a": 1}, "discovery", "h", "v")
    assert disk.load("discovery", "h", "v") is None
