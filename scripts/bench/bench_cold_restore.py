"""Benchmark: cold restore (snapshot bytes from another process) against warm restore, a step and
reset + replay, in a fresh worker process that holds another task, for every env family.

For each env, this process (the taker) walks ``repeats`` seeded random open walks of ``depth`` (8)
actions on each of two tasks (``reset(seed)`` and ``reset(seed + 1)``), snapshots every state and
turns it into bytes (``treegym.envs.snapshot_to_bytes``), with its reference: what reset + replay
shows there and the result of one more seeded action. A fresh worker process (``spawn``) makes the
env, resets it to a third task (``seed + 2``) and walks into it, then, interleaved repetition after
repetition, on the repetition's state (a state this worker has never seen):

* ``cold``: ``snapshot_from_bytes`` + ``restore`` (the observation it returns included), while the
  env holds another state (the previous repetition's, of the other task); ``unseal`` is its first
  part (checking the seal and unpickling), timed apart on the same bytes afterwards;
* ``step``: the env's step of the next action (checked against the taker's);
* ``warm``: restore of a snapshot the worker took itself of the same state, after that step;
* ``replay``: ``reset`` + replay of the state's actions (the baseline without snapshots).

Every cold and warm restore and every replay is checked against the taker's reference
(observation and info; then the next step's observation, reward, end flags and info); the first
difference voids the env's figures. ``first`` is the worker's first cold restore of each of the two tasks (repetitions 0 and 1), of a task
whose data (game, catalog, world) it has not loaded yet: loaded on demand, cached for the rest.
Figures are medians of CPU time (wall beside them) with the load average printed before and after;
``cold/step`` is the target (<= 1). An env whose restore is lazy (``bench_rollback.restores_lazily``:
TextWorld) is marked ``*``: its ``cold`` and ``warm`` are the restore alone and its ``step`` (the first
after the cold restore) loads the state, so its ``replay/cold`` is replay / (cold + step), the fork's
whole cost.

    python -m treegym.scripts.bench.bench_cold_restore [--env ID ...] [--depth 8] [--repeats 31]
"""
from __future__ import annotations

import multiprocessing
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

import gymnasium as gym
import numpy as np

import treegym.envs as te
from treegym.scripts.bench.bench_rollback import DEFAULT_DEPTH, _check, _check_step, _draw, attempt, \
    chosen_env_ids, env_arguments, open_walk, print_table, replay, restores_lazily
from treegym.scripts.bench.bench_support import Samples, interleave, load_text

TARGET_COLD_OVER_STEP = 1.0


@dataclass
class TravellingState:
    """A state taken in the taker process: its bytes, how to replay it, and its reference."""

    seed: int
    actions: list[Any]
    data: bytes
    obs: Any
    info: dict
    next_action: Any
    next_result: tuple


def take_states(env_id: str, seed: int, depth: int, count: int, max_steps: int) -> list[TravellingState]:
    """``count`` states per task of the tasks ``seed`` and ``seed + 1``, alternating (task 0, task 1, ...);
    different walks where the walks allow it."""
    env = gym.make(env_id, max_steps=max_steps)
    try:
        per_task: list[list[TravellingState]] = []
        for s in (seed, seed + 1):
            states: list[TravellingState] = []
            for w in range(count):
                rng = np.random.default_rng(1000 * s + w)
                actions = open_walk(env, s, depth, rng)
                obs, info, _r = replay(env, s, actions)
                data = te.snapshot_to_bytes(te.snapshot(env))
                nxt = _draw(obs, env, rng)
                states.append(TravellingState(s, actions, data, obs, info, nxt, env.step(nxt)))
            per_task.append(states)
        return [st for pair in zip(*per_task) for st in pair]
    finally:
        env.close()


def _hold_another_task(env: gym.Env, seed: int) -> None:
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(2):
        obs, _r, term, trunc, _i = env.step(_draw(obs, env, rng))
        if term or trunc:
            break


