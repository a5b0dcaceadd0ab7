"""Helm's repositories file (``helm repo add/remove``) and the per-repository index cache.

The file is read and written under Helm's own lock (``repositories.lock``, flock), so this module,
parallel Ansible forks and a concurrent ``helm repo add`` never lose each other's entries. It is
written as Helm writes it (sigs.k8s.io/yaml: keys sorted, mode 0600).
"""
import datetime
import errno
import fcntl
import os
import time

from ..goyaml import to_yaml
from . import paths
from .errors import RepoError
from .fetch import Access, get
from .index import index_url, load_index

ENTRY_FIELDS = ("name", "url", "username", "password", "certFile", "keyFile", "caFile",
                "insecure_skip_tls_verify", "pass_credentials_all")
LOCK_TIMEOUT = 30


def go_time_now():
    """``time.Now()`` as Go's JSON encodes it (RFC 3339 with nanoseconds, trailing zeros trimmed)."""
    now = datetime.datetime.now().astimezone()
    text = now.strftime("%Y-%m-%dT%H:%M:%S")
    if now.microsecond:
        text += ("." + "%06d" % now.microsecond).rstrip("0")
    offset = now.strftime("%z")
    return text + ("Z" if offset in ("+0000", "-0000") else offset[:3] + ":" + offset[3:])


def make_entry(name, url, username=None, password=None, pass_credentials=False, insecure_skip_tls_verify=False,
               ca_file=None, cert_file=None, key_file=None):
    return {"name": name, "url": url, "username": username or "", "password": password or "",
            "certFile": cert_file or "", "keyFile": key_file or "", "caFile": ca_file or "",
            "insecure_skip_tls_verify": bool(insecure_skip_tls_verify),
            "pass_credentials_all": bool(pass_credentials)}


def _normal(entry):
    out = make_entry(entry.get("name"), entry.get("url"))
    for key in ENTRY_FIELDS:
        if entry.get(key) is not None:
            out[key] = entry[key]
    return out


class locked(object):
    """Hold Helm's lock on a repositories file (``<file without extension>.lock``)."""

    def __init__(self, path):
        self.path = os.path.splitext(path)[0] + ".lock"
        self.handle = None

    def __enter__(self):
        os.makedirs(os.path.dirname(self.path) or ".", exist_ok=True)
        self.handle = open(self.path, "a")
        deadline = time.monotonic() + LOCK_TIMEOUT
        while True:
            try:
                fcntl.flock(self.handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return self
            except OSError as exc:
                if exc.errno not in (errno.EAGAIN, errno.EACCES) or time.monotonic() > deadline:
                    self.handle.close()
                    raise RepoError("could not lock %s: %s" % (self.path, exc))
                time.sleep(0.05)

    def __exit__(self, *exc):
        fcntl.flock(self.handle, fcntl.LOCK_UN)
        self.handle.close()


def load_repositories(path=None):
    """The repositories file as ``{"apiVersion", "generated", "repositories": [entry...]}``
    (an empty one when the file does not exist)."""
    path = path or paths.repository_config()
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except FileNotFoundError:
        return {"apiVersion": "v1", "generated": go_time_now(), "repositories": []}
    except OSError as exc:
        raise RepoError("couldn't load repositories file (%s): %s" % (path, exc.strerror or exc))
    import yaml  # lazy: module_utils import without PyYAML (ansible/libraries.py)
    try:
        doc = yaml.safe_load(data) or {}
    except yaml.YAMLError as exc:
        raise RepoError("couldn't load repositories file (%s): %s" % (path, exc))
    if not isinstance(doc, dict):
        raise RepoError("couldn't load repositories file (%s): not a mapping" % path)
    repos = [_normal(e) for e in doc.get("repositories") or [] if isinstance(e, dict)]
    generated = doc.get("generated")
    if isinstance(generated, datetime.datetime):
        generated = generated.isoformat().replace("+00:00", "Z")
    return {"apiVersion": doc.get("apiVersion") or "", "generated": generated or "0001-01-01T00:00:00Z",
            "repositories": repos}


def save_repositories(doc, path=None):
    path = path or paths.repository_config()
    paths.atomic_write(path, to_yaml(doc).encode("utf-8"), 0o600)


def find_entry(doc, name):
    for entry in doc["repositories"]:
        if entry["name"] == name:
            return entry
    return None


def download_index(entry, cache=None):
    """``ChartRepository.DownloadIndexFile``: fetch, validate, write ``<name>-index.yaml`` and
    ``<name>-charts.txt``; returns (index, raw bytes)."""
    data = fetch_index(entry["url"], Access.from_entry(entry))
    index = load_index(data, entry["url"])
    names = "".join(name + "\n" for name in sorted(index["entries"]))
    paths.atomic_write(paths.charts_file(entry["name"], cache), names.encode("utf-8"))
    paths.atomic_write(paths.index_file(entry["name"], cache), data)
    return index, data


def fetch_index(repo_url, access):
    try:
        return get(index_url(repo_url), access)
    except RepoError as exc:
        raise RepoError('looks like "%s" is not a valid chart repository or cannot be reached: %s' % (repo_url, exc))


def cached_index(name, cache=None):
    """The cached index of a named repository, or RepoError telling to update it."""
    path = paths.index_file(name, cache)
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise RepoError("no cached repo found for %s at %s (try update_repo_cache: true or 'helm repo update'): %s"
                        % (name, path, exc.strerror or exc))
    return load_index(data, path)


def add_repository(entry, force_update=False, check_mode=False, config=None, cache=None):
    """``helm repo add`` with kubernetes.core.helm_repository's idempotence; returns (changed, message)."""
    name = entry["name"]
    if "/" in name:
        raise RepoError("repository name (%s) contains '/', please specify a different name without '/'" % name)
    config = config or paths.repository_config()
    with locked(config):
        doc = load_repositories(config)
        existing = find_entry(doc, name)
        index_path = paths.index_file(name, cache)
        if existing is not None and not force_update:
            if existing["url"].rstrip("/") != entry["url"].rstrip("/"):
                raise RepoError("repository name (%s) already exists with URL %s, not %s: set force_update to "
                                "replace it" % (name, existing["url"], entry["url"]))
            # the same repository, trailing slash aside, as kubernetes.core 6.6's helm_repository sees it: kept as stored
            entry = dict(entry, url=existing["url"])
            if existing == entry and os.path.exists(index_path):
                return False, '"%s" already exists with the same configuration, skipping' % name
        if check_mode:
            return True, '"%s" would be added to your repositories' % name
        old_index = paths.read_bytes(index_path)
        data = download_index(entry, cache)[1]
        # a forced add always reports a change, as kubernetes.core.helm_repository does
        changed = force_update or existing != entry or old_index != data
        if existing != entry:
            if existing is None:
                doc["repositories"].append(entry)
            else:
                doc["repositories"][doc["repositories"].index(existing)] = entry
            save_repositories(doc, config)
    return changed, '"%s" has been added to your repositories' % name


def remove_repository(name, check_mode=False, config=None, cache=None):
    """``helm repo remove`` (absent is not an error); returns (changed, message)."""
    config = config or paths.repository_config()
    with locked(config):
        doc = load_repositories(config)
        existing = find_entry(doc, name)
        if existing is None:
            return False, "no repo named %s found" % name
        if not check_mode:
            doc["repositories"].remove(existing)
            save_repositories(doc, config)
            for path in (paths.index_file(name, cache), paths.charts_file(name, cache)):
                if os.path.exists(path):
                    os.unlink(path)
    return True, '"%s" has been removed from your repositories' % name
