"""Record the golden ALFWorld transcripts with the official engine (once; the result is committed).

    python -m treegym.scripts.dev.make_alfworld_transcripts [--out tests/fixtures/alfworld_golden.jsonl.xz]
        [--games N] [--walk-steps 30] [--seed 0] [--jobs 2]

Needs ``pip install 'treegym[alfworld-official]'`` (fast-downward compiles from
source). For each of the 134 shipped games it records the official planner's
plan and a seeded random walk (:func:`treegym.envs.alfworld.transcripts.record_official`).
Finished games go to ``OUT.partial.jsonl`` as they complete, so an interrupted
run resumes where it stopped; the xz file is written, in task-id order, when
every game is done. ``tests/envs/alfworld/test_alfworld_golden.py`` replays the file through
``gym.make`` in the default suite.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from treegym.envs.alfworld.official import require_official
from treegym.envs.alfworld.tasks import shipped_games
from treegym.envs.alfworld.transcripts import Transcript, record_official, save


def _record(task_id: str, seed: int, walk_steps: int) -> list[dict]:
    return [t.to_json() for t in record_official(task_id, shipped_games()[task_id], seed=seed, walk_steps=walk_steps)]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="tests/fixtures/alfworld_golden.jsonl.xz")
    ap.add_argument("--games", type=int, default=None, help="first N games only (default: all 134)")
    ap.add_argument("--walk-steps", type=int, default=30)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=2, help="worker processes (the official engine is CPU-bound)")
    args = ap.parse_args(argv)
    if not require_official("make_alfworld_transcripts"):
        return 2
    ids = list(shipped_games())[: args.games] if args.games else list(shipped_games())
    out = Path(args.out)
    partial = out.with_name(out.name + ".partial.jsonl")
    done: dict[str, list[dict]] = {}
    if partial.is_file():
        for line in partial.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            if row["seed"] == args.seed:
                done.setdefault(row["task_id"], []).append(row)
    todo = [t for t in ids if len(done.get(t, ())) != 2]
    print(f"{len(ids) - len(todo)} games already recorded in {partial}; recording {len(todo)}", flush=True)
    start = time.perf_counter()
    with partial.open("a", encoding="utf-8") as fh, ProcessPoolExecutor(max(1, args.jobs)) as pool:
        futures = {pool.submit(_record, tid, args.seed, args.walk_steps): tid for tid in todo}
        for i, fut in enumerate(as_completed(futures), 1):
            rows = fut.result()
            for row in rows:
                fh.write(json.dumps(row) + "\n")
            fh.flush()
            done[futures[fut]] = rows
            print(f"[{i}/{len(todo)}] {futures[fut]}: plan {len(rows[0]['commands'])} commands "
                  f"(won {rows[0]['frames'][-1][2]}), walk {len(rows[1]['commands'])}; "
                  f"{time.perf_counter() - start:.0f} s", flush=True)
    transcripts = [Transcript.from_json(row) for tid in ids for row in sorted(done[tid], key=lambda r: r["kind"])]
    n = save(out, transcripts)
    steps = sum(len(t.frames) for t in transcripts)
    print(f"wrote {n} transcripts ({steps} frames) of {len(ids)} games to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
