"""``helm dependency update`` (Helm's downloader.Manager.Update): resolve Chart.yaml dependencies,
put their archives in ``charts/`` and write ``Chart.lock``.

Repositories may be URLs (credentials come from a matching configured repository), ``@name`` /
``alias:name`` entries of the repositories file, or ``file://`` paths (packaged into ``charts/``).
Everything is fetched first; ``charts/`` is only changed once every dependency resolved.
"""
import glob
import gzip
import hashlib
import io
import os
import tarfile
import urllib.parse

from ..chart import ChartError, load_chart
from ..chart.metadata import DEPENDENCY_FIELDS
from ..goyaml import to_json, to_yaml
from ..semver import SemverError, Version, check, parse_constraints
from . import paths
from .errors import RepoError
from .fetch import Access
from .index import archive_name, find, load_index, resolve_reference_url
from .locate import download, scoped_to
from .repofile import download_index, fetch_index, go_time_now, load_repositories

_NOTE = ("\nNote that repositories must be URLs or aliases. For example, to refer to the \"example\"\n"
         "repository, use \"https://charts.example.com/\" or \"@example\" instead of\n"
         "\"example\". Don't forget to add the repo, too ('helm repo add').")


def _same_url(a, b):
    """Helm's urlutil.Equal: scheme, host and cleaned path (trailing slash ignored)."""
    ua, ub = urllib.parse.urlsplit(a), urllib.parse.urlsplit(b)
    return (ua.scheme, ua.netloc, ua.path.rstrip("/") or "/", ua.query) == \
        (ub.scheme, ub.netloc, ub.path.rstrip("/") or "/", ub.query)


def _local_path(repository, chart_dir):
    path = repository[len("file://"):] if repository.startswith("file://") else repository
    path = path if os.path.isabs(path) else os.path.join(chart_dir, path)
    if not os.path.isdir(path):
        raise RepoError("directory %s not found" % path)
    return path


def _constraint(dep):
    try:
        return parse_constraints(dep.get("version") or "")
    except SemverError as exc:
        raise RepoError('dependency "%s" has an invalid version/constraint format: %s' % (dep["name"], exc))


def _load(path):
    try:
        return load_chart(path)
    except ChartError as exc:
        raise RepoError("unable to load chart %s: %s" % (path, exc))


def _repositories(deps, chart_dir, access):
    """Helm's resolveRepoNames: map each remote dependency to (repo URL, Access, configured entry)."""
    entries = load_repositories()["repositories"]
    out, missing = {}, []
    for dep in deps:
        repo = dep.get("repository", "")
        if not repo:
            continue
        if repo.startswith("file://"):
            _local_path(repo, chart_dir)
            continue
        if repo.startswith("oci://"):
            out[dep["name"]] = (repo, access, None)
            continue
        entry = None
        for candidate in entries:
            if repo in ("@" + candidate["name"], "alias:" + candidate["name"]):
                entry = candidate
                dep["repository"] = candidate["url"]
                break
            if _same_url(candidate["url"], repo):
                entry = candidate
                break
        if entry is not None:
            out[dep["name"]] = (dep["repository"], Access.from_entry(entry), entry)
        elif urllib.parse.urlsplit(repo).scheme in ("http", "https"):
            out[dep["name"]] = (repo, scoped_to(repo, access), None)
        else:
            missing.append(repo)
    if missing:
        message = "no repository definition for %s. Please add them via 'helm repo add'" % ", ".join(missing)
        if any("//" not in r and not r.startswith(("@", "alias:")) for r in missing):
            message += _NOTE
        raise RepoError(message)
    return out


def _indexes(repos):
    """One fresh index per repository (configured ones also refresh Helm's cache, like repo update)."""
    indexes = {}
    for url, access, entry in repos.values():
        if url in indexes or url.startswith("oci://"):
            continue
        if entry is not None:
            indexes[url] = download_index(entry)[0]
        else:
            indexes[url] = load_index(fetch_index(url, access), url)
    return indexes


def _lock(name, version, repository):
    """A Chart.lock entry in Go field order (``version`` is omitempty)."""
    out = {"name": name}
    if version:
        out["version"] = version
    out["repository"] = repository
    return out


def _resolve(deps, chart_dir, repos, indexes, plain_http=False):
    """Helm's Resolver.Resolve: the locked (name, repository, version) of every dependency."""
    from .oci import tag_versions  # lazy: only oci:// dependencies need the registry client
    locked, missing = [], []
    for dep in deps:
        name, repo = dep["name"], dep.get("repository", "")
        constraint = _constraint(dep)
        if not repo:  # vendored in charts/<name>: it must be there and satisfy the constraint
            vendored = os.path.join(chart_dir, "charts", name)
            if not os.path.isdir(vendored):
                raise RepoError("directory %s not found" % vendored)
            version = _load(vendored).version
            if not check(constraint, Version.parse(version)):
                raise RepoError("dependency %s at version %s does not satisfy the constraint %s"
                                % (name, version, dep.get("version", "")))
            locked.append(_lock(name, dep.get("version", ""), ""))
            continue
        if repo.startswith("file://"):
            chart = _load(_local_path(repo, chart_dir))
            if not check(constraint, Version.parse(chart.version)):
                missing.append('"%s" (repository "%s", version "%s")' % (name, repo, dep.get("version", "")))
                continue
            locked.append(_lock(name, chart.version, repo))
            continue
        url = repos[name][0]
        if url.startswith("oci://"):  # the registry's tags, newest first
            versions = [{"version": v, "urls": ["oci"]}
                        for v in tag_versions("%s/%s" % (url.rstrip("/"), name), repos[name][1], plain_http)]
        else:
            versions = indexes[url]["entries"].get(name)
        if versions is None:
            raise RepoError("%s chart not found in repo %s" % (name, url))
        found = None
        for item in versions:
            if item.get("urls") and check(constraint, Version.parse(item["version"])):
                found = item["version"]
                break
        if found is None:
            missing.append('"%s" (repository "%s", version "%s")' % (name, repo, dep.get("version", "")))
            continue
        locked.append(_lock(name, found, repo))
    if missing:
        raise RepoError("can't get a valid version for %d subchart(s): %s. Make sure a matching chart version "
                        "exists in the repo, or change the version constraint in Chart.yaml"
                        % (len(missing), ", ".join(missing)))
    return locked


