"""Where episodes run: thread, process and Ray executors behind one ``concurrent.futures`` interface.

``make_executor(backend, workers, max_in_flight=None, ray_address=None)``
returns an ``Executor`` whose ``submit(fn, *args)`` gives a standard
``concurrent.futures.Future``, so the run loop (``agents.evaluation``) is the
same code on every backend:

* ``thread`` - threads in this process (LLM-bound work is I/O), one per
  episode in flight (``max_in_flight``, default ``workers``);
* ``process`` - ``workers`` spawned processes (CPU-bound envs, or the CPU an
  LLM client spends per request), each running up to
  ``ceil(max_in_flight / workers)`` episodes at once on threads
  (``agents/process_pool.py``); the processes are reused like the Ray actors
  below; ``fn`` and its arguments are pickled;
* ``ray`` - ``workers`` Ray actors (processes, on any node of the cluster),
  each running up to ``ceil(max_in_flight / workers)`` episodes at once on
  threads. Actors live as long as this process and are reused by later
  executors of the same shape (their start-up and imports are paid once). ``ray_address`` is passed to ``ray.init`` (``"auto"``: join the
  cluster this machine belongs to); without one a local Ray instance is
  started (or the one this process already started is reused). Nodes need
  treegym installed, as every Ray job needs its code. ``fn`` must be a
  module-level function (it is pickled by reference).

**Episodes in flight** (submitted to a worker and not finished) are bounded
by ``max_in_flight`` (default: ``workers``) whatever the backend and the
worker count: submissions beyond it wait in this process, in order, and a
queued episode that is cancelled (a run stopped with Ctrl-C) never starts.
"""
from __future__ import annotations

import math
import threading
from collections import deque
from concurrent.futures import Executor, Future, ThreadPoolExecutor, as_completed
from typing import Any, Callable, Sequence
from ...envs.core.ray_session import ray_session
from .process_pool import ThreadedProcessPool

BACKENDS = ("thread", "process", "ray")


class BoundedExecutor(Executor):
    """At most ``limit`` futures of ``start(fn, args, kwargs) -> Future`` running at once; the rest queue here."""

    def __init__(self, start: Callable[[Callable, tuple, dict], Future], limit: int,
                 on_shutdown: Callable[[bool], None] | None = None):
        if int(limit) < 1:
            raise ValueError(f"the limit of episodes in flight must be at least 1, got {limit}")
        self._start = start
        self.limit = int(limit)
        self._on_shutdown = on_shutdown
        self._lock = threading.Lock()
        self._queue: deque[tuple[Future, Callable, tuple, dict]] = deque()
        self.in_flight = 0
        self.peak_in_flight = 0
        self._closed = False

    def submit(self, fn: Callable, /, *args: Any, **kwargs: Any) -> Future:
        if self._closed:
            raise RuntimeError("cannot submit to an executor that was shut down")
        outer: Future = Future()
        with self._lock:
            self._queue.append((outer, fn, args, kwargs))
        self._pump()
        return outer

    def _pump(self) -> None:
        while True:
            with self._lock:
                if self.in_flight >= self.limit or not self._queue:
                    return
                outer, fn, args, kwargs = self._queue.popleft()
                if not outer.set_running_or_notify_cancel():
                    continue  # cancelled while queued
                self.in_flight += 1
                self.peak_in_flight = max(self.peak_in_flight, self.in_flight)
            try:
                inner = self._start(fn, args, kwargs)
            except BaseException as exc:  # noqa: BLE001 - reported through the future
                self._finish(outer, None, exc)
                continue
            inner.add_done_callback(lambda f, outer=outer: self._done(outer, f))

    def _done(self, outer: Future, inner: Future) -> None:
        exc = inner.exception() if not inner.cancelled() else RuntimeError("the episode was cancelled by its worker")
        self._finish(outer, None if exc else inner.result(), exc)

    def _finish(self, outer: Future, result: Any, exc: BaseException | None) -> None:
        with self._lock:
            self.in_flight -= 1
        if exc is not None:
            outer.set_exception(exc)
        else:
            outer.set_result(result)
        self._pump()

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self._closed = True
        if cancel_futures:
            with self._lock:
                queued, self._queue = list(self._queue), deque()
            for outer, *_ in queued:
                outer.cancel()
        if self._on_shutdown is not None:
            self._on_shutdown(wait)


