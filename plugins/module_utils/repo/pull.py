"""``helm pull``: a chart archive (or, with ``untar``, its files) written into a destination directory.

Idempotent where Helm is not: the archive is compared byte for byte, the untarred tree file by file,
and nothing is written when they already match. Everything is fetched and checked before the
destination is touched, and files land through a temporary name and a rename, so a failed pull
leaves the destination as it was.
"""
import hashlib
import os
import shutil
import tempfile

from ..chart.errors import ChartError
from ..chart.loader import archive_files as chart_archive_files
from .errors import RepoError
from .index import archive_name
from .locate import locate_chart
from .paths import read_bytes

# Helm's pull --devel: no version given means any version, prereleases included.
DEVEL_CONSTRAINT = ">0.0.0-0"


class Pulled(object):
    """What a pull wrote (or would write): chart ``name``, ``version``, ``path``, sha256 ``digest``, ``changed``,
    and what ``helm pull`` prints (``output``)."""

    def __init__(self, name, version, path, digest, changed, output=""):
        self.name, self.version, self.path, self.digest, self.changed = name, version, path, digest, changed
        self.output = output


def archive_files(data, source):
    """The chart loader's archive entries (Helm's ``LoadArchiveFiles`` checks) as ``{path: bytes}``, and the
    chart's ``Chart.yaml`` metadata; errors name ``source``."""
    import yaml  # lazy: module_utils import without PyYAML (ansible/libraries.py)
    try:
        files = dict(chart_archive_files(data))
    except ChartError as exc:
        raise RepoError("%s: %s" % (source, exc))
    if "Chart.yaml" not in files:
        raise RepoError("%s: Chart.yaml file is missing" % source)
    try:
        meta = yaml.safe_load(files["Chart.yaml"]) or {}
    except yaml.YAMLError as exc:
        raise RepoError("%s: cannot load Chart.yaml: %s" % (source, exc))
    if not isinstance(meta, dict) or not meta.get("name"):
        raise RepoError("%s: chart name not specified" % source)
    return files, meta


def pull_chart(chart_ref, destination, version=None, repo_url=None, access=None, devel=False, untar=False,
               plain_http=False, check_mode=False, verify=False, keyring=None, provenance=False, force=False,
               cosign_key=None):
    """Fetch ``chart_ref`` as ``helm pull`` does and write it into ``destination``; returns :class:`Pulled`.

    ``verify`` checks the chart's ``.prov`` against ``keyring`` (Helm's ``--verify``) before anything is
    written; ``verify`` or ``provenance`` (Helm's ``--prov``) also write the ``.prov`` beside the archive.
    ``force`` (kubernetes.core.helm_pull's): download the archive again, not from the content cache, and
    write it even when the destination holds the same files (a change, as helm_pull reports it).
    ``cosign_key``: the OCI chart must carry a cosign signature by this public key (checked first)."""
    if devel and not version:
        version = DEVEL_CONSTRAINT
    located = locate_chart(chart_ref, version, repo_url, access, plain_http=plain_http, fresh=force,
                           cosign_key=cosign_key)
    if not located.remote:
        raise RepoError('chart_ref "%s" is a local path; pull fetches charts from repositories, URLs and OCI '
                        "registries" % chart_ref)
    with open(located.path, "rb") as handle:
        data = handle.read()
    label = "%s version %s" % (chart_ref, located.version) if located.version else chart_ref
    files, meta = archive_files(data, label)
    name, chart_version = str(meta["name"]), str(meta.get("version") or "")
    digest = hashlib.sha256(data).hexdigest()
    output, prov = located.output, None
    filename = archive_name(located.source) if not chart_ref.startswith("oci://") else \
        "%s-%s.tgz" % (name, chart_version)
    if verify or provenance:
        prov = located.provenance()
    if verify:
        from .provenance import default_keyring, verify_archive  # lazy: only --verify needs OpenPGP
        output += verify_archive(data, prov, filename, keyring or default_keyring()).text()
    if untar:
        target = os.path.join(destination, name)
        changed = force or _tree(target) != files
        if changed and not check_mode:
            _write_tree(destination, name, files)
    else:
        target = os.path.join(destination, filename)
        changed = force or read_bytes(target) != data
        prov_changed = prov is not None and (force or read_bytes(target + ".prov") != prov)
        if changed and not check_mode:
            _write_file(destination, filename, data)
        if prov_changed and not check_mode:
            _write_file(destination, filename + ".prov", prov)
        changed = changed or prov_changed
    return Pulled(name, chart_version, target, digest, changed, output)


def _tree(root):
    """``{relative path: bytes}`` of the regular files under ``root``; None when it is not a directory."""
    if not os.path.isdir(root) or os.path.islink(root):
        return None
    found = {}
    for base, dirs, names in os.walk(root):
        for entry in dirs + names:
            full = os.path.join(base, entry)
            rel = os.path.relpath(full, root).replace(os.sep, "/")
            if os.path.islink(full) or not (os.path.isdir(full) or os.path.isfile(full)):
                found[rel] = None  # never equal to archive content: the tree is rewritten
            elif os.path.isfile(full):
                found[rel] = read_bytes(full)
    return found


def _prepare(destination):
    try:
        os.makedirs(destination, exist_ok=True)
    except OSError as exc:
        raise RepoError("cannot create destination %s: %s" % (destination, exc.strerror or exc))


def _write_file(destination, filename, data):
    _prepare(destination)
    fd, tmp = tempfile.mkstemp(prefix=".%s." % filename, dir=destination)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, os.path.join(destination, filename))
    except OSError as exc:
        _discard(tmp)
        raise RepoError("cannot write %s into %s: %s" % (filename, destination, exc.strerror or exc))


def _write_tree(destination, name, files):
    """Expand into a temporary directory beside the target, then swap it in (the old tree, if any, is removed)."""
    _prepare(destination)
    target = os.path.join(destination, name)
    try:
        work = tempfile.mkdtemp(prefix=".%s.pull." % name, dir=destination)
    except OSError as exc:
        raise RepoError("cannot write into %s: %s" % (destination, exc.strerror or exc))
    try:
        fresh = os.path.join(work, "new")
        for rel, body in files.items():
            path = os.path.join(fresh, *rel.split("/"))
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as handle:
                handle.write(body)
            os.chmod(path, 0o644)
        if os.path.lexists(target):
            os.rename(target, os.path.join(work, "old"))
        os.rename(fresh, target)
    except OSError as exc:
        raise RepoError("cannot untar %s into %s: %s" % (name, destination, exc.strerror or exc))
    finally:
        _discard(work)


def _discard(path):
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path, ignore_errors=True)
    else:
        try:
            os.unlink(path)
        except OSError:
            pass
