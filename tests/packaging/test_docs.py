"""The documentation cannot drift from the code: every YAML example parses and each of its tasks is a valid
call of the module it names (docs_examples.py); what the docs say is not supported is checked against the
code."""
import os
import re

import pytest
import yaml

from docs_examples import (ROOT, group_modules, module_names, tasks_in, validation_errors, yaml_blocks)

BLOCKS = yaml_blocks()


@pytest.mark.parametrize("where,text", BLOCKS, ids=[where for where, _ in BLOCKS])
def test_every_yaml_example_parses_and_calls_our_modules_with_options_they_have(where, text):
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        pytest.fail("%s does not parse: %s" % (where, exc))
    problems = []
    for target, params in tasks_in(doc):
        if target.startswith("group/"):
            for member in group_modules()[target]:
                problems += ["module_defaults for %s: %s" % (member, e)
                             for e in validation_errors(member, params, partial=True)]
        else:
            problems += ["helmless.core.%s: %s" % (target, e) for e in validation_errors(target, params)]
    assert not problems, "%s:\n%s" % (where, "\n".join(problems))


def test_the_examples_call_every_module():
    called = {target for _, text in BLOCKS for target, _ in tasks_in(yaml.safe_load(text))}
    assert set(module_names()) <= called


def test_an_example_with_an_option_the_module_does_not_have_fails_validation():
    assert validation_errors("release", {"name": "web", "namespace": "web", "chart_ref": "./c"}) == []
    errors = validation_errors("release", {"name": "web", "namespace": "web", "chart_reference": "./c"})
    assert any(e.startswith("chart_reference. Supported parameters") for e in errors), errors
    doc = yaml.safe_load("- hosts: all\n  module_defaults:\n    group/helmless.core.helm: {kube_contxt: prod}\n")
    assert list(tasks_in(doc)) == [("group/helmless.core.helm", {"kube_contxt": "prod"})]
    assert validation_errors("release", {"context": "prod"}, partial=True) == []
    assert any("kube_contxt" in e for e in validation_errors("release", {"kube_contxt": "prod"}, partial=True))


def _docs_text():
    out = {}
    for name in sorted(os.listdir(os.path.join(ROOT, "docs"))):
        if name.endswith(".md"):
            with open(os.path.join(ROOT, "docs", name)) as fh:
                out[name] = fh.read()
    return out


# Every sentence of the docs that says something is not supported (or not implemented, not available), with
# the test that shows the code refuses or ignores it. A new one without a test here fails the suite.
NOT_SUPPORTED = {}
_NOT_SUPPORTED = re.compile(r"not supported|unsupported|(?:does|do) not support|not implemented|not available", re.I)


def test_each_statement_that_a_feature_is_not_supported_names_the_test_that_shows_it():
    found = [(name, line.strip()) for name, text in _docs_text().items() for line in text.splitlines()
             if _NOT_SUPPORTED.search(line)]
    unchecked = [(name, line) for name, line in found if not any(phrase in line for phrase in NOT_SUPPORTED)]
    assert not unchecked, "state it with the test that shows it in NOT_SUPPORTED, or remove it: %s" % unchecked
    for test_id in NOT_SUPPORTED.values():
        path, name = test_id.split("::")
        with open(os.path.join(ROOT, path)) as fh:
            assert "def %s(" % name in fh.read(), test_id
