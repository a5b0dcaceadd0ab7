"""The older ansible-core series run every test that runs ansible-core, and only those.

scripts/test runs the whole suite on the newest series and ``-m ansible_core`` on the older ones: the engine
never imports Ansible, so its thousands of tests cannot differ between series, while a test that runs
ansible-playbook, a module's AnsibleModule, a plugin or an Ansible CLI can. A test of that kind left unmarked
would silently stop running on the older series; this finds it from the test sources.
"""
import ast
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# What runs ansible-core: its CLIs (also through a helper that names them), a module run the way Ansible runs it,
# a playbook helper, ansible-runner, or an import of ansible itself.
RUNS_ANSIBLE = re.compile(r"ansible-(playbook|doc|galaxy|test|runner|builder)\b|ANSIBLE_MODULE_ARGS|\brun_playbook\(|"
                          r"\[\s*[\"']ansible[\"']\s*,|\bansible_runner\b|^\s*(from|import) ansible\b", re.M)
# Tests that run ansible-core on the newest series only, and why.
NEWEST_ONLY = {
    "tests/integration/test_compat_kubernetes_core.py": "kubernetes.core's own task files: its peer runs on one series",
    "tests/integration/test_corpus_releases.py": "the chart matrix checks the engine; one chart goes through a playbook",
    "tests/packaging/test_packaging_quality.py::test_ansible_lint_passes_on_the_collection_its_roles_and_playbooks_"
    "with_the_production_profile": "only the newest series' venv installs ansible-lint",
    "tests/unit/test_architecture.py": "reads import statements (its fixtures name ansible), runs nothing",
    "tests/packaging/test_suite_legs.py": "reads test sources, runs nothing",
    "tests/integration/test_quickstart.py": "the user guide's playbooks; the modules and role they run are marked in "
    "test_release_module.py and test_role_releases.py",
}


def _marked(node):
    return any("ansible_core" in ast.unparse(d) for d in getattr(node, "decorator_list", ()))


def _tests_that_run_ansible(path):
    """``(test name, marked)`` of each test function of ``path`` that runs ansible-core, directly, through a
    function of the same file, or through a name the file imports from ansible."""
    with open(path) as handle:
        source = handle.read()
    tree = ast.parse(source)
    lines = source.splitlines()

    def text_of(node):  # ast.get_source_segment scans the whole file again for each node
        return "\n".join(lines[node.lineno - 1:node.end_lineno])
    module_marked = any(isinstance(n, ast.Assign) and any(getattr(t, "id", "") == "pytestmark" for t in n.targets)
                        and "ansible_core" in ast.unparse(n.value) for n in tree.body)
    functions = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    helpers = {n.name for n in functions if RUNS_ANSIBLE.search(text_of(n))}
    helpers.update(alias.asname or alias.name.split(".")[0] for n in tree.body
                   if isinstance(n, (ast.Import, ast.ImportFrom)) and RUNS_ANSIBLE.search(ast.unparse(n))
                   for alias in n.names)  # what an import of ansible binds counts as running it
    calls = re.compile(r"\b(%s)\b" % "|".join(map(re.escape, sorted(helpers)))) if helpers else None
    for node in functions:
        if not node.name.startswith("test"):
            continue
        text = text_of(node)
        if RUNS_ANSIBLE.search(text) or (calls and calls.search(text)):
            yield node.name, module_marked or _marked(node)


def _test_files():
    for folder, _dirs, files in os.walk(os.path.join(ROOT, "tests")):
        for name in sorted(files):
            if name.startswith("test_") and name.endswith(".py"):
                yield os.path.relpath(os.path.join(folder, name), ROOT)


def test_every_test_that_runs_ansible_core_is_marked_for_every_series_or_listed_with_the_reason():
    unmarked = []
    for path in _test_files():
        if path in NEWEST_ONLY:
            continue
        for name, marked in _tests_that_run_ansible(os.path.join(ROOT, path)):
            if not marked and "%s::%s" % (path, name) not in NEWEST_ONLY:
                unmarked.append("%s::%s" % (path, name))
    assert unmarked == [], "mark these @pytest.mark.ansible_core (or list them in NEWEST_ONLY with the reason)"


def test_the_finder_sees_a_playbook_run_through_a_helper_and_a_mark_on_the_test_or_the_file(tmp_path):
    sample = tmp_path / "test_sample.py"
    sample.write_text("import pytest\n\n\ndef _play():\n    run(['ansible-playbook', 'x.yml'])\n\n\n"
                      "def test_plain():\n    assert 1\n\n\ndef test_through_helper():\n    _play()\n\n\n"
                      "@pytest.mark.ansible_core\ndef test_marked():\n    _play()\n")
    assert list(_tests_that_run_ansible(str(sample))) == [("test_through_helper", False), ("test_marked", True)]
    sample.write_text(sample.read_text() + "\npytestmark = pytest.mark.ansible_core\n")
    assert list(_tests_that_run_ansible(str(sample))) == [("test_through_helper", True), ("test_marked", True)]
