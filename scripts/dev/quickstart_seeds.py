"""Does the quickstart's result hold? Its main job (``scripts/quickstart_job.py``) run afresh with ten seeds.

Each run is the whole job (greedy ReAct and DFSDT over forks with the env's verifier, same
embedded model, the same ten Game of 24 puzzles) with its own run seed for the model's sampling
(``TREEGYM_LOCAL_SEED``) and its own output folder, so nothing is reused between runs. Greedy
decoding at temperature 0 does not depend on the seed; the search's samples do. For every run it
prints both pass rates and the 95% interval of their difference (Newcombe's hybrid score
interval for a difference of two proportions, from Wilson intervals), then in how many runs the
interval lies above zero. The load average is printed beside each run: on a shared machine the
seconds vary, the pass rates should not.

    python scripts/dev/quickstart_seeds.py [--seeds 1:11] [--out runs/quickstart_seeds] [-- extra sweep args]
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Sequence

from treegym.scripts.quickstart_job import JobResultsError, interval_text, run_job, summarise


def parse_seeds(text: str) -> list[int]:
    """``A:B`` (A to B-1) or a comma list."""
    try:
        if ":" in text:
            a, b = text.split(":", 1)
            seeds = list(range(int(a), int(b)))
        else:
            seeds = [int(s) for s in text.split(",") if s.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"--seeds {text!r}: give A:B or a comma list of whole numbers") from None
    if not seeds:
        raise argparse.ArgumentTypeError(f"--seeds {text!r} names no seed")
    return seeds


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=parse_seeds, default=list(range(1, 11)), help="A:B or a comma list (default 1:11)")
    ap.add_argument("--out", default="runs/quickstart_seeds", help="one folder per seed under it (emptied first)")
    ap.add_argument("extra", nargs=argparse.REMAINDER, help="after --: extra treegym sweep arguments")
    args = ap.parse_args(argv)
    extra = args.extra[1:] if args.extra[:1] == ["--"] else args.extra
    wins = 0
    print(f"{len(args.seeds)} fresh runs of the quickstart's main job; load average at the start "
          f"{os.getloadavg()[0]:.2f} (2 cores shared)", flush=True)
    for seed in args.seeds:
        out = Path(args.out) / f"seed-{seed}"
        shutil.rmtree(out, ignore_errors=True)  # a fresh run, not a resumed one
        began = time.monotonic()
        code = run_job(out, seed, extra)
        took = time.monotonic() - began
        try:
            o = summarise(out / "results.jsonl")
        except JobResultsError as exc:
            print(f"seed {seed}: the job did not finish (exit code {code}): {exc}", flush=True)
            continue
        wins += o.search_wins
        print(f"seed {seed:>3}: greedy {o.greedy_solved}/{o.greedy_n}, search {o.search_solved}/{o.search_n}, "
              f"difference 95% interval {interval_text(o)}, {'above zero' if o.search_wins else 'NOT above zero'}; "
              f"{o.errors} errors, {took:.0f} s, load average {os.getloadavg()[0]:.2f}", flush=True)
    print(f"search over forks with the env's verifier beat greedy decoding with a 95% interval above zero "
          f"in {wins} of {len(args.seeds)} runs (Newcombe's hybrid score interval for a difference of proportions)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
