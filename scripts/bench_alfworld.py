"""ALFWorld speed: treegym's engine against the official one, and snapshot+restore against reset+replay.

    python -m treegym.scripts.bench_alfworld [--games 5] [--steps 20] [--seed 0]

On the first ``--games`` shipped games, in one run:

* **reset**: treegym ``env.reset()`` (game parsed once and cached, as the
  registered env does) and a cold load (parse the game file + reset), against
  the official ``PddlEnv`` + ``AlfredDemangler`` ``load`` + ``reset``;
* **step**: the same seeded random walk (admissible commands) in both engines,
  each step returning the text, the admissible commands and ``won``;
* **fork**: at depth 10 of a walk, ``snapshot()`` + ``restore()`` against
  ``reset()`` + replaying the 10 commands (treegym env).

Medians, in milliseconds; ratios are official / treegym (targets: reset >= 100x,
step >= 50x). Without ``treegym[alfworld-official]`` only treegym's own figures print.
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
import time


def _ms(values: list[float]) -> float:
    return statistics.median(values) * 1000.0


def main(argv: list[str] | None = None) -> int:
    from treegym.envs.alfworld.env import ALFWorldEnv
    from treegym.envs.alfworld.game import Game
    from treegym.envs.alfworld.official import OfficialGame, official_available
    from treegym.envs.alfworld.tasks import shipped_games

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=5)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    games = shipped_games()
    ids = list(games)[:: max(1, len(games) // args.games)][: args.games]
    missing = official_available()

    env = ALFWorldEnv(task_ids=ids)
    ours = {"reset": [], "load+reset": [], "step": [], "snapshot+restore": [], "reset+replay(10)": []}
    theirs = {"load+reset": [], "reset": [], "step": []}
    for tid in ids:
        t = time.perf_counter()
        Game.from_data(games[tid], source=tid, task_id=tid)
        env.reset(options={"task_id": tid})
        ours["load+reset"].append(time.perf_counter() - t)
        for _ in range(5):
            t = time.perf_counter()
            obs, info = env.reset(options={"task_id": tid})
            ours["reset"].append(time.perf_counter() - t)
        rng = random.Random(f"{args.seed}:{tid}")
        walk = []
        for _ in range(args.steps):
            cmd = rng.choice(list(obs["valid_actions"]))
            walk.append(cmd)
            t = time.perf_counter()
            obs, r, term, trunc, info = env.step(cmd)
            ours["step"].append(time.perf_counter() - t)
            if term or trunc:
                break
        # fork at depth 10
        env.reset(options={"task_id": tid})
        prefix = walk[:10]
        for cmd in prefix:
            env.step(cmd)
        for _ in range(5):
            t = time.perf_counter()
            snap = env.snapshot()
            env.restore(snap)
            ours["snapshot+restore"].append(time.perf_counter() - t)
            t = time.perf_counter()
            env.reset(options={"task_id": tid})
            for cmd in prefix:
                env.step(cmd)
            ours["reset+replay(10)"].append(time.perf_counter() - t)
        if missing is None:
            t = time.perf_counter()
            official = OfficialGame(games[tid])
            official.reset()
            theirs["load+reset"].append(time.perf_counter() - t)
            t = time.perf_counter()
            official.reset()
            theirs["reset"].append(time.perf_counter() - t)
            for cmd in walk:
                t = time.perf_counter()
                official.step(cmd)
                theirs["step"].append(time.perf_counter() - t)

    print(f"ALFWorld bench: {len(ids)} games, up to {args.steps} random-walk steps each (medians, ms)")
    for k, v in ours.items():
        print(f"  treegym {k:<18} {_ms(v):10.3f}")
    fork = _ms(ours["reset+replay(10)"]) / max(_ms(ours["snapshot+restore"]), 1e-9)
    print(f"  fork at depth 10: snapshot+restore is {fork:,.0f}x faster than reset+replay")
    if missing is not None:
        print(f"  official engine not installed ({missing}); pip install 'treegym[alfworld-official]' for the ratios")
        return 0
    for k, v in theirs.items():
        print(f"  official {k:<17} {_ms(v):10.3f}")
    print(f"  reset ratio (official reset / treegym reset):           {_ms(theirs['reset']) / _ms(ours['reset']):8.0f}x"
          "  (target >= 100x)")
    print(f"  cold ratio (official load+reset / treegym parse+reset):  "
          f"{_ms(theirs['load+reset']) / _ms(ours['load+reset']):8.0f}x")
    print(f"  step ratio (official step / treegym step):              {_ms(theirs['step']) / _ms(ours['step']):8.0f}x"
          "  (target >= 50x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
