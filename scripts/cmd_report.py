"""``treegym report RUNS... [--out DIR]``: run files to tables, figures, preference ranks and an HTML page.

RUNS are results JSONL files (``treegym run`` / ``treegym sweep``) or folders
holding them. See ``treegym.agents.experiments.report.build`` for the files written.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from treegym.agents.llm.base import LLMError

from .cmd_tree import TreeFileError, load_tree
from .run_checks import InputError, check_output_folder


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("report", help="tables, figures, preference ranks and an HTML page from run files")
    p.add_argument("runs", nargs="+", help="results JSONL files or folders of them")
    p.add_argument("--out", default="report", help="output folder (default ./report)")
    p.add_argument("--prices", default=None, metavar="FILE.json",
                   help='price table override: {"openai:gpt-4o-mini": [0.15, 0.60], ...} USD per 1M input/output tokens')
    p.add_argument("--judge", default=None,
                   help="preference judge: outcome (default, deterministic), synthetic:judge_acc=P,position_bias=P "
                        "(simulated), or an LLM spec such as openai:MODEL (ToolEval-style prompt, cached in the out folder)")
    p.add_argument("--no-figures", action="store_true", help="skip the PNG figures (no matplotlib needed)")
    p.add_argument("--max-trees", type=int, default=500, help="search trees embedded in the HTML page (default 500; further ones get pages of their own under trees/)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from treegym.agents.experiments.report.build import build_report
    from treegym.agents.experiments.report.records import RunFileError

    def loader(path: Path) -> dict:
        try:
            return load_tree(path)
        except TreeFileError as exc:
            raise ValueError(str(exc)) from None

    try:
        check_output_folder(args.out)
    except InputError as exc:
        print(f"treegym report: {exc}", file=sys.stderr)
        return 2
    try:
        rep = build_report(args.runs, args.out, prices=args.prices, judge=args.judge, figures=not args.no_figures,
                           max_trees=args.max_trees, tree_loader=loader)
    except (RunFileError, ValueError, RuntimeError, LLMError) as exc:
        print(f"treegym report: {exc}", file=sys.stderr)
        return 2
    print(f"treegym report: {rep.episodes} episodes -> {rep.out_dir}")
    for f in rep.files:
        print(f"  {f}")
    return 0
