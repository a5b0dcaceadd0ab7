"""Helm 4's content cache: chart archives stored as ``<root>/<first byte hex>/<sha256 hex>.chart``.

Keyed by content, so entries never go stale and Helm 4 and helmless.core share them. Unlike Helm, a
cached file is re-hashed before use and a download is checked against the index ``digest``.
"""
import hashlib
import os

from . import paths
from .errors import RepoError


def _path(root, digest):
    return os.path.join(root, digest[:2], digest + ".chart")


def lookup(digest, root=None):
    """Path of the cached archive with this sha256, or None (absent, empty or corrupt)."""
    if not digest:
        return None
    path = _path(root or paths.content_cache(), digest)
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    if not data or hashlib.sha256(data).hexdigest() != digest:
        return None
    return path


def store(data, expected=None, source="", root=None):
    """Verify ``data`` against ``expected`` (the index digest, if any) and cache it; returns its path."""
    digest = hashlib.sha256(data).hexdigest()
    if expected and digest != expected:
        raise RepoError("digest mismatch for %s: the repository index says sha256:%s, the download is sha256:%s"
                        % (source, expected, digest))
    path = _path(root or paths.content_cache(), digest)
    try:
        paths.atomic_write(path, data)
    except OSError as exc:
        raise RepoError("cannot write %s to the chart cache %s: %s" % (source, path, exc.strerror or exc))
    return path


def normal_digest(value):
    """Index digests are hex sha256, sometimes written ``sha256:<hex>``."""
    value = (value or "").strip().lower()
    if value.startswith("sha256:"):
        value = value[len("sha256:"):]
    if len(value) == 64 and all(c in "0123456789abcdef" for c in value):
        return value
    return None
