"""Helm's ``LocateChart``: turn ``chart_ref`` (+ repository options) into a local chart path.

Order as in Helm: with ``repo_url`` the index is fetched and ``chart_ref`` is a chart name; else an
``oci://`` reference is pulled from its registry; else an existing local path is used as is; else an
``http(s)://`` URL is downloaded; else ``repo/chart`` is looked up in the repositories file and its
cached index. Remote archives land in the content cache
and are verified against the index digest; every failure happens before anything touches a cluster.
"""
import os
import urllib.parse

from . import cache, paths
from .errors import RepoError
from .fetch import Access, get
from .index import find, load_index, resolve_reference_url
from .repofile import cached_index, download_index, fetch_index, find_entry, load_repositories


class Located(object):
    """Where a chart came from: ``path`` to load, ``source`` (URL or path) and the ``version`` picked."""

    def __init__(self, path, source, version=None, remote=False, output="", provenance=None):
        self.path, self.source, self.version, self.remote = path, source, version, remote
        self.output = output  # what helm prints while fetching it (an OCI pull's "Pulled:"/"Digest:")
        self._provenance = provenance

    @property
    def filename(self):
        """The archive's file name as Helm's downloader names it (the name its ``.prov`` lists)."""
        if self.source.startswith("oci://"):
            return "%s-%s.tgz" % (self.source.split("@")[0].rsplit("/", 1)[-1].split(":")[0], self.version)
        return os.path.basename(urllib.parse.urlsplit(self.source).path if self.remote else self.path)

    def provenance(self):
        """The chart's ``.prov`` bytes: ``<url>.prov``, the OCI provenance layer, or the file beside a local
        archive; RepoError with Helm's wording when there is none."""
        if self._provenance is not None:
            return self._provenance()
        data = paths.read_bytes(self.path + ".prov")
        if data is None:
            raise RepoError("could not load provenance file %s.prov: stat %s.prov: no such file or directory"
                            % (self.path, self.path))
        return data


def locate_chart(chart_ref, version=None, repo_url=None, access=None, update_repo_cache=False, plain_http=False,
                 fresh=False, cosign_key=None):
    """Resolve ``chart_ref``; ``access`` carries credentials/TLS (``Access``), ``version`` a constraint;
    ``plain_http`` talks HTTP to an OCI registry; ``fresh`` downloads the archive again instead of taking
    it from the content cache; ``cosign_key`` (the option's value) requires an OCI chart signed by it."""
    access = access or Access()
    if not chart_ref:
        raise RepoError("chart_ref is required")
    if cosign_key:
        if repo_url or not chart_ref.startswith("oci://"):
            raise RepoError("cosign_key: cosign signatures are verified for OCI charts (oci://...) only; %s is not "
                            "one (use verify and keyring for a chart's .prov)" % chart_ref)
        from .cosign import PublicKey  # lazy: only a task that verifies signatures needs it
        return _from_oci(chart_ref, version, access, plain_http, PublicKey.load(cosign_key))
    if repo_url:
        return _from_repo_url(chart_ref, version, repo_url, access, fresh)
    if chart_ref.startswith("oci://"):
        return _from_oci(chart_ref, version, access, plain_http)
    if os.path.exists(chart_ref):
        return Located(chart_ref, chart_ref)
    if os.path.isabs(chart_ref) or chart_ref.startswith("."):
        raise RepoError('path "%s" not found' % chart_ref)
    scheme = urllib.parse.urlsplit(chart_ref).scheme
    if scheme in ("http", "https"):
        return _from_url(chart_ref, access, fresh)
    if scheme:
        raise RepoError("chart_ref %s: unsupported scheme %s (use http, https, repo_name/chart or a local path)"
                        % (chart_ref, scheme))
    if "/" not in chart_ref:
        raise RepoError('chart_ref "%s" is not a local chart directory or archive; a chart from a repository '
                        'is named repo_name/chart_name, or give chart_repo_url' % chart_ref)
    return _from_named_repo(chart_ref, version, access, update_repo_cache, fresh)


