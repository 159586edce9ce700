"""TimedLLM (the benchmarks' LLM clock): every thread's time inside ``complete`` is counted, a ``complete``
that calls ``complete`` again through the wrapper is counted once, and a failed call leaves the clock
working."""
from __future__ import annotations

import threading
import time

import pytest

from treegym.agents.llm.request import Request
from treegym.scripts.bench.bench_support import TimedLLM

HI = Request([{"role": "user", "content": "hi"}])


def _busy(seconds: float) -> float:
    """Spin for ``seconds`` of CPU time; the CPU time spent."""
    t0 = time.process_time()
    while time.process_time() - t0 < seconds:
        pass
    return time.process_time() - t0


class _Reentrant:
    """Spins, then (when ``again``) asks the timed wrapper around it once more from inside its own call."""

    name = "reentrant"

    def __init__(self) -> None:
        self.outer: TimedLLM | None = None
        self.inside = 0.0

    def complete(self, request: Request) -> list[str]:
        self.inside += _busy(0.02)
        if request.n == 2 and self.outer is not None:
            self.outer.complete(Request(request.messages))
        return ["ok"]


def test_a_complete_calling_complete_again_is_counted_once():
    raw = _Reentrant()
    timed = raw.outer = TimedLLM(raw)
    t0 = time.process_time()
    assert timed.complete(Request(HI.messages, n=2)) == ["ok"]
    outside = time.process_time() - t0
    assert raw.inside >= 0.04  # both calls ran
    assert raw.inside <= timed.cpu_seconds <= outside  # counted twice, it would exceed the time outside


def test_every_threads_time_inside_is_counted():
    class Sleeping:
        name = "sleeping"

        def complete(self, request: Request) -> list[str]:
            time.sleep(0.05)
            return ["ok"]

    timed = TimedLLM(Sleeping())
    threads = [threading.Thread(target=timed.complete, args=(HI,)) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert timed.wall_seconds >= 4 * 0.05  # four spans, each its own, though they overlapped
    timed.complete(HI)
    assert timed.wall_seconds >= 5 * 0.05  # the finished threads' spans are kept


def test_a_failed_call_is_counted_and_the_clock_keeps_working():
    class Failing:
        name = "failing"
        fail = True

        def complete(self, request: Request) -> list[str]:
            _busy(0.02)
            if self.fail:
                raise RuntimeError("model down")
            return ["ok"]

    raw = Failing()
    timed = TimedLLM(raw)
    with pytest.raises(RuntimeError, match="model down"):
        timed.complete(HI)
    first = timed.cpu_seconds
    assert first >= 0.02
    raw.fail = False
    assert timed.complete(HI) == ["ok"]
    assert timed.cpu_seconds >= first + 0.02  # not taken for a call from inside the failed one
