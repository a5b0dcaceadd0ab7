"""Where the releases of a ``releases`` task run: threads, or threads in forked worker processes.

A release mostly waits (for the API server, for workloads to become ready, for hooks): threads overlap
those waits at no CPU cost. Rendering and planning are CPU work that one process runs on one core at a
time (the GIL): where one process's core is not enough, worker processes forked from the module process
(its imports and caches already loaded) each run a share of the threads. Every job runs in a fresh
``contextvars`` context, so the per-task state a runner keeps there (ansible/secrets.py's redaction) is its
own whatever thread runs it.

A pool takes jobs with ``submit(key, payload)`` and reports with ``next_event()``: ``("start", key)`` when
a worker takes a job, ``("done", key, value)`` with what ``run(payload)`` returned (``run`` never raises),
or ``("done", key, {"lost": why})`` for a job whose worker process died.
"""
import contextvars
import os
import queue
import threading


def fork_available():
    """Whether worker processes can be forked here (Linux; macOS forks unsafely once threads ran)."""
    import sys
    return sys.platform.startswith("linux") and hasattr(os, "fork")


def pool(run, concurrency, processes=1):
    """A pool running ``concurrency`` jobs at once, in ``processes`` processes (1: threads of this one)."""
    processes = min(processes, concurrency)  # each process runs one thread at least
    if processes > 1 and fork_available():
        return _Processes(run, concurrency, processes)
    return _Threads(run, concurrency)


def _isolated(run, payload):
    return contextvars.Context().run(run, payload)


class _Threads:
    """``size`` threads of this process."""
    processes = 1

    def __init__(self, run, size):
        self._run = run
        self._jobs = queue.SimpleQueue()
        self._events = queue.SimpleQueue()
        self._threads = [threading.Thread(target=self._serve, daemon=True, name="helmless-release-%d" % i)
                         for i in range(size)]
        for thread in self._threads:
            thread.start()

    def _serve(self):
        while True:
            job = self._jobs.get()
            if job is None:
                return
            key, payload = job
            self._events.put(("start", key))
            self._events.put(("done", key, _isolated(self._run, payload)))

    def submit(self, key, payload):
        self._jobs.put((key, payload))

    def next_event(self):
        return self._events.get()

    def close(self):
        for _thread in self._threads:
            self._jobs.put(None)
        for thread in self._threads:
            thread.join()


class _Processes:
    """``processes`` forked workers with their share of ``size`` threads each. Each worker has its own job
    queue, so the jobs of a worker that dies are known and reported failed instead of waited for, and its own
    pipe for events: a worker killed while it writes one breaks only its own pipe (a queue shared by all of
    them kept its write lock held by the dead writer, and every other worker's events stuck behind it)."""

    def __init__(self, run, size, processes):
        import multiprocessing

        context = multiprocessing.get_context("fork")
        self._workers = []
        for index in range(processes):
            threads = size // processes + (1 if index < size % processes else 0)
            jobs = context.Queue()
            events, sender = context.Pipe(duplex=False)
            process = context.Process(target=_worker, args=(run, jobs, sender, threads), daemon=True,
                                      name="helmless-releases-%d" % index)
            process.start()
            sender.close()  # the worker's end only: the pipe reads as ended once that worker has gone
            self._workers.append({"process": process, "jobs": jobs, "events": events, "threads": threads,
                                  "keys": set()})
        self.processes = processes
        self._ready = []

    def submit(self, key, payload):
        live = [w for w in self._workers if w["process"].is_alive()] or self._workers
        worker = min(live, key=lambda w: len(w["keys"]) / float(w["threads"]))
        worker["keys"].add(key)
        worker["jobs"].put((key, payload))

    def next_event(self):
        from multiprocessing.connection import wait

        while not self._ready:
            open_pipes = {w["events"]: w for w in self._workers if w["events"] is not None}
            for pipe in wait(list(open_pipes), timeout=1.0):
                worker = open_pipes[pipe]
                try:
                    event = pipe.recv()
                except (EOFError, OSError):  # ended, or cut off in the middle of an event
                    pipe.close()
                    worker["events"] = None
                    self._collect_dead()
                    continue
                if event[0] == "done":
                    worker["keys"].discard(event[1])
                self._ready.append(event)
            if not self._ready:
                self._collect_dead()
        return self._ready.pop(0)

    def _collect_dead(self):
        for worker in self._workers:
            process = worker["process"]
            if worker["keys"] and worker["events"] is None:
                process.join(5)  # its pipe ended: it has exited, or is about to
            if worker["keys"] and not process.is_alive():
                message = "the worker process running it (pid %d) ended with exit code %s" % (
                    process.pid, process.exitcode)
                self._ready.extend(("done", key, {"lost": message}) for key in sorted(worker["keys"]))
                worker["keys"].clear()

    def close(self):
        for worker in self._workers:
            for _thread in range(worker["threads"]):
                worker["jobs"].put(None)
            worker["jobs"].close()  # its feeder thread ends once the Nones are written
        for worker in self._workers:
            worker["jobs"].join_thread()
            worker["process"].join(30)
            if worker["process"].is_alive():
                worker["process"].kill()
                worker["process"].join()
            if worker["events"] is not None:
                worker["events"].close()


def _worker(run, jobs, events, threads):
    """A worker process: ``threads`` threads taking this worker's jobs, writing its events one at a time."""
    writing = threading.Lock()

    def emit(event):
        with writing:
            events.send(event)

    def serve():
        while True:
            job = jobs.get()
            if job is None:
                return
            key, payload = job
            emit(("start", key))
            emit(("done", key, _isolated(run, payload)))

    serving = [threading.Thread(target=serve, daemon=True) for _index in range(threads)]
    for thread in serving:
        thread.start()
    for thread in serving:
        thread.join()
    events.close()
