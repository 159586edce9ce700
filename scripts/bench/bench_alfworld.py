"""ALFWorld speed: step (compiled goal vs the generic evaluator vs the official engine), reset, and a cold
restore at depth 8 against reset+replay, with every restored state checked against a replayed one.

    python -m treegym.scripts.bench.bench_alfworld [--games 16] [--steps 20] [--depth 8] [--repeats 7] [--seed 0]

On ``--games`` shipped games spread over the split, in one run, ``--repeats`` interleaved rounds
(every measure once per game per round; the figure is the median over rounds of the round's median):

* **step**: ``env.step`` along a seeded random walk over the admissible commands (each step returns
  the text, the admissible commands and ``won``), with the goal compiled once per game
  (:mod:`treegym.envs.alfworld.goal`) and, interleaved, with the generic PDDL evaluator forced on
  every step (what every step paid before the compiled goal);
* **reset**: ``env.reset`` of a game already parsed (the registered env caches parsed games);
* **fork**: a snapshot taken at depth ``--depth`` of an ordinary walk (no step on it ends the
  episode) is restored *cold*: the env is first moved to another game's state, so no restore lands
  on the state it holds. Baseline: ``reset`` of the game + replaying the ``--depth`` commands. After
  every timed pair the restored and the replayed observation, info and facts must be equal;
  The same restore from the snapshot's pickled bytes (unpickle + restore: a fresh state object,
  whose admissible commands are computed again) is timed too;
* **snapshot size**: ``len(pickle.dumps(env.snapshot()))`` at that depth, and the game by value.

The official engine (textworld ``PddlEnv`` + ALFWorld's demangler, ``treegym[alfworld-official]``)
is timed on the same walks when installed; otherwise the ratio uses the stored figure
``OFFICIAL_STEP_MS`` (see there for its source) and says so. Load averages are printed.
"""
from __future__ import annotations

import argparse
import os
import pickle
import random
import statistics
import sys
import time
from treegym.envs.alfworld import goal as goal_mod
from treegym.envs.alfworld.env import ALFWorldEnv
from treegym.envs.alfworld.official import OfficialGame, official_available
from treegym.envs.alfworld.tasks import shipped_games

# The official step when it is not installed here: 73 ms, the median over all 134 valid_unseen games of
# PddlEnv.step with admissible commands (textworld 1.7.0, alfworld 0.4.2, fast-downward-textworld
# 20.6.4, 2-core box), from /work/shared/research/alfworld.md ("Measured on real valid_unseen games").
# The same note's range over games is 47-110 ms.
OFFICIAL_STEP_MS = 73.0
OFFICIAL_SOURCE = "stored: median over the 134 games, research/alfworld.md (range 47-110 ms)"


def _load() -> str:
    return "load average %.2f %.2f %.2f" % os.getloadavg()


def _med(xs: list[float]) -> float:
    return statistics.median(xs) * 1000.0


def _open_walk(env, task_id: str, depth: int, seed: int) -> list[str]:
    """``depth`` seeded random commands from reset, none of which ends the episode."""
    obs, _ = env.reset(options={"task_id": task_id})
    rng = random.Random(f"{seed}:{task_id}")
    walk: list[str] = []
    while len(walk) < depth:
        here = env.snapshot()
        choices = list(obs["valid_actions"])
        rng.shuffle(choices)
        for cmd in choices:
            obs, _r, term, trunc, _i = env.step(cmd)
            if not (term or trunc):
                walk.append(cmd)
                break
            env.restore(here)
        else:
            raise RuntimeError(f"{task_id}: every command at depth {len(walk)} ends the episode")
    return walk


