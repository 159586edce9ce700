"""TextWorld-v0: step cost against textworld's own env, and native snapshot+restore against reset+replay.

    python -m treegym.scripts.bench.bench_textworld [--depth 10] [--repeats 30] [--games coin_1,cooking_1,...]

For each game: reset, play ``depth`` seeded random admissible commands (stopping
short of an ending). Then, ``repeats`` times, interleaved in one loop:

* ``tw step``: textworld's own env (``textworld.start`` with the same requested
  infos as ours) resets and plays the ``depth`` commands; each ``step`` is timed;
* ``our step``: ``treegym/TextWorld-v0`` does the same (``reset`` + replay);
* ``snapshot+restore``: one ``snapshot()`` + ``restore()`` at depth ``depth``;
* ``expand``: what a search does per child: ``restore()`` + ``step("look")`` + ``snapshot()``
  (the progression copy that snapshot and restore defer lands in this step).

Prints medians, the step ratio ours / textworld's (the same-run ratio: issue 26
asks for no slower than textworld's own) and the replay / snapshot+restore ratio,
with ``os.getloadavg()``.
"""
from __future__ import annotations

import argparse
import os
import statistics
import time

import gymnasium as gym
import numpy as np

import treegym.envs as te
from treegym.envs.textworld.env import _REQUEST
from treegym.envs.textworld.gamefiles import load_games


def _walk(env, depth: int, rng: np.random.Generator) -> list[str]:
    actions: list[str] = []
    obs, _ = env.reset()
    while len(actions) < depth:
        snap = te.snapshot(env)
        a = str(rng.choice(obs["valid_actions"]))
        obs, _r, term, trunc, _i = env.step(a)
        if term or trunc:          # keep the branch alive: undo an ending and pick another command
            obs, _info = te.restore(env, snap)
            continue
        actions.append(a)
    return actions


def bench_game(game: str, depth: int, repeats: int) -> dict[str, float]:
    import textworld

    env = gym.make("treegym/TextWorld-v0", task_ids=[game], max_steps=10 * depth + 10)
    tw = textworld.start(load_games()[game].path, request_infos=_REQUEST)
    rng = np.random.default_rng(0)
    env.reset(options={"task_id": game})
    actions = _walk(env, depth, rng)
    snap_t, replay_t, step_t, tw_step_t, expand_t = [], [], [], [], []
    for _ in range(repeats):
        tw.reset()
        for a in actions:
            t1 = time.perf_counter()
            tw.step(a)
            tw_step_t.append(time.perf_counter() - t1)

        t = time.perf_counter()
        env.reset(options={"task_id": game})
        for a in actions:
            t1 = time.perf_counter()
            env.step(a)
            step_t.append(time.perf_counter() - t1)
        replay_t.append(time.perf_counter() - t)

        t = time.perf_counter()
        s = te.snapshot(env)
        te.restore(env, s)
        snap_t.append(time.perf_counter() - t)

        t = time.perf_counter()
        te.restore(env, s)
        env.step("look")
        te.snapshot(env)
        expand_t.append(time.perf_counter() - t)
    env.close()
    tw.close()
    return {"snap": statistics.median(snap_t), "replay": statistics.median(replay_t),
            "step": statistics.median(step_t), "tw_step": statistics.median(tw_step_t),
            "expand": statistics.median(expand_t)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--depth", type=int, default=10)
    ap.add_argument("--repeats", type=int, default=30)
    ap.add_argument("--games", default="coin_1,cooking_1,simple_1,treasure_1")
    args = ap.parse_args()
    print(f"TextWorld-v0, depth {args.depth}, {args.repeats} repeats, medians, load {os.getloadavg()[0]:.1f}")
    print(f"{'game':<12} {'tw step':>9} {'our step':>9} {'ours/tw':>8} {'snapshot+restore':>17} "
          f"{'reset+replay':>13} {'ratio':>7} {'expand':>9}")
    ratios, step_ratios = [], []
    for game in args.games.split(","):
        r = bench_game(game, args.depth, args.repeats)
        ratios.append(r["replay"] / r["snap"])
        step_ratios.append(r["step"] / r["tw_step"])
        print(f"{game:<12} {r['tw_step'] * 1e3:>6.2f} ms {r['step'] * 1e3:>6.2f} ms {step_ratios[-1]:>7.2f}x "
              f"{r['snap'] * 1e3:>14.2f} ms {r['replay'] * 1e3:>10.1f} ms {ratios[-1]:>6.1f}x "
              f"{r['expand'] * 1e3:>6.2f} ms")
    print(f"median step ratio (ours / textworld's own): {statistics.median(step_ratios):.2f}x")
    print(f"median ratio (reset+replay / snapshot+restore): {statistics.median(ratios):.1f}x")
    print(f"load after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
