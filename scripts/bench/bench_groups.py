"""Benchmark: starting a GRPO group of 16 from one state, by fork against by reset + replay.

For each env (default WebShop and ALFWorld) the script plays ``depth`` actions (the env's
expert, else the first valid action; ``bench_rollback.play_prefix``) on a source env and
snapshots it there. A fork-aware vector env of ``--group`` sub-envs
(``gym.make_vec(id, n)``, ``envs/core/vector.py``) then starts the group two ways, timed
in the same run, interleaved (fork, replay, fork, replay, ...):

* ``fork``   - ``vec.restore(snap)``: the snapshot restored into every sub-env;
* ``replay`` - the baseline: ``vec.reset(seed=[seed] * n)`` then the ``depth`` actions, batched.

Before every timed start each sub-env is moved to a different state (a reset to another
seed, then one step), so no restore lands on the state it already holds. After the timing,
every sub-env started by fork is checked against one started by replay: the same observation,
and the same observation, reward and end flags after one more action. Figures are medians of
this process's CPU time (a long replay on a busy machine is preempted more often than a short
fork, so wall time would flatter the fork); wall-time medians and the load average are printed
beside them. Target: fork >= 100x faster than replay, in CPU time, in every run.

``--load`` measures with a busy neighbour beside it (``busy_neighbour.py``: ``--load-procs``
processes, each streaming a ``--load-mb`` MiB buffer and churning small Python objects, started
before the first env is built and stopped after the last run), standing for the inference server an
RL trainer's env workers share their machine with. ``--runs`` repeats the whole measurement (each run
its own medians), so one command gives several independent figures.

    python -m treegym.scripts.bench.bench_groups [--env ID ...] [--depth 8] [--group 16] [--repeats 31]
                                                 [--runs 1] [--load [--load-procs 2] [--load-mb 64]]
"""
from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import sys
import time
from typing import Any

import gymnasium as gym

import treegym.envs as te

from treegym.scripts.bench.bench_rollback import choose_action
from treegym.scripts.bench.busy_neighbour import BusyNeighbour

DEFAULT_ENVS = ("treegym/WebShop-v0", "treegym/ALFWorld-v0")
TARGET = 100.0


def load() -> str:
    return "load average %.2f %.2f %.2f" % os.getloadavg()


def scramble(vec: Any, seed: int, rep: int) -> None:
    """Put every sub-env in a state of its own, unlike the group's start state."""
    obs, _ = vec.reset(seed=[seed + 1000 + 97 * rep + i for i in range(vec.num_envs)])
    actions = [choose_action(env, {k: v[i] for k, v in obs.items()}, 0) for i, env in enumerate(vec.envs)]
    vec.step(actions)


def play_open_prefix(env: gym.Env, seed: int, depth: int) -> tuple[list[Any], Any]:
    """Reset and play ``depth`` actions that leave the episode open (the expert's where it does not end
    the episode, else the first valid action that does not; tried on a fork and undone when it ends)."""
    obs, _info = env.reset(seed=seed)
    actions: list[Any] = []
    for i in range(depth):
        valid = list(obs.get("valid_actions") or ()) if isinstance(obs, dict) else []
        here = te.snapshot(env)
        for a in [choose_action(env, obs, i)] + valid:
            step_obs, _r, term, trunc, _ = env.step(a)
            if not (term or trunc):
                obs = step_obs
                actions.append(a)
                break
            te.restore(env, here)
        else:
            raise RuntimeError(f"{env.spec.id}: every action ends the episode at step {i}; use a smaller --depth")
    return actions, obs


def step_all(vec: Any, action: Any) -> tuple:
    return vec.step([action] * vec.num_envs)