def _frame(env, obs: dict, info: dict) -> tuple:
    keep = ("won", "moves", "steps", "admissible_commands", "invalid_action", "task_id")
    return (obs["text"], tuple(obs["valid_actions"]), {k: info[k] for k in keep}, env.state.facts, env.state.history)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=16)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--depth", type=int, default=8)
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    games = shipped_games()
    ids = list(games)[:: max(1, len(games) // args.games)][: args.games]
    missing = official_available()
    print(f"before: {_load()}")

    env = ALFWorldEnv(task_ids=ids)
    walks = {tid: _open_walk(env, tid, max(args.steps, args.depth), args.seed) for tid in ids}
    forks = {}
    for tid in ids:
        env.reset(options={"task_id": tid})
        for cmd in walks[tid][: args.depth]:
            env.step(cmd)
        forks[tid] = env.snapshot()
    compiled = {tid: goal_mod.goal_checker(env.engine.task(tid)) for tid in ids}

    class _Generic(goal_mod.GoalChecker):
        """The generic evaluator on every step (no grounding, no relevance shortcut)."""

        def __init__(self, game):
            super().__init__(game)
            self.fallback = "forced by the benchmark"

    generic = {tid: _Generic(env.engine.task(tid)) for tid in ids}

    def time_walk(tid: str) -> list[float]:
        env.reset(options={"task_id": tid})
        out = []
        for cmd in walks[tid][: args.steps]:
            t = time.perf_counter()
            env.step(cmd)
            out.append(time.perf_counter() - t)
        return out

    rounds: dict[str, list[float]] = {k: [] for k in ("step", "step_generic", "reset", "restore", "restore_pickled",
                                                      "replay")}
    pickled = {tid: pickle.dumps(forks[tid]) for tid in ids}
    mismatches = checked = 0
    other = {tid: forks[ids[(i + 1) % len(ids)]] for i, tid in enumerate(ids)}
    for _rep in range(args.repeats):
        per: dict[str, list[float]] = {k: [] for k in rounds}
        for tid in ids:
            game = env.engine.task(tid)
            per["step"] += time_walk(tid)
            goal_mod._CHECKERS[game] = generic[tid]
            try:
                per["step_generic"] += time_walk(tid)
            finally:
                goal_mod._CHECKERS[game] = compiled[tid]
            t = time.perf_counter()
            env.reset(options={"task_id": tid})
            per["reset"].append(time.perf_counter() - t)
            # cold restore: the env holds another game's state first
            env.restore(other[tid])
            t = time.perf_counter()
            obs, info = env.restore(forks[tid])
            per["restore"].append(time.perf_counter() - t)
            restored = _frame(env, obs, info)
            # the same from the snapshot's bytes: unpickled (a fresh state, nothing memoised), then restored
            env.restore(other[tid])
            t = time.perf_counter()
            obs, info = env.restore(pickle.loads(pickled[tid]))
            per["restore_pickled"].append(time.perf_counter() - t)
            mismatches += _frame(env, obs, info) != restored
            env.restore(other[tid])
            t = time.perf_counter()
            obs, info = env.reset(options={"task_id": tid})
            for cmd in walks[tid][: args.depth]:
                obs, _r, _te, _tr, info = env.step(cmd)
            per["replay"].append(time.perf_counter() - t)
            checked += 1
            mismatches += restored != _frame(env, obs, info)
        for k, v in per.items():
            rounds[k].append(statistics.median(v))

    official_step = None
    if missing is None:
        times = []
        for tid in ids:
            official = OfficialGame(games[tid])
            official.reset()
            for cmd in walks[tid][: args.steps]:
                t = time.perf_counter()
                official.step(cmd)
                times.append(time.perf_counter() - t)
        official_step = _med(times)

    fig = {k: statistics.median(v) * 1000.0 for k, v in rounds.items()}
    env.reset(options={"task_id": ids[0]})
    env.restore(forks[ids[0]])
    snap_bytes = statistics.median(len(pickle.dumps(s)) for s in forks.values())
    game_bytes = statistics.median(len(pickle.dumps(env.engine.task(t).__dict__)) for t in ids)
    print(f"ALFWorld bench: {len(ids)} shipped games, {args.steps}-step walks, fork depth {args.depth}, "
          f"{args.repeats} interleaved rounds (medians, ms)")
    print(f"  step (compiled goal)               {fig['step']:9.3f}")
    print(f"  step (generic goal evaluator)      {fig['step_generic']:9.3f}   "
          f"compiled is {fig['step_generic'] / fig['step']:.1f}x faster (same run)")
    print(f"  reset (parsed game)                {fig['reset']:9.3f}")
    print(f"  cold restore at depth {args.depth}            {fig['restore']:9.3f}")
    print(f"  unpickle + cold restore            {fig['restore_pickled']:9.3f}   (admissible commands recomputed)")
    print(f"  reset + replay of {args.depth}               {fig['replay']:9.3f}   "
          f"restore is {fig['replay'] / fig['restore']:.0f}x faster (same run)")
    print(f"  restored == replayed: {checked - mismatches}/{checked}")
    print(f"  snapshot pickled at depth {args.depth}: {snap_bytes:.0f} bytes (the game by value: {game_bytes:.0f} bytes)")
    if official_step is not None:
        print(f"  official step (same run)           {official_step:9.3f}   ratio {official_step / fig['step']:.0f}x")
    else:
        print(f"  official step {OFFICIAL_STEP_MS:.0f} ms ({OFFICIAL_SOURCE}; not installed here: {missing})")
        print(f"  step ratio vs that stored figure: {OFFICIAL_STEP_MS / fig['step']:.0f}x (target >= 200x; "
              f"not same-run)")
    print(f"after: {_load()}")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
