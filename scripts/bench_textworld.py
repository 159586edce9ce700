"""TextWorld-v0: native snapshot + restore against reset + replay, at depth 10 (medians, same run).

    python scripts/bench_textworld.py [--depth 10] [--repeats 30] [--games coin_1,cooking_1,...]

For each game: reset, play ``depth`` seeded random admissible commands (stopping
short of an ending), then time (a) ``snapshot()`` + ``restore()`` and (b) what an
env without snapshots must do to get back there: ``reset()`` + replay of the
``depth`` commands. Also the median ``step()`` time. Prints medians and the ratio.
"""
from __future__ import annotations

import argparse
import statistics
import time

import gymnasium as gym
import numpy as np

import treegym.envs as te


def _walk(env, depth: int, rng: np.random.Generator) -> list[str]:
    actions: list[str] = []
    obs, _ = env.reset()
    while len(actions) < depth:
        snap = te.snapshot(env)
        a = str(rng.choice(obs["valid_actions"]))
        obs, _r, term, trunc, _i = env.step(a)
        if term or trunc:          # keep the branch alive: undo an ending and pick another command
            te.restore(env, snap)
            obs = env.unwrapped._observe()[0]
            continue
        actions.append(a)
    return actions


def bench_game(game: str, depth: int, repeats: int) -> dict[str, float]:
    env = gym.make("treegym/TextWorld-v0", task_ids=[game], max_steps=10 * depth + 10)
    rng = np.random.default_rng(0)
    env.reset(options={"task_id": game})
    actions = _walk(env, depth, rng)
    snap_t, replay_t, step_t = [], [], []
    for _ in range(repeats):
        t = time.perf_counter()
        s = te.snapshot(env)
        te.restore(env, s)
        snap_t.append(time.perf_counter() - t)

        t = time.perf_counter()
        env.reset(options={"task_id": game})
        for a in actions:
            t1 = time.perf_counter()
            env.step(a)
            step_t.append(time.perf_counter() - t1)
        replay_t.append(time.perf_counter() - t)
    env.close()
    return {"snap": statistics.median(snap_t), "replay": statistics.median(replay_t),
            "step": statistics.median(step_t)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--depth", type=int, default=10)
    ap.add_argument("--repeats", type=int, default=30)
    ap.add_argument("--games", default="coin_1,cooking_1,simple_1,treasure_1")
    args = ap.parse_args()
    print(f"TextWorld-v0, depth {args.depth}, {args.repeats} repeats, medians")
    print(f"{'game':<12} {'snapshot+restore':>17} {'reset+replay':>13} {'ratio':>7} {'step':>9}")
    ratios = []
    for game in args.games.split(","):
        r = bench_game(game, args.depth, args.repeats)
        ratios.append(r["replay"] / r["snap"])
        print(f"{game:<12} {r['snap'] * 1e3:>14.2f} ms {r['replay'] * 1e3:>10.1f} ms {ratios[-1]:>6.1f}x "
              f"{r['step'] * 1e3:>6.2f} ms")
    print(f"median ratio (reset+replay / snapshot+restore): {statistics.median(ratios):.1f}x")


if __name__ == "__main__":
    main()
