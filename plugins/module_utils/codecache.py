"""Compiled module_utils code kept across tasks, for modules run from Ansible's AnsiballZ zip.

Ansible ships a module's module_utils to the target in a zip on every task, and Python imports from a
zip without writing ``.pyc`` files; worse, Python's ``zipimporter`` compiles each module twice (once
just to name its file while finding it, once to load it). Importing this module (each of our modules
does so first) puts a finder in front of ``sys.meta_path`` that finds the zip's sources for
``ansible_collections.helmless.*`` and ``ansible.module_utils.*`` itself and loads them with a loader
keeping their marshalled code objects in the ``code`` disk cache, keyed by a hash of the source and the
interpreter's bytecode magic: each version of a file compiles once per controller (per Python), not
twice per task. With the cache off, each file still compiles only once. Run from files (tests, a
collection on disk), nothing is installed; Python's own ``.pyc`` handling applies.
"""
import importlib.machinery
import importlib.util
import marshal
import operator
import os
import sys
import types
import zipimport

from .diskcache import Store, digest, enabled

_PREFIXES = ("ansible_collections.helmless.", "ansible.module_utils.")
MAX_BYTES = 64 * 1024 * 1024
# Source hashes of modules loaded through the cache, so callers can key caches on code versions.
SOURCE_DIGESTS = {}
# ``path: (mtime_ns, size)`` of each source file the last source_stats walk found (see _file_version).
_WALKED = {}

try:
    from _imp import _fix_co_filename
except ImportError:  # not CPython: co_filename keeps the path the code was compiled at
    def _fix_co_filename(code, path):
        return None


def source_digest(modules):
    """Hash of the source of ``modules`` (full names): the version key of a cache of what their code computes.

    Modules loaded through the code cache have their hash already; a source file on disk is known by its
    path, size and modification time, as Python's own ``.pyc`` check knows it (reading and hashing every
    file was a tenth of a small chart's cached render), taken from the last tree walk that listed it
    (source_stats) when there was one; others are read from their loader."""
    parts = []
    for name in modules:
        known = SOURCE_DIGESTS.get(name)
        if not known:
            module = sys.modules.get(name)
            if module is None:
                __import__(name)
                module = sys.modules[name]
            known = _file_version(module) or digest(module.__loader__.get_data(module.__file__))
        parts.append(known)
    return digest(*parts)


def tree_digest(package, skip=()):
    """Hash of every source file under ``package`` (a package module), importing none of them: on disk by
    path, size and modification time, in the task's zip by name, size and CRC-32 (the zip's directory
    holds them); None when it cannot tell, or lists no source (a key every such tree shared would let one
    version's cached results stand for another's). A cache of what code anywhere in a tree computes is keyed by it.
    ``skip``: names of the package's sub-packages left out (code that cannot take part in what is cached)."""
    root = package.__path__[0]
    archive, sep, inner = root.partition(".zip" + os.sep)
    importer = _zip_importer(archive + ".zip") if sep else None
    if importer is None:
        parts = source_stats(root, skip)
    else:
        files = _zip_listing(importer)
        if files is None:
            return None
        prefix = inner + os.sep
        skipped = tuple(prefix + name + os.sep for name in skip)
        try:
            parts = ["%s %d %d" % (name, files[name][3], files[name][7])  # zipimport's entry tuple: size, CRC-32
                     for name in sorted(n for n in files if n.startswith(prefix) and n.endswith(".py")
                                        and not n.startswith(skipped))]
        except (IndexError, TypeError):  # another Python's zipimport: the tree's version is unknown
            return None
    return digest(*parts) if parts else None


def source_stats(root, skip=()):
    """``path size mtime_ns`` of every ``.py`` file under ``root`` on disk, in a stable order (a folder's
    files, then its sub-folders), but those in ``root``'s folders named in ``skip``. Walked with ``os.scandir``,
    whose entries carry their paths and types: a third cheaper than ``os.walk`` with a stat per joined path,
    and this runs on every render's key."""
    lines = []
    folders = [root]
    while folders:
        folder = folders.pop()
        try:
            with os.scandir(folder) as listing:
                entries = sorted(listing, key=operator.attrgetter("name"))
        except OSError:
            continue
        below = []
        for entry in entries:
            name = entry.name
            if entry.is_dir():  # as os.walk: a link to a folder is one, not followed
                if name != "__pycache__" and not entry.is_symlink() and not (folder == root and name in skip):
                    below.append(entry.path)
            elif name.endswith(".py"):
                try:
                    stat = entry.stat()
                except OSError:
                    continue
                path = entry.path
                _WALKED[path] = (stat.st_mtime_ns, stat.st_size)
                lines.append("%s %d %d" % (path, stat.st_size, stat.st_mtime_ns))
        folders += reversed(below)
    return lines


