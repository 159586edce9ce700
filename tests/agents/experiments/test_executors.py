"""Executors: episodes in flight bounded independently of the worker count; the same records on every backend."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from fuzzing import no_hang

from treegym.agents.experiments.evaluation import RunConfig, evaluate
from treegym.agents.experiments.executors import BoundedExecutor, make_executor

ENV = "treegym/Game24-v0"
LLM = "synthetic:p_correct=0.6,judge_acc=0.8,value_noise=0.3"


def _max_overlap(spans: list[tuple[float, float]]) -> int:
    events = sorted([(s, 1) for s, _ in spans] + [(e, -1) for _, e in spans])
    cur = best = 0
    for _, d in events:
        cur += d
        best = max(best, cur)
    return best


def test_threads_run_exactly_max_in_flight_at_once():
    gate = threading.Barrier(3, timeout=60)
    running, peak, lock = [0], [0], threading.Lock()

    def episode(i: int) -> int:
        with lock:
            running[0] += 1
            peak[0] = max(peak[0], running[0])
        if i < 3:
            gate.wait()  # the first three must be running together, or this raises
        with lock:
            running[0] -= 1
        return i * i

    with make_executor("thread", workers=1, max_in_flight=3) as ex:
        futures = [ex.submit(episode, i) for i in range(12)]
        assert sorted(f.result() for f in futures) == [i * i for i in range(12)]
    assert peak[0] == 3 and ex.peak_in_flight == 3


def test_queued_episodes_can_be_cancelled_and_errors_reach_the_future():
    release = threading.Event()
    ex = make_executor("thread", workers=1)
    first = ex.submit(release.wait, 60)
    queued = ex.submit(lambda: "never")
    assert queued.cancel()  # still queued here: it never starts
    failing = ex.submit(lambda: 1 / 0)
    release.set()
    assert first.result() is True
    with pytest.raises(ZeroDivisionError):
        failing.result()
    ex.shutdown()
    with pytest.raises(RuntimeError, match="shut down"):
        ex.submit(print)
    with pytest.raises(ValueError, match="at least 1"):
        BoundedExecutor(lambda *a: None, 0)
    with pytest.raises(ValueError, match="unknown backend"):
        make_executor("dask", 2)


def _records(path) -> list[dict]:
    recs = [json.loads(x) for x in path.read_text().splitlines()]
    # wall time is the only field that may differ between backends
    return sorted(({k: v for k, v in r.items() if k != "wall_s"} for r in recs), key=lambda r: r["task_id"])


@pytest.mark.slow
def test_ray_backend_same_records_as_threads_and_processes(tmp_path):
    pytest.importorskip("ray", reason="the ray backend needs the ray extra: pip install 'treegym[ray]'")
    tasks = list(range(900, 905))
    outs = {}
    for backend in ("thread", "process", "ray"):
        out = tmp_path / f"{backend}.jsonl"
        cfg = RunConfig(env_id=ENV, agent="elo", llm_spec=LLM, task_ids=tasks, budget=20, workers=2,
                        backend=backend, max_in_flight=3 if backend == "ray" else None)
        evaluate(cfg, out, progress=False)
        outs[backend] = _records(out)
    assert len(outs["thread"]) == len(tasks) and not any(r["error"] for r in outs["thread"])
    assert outs["ray"] == outs["thread"] == outs["process"]


@pytest.mark.slow
def test_ray_in_flight_bound_is_independent_of_the_worker_count():
    pytest.importorskip("ray", reason="the ray backend needs the ray extra: pip install 'treegym[ray]'")

    def episode(i: int) -> tuple[float, float]:  # nested: Ray pickles it by value
        t0 = time.time()
        time.sleep(1.0)
        return t0, time.time()

    with make_executor("ray", workers=1, max_in_flight=4) as ex:
        spans = [f.result() for f in [ex.submit(episode, i) for i in range(8)]]
    assert ex.peak_in_flight == 4
    assert _max_overlap(spans) == 4  # one actor, four episodes running together


def test_process_in_flight_bound_is_independent_of_the_worker_count():
    from support.pool_calls import timed_sleep

    with make_executor("process", workers=1, max_in_flight=4) as ex:
        spans = [f.result() for f in [ex.submit(timed_sleep, 1.0) for _ in range(8)]]
    assert ex.peak_in_flight == 4
    assert len({pid for pid, _, _ in spans}) == 1  # one process ...
    assert _max_overlap([(s, e) for _, s, e in spans]) == 4  # ... running four calls together


def test_process_worker_errors_reach_the_future_and_a_dead_worker_fails_only_its_calls(tmp_path):
    import os
    import signal
    from concurrent.futures.process import BrokenProcessPool

    from support.pool_calls import a_lock, announce_then_sleep, divide, pid_after

    with make_executor("process", workers=2, max_in_flight=4) as ex:
        assert ex.submit(divide, 1, 4).result() == 0.25
        with pytest.raises(ZeroDivisionError):
            ex.submit(divide, 1, 0).result()
        with pytest.raises(RuntimeError, match="could not send back the result"):
            ex.submit(a_lock).result()
        with pytest.raises(Exception, match="pickle"):  # an unpicklable call fails at once, in the caller
            ex.submit(divide, threading.Lock(), 1).result()
        marker = tmp_path / "pid"
        doomed = ex.submit(announce_then_sleep, str(marker), 120.0)
        deadline = time.monotonic() + 60  # a liveness wait, not a speed check
        while not marker.exists():
            assert time.monotonic() < deadline, "the call never started"
            time.sleep(0.05)
        victim = int(marker.read_text())
        os.kill(victim, signal.SIGKILL)
        with pytest.raises(BrokenProcessPool, match=f"worker process {victim} exited with code -9"):
            doomed.result(timeout=60)
        survivors = {ex.submit(pid_after, 0.0).result(timeout=60) for _ in range(4)}
        assert len(survivors) == 1 and victim not in survivors  # the live worker takes every later call


def test_process_workers_are_reused_until_one_dies():
    import os
    import signal
    from concurrent.futures.process import BrokenProcessPool

    from support.pool_calls import pid_after

    def pids() -> set[int]:
        with make_executor("process", workers=1, max_in_flight=2) as ex:
            return {f.result(timeout=60) for f in [ex.submit(pid_after, 0.2) for _ in range(4)]}

    first = pids()
    assert len(first) == 1 and pids() == first  # the next run of the same shape reuses the worker
    (victim,) = first
    os.kill(victim, signal.SIGKILL)
    deadline = time.monotonic() + 60  # a liveness wait, not a speed check
    while True:
        try:
            fresh = pids()
            break
        except BrokenProcessPool:  # a run racing the worker's death loses its calls (an infra error)
            assert time.monotonic() < deadline
    assert len(fresh) == 1 and fresh != first  # a pool that lost its worker is replaced


def test_process_pool_shutdown_finishes_the_calls_it_holds():
    from treegym.agents.experiments.process_pool import ThreadedProcessPool

    from support.pool_calls import pid_after

    pool = ThreadedProcessPool(2, 2)
    futures = [pool.submit(pid_after, (0.3,)) for _ in range(4)]
    pool.shutdown(wait=True)
    assert {f.result(timeout=0) for f in futures} <= set(pool.pids) and not pool.healthy
    with pytest.raises(RuntimeError, match="shut down"):
        pool.submit(pid_after, (0.0,))
    with pytest.raises(ValueError, match="at least 1"):
        ThreadedProcessPool(0, 1)


# ----------------------------------------------------------------------------- faults the fuzzers found (issue 25)

@pytest.mark.slow
def test_process_workers_exit_with_a_killed_parent(tmp_path):
    script = ("import time\nfrom treegym.agents.experiments.process_pool import ThreadedProcessPool\n"
              "pool = ThreadedProcessPool(1, 1)\nfut = pool.submit(time.sleep, (3600,))\n"
              "time.sleep(1)\nprint(pool.pids[0], flush=True)\ntime.sleep(3600)\n")
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    worker = int(parent.stdout.readline())
    os.kill(parent.pid, signal.SIGKILL)
    parent.wait()

    def gone() -> bool:
        while True:
            try:
                os.kill(worker, 0)
            except ProcessLookupError:
                return True
            with open(f"/proc/{worker}/stat") as f:
                if f.read().split(") ", 1)[1].startswith("Z"):
                    return True
            time.sleep(0.05)

    assert no_hang(gone, what=f"worker {worker} still running after its parent was killed", bound=120)