def bench_env(env_id: str, depth: int, group: int, seed: int, repeats: int) -> dict | str:
    try:
        source = gym.make(env_id)
        vec = gym.make_vec(env_id, group)
    except (gym.error.DependencyNotInstalled, ImportError) as exc:
        return f"skipped (extra not installed: {exc})"
    try:
        actions, obs_at = play_open_prefix(source, seed, depth)
        snap = te.snapshot(source)
        next_action = choose_action(source, obs_at, depth)

        def fork() -> None:
            vec.restore(snap)

        def replay() -> None:
            vec.reset(seed=[seed] * group)
            for a in actions:
                step_all(vec, a)

        cpu: dict[str, list[float]] = {"fork": [], "replay": []}
        wall: dict[str, list[float]] = {"fork": [], "replay": []}
        for rep in range(repeats):
            for name, fn in (("fork", fork), ("replay", replay)):
                scramble(vec, seed, rep)
                c0, w0 = time.process_time(), time.perf_counter()
                fn()
                cpu[name].append(time.process_time() - c0)
                wall[name].append(time.perf_counter() - w0)

        # restored == replayed, sub-env by sub-env: now and after one more action
        scramble(vec, seed, repeats)
        fork()
        forked = [te.snapshot(e) for e in vec.envs]
        after_fork = step_all(vec, next_action)
        replay()
        after_replay = step_all(vec, next_action)
        same = all(te.first_difference(te.restore(vec.envs[i], forked[i])[0], obs_at) is None for i in range(group))
        same = same and te.first_difference(after_fork[0], after_replay[0]) is None
        same = same and all((after_fork[j] == after_replay[j]).all() for j in (1, 2, 3))
        med = {k: {n: statistics.median(v) for n, v in d.items()} for k, d in (("cpu", cpu), ("wall", wall))}
        return {"env": env_id, "kind": te.snapshot_kind(source), "depth": len(actions), "group": group,
                "fork": med["cpu"]["fork"], "replay": med["cpu"]["replay"],
                "ratio": med["cpu"]["replay"] / max(med["cpu"]["fork"], 1e-9),
                "wall_fork": med["wall"]["fork"], "wall_replay": med["wall"]["replay"],
                "wall_ratio": med["wall"]["replay"] / max(med["wall"]["fork"], 1e-9), "same": same, "repeats": repeats}
    finally:
        vec.close()
        source.close()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--env", action="append", help=f"env id (repeatable; default {', '.join(DEFAULT_ENVS)})")
    p.add_argument("--depth", type=int, default=8, help="actions before the group's start state (default 8)")
    p.add_argument("--group", type=int, default=16, help="sub-envs in the group (default 16)")
    p.add_argument("--seed", type=int, default=0, help="reset seed of the start state (default 0)")
    p.add_argument("--repeats", type=int, default=31, help="interleaved repetitions of each start (default 31)")
    p.add_argument("--runs", type=int, default=1, help="independent runs of the whole measurement (default 1)")
    p.add_argument("--load", action="store_true", help="run a busy neighbour beside the measurement (busy_neighbour.py)")
    p.add_argument("--load-procs", type=int, default=2, help="neighbour processes with --load (default 2)")
    p.add_argument("--load-mb", type=int, default=64, help="MiB each neighbour process streams (default 64)")
    args = p.parse_args(argv)
    if args.depth < 0 or args.group < 1 or args.repeats < 1 or args.runs < 1:
        p.error("--depth must be >= 0, --group, --repeats and --runs >= 1")
    if args.load_procs < 1 or args.load_mb < 1:
        p.error("--load-procs and --load-mb must be >= 1")
    ids = args.env or list(DEFAULT_ENVS)
    unknown = [i for i in ids if i not in te.ENVS]
    if unknown:
        p.error(f"unknown env id(s) {unknown}; registered: {', '.join(te.ENVS)}")

    print(f"before: {load()}")
    neighbour = BusyNeighbour(args.load_procs, args.load_mb) if args.load else None
    rows = []
    with neighbour if neighbour is not None else contextlib.nullcontext():
        for run in range(1, args.runs + 1):
            for env_id in ids:
                print(f"measuring {env_id}: group of {args.group} at depth {args.depth}, run {run} ...",
                      file=sys.stderr, flush=True)
                row = bench_env(env_id, args.depth, args.group, args.seed, args.repeats)
                if isinstance(row, str):
                    print(f"{env_id}: {row}")
                    continue
                rows.append({**row, "run": run, "load": os.getloadavg()[0]})
    print(neighbour.describe() if neighbour is not None else "no neighbour (pass --load to run one)")
    return report(rows)


def report(rows: list[dict]) -> int:
    """Print one line per (run, env) and the target per env; 1 when any run misses it."""
    header = (f"{'env':<24} {'run':>3} {'load':>5} {'kind':<7} {'depth':>5} {'group':>5} {'fork ms':>9} {'replay ms':>10}"
              f" {'replay/fork':>12} {'wall: fork ms':>14} {'replay ms':>10} {'ratio':>7}  restored==replayed")
    print("CPU time of this process (other jobs on the machine do not count); wall time beside it; "
          "load: the 1-minute load average after the run")
    print(header)
    print("-" * len(header))
    for r in rows:
        print(f"{r['env']:<24} {r['run']:>3} {r['load']:>5.1f} {r['kind']:<7} {r['depth']:>5} {r['group']:>5} "
              f"{r['fork'] * 1e3:>9.3f} {r['replay'] * 1e3:>10.2f} {r['ratio']:>11.0f}x {r['wall_fork'] * 1e3:>14.3f} "
              f"{r['wall_replay'] * 1e3:>10.2f} {r['wall_ratio']:>6.0f}x  {'yes' if r['same'] else 'NO'}")
    failed = not rows
    for env_id in dict.fromkeys(r["env"] for r in rows):
        mine = [r for r in rows if r["env"] == env_id]
        ok = all(r["ratio"] >= TARGET and r["same"] for r in mine)
        ratios = ", ".join(f"{r['ratio']:.0f}x" for r in mine)
        failed = failed or not ok
        print(f"target {env_id}: group start by fork >= {TARGET:.0f}x faster than reset+replay (CPU time) in each of "
              f"{len(mine)} run(s): {'met' if ok else 'MISSED'} (ratios {ratios}; "
              f"medians of {mine[0]['repeats']} interleaved repetitions)")
    print(f"after: {load()}")
    return 1 if failed else 0

if __name__ == "__main__":
    sys.exit(main())
