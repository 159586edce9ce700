"""Benchmark: RestBench-v0 request cost along RestBench's 157 gold paths, per endpoint.

Replays every reference plan of the ``restbench`` split (checking that each
still passes), records each request with the world it was made in, then times
every request ``--repeats`` times in interleaved rounds (request 1..N, then
again), two ways:

* **handler**: ``api.call`` alone (argument checks, the handler, the spec's
  response shape) on a fresh transaction over the recorded world;
* **step**: ``RestBenchEngine.step`` from the recorded state (parsing,
  routing, the call, the observation text), also in the thread's CPU time
  (which a busy machine's scheduler pauses do not inflate).

Every repetition's answer is compared with the first one's (a handler that
answered differently on a second call would be a cache bug). Prints the
median per request, the per-endpoint medians of the slowest endpoints, the
sum over one pass of the 157 paths, the slowest single requests and the load
average beside the figures. A scan over all people x all movies shows up as
an endpoint far above the median request (the ``x`` column). To compare with
an earlier version, run the same script in that version's tree alternately
with this one (the indexes of RestData were measured so: docs/results.md).

    python -m treegym.scripts.bench.bench_restbench [--repeats 15] [--top 12]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from typing import Any

from treegym.scripts.bench.bench_support import percentile
from treegym.envs.restbench.actions import Request, parse_action
from treegym.envs.restbench.api import call
from treegym.envs.restbench.env import shipped_engine, shipped_tasks
from treegym.envs.tools_common.world import Tx


def recorded_requests() -> list[tuple[Any, ...]]:
    """``(endpoint, path params, args, path, world, state, action)`` of every request on the 157 gold paths."""
    engine = shipped_engine()
    out = []
    for task in (t for t in shipped_tasks() if t["split"] == "restbench"):
        state = engine.initial_state(task["query_id"], None)
        for action in task["gold"]["reference_actions"]:
            parsed = parse_action(action)
            if isinstance(parsed, Request):
                endpoint, params, _ = engine.routers[task["api"]].match(parsed.method, parsed.path)
                out.append((endpoint, params, dict(parsed.args), parsed.path, state.world, state, action))
            state = engine.step(state, action).state
        if not engine.evaluate(state)["pass"]:
            raise SystemExit(f"the reference plan of {task['query_id']} no longer passes")
    return out


def median_us(samples: list[float]) -> float:
    return statistics.median(samples) * 1e6


def summary(per_request_us: list[float]) -> dict[str, float]:
    """Median, p99, max and sum (one pass of the 157 paths) of per-request medians, in microseconds."""
    return {"median_us": statistics.median(per_request_us), "p99_us": percentile(per_request_us, 0.99),
            "max_us": max(per_request_us), "sum_us": sum(per_request_us)}


def measure(repeats: int = 15) -> dict[str, Any]:
    """The figures (see the module docstring) as a JSON-able dict; ``mismatches`` counts changed answers."""
    engine = shipped_engine()
    requests = recorded_requests()
    first: list[Any] = [None] * len(requests)
    handler_t: list[list[float]] = [[] for _ in requests]
    step_t: list[list[float]] = [[] for _ in requests]
    step_cpu: list[list[float]] = [[] for _ in requests]
    mismatches = 0
    for _ in range(repeats):
        for i, (endpoint, params, a, path, world, state, action) in enumerate(requests):
            t0 = time.perf_counter()
            answer = call(engine.data, Tx(world), endpoint, params, a, path)
            t1 = time.perf_counter()
            c1 = time.thread_time()
            stepped = engine.step(state, action).state
            c2 = time.thread_time()
            t2 = time.perf_counter()
            handler_t[i].append(t1 - t0)
            step_t[i].append(t2 - t1)
            step_cpu[i].append(c2 - c1)
            seen = (json.dumps(answer, sort_keys=True), stepped.observation)
            if first[i] is None:
                first[i] = seen
            elif seen != first[i]:
                mismatches += 1
    per_call = [median_us(t) for t in handler_t]
    by_endpoint: dict[str, list[int]] = {}
    for i, r in enumerate(requests):
        by_endpoint.setdefault(f"{r[0].api} {r[0].name}", []).append(i)
    return {"requests": len(requests), "repeats": repeats, "load": os.getloadavg(), "mismatches": mismatches,
            "handler": summary(per_call), "step": summary([median_us(t) for t in step_t]),
            "step_cpu": summary([median_us(t) for t in step_cpu]),
            "endpoints": {name: {"calls": len(idx), "median_us": statistics.median(per_call[i] for i in idx)}
                          for name, idx in by_endpoint.items()},
            "requests_us": [{"request": f"{r[0].api} {r[0].method} {r[3]}", "handler_us": t}
                            for r, t in zip(requests, per_call)]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=15, help="interleaved rounds over all requests (default 15)")
    ap.add_argument("--top", type=int, default=12, help="slowest endpoints to list (default 12)")
    ap.add_argument("--json", metavar="PATH", help="also write the figures as JSON to PATH")
    args = ap.parse_args(argv)
    r = measure(args.repeats)
    load, overall = r["load"], r["handler"]["median_us"]
    print(f"RestBench-v0: {r['requests']} requests on the 157 gold paths, {len(r['endpoints'])} endpoints, "
          f"{args.repeats} interleaved repeats (medians); load {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    for what, key in (("handler (api.call)", "handler"), ("step (engine.step)", "step"), ("step (CPU time)", "step_cpu")):
        f = r[key]
        print(f"  {what:18s}  median {f['median_us']:8.1f} us   p99 {f['p99_us']:8.1f} us   max {f['max_us']:8.1f} us"
              f"   sum over the 157 paths {f['sum_us'] / 1e3:7.2f} ms")
    print("  slowest endpoints (handler median per call; x = against the median request):")
    for name, e in sorted(r["endpoints"].items(), key=lambda kv: -kv[1]["median_us"])[:args.top]:
        print(f"    {name:48s} {e['calls']:4d} calls {e['median_us']:9.1f} us {e['median_us'] / overall:7.1f}x")
    print("  slowest requests (handler median):")
    for q in sorted(r["requests_us"], key=lambda q: -q["handler_us"])[:args.top // 3]:
        print(f"    {q['request'][:72]:72s} {q['handler_us']:9.1f} us")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(r, fh, indent=1)
    if r["mismatches"]:
        print(f"MISMATCH: {r['mismatches']} repeated requests answered differently from their first answer", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
