"""``apply_strategy: helm3`` ends the same as the real helm v3 CLI, step by step, on random release sequences.

The sequences of differential.py with ``--helm 3``: our modules with ``apply_strategy: helm3`` against helm
v3.21.4, compared on the live objects (field managers included) and on what the release records hold;
docs/helm-differences.md says what stays Helm 4's on purpose. A long campaign is
``python3 tests/integration/differential.py --helm 3 --sequences 500``.
"""
import differential
import differential_gen


def test_random_helm3_strategy_sequences_seeds_1_2_3_6_end_identical_with_helm_v3_at_every_step(kubeconfig, helm3):
    differential.run_together([differential_gen.sequence(seed, helm=3) for seed in (1, 2, 3, 6)], kubeconfig,
                              (helm3.path, helm3.env))
