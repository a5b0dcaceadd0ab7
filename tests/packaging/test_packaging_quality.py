"""Quality gates: ansible-test sanity on the collection as it ships, ansible-lint (production profile) on the collection.

Sanity runs on the galaxy artifact installed at ``<tmp>/ansible_collections/helmless/core``: exactly the
files users get (galaxy.yml's build_ignore leaves out the development tests, scripts and benchmarks).

Sanity runs every test that works on this machine without docker or network at test time except what
the requirements install needs: ``--requirements`` installs each test's pinned tools into ansible-test's
venvs (cached under ~/.ansible/test). Not run: ``pslint`` (PowerShell, none here) and ``shellcheck`` when no
shellcheck binary exists (ansible-test itself skips them then). Each ansible-core series reads its own
tests/sanity/ignore-X.Y.txt; scripts/test runs this file under every maintained series.
"""
import os
import re
import shutil
import sys

import pytest

from collection_support import build_and_install, copy_collection, run, tool

NOT_RUN = {"pslint": "PowerShell: the collection has none, and no pwsh here"}
SANITY_TESTS = ["action-plugin-docs", "ansible-doc", "changelog", "compile", "empty-init", "ignores", "import",
                "line-endings", "no-assert", "no-get-exception", "no-illegal-filenames", "no-smart-quotes", "pep8",
                "pylint", "replace-urlopen", "runtime-metadata", "shebang", "symlinks", "use-argspec-type-path",
                "use-compat-six", "validate-modules", "yamllint"]
if shutil.which("shellcheck"):
    SANITY_TESTS.append("shellcheck")
else:
    NOT_RUN["shellcheck"] = "no shellcheck binary on this machine"


def _offline_pip_bootstrap():
    """ansible-test downloads get-pip.py from a host that is not reachable here; give it our stand-in."""
    import ansible_test

    source = os.path.join(os.path.dirname(ansible_test.__file__), "_internal", "python_requirements.py")
    with open(source) as fh:
        versions = set(re.findall(r"pip='([0-9.]+)'", fh.read()))
    cache = os.path.expanduser("~/.ansible/test/cache")
    os.makedirs(cache, exist_ok=True)
    for version in versions:
        target = os.path.join(cache, "get_pip_%s.py" % version.replace(".", "_"))
        shutil.copyfile(os.path.join(os.path.dirname(__file__), "get_pip_offline.py"), target + ".tmp")
        os.replace(target + ".tmp", target)


@pytest.fixture(scope="module")
def shipped(tmp_path_factory):
    _, collections = build_and_install(tmp_path_factory.mktemp("sanity"))
    return os.path.join(collections, "ansible_collections", "helmless", "core")


@pytest.mark.ansible_core
def test_every_sanity_test_of_this_ansible_test_runs_or_is_listed_with_the_reason(shipped):
    proc = run([tool("ansible-test"), "sanity", "--list-tests", "--color", "no"], cwd=shipped)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert sorted(proc.stdout.split()) == sorted(SANITY_TESTS + list(NOT_RUN))


@pytest.mark.ansible_core
def test_the_ignore_file_of_this_ansible_core_series_exists():
    from ansible.release import __version__

    series = ".".join(__version__.split(".")[:2])
    assert os.path.exists(os.path.join(os.path.dirname(os.path.dirname(__file__)), "sanity", "ignore-%s.txt" % series))


@pytest.mark.ansible_core
@pytest.mark.parametrize("name", SANITY_TESTS)
def test_ansible_test_sanity_passes(name, shipped):
    _offline_pip_bootstrap()
    copy = shipped
    proc = run([tool("ansible-test"), "sanity", "--test", name, "--python",
                "%d.%d" % sys.version_info[:2], "--requirements", "--color", "no"], cwd=copy)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output[-6000:]


def test_ansible_lint_passes_on_the_collection_its_roles_and_playbooks_with_the_production_profile(tmp_path):
    """The whole collection (galaxy.yml, meta/, roles/, playbooks/, changelogs/, the EE files), as .ansible-lint
    scopes it: the development material (tests/, scripts/, benchmarks/), the demo chart's Go templates and the
    changelog fragments (prose that antsibull-changelog merges; ansible-test's changelog test checks them) are
    left out."""
    copy = copy_collection(tmp_path)
    home = tmp_path / "home"
    home.mkdir()
    env = dict(os.environ, HOME=str(home), ANSIBLE_COLLECTIONS_PATH=os.path.dirname(os.path.dirname(
        os.path.dirname(copy))), NO_COLOR="1")
    proc = run([tool("ansible-lint"), "--offline", "--profile", "production"], cwd=copy, env=env)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output[-6000:]
    assert re.search(r"Passed: 0 failure\(s\), 0 warning\(s\) (on|in) \d+ files", output), output[-3000:]
    assert "Profile 'production'" in output or "production profile" in output, output[-3000:]

