"""The pools helmless.core.releases runs its releases on: threads, or threads in forked processes."""
import contextvars
import os
import threading

import pytest

from ansible_collections.helmless.core.plugins.module_utils.ansible import workers

SEEN = contextvars.ContextVar("seen", default=None)
GATE = threading.Barrier(3, timeout=30)


def report(payload):
    """What a job saw: its own context (empty at start, whatever ran before on that thread), its process."""
    before = SEEN.get()
    SEEN.set(payload)
    return {"payload": payload, "before": before, "pid": os.getpid()}


def drain(pool, count):
    events = [pool.next_event() for _ in range(2 * count)]
    pool.close()
    return events


@pytest.mark.parametrize("processes", [1, 2])
def test_every_job_starts_then_ends_once_each_in_a_fresh_context(processes):
    pool = workers.pool(report, 3, processes)
    for key in range(12):
        pool.submit(key, "job-%d" % key)
    events = drain(pool, 12)
    starts = [e[1] for e in events if e[0] == "start"]
    done = {e[1]: e[2] for e in events if e[0] == "done"}
    assert sorted(starts) == sorted(done) == list(range(12))
    assert all(events.index(("start", key)) < [e[:2] for e in events].index(("done", key)) for key in done)
    assert {key: value["payload"] for key, value in done.items()} == {key: "job-%d" % key for key in range(12)}
    assert {value["before"] for value in done.values()} == {None}
    assert len({value["pid"] for value in done.values()}) == processes
    assert (os.getpid() in {value["pid"] for value in done.values()}) is (processes == 1)


def meet(payload):
    GATE.wait()
    return payload


def test_a_thread_pool_runs_as_many_jobs_at_once_as_its_size():
    pool = workers.pool(meet, 3)
    for key in range(3):  # each waits for the other two: they only end if all three run at once
        pool.submit(key, key)
    assert sorted(e[2] for e in drain(pool, 3) if e[0] == "done") == [0, 1, 2]


def die_on_two(payload):
    if payload == 2:
        os._exit(7)
    return payload


def test_the_jobs_of_a_worker_process_that_dies_are_reported_lost_and_the_others_still_end():
    pool = workers.pool(die_on_two, 2, 2)
    for key in range(4):
        pool.submit(key, key)
    done = {}
    while len(done) < 4:
        event = pool.next_event()
        if event[0] == "done":
            done[event[1]] = event[2]
    pool.close()
    lost = {key: value["lost"] for key, value in done.items() if isinstance(value, dict)}
    assert 2 in lost and "ended with exit code 7" in lost[2]
    assert {key: value for key, value in done.items() if key not in lost} == {
        key: key for key in range(4) if key not in lost}


def die_on_seven(payload):
    if payload == 7:
        os._exit(9)
    return payload


def test_a_worker_process_that_dies_while_the_others_report_never_stops_the_pool():
    """Each worker writes its events to a pipe of its own: a worker killed in the middle of writing one must not
    hold up the events of the others (a queue they shared stayed locked by the dead writer: the task hung)."""
    rounds = []

    def scenario():
        for _round in range(40):
            pool = workers.pool(die_on_seven, 8, 2)
            for key in range(24):
                pool.submit(key, key)
            done = {}
            while len(done) < 24:
                event = pool.next_event()
                if event[0] == "done":
                    done[event[1]] = event[2]
            pool.close()
            rounds.append(done)

    runner = threading.Thread(target=scenario, daemon=True)
    runner.start()
    runner.join(240)
    assert not runner.is_alive(), "the pool stopped reporting after a worker died (%d rounds ended)" % len(rounds)
    for done in rounds:
        assert "ended with exit code 9" in done[7]["lost"]
        assert all(done[key] == key for key in range(24) if not isinstance(done[key], dict))
