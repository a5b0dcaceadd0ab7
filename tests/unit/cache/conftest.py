"""These tests exercise the caches themselves, in directories of their own: whatever HELMLESS_TEST_CACHE
set for the rest of the suite (``off`` included) must not switch them off."""
import pytest


@pytest.fixture(autouse=True)
def caches_on(monkeypatch):
    monkeypatch.delenv("HELMLESS_CACHE", raising=False)
