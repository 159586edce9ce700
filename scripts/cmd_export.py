"""``treegym export INPUT... --format dpo|sft|values|prm --out FILE.jsonl``: training data from saved search trees.

INPUTs are saved trees (files or folders of them) and run-record files (``treegym run ...
--save-trees``), whose records name their trees (a record without one is replayed into a
one-path tree). The line schemas are documented in
``treegym.agents.training.export`` and docs/training.md ("Export training data"). Exit 2 with one
line naming the problem for an unreadable or foreign input.
"""
from __future__ import annotations

import argparse
import sys

from .options import _number, positive_float

any_float = _number(float, float("-inf"), "a number")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("export", help="training data (DPO pairs, SFT trajectories, value labels) from saved search trees")
    p.add_argument("inputs", nargs="+", metavar="INPUT",
                   help="a saved tree (.json), a folder of them, or a run-record file (.jsonl); search runs need --save-trees")
    p.add_argument("--format", default="dpo", choices=("dpo", "sft", "values", "prm"),
                   help="dpo: step-level preference pairs (TRL prompt/chosen/rejected); sft: winning paths as chat "
                        "messages; values: per-node value labels; prm: labelled steps of every path to an end "
                        "(TRL stepwise supervision) (default dpo)")
    p.add_argument("--out", required=True, help="the JSONL file to write (replaced atomically)")
    p.add_argument("--value", default="outcome", choices=("outcome", "search"),
                   help="node value: outcome = share of successful ends below the node (env verdict); "
                        "search = the algorithm's own value (Elo, -f, Q, ...) in its units (default outcome)")
    p.add_argument("--min-gap", type=positive_float, default=0.5,
                   help="dpo: smallest value difference between the chosen and the rejected sibling (default 0.5)")
    p.add_argument("--label-threshold", type=any_float, default=0.5,
                   help="values, prm: label = value >= this (default 0.5)")
    p.add_argument("--no-system", action="store_true", help="no system message (the env's task description) first")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from treegym.agents.training.export import ExportOptions, export
    from treegym.agents.training.trees import ExportError

    opts = ExportOptions(format=args.format, value_source=args.value, min_gap=args.min_gap,
                         label_threshold=args.label_threshold, system=not args.no_system)
    try:
        counts = export(args.inputs, args.out, opts, warn=lambda m: print(f"treegym export: {m}", file=sys.stderr))
    except ExportError as exc:
        print(f"treegym: {exc}", file=sys.stderr)
        return 2
    replayed = counts.get("replayed", 0)
    made_of = f"{counts['trees']} saved tree(s)" + (f" and {replayed} record(s) without a tree, replayed as one "
                                                     "path each" if replayed else "")
    print(f"treegym export: {counts['lines']} {args.format} line(s) from {made_of} -> {args.out}")
    if counts["lines"] == 0:
        hint = {"dpo": "no sibling pair differs by --min-gap; try --value search or a smaller --min-gap",
                "sft": "no tree reached a successful end", "values": "the trees have no nodes below the root",
                "prm": "no path reached an end with every step valued"}
        print(f"treegym export: nothing written: {hint[args.format]}", file=sys.stderr)
    return 0
