"""Make the work tree importable as ``ansible_collections.helmless.core``.

Ansible resolves collection code through the ``ansible_collections`` namespace, so the
tests see the repository through a symlink at ``.build/collections/ansible_collections/helmless/core``.
"""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COLLECTIONS = os.path.join(ROOT, ".build", "collections")
_link = os.path.join(COLLECTIONS, "ansible_collections", "helmless", "core")
if not os.path.islink(_link):
    os.makedirs(os.path.dirname(_link), exist_ok=True)
    try:
        os.symlink(ROOT, _link)
    except FileExistsError:
        pass
if COLLECTIONS not in sys.path:
    sys.path.insert(0, COLLECTIONS)
os.environ.setdefault("ANSIBLE_COLLECTIONS_PATH", COLLECTIONS)


def _cache_mode():
    """The persistent caches (diskcache) the run uses, by ``HELMLESS_TEST_CACHE``:

    ``shared`` (default) ``.build/test-cache``, kept between runs (cold on the first, warm after);
    ``cold`` a new empty directory; ``off`` ``HELMLESS_CACHE=off``; ``unwritable`` a directory that
    cannot be created; ``corrupt`` a copy of the shared cache with every entry damaged. The variables are
    exported, so modules run through ansible-playbook use the same caches.
    """
    import tempfile
    mode = os.environ.get("HELMLESS_TEST_CACHE", "shared")
    shared = os.path.join(ROOT, ".build", "test-cache")
    if mode == "shared":
        os.environ.setdefault("HELMLESS_CACHE_DIR", shared)
    elif mode == "cold":
        os.environ["HELMLESS_CACHE_DIR"] = tempfile.mkdtemp(prefix="helmless-cold-cache-")
    elif mode == "off":
        os.environ["HELMLESS_CACHE"] = "off"
    elif mode == "unwritable":
        blocker = tempfile.mkstemp(prefix="helmless-not-a-dir-")[1]
        os.environ["HELMLESS_CACHE_DIR"] = os.path.join(blocker, "cache")
    elif mode == "corrupt":
        os.environ["HELMLESS_CACHE_DIR"] = corrupted_copy(shared, tempfile.mkdtemp(prefix="helmless-corrupt-cache-"))
    else:
        raise SystemExit("HELMLESS_TEST_CACHE must be shared, cold, off, unwritable or corrupt, not %r" % mode)


def corrupted_copy(source, dest):
    """Every entry of the caches under ``source`` copied to ``dest``, each damaged one of four ways:
    truncated, a payload byte flipped, another entry's content (foreign), or garbage under a valid
    header and checksum. Returns ``dest``."""
    import zlib
    from ansible_collections.helmless.core.plugins.module_utils import diskcache
    kinds = os.listdir(source) if os.path.isdir(source) else []
    for kind in (k for k in kinds if os.path.isdir(os.path.join(source, k))):  # not the <kind>.pruned stamps
        names = sorted(n for n in os.listdir(os.path.join(source, kind)) if not n.endswith(".tmp"))
        os.makedirs(os.path.join(dest, kind), exist_ok=True)
        for i, name in enumerate(names):
            with open(os.path.join(source, kind, name), "rb") as handle:
                data = handle.read()
            damage = i % 4
            if damage == 0:
                data = data[:len(data) // 2]
            elif damage == 1:
                data = data[:-1] + bytes([data[-1] ^ 0xFF])
            elif damage == 2:
                with open(os.path.join(source, kind, names[(i + 1) % len(names)]), "rb") as handle:
                    data = handle.read() if len(names) > 1 else b""
            else:
                garbage = b"\x00not a payload\xff" * 3
                data = diskcache._HEADER.pack(diskcache._MAGIC, diskcache.FORMAT, bytes.fromhex(name),
                                              zlib.crc32(garbage)) + garbage
            with open(os.path.join(dest, kind, name), "wb") as handle:
                handle.write(data)
    return dest


_cache_mode()

# tests/unit/helm_oracle.py (real Helm at the pinned version) is shared by every suite.
UNIT = os.path.join(ROOT, "tests", "unit")
if UNIT not in sys.path:
    sys.path.insert(0, UNIT)

# The conformance suites (expected output from real Helm at the pinned version, tests/unit/helm_oracle.py):
# path fragment of a test's file → suite. The run ends with one `N/N identical` line per suite.
CONFORMANCE = (("/unit/render/test_corpus_conformance.py", "corpus"),
               ("/unit/render/test_engine_cases.py", "engine cases"),
               ("/unit/render/test_template_module.py", "template module"),
               ("/unit/render/test_render_api.py", "render api"),
               ("/unit/gotemplate/", "gotemplate"), ("/unit/funcs/", "sprig"), ("/unit/goyaml/", "goyaml"),
               ("/unit/chart/", "chart"), ("/unit/postrender/", "postrender"))
_CONFORMANCE_RESULTS = {}


def _conformance_suite(nodeid):
    path = "/" + nodeid.split("::", 1)[0]
    return next((suite for fragment, suite in CONFORMANCE if fragment in path), None)


def pytest_runtest_logreport(report):
    suite = _conformance_suite(report.nodeid)
    if suite and (report.when == "call" or not report.passed):
        results = _CONFORMANCE_RESULTS.setdefault(suite, {})
        results[report.nodeid] = results.get(report.nodeid, True) and report.passed


def pytest_terminal_summary(terminalreporter):
    if not _CONFORMANCE_RESULTS:
        return
    sys.path.insert(0, os.path.join(ROOT, "scripts", "controlplane.d"))
    import cp_build
    version = cp_build.load_versions()["HELM4_VERSION"]
    terminalreporter.section("conformance against Helm %s (helm-oracle)" % version)
    for _fragment, suite in CONFORMANCE:
        results = _CONFORMANCE_RESULTS.get(suite)
        if results:
            terminalreporter.write_line("%-16s %d/%d identical" % (suite, sum(results.values()), len(results)))


def pytest_configure(config):
    # scripts/test runs these on every maintained ansible-core series, everything else on the newest only.
    config.addinivalue_line(
        "markers", "ansible_core: runs ansible-core itself (ansible-playbook, a module's AnsibleModule, a plugin, "
        "ansible-doc, ansible-galaxy, ansible-test): what can differ between ansible-core series")
