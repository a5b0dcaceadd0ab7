"""Operations × fault schedules through the fault proxy: the release invariants hold after the faulted run
and after one clean rerun (see reliability.py). The default suite runs a representative slice; the full
table (every operation, size, hooks and schedule) is ``python3 tests/integration/reliability_report.py``,
which writes docs/reliability.md.
"""
import itertools
import os
import time

import pytest

from faultproxy import FaultProxy
from reliability import (OPERATIONS, SCHEDULES, SIZES, invariants, names_failure, record_row, run, setup,
                         wait_for_lease_expiry)

REPRESENTATIVE = [
    ("install", 50, False, "lost-answer-every-7th-write"),
    ("upgrade", 300, False, "503-every-5th"),
    ("rollback", 50, True, "cut-body-every-13th"),
    ("uninstall", 50, True, "reset-every-9th"),
    ("test", 50, False, "lost-answer-every-7th-write"),
]
_SIZES = [int(n) for n in os.environ.get("RELIABILITY_SIZES", "").split(",") if n] or list(SIZES)
_HOOKS = {"yes": [True], "no": [False]}.get(os.environ.get("RELIABILITY_HOOKS"), [False, True])
FULL = list(itertools.product(OPERATIONS, _SIZES, _HOOKS, SCHEDULES))
CASES = FULL if os.environ.get("RELIABILITY_MATRIX") == "full" else REPRESENTATIVE


@pytest.mark.parametrize("operation,size,hooks,schedule", CASES,
                         ids=["%s-%d-%s-%s" % (o, s, "hooks" if h else "plain", f) for o, s, h, f in CASES])
def test_release_invariants_hold_under_faults_and_after_a_clean_rerun(controlplane, kubeconfig, namespace, helm4,
                                                                       tmp_path, operation, size, hooks, schedule):
    setup(kubeconfig, namespace, operation, size, hooks)
    proxy = FaultProxy(controlplane.dir, controlplane.server, str(tmp_path)).start()
    try:
        proxied = proxy.kubeconfig()
        SCHEDULES[schedule][1](proxy)
        started = time.monotonic()
        client, error = run(proxied, namespace, operation, size, hooks, timeout=8)
        seconds = time.monotonic() - started
    finally:
        proxy.stop()
    faults = proxy.faults()
    violations = ["faulted run: " + v for v in invariants(kubeconfig, namespace, operation, helm4)]
    if error is not None and not names_failure(error):
        violations.append("failure names no object or request and no reason: %s" % error)
    wait_for_lease_expiry(kubeconfig, namespace)
    _client, rerun_error = run(kubeconfig, namespace, operation, size, hooks)
    if rerun_error is not None:
        violations.append("clean rerun failed: %s" % rerun_error)
    violations += ["after rerun: " + v for v in invariants(kubeconfig, namespace, operation, helm4, after_rerun=True)]
    record_row({"operation": operation, "size": size, "hooks": hooks, "schedule": schedule, "seconds": seconds,
                "requests": len(proxy.entries()), "faults": len(faults), "resent": len(client.retried),
                "writes_resent": sum(1 for r in client.retried if r[0] != "GET"),
                "survived": error is None, "error": error, "violations": violations})
    assert not violations, "%d fault(s) injected; run error: %s\n%s" % (len(faults), error, "\n".join(violations))
    if schedule != "none" and not faults:
        pytest.fail("schedule %s injected no fault in %d requests" % (schedule, len(proxy.entries())))
