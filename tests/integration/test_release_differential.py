"""Random release operation sequences end the same with our modules as with the real helm v4 CLI, step by step.

differential.py runs each sequence twice on the local control plane (helm in one namespace, the modules
in another) and compares records, live objects, ``changed`` and printed output after every step. The
default suite runs a fixed set of seeds (four at a time, in threads; the seeds are in the test id) plus every
saved case (a sequence that once differed); a long campaign is
``python3 tests/integration/differential.py --sequences 500``.
"""
import pytest

import differential
import differential_gen

SEEDS = ((1, 2, 3, 4), (5, 6, 7, 8))
CASES = differential.saved_cases()


@pytest.mark.parametrize("seeds", SEEDS, ids=lambda seeds: "seeds-" + "-".join(map(str, seeds)))
def test_random_release_sequences_end_identical_with_helm_at_every_step(seeds, kubeconfig, helm4):
    differential.run_together([differential_gen.sequence(seed) for seed in seeds], kubeconfig,
                              (helm4.path, helm4.env))


@pytest.mark.parametrize("case", CASES, ids=lambda case: "case-%sseed-%s" % (
    "helm3-" if case.get("helm") == 3 else "", case["seed"]))
def test_a_saved_sequence_that_once_differed_ends_identical_with_helm(case, kubeconfig, helm4, helm3):
    helm = helm3 if case.get("helm") == 3 else helm4
    differential.run_sequence(case, kubeconfig, (helm.path, helm.env))
