"""A repository's ``index.yaml`` (Helm's pkg/repo/v1 IndexFile): load, pick a version, resolve URLs.

Entries that Helm would skip (no name, invalid version) are dropped and every chart's versions are
sorted newest first, so :func:`get` can take the first match as Helm does.
"""
import json
import posixpath
import urllib.parse

from ..semver import SemverError, Version, check, compare, parse_constraints
from .errors import RepoError


def _yaml_load(data):
    import yaml  # lazy: module_utils import without PyYAML (ansible/libraries.py)
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return yaml.load(data, Loader=loader)  # noqa: S506 - a safe loader


def load_index(data, source):
    """Parse index bytes (YAML or JSON) into ``{"apiVersion", "entries": {name: [entry...]}}``."""
    if not data:
        raise RepoError("%s: empty index.yaml file" % source)
    try:
        try:
            doc = json.loads(data)
        except ValueError:
            doc = _yaml_load(data)
    except Exception as exc:  # PyYAML raises many types; the message is what the user needs
        raise RepoError("%s: cannot parse index: %s" % (source, exc))
    if not isinstance(doc, dict):
        raise RepoError("%s: index is not a mapping" % source)
    entries = {}
    for name, versions in (doc.get("entries") or {}).items():
        kept = []
        for entry in versions or []:
            if not isinstance(entry, dict) or not isinstance(entry.get("version"), str):
                continue
            try:
                parsed = Version.parse(entry["version"])
            except SemverError:
                continue
            if not entry.get("name"):
                continue
            kept.append((parsed, entry))
        kept.sort(key=_SortKey, reverse=True)
        entries[str(name)] = [pair[1] for pair in kept]
    if not doc.get("apiVersion"):
        raise RepoError("%s: no API version specified" % source)
    return {"apiVersion": doc["apiVersion"], "entries": entries}


class _SortKey(object):
    def __init__(self, item):
        self.version = item[0]

    def __lt__(self, other):
        return compare(self.version, other.version) < 0


def get(index, name, version=None):
    """Helm's ``IndexFile.Get``: an exact version string first, else the newest version that
    satisfies the constraint (default ``*``, which leaves prereleases out)."""
    versions = index["entries"].get(name)
    if versions is None:
        raise LookupError("no chart name found")
    if not versions:
        raise LookupError("no chart version found")
    try:
        constraint = parse_constraints(version or "*")
    except SemverError as exc:
        raise LookupError(str(exc))
    if version:
        for entry in versions:
            if entry["version"] == version:
                return entry
    for entry in versions:
        if check(constraint, Version.parse(entry["version"])):
            return entry
    raise LookupError("no chart version found for %s-%s" % (name, version or ""))


def find(index, name, version, repo_url):
    """The entry for ``name``/``version`` or RepoError ``chart "x" version "y" not found in <url> repository``."""
    what = 'chart "%s"' % name
    if version:
        what += ' version "%s"' % version
    try:
        entry = get(index, name, version)
    except LookupError:
        raise RepoError("%s not found in %s repository" % (what, repo_url))
    if not entry.get("urls"):
        raise RepoError("%s has no downloadable URLs" % what)
    return entry


def resolve_reference_url(base_url, ref_url):
    """Helm's ``ResolveReferenceURL``: ``ref_url`` relative to the repository URL (as a directory),
    keeping the repository's query string."""
    ref = urllib.parse.urlsplit(ref_url)
    if ref.scheme:
        return ref_url
    base = urllib.parse.urlsplit(base_url)
    base_dir = base._replace(path=base.path.rstrip("/") + "/", query="", fragment="")
    joined = urllib.parse.urlsplit(urllib.parse.urljoin(base_dir.geturl(), ref_url))
    return joined._replace(query=base.query).geturl()


def index_url(repo_url):
    return resolve_reference_url(repo_url, "index.yaml")


def archive_name(url):
    """The file name Helm gives a downloaded chart: the last path element of its URL."""
    return posixpath.basename(urllib.parse.urlsplit(url).path)
