"""Where Helm keeps repository configuration and caches (helmpath + cli.EnvSettings, Linux layout).

Honouring the same variables means a ``helm repo add`` done before (or by the ``repository`` module)
is seen here, and our caches are Helm's.
"""
import os
import tempfile


def _home(env, xdg, default):
    if os.environ.get(env):
        return os.environ[env]
    base = os.environ.get(xdg) or os.path.join(os.path.expanduser("~"), default)
    return os.path.join(base, "helm")


def config_home():
    return _home("HELM_CONFIG_HOME", "XDG_CONFIG_HOME", ".config")


def cache_home():
    return _home("HELM_CACHE_HOME", "XDG_CACHE_HOME", ".cache")


def repository_config():
    """``$HELM_REPOSITORY_CONFIG`` or ``<config home>/repositories.yaml``."""
    return os.environ.get("HELM_REPOSITORY_CONFIG") or os.path.join(config_home(), "repositories.yaml")


def repository_cache():
    """``$HELM_REPOSITORY_CACHE`` or ``<cache home>/repository`` (``<name>-index.yaml`` files)."""
    return os.environ.get("HELM_REPOSITORY_CACHE") or os.path.join(cache_home(), "repository")


def content_cache():
    """``$HELM_CONTENT_CACHE`` or ``<cache home>/content``: Helm 4's archives keyed by sha256."""
    return os.environ.get("HELM_CONTENT_CACHE") or os.path.join(cache_home(), "content")


def index_file(name, cache=None):
    return os.path.join(cache or repository_cache(), "%s-index.yaml" % name)


def charts_file(name, cache=None):
    return os.path.join(cache or repository_cache(), "%s-charts.txt" % name)


def read_bytes(path):
    """The file's bytes, or None when it cannot be read (absent)."""
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError:
        return None


def atomic_write(path, data, mode=0o644):
    """Write through a temporary file in the same directory and rename: readers and parallel
    writers never see a partial file."""
    directory = os.path.dirname(path) or "."
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".%s." % os.path.basename(path), suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