def _file_version(module):
    """A source file's version: its stat from the walk of its tree (a render walks module_utils for the output
    cache's key before the parse cache asks for the template engine's modules: a second stat of each was a
    fortieth of a small chart's cold render), else a stat of its own."""
    if not isinstance(module.__loader__, importlib.machinery.SourceFileLoader):
        return None
    path = module.__file__
    walked = _WALKED.get(path)
    if walked is None:
        try:
            stat = os.stat(path)
        except OSError:
            return None
        walked = (stat.st_mtime_ns, stat.st_size)
    return digest(path, str(walked[0]), str(walked[1]))


class CachedZipLoader:
    """Loads one module's source from the zip, through the code cache when there is one."""

    def __init__(self, importer, origin, is_package, store):
        self._importer = importer
        self._origin = origin
        self._is_package = is_package
        self._store = store

    def __getattr__(self, name):  # get_data, get_resource_reader...: the zipimporter's
        return getattr(self._importer, name)

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        exec(self.get_code(module.__spec__.name), module.__dict__)  # noqa: S102 - the module's own code

    def is_package(self, fullname):
        return self._is_package

    def get_filename(self, fullname):
        return self._origin

    def get_source(self, fullname):
        return importlib.util.decode_source(self._importer.get_data(self._origin))

    def get_code(self, fullname):
        source = self._importer.get_data(self._origin)
        if self._store is None:
            return compile(source, self._origin, "exec", dont_inherit=True)
        key = digest("code", importlib.util.MAGIC_NUMBER, source)
        SOURCE_DIGESTS[fullname] = key
        payload = self._store.get(key)
        if payload is not None:
            try:
                code = marshal.loads(payload)
            except (EOFError, ValueError, TypeError):
                code = None
            if isinstance(code, types.CodeType):
                _fix_co_filename(code, self._origin)
                return code
        code = compile(source, self._origin, "exec", dont_inherit=True)
        self._store.put(key, marshal.dumps(code))
        return code


class CachedZipFinder:
    """Finds our and Ansible's module_utils in the task's zip (without compiling them, unlike zipimporter)."""

    def __init__(self, store):
        self.store = store

    def find_spec(self, fullname, path=None, target=None):
        if not fullname.startswith(_PREFIXES):
            return None
        tail = fullname.rpartition(".")[2]
        for entry in sys.path if path is None else path:
            importer = _zip_importer(entry)
            files = _zip_listing(importer)
            if files is None:
                continue
            base = importer.prefix + tail
            for relative, package in ((base + os.sep + "__init__.py", True), (base + ".py", False)):
                if relative in files:
                    origin = os.path.join(importer.archive, relative)
                    loader = CachedZipLoader(importer, origin, package, self.store)
                    return importlib.util.spec_from_file_location(
                        fullname, origin, loader=loader,
                        submodule_search_locations=[os.path.join(importer.archive, base)] if package else None)
            if (base + os.sep) in files:
                return None  # a namespace package portion: left to the usual finders
        return None

    def invalidate_caches(self):
        return None


def _zip_importer(entry):
    importer = sys.path_importer_cache.get(entry)
    if isinstance(importer, zipimport.zipimporter):
        return importer
    if importer is not None or not isinstance(entry, str) or ".zip" not in entry:
        return None
    try:
        importer = zipimport.zipimporter(entry)
    except (zipimport.ZipImportError, OSError):
        return None
    sys.path_importer_cache[entry] = importer
    return importer


def _zip_listing(importer):
    """The zip's entries as ``importer`` read them (name: zipimport's entry tuple), or None on a Python whose
    zipimport keeps them elsewhere. Python 3.13 replaced the ``_files`` attribute with ``_get_files()``; reading
    only the attribute there found nothing, so no module loaded through the cache and every zip tree hashed alike."""
    get_files = getattr(importer, "_get_files", None)
    files = get_files() if callable(get_files) else getattr(importer, "_files", None)
    return files if isinstance(files, dict) else None


def install(store=None):
    """Put the finder first on ``sys.meta_path`` (once); returns it, or None when not run from a zip."""
    for finder in sys.meta_path:
        if isinstance(finder, CachedZipFinder):
            return finder
    loader = getattr(globals().get("__spec__"), "loader", None)
    if store is None and not isinstance(loader, (zipimport.zipimporter, CachedZipLoader)):
        return None
    finder = CachedZipFinder(store or (Store("code", MAX_BYTES) if enabled() else None))
    sys.meta_path.insert(0, finder)
    return finder


install()