def worker(env_id: str, states: list[TravellingState], other_seed: int, max_steps: int) -> dict[str, Any]:
    """Runs in the fresh worker process: the figures of the module docstring, in seconds."""
    env = gym.make(env_id, max_steps=max_steps)
    samples = Samples()
    try:
        _hold_another_task(env, other_seed)

        def cold(rep: int) -> None:
            st = states[rep]
            where = f"cold restore of task seed {st.seed} (depth {len(st.actions)}), repetition {rep}"
            c0, w0 = Samples.clock()
            obs, info = te.restore(env, te.snapshot_from_bytes(st.data))
            c1, w1 = Samples.clock()
            samples.add("first" if rep < 2 else "cold", c1 - c0, w1 - w0)
            _check(where, [("observation", obs, st.obs), ("info", info, st.info)])
            mine = te.snapshot(env)
            result = samples.time("step", env.step, st.next_action)
            _check_step(f"{where}, next step {st.next_action!r}", result, st.next_result)
            obs, info = samples.time("warm", te.restore, env, mine)
            _check(f"warm restore, repetition {rep}", [("observation", obs, st.obs), ("info", info, st.info)])
            _check_step(f"warm restore, repetition {rep}, next step", env.step(st.next_action), st.next_result)
            te.release(env, mine)
            samples.time("unseal", te.snapshot_from_bytes, st.data)  # (its share of cold: the same bytes again)
            samples.add("cold+step", samples.cpu["first" if rep < 2 else "cold"][-1] + samples.cpu["step"][-1],
                        samples.wall["first" if rep < 2 else "cold"][-1] + samples.wall["step"][-1])

        def reset_replay(rep: int) -> None:
            st = states[rep]
            obs, info, _r = samples.time("replay", replay, env, st.seed, st.actions)
            _check(f"replay, repetition {rep}", [("observation", obs, st.obs), ("info", info, st.info)])
            # leave the env in the state before: the next cold restore comes from elsewhere
            _hold_another_task(env, other_seed)

        done = interleave([cold, reset_replay], len(states))
        return {"repeats": done, "lazy": restores_lazily(env),
                **{k: samples.summary(k) for k in ("first", "cold", "unseal", "step", "warm", "replay", "cold+step")}}
    finally:
        env.close()


def measure_cold_restore(env_id: str, *, seed: int = 0, depth: int = DEFAULT_DEPTH, repeats: int = 31) -> dict:
    """The figures for one env (see the module docstring), measured in a fresh spawned worker process."""
    max_steps = depth + 8
    states = take_states(env_id, seed, depth, (repeats + 1) // 2, max_steps)[:repeats]
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        out = pool.submit(worker, env_id, states, seed + 2, max_steps).result()
    out["depth"] = min(len(st.actions) for st in states)
    out["distinct"] = len({st.data for st in states})
    return out


def main(argv: list[str] | None = None) -> int:
    args_parser = env_arguments(__doc__.split("\n\n")[0], 31)  # (a repetition restores a new state)
    args = args_parser.parse_args(argv)
    ids = chosen_env_ids(args_parser, args, min_repeats=2)
    print(f"before: {load_text()}")
    header = (f"{'env':<24} {'depth':>5} {'step us':>9} {'cold us':>9} {'(unseal)':>9} {'warm us':>9} {'replay us':>10} "
              f"{'cold/step':>9} {'warm/step':>9} {'replay/cold':>11} {'first/step':>10}  (CPU medians; wall cold/step)")
    rows, failed, lazy_seen = [], False, False
    for env_id in ids:
        print(f"measuring {env_id} ...", file=sys.stderr, flush=True)
        r, refused = attempt(env_id, rows, lambda: measure_cold_restore(
            env_id, seed=args.seed, depth=args.depth, repeats=args.repeats))
        failed = failed or refused
        if r is None:
            continue
        med = {k: {c: r[k][c]["median"] for c in ("cpu", "wall")} for k in ("first", "cold", "unseal", "step", "warm", "replay")}
        step = med["step"]["cpu"]
        cold_over_step = med["cold"]["cpu"] / step
        # a lazy restore's fork is cold + the step that loads the state (module docstring)
        fork = r["cold+step"]["cpu"]["median"] if r["lazy"] else med["cold"]["cpu"]
        lazy_seen = lazy_seen or r["lazy"]
        name = env_id.removeprefix("treegym/") + ("*" if r["lazy"] else "")
        rows.append(f"{name:<24} {r['depth']:>5} {step * 1e6:>9.1f} "
                    f"{med['cold']['cpu'] * 1e6:>9.1f} {med['unseal']['cpu'] * 1e6:>9.1f} {med['warm']['cpu'] * 1e6:>9.1f} {med['replay']['cpu'] * 1e6:>10.1f} "
                    f"{cold_over_step:>9.2f} {med['warm']['cpu'] / step:>9.2f} "
                    f"{med['replay']['cpu'] / fork:>10.1f}x {med['first']['cpu'] / step:>10.1f}"
                    f"  (wall {med['cold']['wall'] / med['step']['wall']:.2f}; {r['repeats']} reps, "
                    f"{r['distinct']} distinct states)")
        if cold_over_step > TARGET_COLD_OVER_STEP:
            failed = True
            rows[-1] += "  MISSED cold <= 1 step"
    if lazy_seen:
        rows.append("* lazy restore: cold and warm are the restore alone; the step after it loads the state "
                    "(replay/cold = replay / (cold + step))")
    return print_table(header, rows, failed)


if __name__ == "__main__":
    sys.exit(main())
