"""Operations × fault schedules through the fault proxy: the release invariants hold after the faulted run
and after one clean rerun (see reliability.py). The default suite runs a representative slice; the full
table (every operation, size, hooks and schedule) is ``python3 tests/integration/reliability_report.py``,
which writes docs/reliability.md.
"""
import copy
import itertools
import os
import time

import pytest

from faultproxy import FaultProxy
from pgfaultproxy import PgFaultProxy
from postgres_fixtures import postgres, sql_database  # noqa: F401  (fixtures)
from reliability import (OPERATIONS, SCHEDULES, SIZES, SQL_SCHEDULES, SQL_TIMEOUT_OPTION, invariants, names_failure,
                         record_row, run, setup, wait_for_lease_expiry)

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


SQL_REPRESENTATIVE = [
    ("upgrade", False, "db-restarted"),
    ("upgrade", True, "db-connection-dropped"),
    ("install", False, "db-connection-dropped"),
    ("rollback", False, "db-statement-timeout"),
    ("uninstall", False, "db-restarted"),
    ("test", False, "db-statement-timeout"),
]
SQL_CASES = (list(itertools.product(OPERATIONS, _HOOKS, SQL_SCHEDULES)) if os.environ.get("RELIABILITY_MATRIX") == "full"
             else SQL_REPRESENTATIVE)


@pytest.mark.parametrize("operation,hooks,schedule", SQL_CASES,
                         ids=["%s-%s-%s" % (o, "hooks" if h else "plain", f) for o, h, f in SQL_CASES])
def test_release_invariants_hold_on_sql_under_database_faults_and_after_a_clean_rerun(
        postgres, sql_database, kubeconfig, namespace, helm4, operation, hooks, schedule):
    storage = {"driver": "sql", "sql_connection": sql_database}
    helm = copy.copy(helm4)
    helm.env = dict(helm4.env, HELM_DRIVER="sql", HELM_DRIVER_SQL_CONNECTION_STRING=sql_database)
    setup(kubeconfig, namespace, operation, 50, hooks, storage)
    proxy = PgFaultProxy(postgres.port).start()
    try:
        SQL_SCHEDULES[schedule][1](proxy, postgres, sql_database)
        faulted = proxy.url(sql_database) + (SQL_TIMEOUT_OPTION if schedule == "db-statement-timeout" else "")
        started = time.monotonic()
        _client, error = run(kubeconfig, namespace, operation, 50, hooks,
                             storage={"driver": "sql", "sql_connection": faulted})
        seconds = time.monotonic() - started
    finally:
        proxy.stop()
    violations = ["faulted run: " + v for v in invariants(kubeconfig, namespace, operation, helm, storage=storage)]
    if error is not None and not names_failure(error):
        violations.append("failure names no object or request and no reason: %s" % error)
    wait_for_lease_expiry(kubeconfig, namespace)
    _client, rerun_error = run(kubeconfig, namespace, operation, 50, hooks, storage=storage)
    if rerun_error is not None:
        violations.append("clean rerun failed: %s" % rerun_error)
    violations += ["after rerun: " + v for v in invariants(kubeconfig, namespace, operation, helm, after_rerun=True,
                                                           storage=storage)]
    record_row({"sql_schedule": schedule, "operation": operation, "size": 50, "hooks": hooks, "seconds": seconds,
                "statements": len(proxy.log), "faults": len(proxy.faults()), "survived": error is None,
                "error": error, "violations": violations})
    assert not violations, "faults %s; run error: %s\n%s" % (proxy.faults(), error, "\n".join(violations))
    assert proxy.faults(), "schedule %s injected no fault in %d statements: %s" % (schedule, len(proxy.log), [t[:70] for t, _a in proxy.log])
