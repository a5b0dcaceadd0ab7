"""The chart corpus inside the repository (``tests/corpus``), so a fresh clone runs every suite.

Real public charts with their subcharts vendored, each as ``<corpus name>.tgz`` written by ``helm package``
at the pinned Helm 4 (``scripts/corpus-pack``), the values files written for them (``values/``, and
``values/expected-errors/`` for values Helm refuses) and ``SOURCES.md`` (sources, licences, how each chart
was taken). Tests hand the archives to Helm and to us as they are (both archive loaders), or unpack one
into a temporary directory when they need a chart directory. A missing or empty corpus raises: a suite
built on it fails instead of collecting nothing.
"""
import fnmatch
import glob
import os
import tarfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPUS = os.path.join(ROOT, "tests", "corpus")
VALUES = os.path.join(CORPUS, "values")
ERRORS = os.path.join(VALUES, "expected-errors")


def names():
    """The corpus charts (archive names without ``.tgz``), sorted."""
    found = sorted(n[:-4] for n in os.listdir(CORPUS) if n.endswith(".tgz")) if os.path.isdir(CORPUS) else []
    if not found:
        raise RuntimeError("the chart corpus is missing or empty: no charts in %s" % CORPUS)
    return found


def archive(name):
    """The path of chart ``name``'s archive."""
    path = os.path.join(CORPUS, name + ".tgz")
    if not os.path.isfile(path):
        raise RuntimeError("no chart %r in the corpus %s" % (name, CORPUS))
    return path


def unpack(name, dest):
    """Unpack chart ``name`` into ``dest/<name>/`` and return its chart directory (the archive's top folder,
    named after the chart as Helm names it)."""
    target = os.path.join(str(dest), name)
    with tarfile.open(archive(name)) as tar:
        top = tar.getmembers()[0].name.split("/")[0]
        tar.extractall(target, filter="data")
    return os.path.join(target, top)


def files(name):
    """``{path inside the chart: bytes}`` of every file of chart ``name`` (subcharts under ``charts/``)."""
    out = {}
    with tarfile.open(archive(name)) as tar:
        for member in tar.getmembers():
            if member.isfile():
                out[member.name.split("/", 1)[1]] = tar.extractfile(member).read()
    return out


def read(name, path):
    """The bytes of ``path`` (relative to the chart's root) in chart ``name``, or None."""
    return files(name).get(path)


def values_texts():
    """``{id: text}`` of every values file: each chart's and subchart's ``values*.yaml`` (id
    ``<chart>/<path in the chart>``) and those under ``values/`` (id ``values/<path>``)."""
    out = {}
    for name in names():
        for path, data in files(name).items():
            if fnmatch.fnmatch(os.path.basename(path), "values*.yaml"):
                out["%s/%s" % (name, path)] = data.decode("utf-8")
    for path in glob.glob(os.path.join(VALUES, "**", "*.yaml"), recursive=True):
        with open(path, encoding="utf-8") as handle:
            out[os.path.relpath(path, CORPUS)] = handle.read()
    return out
