"""``treegym textworld make``: generate TextWorld games for ``treegym/TextWorld-v0``.

* ``treegym textworld make --challenge coin --seeds 0:3 --out DIR`` writes
  ``DIR/coin_0.z8`` ... with their ``.json`` (needs ``treegym[textworld]``).
* Play them with ``--env-opt game_dir=DIR`` (or ``gym.make(..., game_dir=DIR)``).
"""
from __future__ import annotations

import argparse
import sys
import time


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("textworld", help="generate TextWorld games (tw-make)",
                                   description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="textworld_command", metavar="ACTION")
    make = sub.add_parser("make", help="generate games with tw-make, offline")
    make.add_argument("--challenge", default="simple",
                      help="simple | coin | treasure | cooking | custom (default simple)")
    make.add_argument("--seeds", default="0", help="seeds: N, A:B (B excluded) or 1,5,9 (default 0)")
    make.add_argument("--out", required=True, help="output folder")
    make.add_argument("--overwrite", action="store_true", help="replace games already in --out")
    make.add_argument("tw_args", nargs=argparse.REMAINDER,
                      help="after --, extra tw-make arguments (e.g. -- --level 30)")
    make.set_defaults(func=_make)
    parser.set_defaults(func=lambda args: parser.print_help() or 2)


def _seeds(text: str) -> list[int]:
    if ":" in text:
        a, b = text.split(":", 1)
        return list(range(int(a), int(b)))
    return [int(s) for s in text.split(",") if s.strip()]


def _make(args: argparse.Namespace) -> int:
    try:
        from treegym.envs.textworld.make import CHALLENGES, make_game
    except ImportError as exc:
        print(f"treegym textworld: {exc}", file=sys.stderr)
        return 2
    if args.challenge not in CHALLENGES:
        print(f"treegym textworld make: unknown --challenge {args.challenge!r}; choose from {sorted(CHALLENGES)}",
              file=sys.stderr)
        return 2
    try:
        seeds = _seeds(args.seeds)
    except ValueError:
        print(f"treegym textworld make: --seeds {args.seeds!r} is not N, A:B or a,b,c", file=sys.stderr)
        return 2
    if not seeds:
        print("treegym textworld make: --seeds gives no seed", file=sys.stderr)
        return 2
    extra = [a for a in args.tw_args if a != "--"]
    for seed in seeds:
        t = time.perf_counter()
        try:
            game = make_game(args.challenge, args.out, seed, extra_args=extra, overwrite=args.overwrite)
        except (FileExistsError, RuntimeError, ValueError) as exc:
            print(f"treegym textworld make: {exc}", file=sys.stderr)
            return 1
        print(f"{game.path}  ({time.perf_counter() - t:.1f} s)")
    print(f"play them with: treegym run treegym/TextWorld-v0 --env-opt game_dir={args.out} --agent oracle")
    return 0