def download(url, digest, access, label, fresh=False):
    """The cached archive for ``digest`` (unless ``fresh``), else ``url`` downloaded, verified and cached;
    returns its path."""
    expected = cache.normal_digest(digest)
    hit = None if fresh else cache.lookup(expected)
    if hit:
        return hit
    data = get(url, access, accept="application/gzip,application/octet-stream")
    return cache.store(data, expected, label)


def scoped_to(url, access):
    """The same credentials and TLS settings, scoped to repository ``url``."""
    return Access(url, access.username, access.password, access.pass_credentials,
                  access.insecure_skip_tls_verify, access.ca_file, access.cert_file, access.key_file)


def _from_repo_url(name, version, repo_url, access, fresh=False):
    scoped = scoped_to(repo_url, access)
    index = load_index(fetch_index(repo_url, scoped), repo_url)
    entry = find(index, name, version, repo_url)
    url = resolve_reference_url(repo_url, entry["urls"][0])
    path = download(url, entry.get("digest"), scoped, 'chart "%s" version "%s" (%s)' % (name, entry["version"], url),
                    fresh)
    return Located(path, url, entry["version"], remote=True, provenance=_prov_fetcher(url, scoped))


def _from_oci(ref, version, access, plain_http, cosign_key=None):
    from .oci import pull  # lazy: only oci:// charts need the registry client
    data, digest, picked, printed, provenance = pull(ref, version, access, plain_http, cosign_key)
    path = cache.store(data, digest, "%s version %s" % (ref, picked or "(digest)"))
    return Located(path, ref, picked, remote=True, output=printed, provenance=provenance)


def _from_url(url, access, fresh=False):
    """A direct archive URL; the repository that lists it (if any) lends its credentials and TLS."""
    scoped, digest = _owner(url)
    if scoped is None:
        scoped = scoped_to(url, access)
    path = download(url, digest, scoped, url, fresh)
    return Located(path, url, None, remote=True, provenance=_prov_fetcher(url, scoped))


def _owner(url):
    """Helm's ``scanReposForURL``: the configured repository whose cached index lists ``url``."""
    config = paths.repository_config()
    if not os.path.exists(config):
        return None, None
    for entry in load_repositories(config)["repositories"]:
        try:
            index = cached_index(entry["name"])
        except RepoError:
            continue
        for versions in index["entries"].values():
            for item in versions:
                for ref in item.get("urls") or []:
                    if resolve_reference_url(entry["url"], ref) == url:
                        return Access.from_entry(entry), item.get("digest")
    return None, None


def _from_named_repo(chart_ref, version, access, update_repo_cache, fresh=False):
    repo_name, chart_name = chart_ref.split("/", 1)
    config = paths.repository_config()
    entry = find_entry(load_repositories(config), repo_name)
    if entry is None:
        raise RepoError('no repo named "%s" found in %s (add it with helmless.core.repository or '
                        "'helm repo add')" % (repo_name, config))
    scoped = Access.from_entry(entry, insecure_skip_tls_verify=access.insecure_skip_tls_verify)
    if update_repo_cache:
        index = download_index(entry)[0]
    else:
        index = cached_index(repo_name)
    try:
        item = find(index, chart_name, version, entry["url"])
    except RepoError as exc:
        raise RepoError("%s (repository %s; try update_repo_cache: true)" % (exc, repo_name))
    url = resolve_reference_url(entry["url"], item["urls"][0])
    label = 'chart "%s" version "%s" (%s)' % (chart_ref, item["version"], url)
    path = download(url, item.get("digest"), scoped, label, fresh)
    return Located(path, url, item["version"], remote=True, provenance=_prov_fetcher(url, scoped))


def _prov_fetcher(url, access):
    """``<url>.prov`` with the chart's access, as Helm's downloader fetches it."""
    def fetch():
        try:
            return get(url + ".prov", access)
        except RepoError as exc:
            raise RepoError('failed to fetch provenance "%s.prov": %s' % (url, exc))
    return fetch
