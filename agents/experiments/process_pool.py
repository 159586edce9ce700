"""Worker processes that each run several calls at once on threads: the ``process`` backend.

``ThreadedProcessPool(workers, per_worker, initializer=None, initargs=())``
starts ``workers`` spawned processes. ``submit(fn, args, kwargs)`` returns a
``concurrent.futures.Future`` and sends the call to the least busy live
worker, which runs up to ``per_worker`` calls at once on its own threads. So
the episodes in flight are not capped by the process count: LLM-bound
episodes wait on the network together, and the CPU they do spend (the
``openai`` client, the env) is spread over the processes. ``concurrent.futures``'
``ProcessPoolExecutor`` runs one call per process at a time, which is why
this exists.

Contract:

* ``fn`` must be picklable by reference (a module-level function), like any
  process pool. The call is pickled in the caller, at ``submit``: an
  unpicklable argument raises there.
* A result or exception comes back pickled; one that cannot be pickled fails
  the future with a ``RuntimeError`` naming it.
* A worker that dies (killed, crashed) fails every call it was running with
  ``BrokenProcessPool`` naming its pid and exit code (an infrastructure error:
  ``treegym run`` reruns such episodes); later calls go to the live workers,
  and when none is left ``submit`` raises ``BrokenProcessPool``.
* A worker exits as soon as its parent process is gone (also after a kill -9
  of the parent), abandoning the calls it was running.
* ``initializer(*initargs)`` runs once in each worker before it takes calls.
  Workers ignore SIGINT: Ctrl-C is the parent's to handle (it stops queueing
  and waits for the calls in flight).
* ``shutdown(wait=True)``: workers finish the calls they hold, then exit;
  ``wait=False`` returns at once and they still finish them.
"""
from __future__ import annotations

import itertools
import multiprocessing as mp
import multiprocessing.connection as mp_connection
import os
import pickle
import queue
import signal
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Callable

_POLL_SECONDS = 0.2  # how often the collector looks for dead workers while no result arrives


def _send(outbox: Any, job: int, ok: bool, value: Any) -> None:
    """Put ``(job, pickled (ok, value))`` on ``outbox``: the job id travels apart, so an answer the
    parent cannot unpickle still fails the right future."""
    try:
        data = pickle.dumps((ok, value))
    except Exception as exc:  # noqa: BLE001 - an unpicklable result must still resolve its future
        what = "result" if ok else f"exception {type(value).__name__}: {value}"
        data = pickle.dumps((False, RuntimeError(
            f"the worker process could not send back the {what} ({type(exc).__name__}: {exc})")))
    outbox.put((job, data))


def _run(outbox: Any, job: int, payload: bytes) -> None:
    try:
        fn, args, kwargs = pickle.loads(payload)
        result = fn(*args, **kwargs)
    except BaseException as exc:  # noqa: BLE001 - reported through the caller's future
        _send(outbox, job, False, exc)
    else:
        _send(outbox, job, True, result)


def _exit_with_parent() -> None:
    """A daemon thread that ends this worker the moment its parent process is gone (even by kill -9):
    its episodes have no one to report to, and would otherwise run on (and hold the CPU) until done."""
    parent = mp.parent_process()
    if parent is None:
        return

    def watch() -> None:
        mp_connection.wait([parent.sentinel])
        os._exit(1)

    threading.Thread(target=watch, name="treegym-parent-watch", daemon=True).start()


def _worker_main(inbox: Any, outbox: Any, per_worker: int, initializer: Callable | None, initargs: tuple) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _exit_with_parent()
    if initializer is not None:
        initializer(*initargs)
    with ThreadPoolExecutor(max_workers=per_worker, thread_name_prefix="treegym-call") as pool:
        while True:
            item = inbox.get()
            if item is None:  # shutdown: finish what was taken, then exit
                break
            pool.submit(_run, outbox, *item)


