"""``treegym textworld make``: generate TextWorld games with textworld's own ``tw-make`` (needs treegym[textworld]).

    treegym textworld make tw-simple --seed 1 --output games/simple.z8 --extra "--rewards dense --goal detailed"

Runs ``tw-make <game type> --seed S --output PATH [extra tw-make options]`` and
checks the ``.z8`` and ``.json`` were written; play the result with
``gym.make("treegym/TextWorld-v0", games=["games/simple.z8"])``.
Game types: custom, tw-simple, tw-cooking, tw-coin_collector, tw-treasure_hunter.
"""
from __future__ import annotations

import argparse
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

GAME_TYPES = ("custom", "tw-simple", "tw-cooking", "tw-coin_collector", "tw-treasure_hunter")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("textworld", help="generate TextWorld games (tw-make)", description=__doc__,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="textworld_command", metavar="ACTION")
    make = sub.add_parser("make", help="tw-make one game")
    make.add_argument("game_type", choices=GAME_TYPES)
    make.add_argument("--seed", type=int, required=True)
    make.add_argument("--output", required=True, help="path of the .z8 file to write")
    make.add_argument("--extra", default="", help='more tw-make options, one string (e.g. "--level 5")')
    make.set_defaults(func=_make)
    parser.set_defaults(func=lambda args: (parser.print_help(), 2)[1])


def _make(args: argparse.Namespace) -> int:
    tw_make = shutil.which("tw-make") or str(Path(sys.executable).with_name("tw-make"))
    if not Path(tw_make).exists():
        print("treegym textworld make: tw-make not found; pip install 'treegym[textworld]'", file=sys.stderr)
        return 2
    out = Path(args.output)
    if out.suffix != ".z8":
        print(f"treegym textworld make: --output must end in .z8 (TextWorld 1.7 writes only .z8), got {out}",
              file=sys.stderr)
        return 2
    out.parent.mkdir(parents=True, exist_ok=True)
    extra = shlex.split(args.extra)
    cmd = [tw_make, args.game_type, "--seed", str(args.seed), "--output", str(out), "-f", "--silent", *extra]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0 or not out.is_file() or not out.with_suffix(".json").is_file():
        print(f"treegym textworld make: tw-make failed (exit {proc.returncode}):\n{proc.stdout}{proc.stderr}",
              file=sys.stderr)
        return 1
    print(f"wrote {out} and {out.with_suffix('.json')}")
    return 0
