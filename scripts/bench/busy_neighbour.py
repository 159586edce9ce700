"""A CPU- and memory-heavy neighbour for benchmarks that must hold on a busy machine (``bench_groups --load``).

What it stands for: an RL trainer's env workers share their machine with an inference server and its
Python front end. Such a neighbour keeps the cores busy, streams large buffers (weights, KV cache,
batches) through the memory system, evicting whatever a short measurement left in the shared L3 and,
when it runs on the same core, in L1/L2, and allocates and frees many small Python objects (request
parsing, tokenizer output, batching). A fork that touches per-state Python objects pays for each cache
miss those do to it; a measurement on an idle machine hides that.

What it does: :class:`BusyNeighbour` starts ``procs`` processes (``multiprocessing``, fork: no
re-import of the caller's main module; start it before building anything large), each
looping until told to stop over two jobs:

* **stream**: add 1 to every byte of a private ``buffer_mb`` MiB buffer (default 64 MiB, twice this
  machine's 32 MiB L3: every pass evicts the caches it runs under);
* **churn**: build and drop a list of 20,000 small tuples holding fresh strings and ints (Python's
  allocator and reference counts at work, as a busy Python server's are).

It counts its passes (one stream + one churn each) so a benchmark can print that its neighbour ran.
Use it as a context manager: ``with BusyNeighbour(2) as n: ...; n.passes()``. Processes are stopped
(an event, then ``terminate`` after a grace period) and joined on exit, also when the body raises.
"""
from __future__ import annotations

import multiprocessing as mp
import time
from typing import Any

import numpy as np

CHURN_OBJECTS = 20_000  # small tuples built and dropped per pass


def _work(stop: Any, passes: Any, buffer_mb: int) -> None:
    """One neighbour process: stream + churn until ``stop`` is set, counting passes in ``passes``."""
    buf = np.zeros(buffer_mb << 20, dtype=np.uint8)
    while not stop.is_set():
        buf += 1  # reads and writes every byte: a pass evicts caches smaller than the buffer
        junk = [(i, str(i), (i, i + 1)) for i in range(CHURN_OBJECTS)]
        del junk
        with passes.get_lock():
            passes.value += 1


class BusyNeighbour:
    """``procs`` neighbour processes streaming ``buffer_mb`` MiB each and churning Python objects
    (see the module docstring), started on ``__enter__`` (once each has allocated its buffer and
    made a first pass) and stopped on ``__exit__``."""

    def __init__(self, procs: int = 2, buffer_mb: int = 64):
        if procs < 1 or buffer_mb < 1:
            raise ValueError(f"a busy neighbour needs procs >= 1 and buffer_mb >= 1, got {procs} and {buffer_mb}")
        self.procs = procs
        self.buffer_mb = buffer_mb
        ctx = mp.get_context("fork")
        self._stop = ctx.Event()
        self._passes = ctx.Value("q", 0)
        self._workers = [ctx.Process(target=_work, args=(self._stop, self._passes, buffer_mb), daemon=True)
                         for _ in range(procs)]
        self._started = self._stopped = 0.0

    def __enter__(self) -> "BusyNeighbour":
        for w in self._workers:
            w.start()
        while self.passes() < self.procs:  # every worker has its buffer and is streaming
            if not all(w.is_alive() for w in self._workers):
                self.__exit__(None, None, None)
                raise RuntimeError("a busy-neighbour process died before its first pass (out of memory?)")
            time.sleep(0.05)
        self._started = time.perf_counter()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stopped = time.perf_counter()
        self._stop.set()
        for w in self._workers:
            w.join(timeout=5)
            if w.is_alive():
                w.terminate()
                w.join()

    def passes(self) -> int:
        """Passes (stream + churn) made by all neighbour processes so far."""
        return int(self._passes.value)

    def describe(self) -> str:
        """One line saying what ran beside the measurement and how hard it worked."""
        secs = max((self._stopped or time.perf_counter()) - self._started, 1e-9)
        return (f"busy neighbour: {self.procs} process(es), each streaming a {self.buffer_mb} MiB buffer and "
                f"churning {CHURN_OBJECTS} Python tuples per pass; {self.passes()} passes, "
                f"{self.passes() / secs:.1f}/s")
