"""Quality gates: ansible-test sanity on the collection as it ships, ansible-lint on roles/ and playbooks/.

Sanity runs on the galaxy artifact installed at ``<tmp>/ansible_collections/helmless/core``: exactly the
files users get (galaxy.yml's build_ignore leaves out the development tests, scripts and benchmarks).

Sanity runs every test that works on this machine without docker or network at test time except what
the requirements install needs: ``--requirements`` installs each test's pinned tools into ansible-test's
venvs (cached under ~/.ansible/test). Not run: ``pslint`` (PowerShell, none here) and ``shellcheck`` when no
shellcheck binary exists (ansible-test itself skips them then).
"""
import os
import re
import shutil
import sys

import pytest

from collection_support import build_and_install, copy_collection, run, tool

SANITY_TESTS = ["action-plugin-docs", "ansible-doc", "changelog", "compile", "empty-init", "ignores", "import",
                "line-endings", "no-assert", "no-get-exception", "no-illegal-filenames", "no-smart-quotes", "pep8",
                "pylint", "replace-urlopen", "runtime-metadata", "shebang", "symlinks", "use-argspec-type-path",
                "use-compat-six", "validate-modules", "yamllint"]
if shutil.which("shellcheck"):
    SANITY_TESTS.append("shellcheck")


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


@pytest.mark.parametrize("name", SANITY_TESTS)
def test_ansible_test_sanity_passes(name, shipped):
    _offline_pip_bootstrap()
    copy = shipped
    proc = run([tool("ansible-test"), "sanity", "--test", name, "--python",
                "%d.%d" % sys.version_info[:2], "--requirements", "--color", "no"], cwd=copy)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output[-6000:]


def test_ansible_lint_passes_on_roles_and_playbooks(tmp_path):
    copy = copy_collection(tmp_path)
    home = tmp_path / "home"
    home.mkdir()
    env = dict(os.environ, HOME=str(home), ANSIBLE_COLLECTIONS_PATH=os.path.dirname(os.path.dirname(
        os.path.dirname(copy))), NO_COLOR="1")
    proc = run([tool("ansible-lint"), "--offline", "roles/", "playbooks/"], cwd=copy, env=env)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-6000:]
    assert "Passed" in proc.stdout + proc.stderr
