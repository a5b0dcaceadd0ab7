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

SHARED = os.environ.get("HELMLESS_SHARED", os.path.join(os.path.dirname(ROOT), "shared"))
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