def _pool_executor(pool: Executor, limit: int) -> BoundedExecutor:
    return BoundedExecutor(lambda fn, a, kw: pool.submit(fn, *a, **kw), limit,
                           on_shutdown=lambda wait: pool.shutdown(wait=wait, cancel_futures=True))


class _EpisodeWorker:
    """A Ray actor that runs module-level functions (several at once, on threads)."""

    def call(self, fn: Callable, args: tuple, kwargs: dict) -> Any:
        return fn(*args, **kwargs)


_ACTORS: dict[int, list[Any]] = {}  # max_concurrency -> live actors, reused by later executors
_WORKERS_LOCK = threading.Lock()


def _actors(ray: Any, workers: int, per_actor: int) -> list[Any]:
    """``workers`` episode actors running up to ``per_actor`` calls each; kept for the process's lifetime
    (a sweep or benchmark that makes several executors pays the actors' start and imports once)."""
    with _WORKERS_LOCK:
        pool = _ACTORS.setdefault(per_actor, [])
        actor_cls = ray.remote(num_cpus=0, max_concurrency=per_actor)(_EpisodeWorker)
        while len(pool) < workers:
            pool.append(actor_cls.remote())
        return pool[:workers]


def _ray_executor(workers: int, limit: int, address: str | None) -> BoundedExecutor:
    ray = ray_session(address, "the ray backend")
    actors = _actors(ray, workers, max(1, math.ceil(limit / workers)))
    load = [0] * workers
    lock = threading.Lock()

    def start(fn: Callable, args: tuple, kwargs: dict) -> Future:
        with lock:
            i = min(range(workers), key=load.__getitem__)  # the least busy actor
            load[i] += 1
        fut = actors[i].call.remote(fn, args, kwargs).future()

        def release(_f: Future, i: int = i) -> None:
            with lock:
                load[i] -= 1

        fut.add_done_callback(release)
        return fut

    return BoundedExecutor(start, limit)


_PROCESS_POOLS: dict[tuple, Any] = {}  # (processes, per_worker, initializer, initargs) -> live pool


def _process_pool(processes: int, per_worker: int, initializer: Callable | None, initargs: tuple) -> Any:
    """Spawned workers (they re-register the ids on ``import treegym.envs``), each running up to
    ``per_worker`` episodes at once on threads; like the Ray actors, kept for the process's
    lifetime and reused by later executors of the same shape (a worker's start and imports cost
    seconds). A pool that lost a worker is replaced."""
    key = (processes, per_worker, initializer, initargs)
    with _WORKERS_LOCK:
        pool = _PROCESS_POOLS.get(key)
        if pool is None or not pool.healthy:
            pool = _PROCESS_POOLS[key] = ThreadedProcessPool(processes, per_worker, initializer=initializer,
                                                             initargs=initargs)
        return pool


def make_executor(backend: str, workers: int, *, max_in_flight: int | None = None,
                  ray_address: str | None = None, initializer: Callable | None = None,
                  initargs: tuple = ()) -> BoundedExecutor:
    """An executor for ``backend`` (see module docstring). Use it as a context manager.

    ``initializer(*initargs)`` runs once in each worker process of the process backend."""
    workers = max(1, int(workers))
    limit = int(max_in_flight) if max_in_flight else workers
    if limit < 1:
        raise ValueError(f"max_in_flight must be at least 1, got {max_in_flight}")
    if backend == "thread":
        return _pool_executor(ThreadPoolExecutor(max_workers=limit), limit)
    if backend == "process":
        processes = min(workers, limit)
        pool = _process_pool(processes, math.ceil(limit / processes), initializer, initargs)
        return BoundedExecutor(lambda fn, a, kw: pool.submit(fn, a, kw), limit)
    if backend == "ray":
        return _ray_executor(workers, limit, ray_address)
    raise ValueError(f"unknown backend {backend!r}; use one of: {', '.join(BACKENDS)}")


def collect(futures: Sequence[Future], keep: Callable[[Any], None]) -> None:
    """Hand each finished future's result to ``keep`` as it completes. On any error (or Ctrl-C)
    the futures not started yet are cancelled and the error propagates; finished results were
    already kept, so a crash loses only the episodes in flight."""
    try:
        for fut in as_completed(futures):
            keep(fut.result())
    except BaseException:
        for f in futures:
            f.cancel()
        raise
