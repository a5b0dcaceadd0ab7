"""Random release operation sequences end the same with our modules as with the real helm v4 CLI, step by step.

differential.py runs each sequence twice on the local control plane (helm in one namespace, the modules
in another) and compares records, live objects, ``changed`` and printed output after every step. The
default suite runs a fixed set of seeds and every saved case (a sequence that once differed), four at a time in
threads, the seeds in the test id (``differential.py --first-seed N --sequences 1`` replays one); a long campaign is
``python3 tests/integration/differential.py --sequences 500``.
"""
import pytest

import differential
import differential_gen

SEEDS = ((1, 2, 3, 4), (5, 6, 7, 8))


def _groups(cases, size=4):
    """Saved cases four at a time (like the seeds), each group against one helm major version."""
    out = []
    for major in (4, 3):
        same = [case for case in cases if case.get("helm", 4) == major]
        out += [same[i:i + size] for i in range(0, len(same), size)]
    return out


CASES = _groups(differential.saved_cases())


@pytest.mark.parametrize("seeds", SEEDS, ids=lambda seeds: "seeds-" + "-".join(map(str, seeds)))
def test_random_release_sequences_end_identical_with_helm_at_every_step(seeds, kubeconfig, helm4):
    differential.run_together([differential_gen.sequence(seed) for seed in seeds], kubeconfig,
                              (helm4.path, helm4.env))


@pytest.mark.parametrize("cases", CASES, ids=lambda cases: "cases-" + "-".join(
    "%sseed-%s" % ("helm3-" if case.get("helm") == 3 else "", case["seed"]) for case in cases))
def test_saved_sequences_that_once_differed_end_identical_with_helm(cases, kubeconfig, helm4, helm3):
    helm = helm3 if cases[0].get("helm") == 3 else helm4
    differential.run_together(cases, kubeconfig, (helm.path, helm.env))
