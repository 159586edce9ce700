"""Benchmark: native snapshot/restore against reset + replay, for every registered env.

For each id in ``treegym.envs.ENVS`` that can be made here (ids whose extras
are missing are skipped with a note), the script plays ``depth`` actions from
``reset(seed=...)`` (the env's expert action when it has one, else the first
valid action, else a seeded sample), then measures in the same run:

* ``snapshot``  - ``treegym.envs.snapshot(env)`` at that depth;
* ``restore``   - ``treegym.envs.restore(env, snap)`` back to it;
* ``replay``    - the baseline: ``env.reset(seed, options)`` + the same actions.

It prints medians (microseconds) and the ratio replay / restore. Target for
Game24: native restore at least 50x faster than replay.

    python scripts/bench_rollback.py [--env ID ...] [--depth N] [--repeats N] [--budget S]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from typing import Any, Callable

import gymnasium as gym

import treegym.envs as te

DEFAULT_DEPTH = {"treegym/Game24-v0": 3}
FALLBACK_DEPTH = 5
TARGETS = {"treegym/Game24-v0": 50.0}  # minimum replay/restore ratio


def timed(fn: Callable[[], Any], repeats: int, budget: float) -> float:
    """Median seconds of ``fn()`` over up to ``repeats`` calls (at least 5) within ``budget`` seconds."""
    samples: list[float] = []
    start = time.perf_counter()
    while len(samples) < repeats and (len(samples) < 5 or time.perf_counter() - start < budget):
        t0 = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples)


def choose_action(env: gym.Env, obs: Any, step: int) -> Any:
    try:
        advice = env.unwrapped.expert()  # the env-agent contract; None when the env has no expert
    except Exception:  # noqa: BLE001 - an expert that fails just means: use another action
        advice = None
    if advice is not None and advice.next_action is not None:
        return advice.next_action
    valid = obs.get("valid_actions") if isinstance(obs, dict) else None
    if valid:
        return valid[0]
    env.action_space.seed(step)
    return env.action_space.sample()


def play_prefix(env: gym.Env, seed: int, depth: int) -> tuple[list[Any], Any]:
    """Reset and play up to ``depth`` actions; returns the actions and the last observation."""
    obs, _info = env.reset(seed=seed)
    actions: list[Any] = []
    for i in range(depth):
        a = choose_action(env, obs, i)
        obs, _r, term, trunc, _info = env.step(a)
        actions.append(a)
        if term or trunc:
            break
    return actions, obs


def bench_env(env_id: str, depth: int, seed: int, repeats: int, budget: float) -> dict | str:
    """One table row for ``env_id``, or a string saying why it was skipped."""
    try:
        env = gym.make(env_id)
    except (gym.error.DependencyNotInstalled, ImportError) as exc:
        return f"skipped (extra not installed: {exc})"
    except Exception as exc:  # noqa: BLE001 - a broken env must not stop the table
        return f"skipped (cannot be made here: {type(exc).__name__}: {exc})"
    try:
        actions, obs_at = play_prefix(env, seed, depth)
        snap = te.snapshot(env)

        def replay() -> Any:
            o, _ = env.reset(seed=seed)
            for a in actions:
                o = env.step(a)[0]
            return o

        t_snapshot = timed(lambda: te.snapshot(env), repeats, budget)
        t_restore = timed(lambda: te.restore(env, snap), repeats, budget)
        t_replay = timed(replay, repeats, budget)
        same = te.first_difference(te.restore(env, snap)[0], obs_at) is None
        same = same and te.first_difference(replay(), obs_at) is None
        return {
            "env": env_id, "kind": te.snapshot_kind(env), "depth": len(actions),
            "snapshot": t_snapshot, "restore": t_restore, "replay": t_replay,
            "ratio": t_replay / t_restore if t_restore > 0 else float("inf"), "same": same,
        }
    except Exception as exc:  # noqa: BLE001
        return f"skipped (failed while measuring: {type(exc).__name__}: {exc})"
    finally:
        env.close()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--env", action="append", help="env id to measure (repeatable; default: every registered id)")
    p.add_argument("--depth", type=int, help=f"actions before the snapshot (default {DEFAULT_DEPTH}, else {FALLBACK_DEPTH})")
    p.add_argument("--seed", type=int, default=0, help="reset seed (default 0)")
    p.add_argument("--repeats", type=int, default=500, help="max timed calls per measurement (default 500)")
    p.add_argument("--budget", type=float, default=2.0, help="seconds per measurement after 5 calls (default 2)")
    args = p.parse_args(argv)
    if args.depth is not None and args.depth < 0:
        p.error("--depth must be >= 0")
    ids = args.env or list(te.ENVS)
    unknown = [i for i in ids if i not in te.ENVS]
    if unknown:
        p.error(f"unknown env id(s) {unknown}; registered: {', '.join(te.ENVS)}")

    rows, notes, missed = [], [], []
    for env_id in ids:
        depth = args.depth if args.depth is not None else DEFAULT_DEPTH.get(env_id, FALLBACK_DEPTH)
        print(f"measuring {env_id} at depth {depth} ...", file=sys.stderr, flush=True)
        row = bench_env(env_id, depth, args.seed, args.repeats, args.budget)
        if isinstance(row, str):
            notes.append(f"{env_id}: {row}")
            continue
        rows.append(row)
        target = TARGETS.get(env_id)
        if target is not None and row["ratio"] < target:
            missed.append(f"{env_id}: replay/restore {row['ratio']:.0f}x < target {target:.0f}x")

    header = (
        f"{'env':<28} {'kind':<8} {'depth':>5} {'snapshot us':>12} {'restore us':>11} "
        f"{'replay us':>11} {'replay/restore':>15}"
    )
    print(header)
    print("-" * len(header))
    for r in rows:
        print(
            f"{r['env']:<28} {r['kind']:<8} {r['depth']:>5} {r['snapshot'] * 1e6:>12.1f} "
            f"{r['restore'] * 1e6:>11.1f} {r['replay'] * 1e6:>11.1f} {r['ratio']:>14.1f}x"
            + ("" if r["same"] else "  (restore/replay observation differs!)")
        )
    for n in notes:
        print(n)
    for env_id, target in TARGETS.items():
        if any(r["env"] == env_id for r in rows):
            status = "MISSED" if any(m.startswith(env_id) for m in missed) else "met"
            print(f"target {env_id}: restore >= {target:.0f}x faster than replay: {status}")
    return 1 if missed or any(not r["same"] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