class ThreadedProcessPool:
    """See the module docstring."""

    def __init__(self, workers: int, per_worker: int, initializer: Callable | None = None, initargs: tuple = ()):
        if int(workers) < 1 or int(per_worker) < 1:
            raise ValueError(f"workers and per_worker must be at least 1, got {workers} and {per_worker}")
        ctx = mp.get_context("spawn")  # safe with threads, JVMs and servers in the parent
        self._outbox = ctx.Queue()
        self._inboxes = [ctx.Queue() for _ in range(int(workers))]
        self._procs = [ctx.Process(target=_worker_main, name=f"treegym-worker-{i}", daemon=True,
                                   args=(inbox, self._outbox, int(per_worker), initializer, initargs))
                       for i, inbox in enumerate(self._inboxes)]
        for proc in self._procs:
            proc.start()
        self._lock = threading.Lock()
        self._jobs: dict[int, tuple[Future, int]] = {}
        self._load = [0] * len(self._procs)
        self._dead: set[int] = set()
        self._ids = itertools.count()
        self._closing = False
        self._collector = threading.Thread(target=self._collect, name="treegym-process-results", daemon=True)
        self._collector.start()

    @property
    def pids(self) -> list[int | None]:
        return [p.pid for p in self._procs]

    @property
    def healthy(self) -> bool:
        """Every worker alive and the pool not shut down."""
        return not self._closing and not self._exited(range(len(self._procs)))

    def _exited(self, workers: Any) -> list[int]:
        """The workers among ``workers`` whose process has ended. Read from each process's sentinel,
        which works even when something else reaped the process (``exitcode`` would then stay None)."""
        procs = {self._procs[i].sentinel: i for i in workers}
        return sorted(procs[s] for s in mp_connection.wait(list(procs), timeout=0)) if procs else []

    def submit(self, fn: Callable, args: tuple = (), kwargs: dict | None = None) -> Future:
        payload = pickle.dumps((fn, tuple(args), dict(kwargs or {})))
        fut: Future = Future()
        fut.set_running_or_notify_cancel()
        with self._lock:
            if self._closing:
                raise RuntimeError("cannot submit to a process pool that was shut down")
            alive = [i for i in range(len(self._procs)) if i not in self._dead]
            if not alive:
                raise BrokenProcessPool("every worker process of this run has died; see the errors above "
                                        "(out of memory? killed?) and run the command again to resume")
            worker = min(alive, key=self._load.__getitem__)
            job = next(self._ids)
            self._jobs[job] = (fut, worker)
            self._load[worker] += 1
        self._inboxes[worker].put((job, payload))
        return fut

    def shutdown(self, wait: bool = True) -> None:
        with self._lock:
            if self._closing:
                already = True
            else:
                already, self._closing = False, True
        if not already:
            for i, inbox in enumerate(self._inboxes):
                if i not in self._dead:
                    inbox.put(None)
        if wait:
            for proc in self._procs:
                proc.join()
            self._collector.join()

    # ------------------------------------------------------------------ results
    def _resolve(self, answer: tuple[int, bytes]) -> None:
        job, data = answer
        try:
            ok, value = pickle.loads(data)
        except Exception as exc:  # noqa: BLE001 - e.g. an exception class the parent cannot import
            ok, value = False, RuntimeError(f"a worker's answer could not be read: {type(exc).__name__}: {exc}")
        with self._lock:
            entry = self._jobs.pop(job, None)
            if entry is not None:
                self._load[entry[1]] -= 1
        if entry is None:
            return
        fut = entry[0]
        if ok:
            fut.set_result(value)
        else:
            fut.set_exception(value if isinstance(value, BaseException) else RuntimeError(str(value)))

    def _drain(self) -> None:
        while True:
            try:
                data = self._outbox.get_nowait()
            except queue.Empty:
                return
            self._resolve(data)

    def _collect(self) -> None:
        while True:
            try:
                data = self._outbox.get(timeout=_POLL_SECONDS)
            except queue.Empty:
                if self._check_workers():
                    return
                continue
            except (EOFError, OSError):
                self._fail_all(BrokenProcessPool("the result channel of the worker processes closed"))
                return
            self._resolve(data)

    def _check_workers(self) -> bool:
        """Fail the calls of workers that died; True once shut down with every worker gone and nothing pending."""
        newly_dead = self._exited(i for i in range(len(self._procs)) if i not in self._dead)
        if newly_dead:
            self._drain()  # answers a worker sent just before it died
            for i in newly_dead:
                self._dead.add(i)
                proc = self._procs[i]
                with self._lock:
                    lost = [(job, fut) for job, (fut, w) in self._jobs.items() if w == i]
                    for job, _fut in lost:
                        del self._jobs[job]
                    self._load[i] = 0
                for _job, fut in lost:
                    fut.set_exception(BrokenProcessPool(
                        f"worker process {proc.pid} exited with code {proc.exitcode} while running "
                        f"{len(lost)} call(s); they were lost and are not recorded"))
        with self._lock:
            pending = bool(self._jobs)
        return self._closing and not pending and len(self._dead) == len(self._procs)

    def _fail_all(self, exc: BaseException) -> None:
        with self._lock:
            lost, self._jobs = list(self._jobs.values()), {}
        for fut, _w in lost:
            fut.set_exception(exc)