def package_dir(chart):
    """A chart as a .tgz (entries under ``<name>/``), what Helm's tarFromLocalDir writes."""
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0) as gz:
        with tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar:
            for name, data in chart.raw:
                info = tarfile.TarInfo("%s/%s" % (chart.name, name))
                info.size, info.mode = len(data), 0o644
                tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def hash_req(req, locked):
    """Helm's resolver.HashReq: sha256 of Go's JSON of ``[req, lock]`` (Dependency structs: fields in
    Go order, empty ones omitted, HTML characters escaped)."""

    def struct(dep):
        return "{%s}" % ",".join("%s:%s" % (to_json(spec[0]), to_json(dep[spec[0]]))
                                 for spec in DEPENDENCY_FIELDS if spec[0] in dep)

    def deps(items):
        return "[%s]" % ",".join("null" if d is None else struct(d) for d in items)
    return "sha256:" + hashlib.sha256(("[%s,%s]" % (deps(req), deps(locked))).encode("utf-8")).hexdigest()


# kubernetes.core.helm's warning, word for word, so playbooks that assert on it keep working.
NO_DEPENDENCIES = ("There is no dependencies block defined in Chart.yaml. Dependency update will not be performed. "
                   "Please consider add dependencies block or disable dependency_update to remove this warning.")


def dependency_update(chart_dir, access=None, plain_http=False, warnings=None):
    """Update ``chart_dir``'s ``charts/`` and ``Chart.lock``; returns True when anything was written.

    A chart without dependencies is left alone, with NO_DEPENDENCIES added to ``warnings``."""
    if not os.path.isdir(chart_dir):
        raise RepoError("dependency_update: only unpacked charts can be updated (%s is not a directory)" % chart_dir)
    chart = _load(chart_dir)
    deps = [dict(d) for d in chart.metadata.get("dependencies") or []]
    if not deps:
        if warnings is not None:
            warnings.append(NO_DEPENDENCIES)
        return False
    access = access or Access()
    repos = _repositories(deps, chart_dir, access)
    indexes = _indexes(repos)
    locked = _resolve(deps, chart_dir, repos, indexes, plain_http)
    archives = []
    for dep, lock in zip(deps, locked):
        if not lock["repository"]:
            continue
        if lock["repository"].startswith("file://"):
            sub = _load(_local_path(lock["repository"], chart_dir))
            archives.append((dep["name"], "%s-%s.tgz" % (sub.name, sub.version), package_dir(sub)))
            continue
        url, dep_access = repos[dep["name"]][:2]
        if url.startswith("oci://"):
            from .oci import pull  # lazy: only oci:// dependencies need the registry client
            ref = "%s/%s:%s" % (url.rstrip("/"), dep["name"], lock["version"])
            archives.append((dep["name"], "%s-%s.tgz" % (dep["name"], lock["version"]),
                             pull(ref, None, dep_access, plain_http)[0]))
            continue
        item = find(indexes[url], dep["name"], lock["version"], url)
        chart_url = resolve_reference_url(url, item["urls"][0])
        label = 'dependency "%s" version "%s" (%s)' % (dep["name"], lock["version"], chart_url)
        with open(download(chart_url, item.get("digest"), dep_access, label), "rb") as handle:
            archives.append((dep["name"], archive_name(chart_url), handle.read()))
    target = os.path.join(chart_dir, "charts")
    if os.path.exists(target) and not os.path.isdir(target):
        raise RepoError('"%s" is not a directory' % target)
    os.makedirs(target, exist_ok=True)
    for name in [archive[0] for archive in archives]:
        _delete_old(name, target)
    for filename, data in [archive[1:] for archive in archives]:
        paths.atomic_write(os.path.join(target, filename), data)
    digest = hash_req(deps, locked)
    if chart.lock is not None and chart.lock.get("digest") == digest:
        return True
    _write_lock(chart_dir, chart, {"dependencies": locked, "digest": digest, "generated": go_time_now()})
    return True


def _delete_old(name, target):
    """Helm's safeDeleteDep: remove ``<name>-*.tgz`` files that really are chart ``name``."""
    for path in glob.glob(os.path.join(glob.escape(target), glob.escape(name) + "-*.tgz")):
        try:
            if load_chart(path).name != name:
                continue
        except ChartError:
            continue
        os.unlink(path)


def _write_lock(chart_dir, chart, lock):
    legacy = chart.metadata.get("apiVersion") == "v1"
    dest = os.path.join(chart_dir, "requirements.lock" if legacy else "Chart.lock")
    if os.path.islink(dest):
        raise RepoError("refusing to write %s: it is a symbolic link" % dest)
    paths.atomic_write(dest, to_yaml(lock).encode("utf-8"))
