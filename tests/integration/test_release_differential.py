"""Random release operation sequences end the same with our modules as with the real helm v4 CLI, step by step.

differential.py runs each sequence twice on the local control plane (helm in one namespace, the modules
in another) and compares records, live objects, ``changed`` and printed output after every step. The
default suite runs a fixed set of seeds plus every saved case (a sequence that once differed); a long
campaign is ``python3 tests/integration/differential.py --sequences 500``.
"""
import pytest

import differential
import differential_gen

SEEDS = tuple(range(1, 9))
CASES = [case for case in differential.saved_cases() if case["seed"] not in SEEDS]


def _id(item):
    return "seed-%s" % item if isinstance(item, int) else "case-seed-%s" % item["seed"]


@pytest.mark.parametrize("item", list(SEEDS) + CASES, ids=_id)
def test_a_random_release_sequence_ends_identical_with_helm_at_every_step(item, kubeconfig, helm4):
    spec = differential_gen.sequence(item) if isinstance(item, int) else item
    differential.run_sequence(spec, kubeconfig, (helm4.path, helm4.env))
