"""Benchmark: RestBench-v0 request cost along RestBench's 157 gold paths, per endpoint.

Replays every reference plan of the ``restbench`` split (checking that each
still passes), records each request with the world it was made in, then times
every request ``--repeats`` times in interleaved rounds (request 1..N, then
again), two ways:

* **handler**: ``api.call`` alone (argument checks, the handler, the spec's
  response shape) on a fresh transaction over the recorded world;
* **step**: ``RestBenchEngine.step`` from the recorded state (parsing,
  routing, the call, the observation text).

Every repetition's answer is compared with the first one's (a handler that
answered differently on a second call would be a cache bug). Prints the
median per request, the per-endpoint medians of the slowest endpoints, the
sum over one pass of the 157 paths, the slowest single requests and the load
average beside the figures. A scan over all people x all movies shows up as
an endpoint far above the median request (the ``x`` column). To compare with
an earlier version, run the same script in that version's tree alternately
with this one (the indexes of RestData were measured so: README).

    python -m treegym.scripts.bench_restbench [--repeats 15] [--top 12]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from typing import Any


def recorded_requests() -> list[tuple[Any, ...]]:
    """``(endpoint, path params, args, path, world, state, action)`` of every request on the 157 gold paths."""
    from treegym.envs.restbench.actions import Request, parse_action
    from treegym.envs.restbench.env import shipped_engine, shipped_tasks
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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=15, help="interleaved rounds over all requests (default 15)")
    ap.add_argument("--top", type=int, default=12, help="slowest endpoints to list (default 12)")
    args = ap.parse_args(argv)
    from treegym.envs.restbench.api import call
    from treegym.envs.restbench.env import shipped_engine
    from treegym.envs.tools_common.world import Tx
    engine = shipped_engine()
    requests = recorded_requests()
    first: list[Any] = [None] * len(requests)
    handler_t: list[list[float]] = [[] for _ in requests]
    step_t: list[list[float]] = [[] for _ in requests]
    mismatches = 0
    for _ in range(args.repeats):
        for i, (endpoint, params, a, path, world, state, action) in enumerate(requests):
            t0 = time.perf_counter()
            answer = call(engine.data, Tx(world), endpoint, params, a, path)
            t1 = time.perf_counter()
            stepped = engine.step(state, action).state
            t2 = time.perf_counter()
            handler_t[i].append(t1 - t0)
            step_t[i].append(t2 - t1)
            seen = (json.dumps(answer, sort_keys=True), stepped.observation)
            if first[i] is None:
                first[i] = seen
            elif seen != first[i]:
                mismatches += 1
    per_call = [median_us(t) for t in handler_t]
    per_step = [median_us(t) for t in step_t]
    by_endpoint: dict[str, list[int]] = {}
    for i, r in enumerate(requests):
        by_endpoint.setdefault(f"{r[0].api} {r[0].name}", []).append(i)
    ep_median = {name: statistics.median(per_call[i] for i in idx) for name, idx in by_endpoint.items()}
    overall = statistics.median(per_call)
    load = os.getloadavg()
    print(f"RestBench-v0: {len(requests)} requests on the 157 gold paths, {len(by_endpoint)} endpoints, "
          f"{args.repeats} interleaved repeats (medians); load {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print(f"  handler (api.call)  median {overall:8.1f} us   p99 {sorted(per_call)[int(0.99 * (len(per_call) - 1))]:8.1f} us"
          f"   max {max(per_call):8.1f} us   sum over the 157 paths {sum(per_call) / 1e3:7.2f} ms")
    print(f"  step (engine.step)  median {statistics.median(per_step):8.1f} us   p99 {sorted(per_step)[int(0.99 * (len(per_step) - 1))]:8.1f} us"
          f"   max {max(per_step):8.1f} us   sum over the 157 paths {sum(per_step) / 1e3:7.2f} ms")
    print("  slowest endpoints (handler median per call; x = against the median request):")
    for name, t in sorted(ep_median.items(), key=lambda kv: -kv[1])[:args.top]:
        print(f"    {name:48s} {len(by_endpoint[name]):4d} calls {t:9.1f} us {t / overall:7.1f}x")
    print("  slowest requests (handler median):")
    for i in sorted(range(len(requests)), key=lambda i: -per_call[i])[:args.top // 3]:
        print(f"    {requests[i][0].api} {requests[i][0].method} {requests[i][3][:60]:60s} {per_call[i]:9.1f} us")
    if mismatches:
        print(f"MISMATCH: {mismatches} repeated requests answered differently from their first answer", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
