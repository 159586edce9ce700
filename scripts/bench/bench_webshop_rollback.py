"""Benchmark: WebShop native rollback (snapshot + restore) vs. reset + replay, at depth 8.

A tree search that returns to a node 8 actions deep either restores a snapshot
(``treegym.envs.snapshot`` / ``restore`` on the ``gym.make`` env: the session
record is the payload, so this is a few small object copies) or resets the
task and replays the 8 actions (each search re-queries the index). Both are
timed in the same run, on the same env and trajectory, interleaved (native,
replay, replay-kind, native, ...); before every timed start the env is moved
to another state (another goal's results, or the search page), so no restore
lands where the env already is, and every start is checked to give the very
observation the replay gives. Prints medians (wall and CPU time), their ratio
and the load average (target: native >= 100x faster).

    python scripts/bench/bench_webshop_rollback.py [--depth 8] [--repeats 60] [--catalog DIR | --products N]
                                             [--server-url URL]

The ratio grows with the catalog: replay pays one index query per search, and
a query on the small shipped catalog takes tens of microseconds, on 100k
products about a millisecond (``--products N`` generates a temporary catalog
of N products with the catalog generator and times that).

``--server-url`` times the HTTP mode instead (snapshot/restore go through the
site's JSON endpoints; replay sends every action over HTTP).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from typing import Any

import gymnasium as gym

import treegym.envs as te
from treegym.envs.webshop.generate import build_catalog


def trajectory(env: gym.Env, depth: int) -> list[str]:
    """``depth`` actions that never end the episode: search, open, browse tabs, pick options."""
    engine, session = env.unwrapped.engine, env.unwrapped.session
    goal = engine.goal(session)
    product = engine.catalog.product(goal.asin)
    actions = [f"search[{engine.expert_query(session)}]", f"click[{goal.asin}]"]
    options = [f"click[{v}]" for _, values in product.options for v in values]
    browse = ["click[Description]", "click[< Prev]", "click[Features]", "click[< Prev]",
              "click[Reviews]", "click[< Prev]"]
    extra = options + browse * depth  # all of these stay on the item page or its tabs
    return (actions + extra)[:depth]


def median_seconds(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--depth", type=int, default=8)
    ap.add_argument("--repeats", type=int, default=60)
    ap.add_argument("--task-id", type=int, default=0)
    ap.add_argument("--catalog", default=None, help="catalog directory (default: the shipped one)")
    ap.add_argument("--products", type=int, default=0, help="generate a temporary catalog of N products")
    ap.add_argument("--server-url", default=None, help="time HTTP mode against this running site")
    args = ap.parse_args(argv)
    if args.products:
        import tempfile

        t0 = time.perf_counter()
        args.catalog = str(build_catalog(tempfile.mkdtemp(prefix="webshop-bench-") + "/cat", args.products,
                                         max(args.task_id + 1, 10)))
        print(f"generated {args.products} products in {time.perf_counter() - t0:.1f} s at {args.catalog}")

    env = gym.make("treegym/WebShop-v0", catalog=args.catalog, split="all", max_steps=args.depth + 5,
                   server_url=args.server_url)
    options = {"task_id": args.task_id}
    env.reset(seed=0, options=options)
    actions = trajectory(env, args.depth)
    for a in actions:
        obs, _r, term, trunc, _info = env.step(a)
        assert not (term or trunc), f"trajectory ended early at {a!r}"
    target_obs = obs
    snap = te.snapshot(env)
    env.step("click[Back to Search]")  # move away so every restore does real work

    # The suite's replay fallback (what WebShop would get without native snapshots): restore =
    # reset + replay + observation-hash check, through the same snapshot API.
    fallback = te.WithReplaySnapshots(gym.make("treegym/WebShop-v0", catalog=args.catalog, split="all",
                                               max_steps=args.depth + 5, server_url=args.server_url))
    fallback.reset(seed=0, options=options)
    for a in actions:
        fallback.step(a)
    fallback_snap = te.snapshot(fallback)

    other = {"task_id": args.task_id + 1} if args.task_id + 1 < len(env.unwrapped.catalog.goals) else options

    def move_away(e: gym.Env, rep: int) -> None:
        """Put ``e`` in a state unlike the snapshot's (untimed): another goal's results page, or the
        same goal's search page, alternately."""
        e.reset(seed=0, options=other if rep % 2 else options)
        if rep % 2:
            e.step(f"search[{['red', 'blue', 'large', 'soft'][rep % 4]} pack]")

    def native() -> Any:
        te.snapshot(env)
        return te.restore(env, snap)[0]

    def replay() -> Any:
        obs = env.reset(seed=0, options=options)[0]
        for a in actions:
            obs = env.step(a)[0]
        return obs

    def replay_kind() -> Any:
        te.snapshot(fallback)
        return te.restore(fallback, fallback_snap)[0]

    # Interleaved repetitions: before each timed start the env is moved to another state, so no
    # restore lands on the state the env already holds; every result is checked against replay's.
    wall: dict[str, list[float]] = {"native": [], "replay": [], "fallback": []}
    cpu: dict[str, list[float]] = {k: [] for k in wall}
    for rep in range(args.repeats):
        for name, fn, e in (("native", native, env), ("replay", replay, env), ("fallback", replay_kind, fallback)):
            move_away(e, rep)
            t0, c0 = time.perf_counter(), time.process_time()
            got = fn()
            cpu[name].append(time.process_time() - c0)
            wall[name].append(time.perf_counter() - t0)
            assert got == target_obs, f"{name} start {rep} differs from the replayed observation"
    med = {k: statistics.median(v) for k, v in wall.items()}
    med_cpu = {k: statistics.median(v) for k, v in cpu.items()}
    mode = f"HTTP mode ({args.server_url})" if args.server_url else "in-process"
    print(f"WebShop rollback at depth {args.depth}, {mode}, catalog {env.unwrapped.catalog!r}")
    print(f"medians of {args.repeats} interleaved repetitions, each from another state, each checked equal "
          f"to the replayed observation; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"  snapshot+restore  median {med['native'] * 1e6:10.1f} us wall, {med_cpu['native'] * 1e6:10.1f} us CPU")
    print(f"  reset+replay      median {med['replay'] * 1e6:10.1f} us wall, {med_cpu['replay'] * 1e6:10.1f} us CPU")
    print(f"  replay-kind snapshot+restore (WithReplaySnapshots) median {med['fallback'] * 1e6:10.1f} us wall")
    ratio = med["replay"] / med["native"]
    ratio_cpu = med_cpu["replay"] / max(med_cpu["native"], 1e-9)
    print(f"  ratio reset+replay / native: {ratio:.0f}x wall, {ratio_cpu:.0f}x CPU  (target >= 100x: "
          f"{'met' if ratio >= 100 else 'NOT met'}); replay-kind / native: {med['fallback'] / med['native']:.0f}x")
    env.close()
    fallback.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
