"""Parity of treegym's ALFWorld engine with the official one, on the shipped games.

    python -m treegym.scripts.dev.parity_alfworld [--games N] [--walk-steps 30] [--seed 0] [--out parity.json]

Needs ``pip install 'treegym[alfworld-official]'``. For each game it records
the official engine's transcripts of its planner's plan and of a seeded random
walk, replays them through ``gym.make("treegym/ALFWorld-v0")``
(:mod:`treegym.envs.alfworld.parity`) and prints the matching steps / games.
The committed golden transcripts give the same check without the official
engine (``tests/envs/alfworld/test_alfworld_golden.py``).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from treegym.envs.alfworld.generate import generate_game, parse_task_id, split_task_ids
from treegym.envs.alfworld.official import require_official
from treegym.envs.alfworld.parity import compare_game
from treegym.envs.alfworld.tasks import shipped_games


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=None, help="first N games only (default: all 134)")
    ap.add_argument("--every", type=int, default=1, help="every K-th game only (a spread sample; default: all)")
    ap.add_argument("--generated", type=int, default=0,
                    help="also the first N games of the generated_valid split (one task type after another)")
    ap.add_argument("--reverse", action="store_true", help="last game first (to split a run over two processes)")
    ap.add_argument("--walk-steps", type=int, default=30)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=None, help="write per-game results as JSON lines here")
    args = ap.parse_args(argv)
    if not require_official("parity_alfworld"):
        return 2
    games = dict(shipped_games())
    ids = list(games)[:: max(1, args.every)]
    ids = ids[: args.games] if args.games else ids
    if args.reverse:
        ids = ids[::-1]
    if args.generated:
        for tid in split_task_ids("generated_valid")[: args.generated]:
            games[tid] = generate_game(*parse_task_id(tid))
            ids.append(tid)
    out = open(args.out, "w", encoding="utf-8") if args.out else None
    steps = bad_steps = games_ok = plans_ok = 0
    start = time.perf_counter()
    for i, tid in enumerate(ids, 1):
        t = time.perf_counter()
        r = compare_game(tid, games[tid], seed=args.seed, walk_steps=args.walk_steps)
        took = time.perf_counter() - t
        steps += r.steps
        bad_steps += len(r.mismatches)
        games_ok += r.ok
        plans_ok += r.plan_won_official and r.plan_won_ours
        line = {"task_id": tid, "steps": r.steps, "mismatches": r.mismatches, "plan_len": r.plan_len,
                "plan_won_official": r.plan_won_official, "plan_won_ours": r.plan_won_ours}
        if out:
            out.write(json.dumps(line) + "\n")
            out.flush()
        print(f"[{i}/{len(ids)}] {'OK ' if r.ok else 'DIFF'} {tid}: {r.steps} steps, {took:.0f} s"
              + (f", first mismatch {r.mismatches[0]['where']} ({r.mismatches[0]['field']})" if r.mismatches else ""),
              flush=True)
    print(f"parity: {games_ok}/{len(ids)} games match at every step; {steps} compared steps, "
          f"{bad_steps} with a mismatch (at most 5 counted per game); official plans won in both engines: "
          f"{plans_ok}/{len(ids)}; {time.perf_counter() - start:.0f} s")
    return 0 if games_ok == len(ids) else 1


if __name__ == "__main__":
    sys.exit(main())
