"""The quickstart's main job: greedy decoding against search over env forks with the env's verifier.

One definition, used by ``scripts/quickstart.sh`` (the README's first command) and by
``scripts/dev/quickstart_seeds.py`` (the same job ten times with ten seeds):

* tasks: ten Game of 24 train puzzles, the ones where a uniformly random two-step start most
  often leaves a pair of numbers that still makes 24 (computed by the env's exact solver over
  every train puzzle, before any model is asked: a property of the puzzles, not of the model);
* ``react``: greedy ReAct, one grammar-constrained action per step at temperature 0;
* ``dfsdt``: ToolBench's DFSDT over env forks (``width=4``, backtracking one level after a
  failed attempt), moves sampled from the model's whole distribution at temperature 2.0,
  with ``peek_success=true``: the env's verifier says whether a finished attempt made 24, and
  the search stops at the first that did; at most ``BUDGET`` LLM calls a puzzle.

``run_job`` runs both as one ``treegym sweep`` (2 worker processes); ``summarise`` reads its
results file and ``closing_lines`` prints the two pass rates, their difference and its 95%
interval (Newcombe's hybrid score interval for a difference of two proportions, built from
Wilson intervals; it treats the two agents' episodes as independent samples, which is
conservative here, as both agents see the same puzzles).

    python -m treegym.scripts.quickstart_job run --out DIR [--seed S] [-- extra sweep args]
    python -m treegym.scripts.quickstart_job summary DIR/results.jsonl [--report DIR/report/index.html]
    python -m treegym.scripts.quickstart_job tree DIR/results.jsonl    # the tree file worth showing
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from treegym.envs.core.stats import newcombe

from .cli import main as treegym

ENV_ID = "treegym/Game24-v0"
SPLIT = "train"
#: train rows 36, 15, 98, 250, 116, 68, 135, 38, 18, 17: 12 12 12 12, 2 2 2 12, 4 6 6 6, 2 12 12 12, 3 8 8 8,
#: 11 11 11 13, 11 13 13 13, 4 4 4 6, 3 3 3 8, 1 1 12 12 (a random two-step start leaves a pair that
#: makes 24 in 24-41% of tries; a random three-step attempt makes 24 in 5-10%)
TASKS = (36, 15, 98, 250, 116, 68, 135, 38, 18, 17)
GREEDY = "react"
SEARCH = "dfsdt"
SEARCH_OPTIONS = {"peek_success": "true", "prune_back": "1", "temperature": "2.0", "width": "4"}
BUDGET = 40
WORKERS = 2


def sweep_argv(out_dir: str | os.PathLike, seed: int, extra: Sequence[str] = ()) -> list[str]:
    """The ``treegym sweep`` arguments of the main job, results in ``out_dir/results.jsonl``."""
    out = Path(out_dir)
    argv = ["sweep", "--env", ENV_ID, "--split", SPLIT, "--tasks", ",".join(map(str, TASKS)),
            "--agents", f"{GREEDY},{SEARCH}", "--budgets", str(BUDGET), "--seeds", str(seed),
            "--workers", str(WORKERS), "--backend", "process",
            "--out", str(out / "results.jsonl"), "--trees", str(out / "trees"), "--no-progress"]
    for key, value in SEARCH_OPTIONS.items():
        argv += ["--agent-opt", f"{SEARCH}:{key}={value}"]
    return argv + list(extra)


def run_job(out_dir: str | os.PathLike, seed: int = 0, extra: Sequence[str] = ()) -> int:
    """Run the main job as one sweep; the embedded model samples with run seed ``seed``
    (``TREEGYM_LOCAL_SEED``). Returns the sweep's exit code."""
    before = os.environ.get("TREEGYM_LOCAL_SEED")
    os.environ["TREEGYM_LOCAL_SEED"] = str(seed)  # read by the embedded model's client in every worker
    try:
        return treegym(sweep_argv(out_dir, seed, extra))
    finally:
        if before is None:
            os.environ.pop("TREEGYM_LOCAL_SEED", None)
        else:
            os.environ["TREEGYM_LOCAL_SEED"] = before


# ---- the results
@dataclass(frozen=True)
class Outcome:
    """Both agents' results in one results file."""

    greedy_solved: int
    greedy_n: int
    search_solved: int
    search_n: int
    search_calls: float  # mean LLM calls per search episode
    errors: int  # episodes that ended in an error (counted as not solved)
    llm: str

    @property
    def interval(self) -> tuple[float, float]:
        return newcombe(self.search_solved, self.search_n, self.greedy_solved, self.greedy_n)

    @property
    def search_wins(self) -> bool:
        """Whether search beat greedy with a 95% interval of the difference above zero."""
        return self.interval[0] > 0


class JobResultsError(ValueError):
    """The results file does not hold both agents' episodes."""


def read_records(results: str | os.PathLike) -> list[dict]:
    """The records of a results file (JSON lines)."""
    path = Path(results)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise JobResultsError(f"cannot read {path} ({exc}); run the main job first") from None
    records = []
    for no, line in enumerate(lines, 1):
        if line.strip():
            try:
                records.append(json.loads(line))
            except ValueError:
                raise JobResultsError(f"{path}:{no} is not a JSON line; delete the file and run again") from None
    return records


def tree_to_show(records: Sequence[dict]) -> str | None:
    """The tree file of the solved search episode with the fewest LLM calls, else of the first search episode."""
    trees = [r for r in records if (r.get("agent_stats") or {}).get("tree_json")]
    trees.sort(key=lambda r: (not r.get("success"), r.get("llm_calls") or 0, str(r.get("task_id"))))
    return trees[0]["agent_stats"]["tree_json"] if trees else None


def summarise(results: str | os.PathLike) -> Outcome:
    """Count each agent's solved episodes in a results file of the main job."""
    path = Path(results)
    records = read_records(path)
    by_agent: dict[str, list[dict]] = {GREEDY: [], SEARCH: []}
    for r in records:
        if r.get("agent") in by_agent:
            by_agent[r["agent"]].append(r)
    missing = [a for a, rs in by_agent.items() if not rs]
    if missing:
        raise JobResultsError(f"{path} has no episodes of {', '.join(missing)}; run the main job to the end")
    search = by_agent[SEARCH]
    return Outcome(
        greedy_solved=sum(bool(r.get("success")) for r in by_agent[GREEDY]), greedy_n=len(by_agent[GREEDY]),
        search_solved=sum(bool(r.get("success")) for r in search), search_n=len(search),
        search_calls=sum(float(r.get("llm_calls") or 0) for r in search) / len(search),
        errors=sum(bool(r.get("error")) for r in records), llm=str(records[0].get("llm") or "?"))


def interval_text(outcome: Outcome) -> str:
    lo, hi = outcome.interval
    return f"[{100 * lo:+.0f}, {100 * hi:+.0f}] points"


def closing_lines(outcome: Outcome, report: str | None = None) -> list[str]:
    """What the first command ends with: both pass rates, the interval, where the gain comes from."""
    o = outcome
    diff = 100 * (o.search_solved / o.search_n - o.greedy_solved / o.greedy_n)
    options = ",".join(f"{k}={v}" for k, v in SEARCH_OPTIONS.items())
    lines = [
        f"Same model ({o.llm}), {o.greedy_n} Game of 24 puzzles, pass rates:",
        f"  greedy ReAct (temperature 0, one attempt):   {o.greedy_solved:>2}/{o.greedy_n} solved",
        f"  DFSDT over env forks + the env's verifier:   {o.search_solved:>2}/{o.search_n} solved "
        f"({o.search_calls:.0f} LLM calls a puzzle on average, at most {BUDGET}; {options})",
        f"  difference {diff:+.0f} points, 95% interval {interval_text(o)} (Newcombe's hybrid score interval)",
    ]
    if o.search_wins:
        lines.append("  Search beats greedy here. The gain comes from forking and checking, not from the model's "
                     "judgement: the search samples moves at temperature 2.0, backtracks by "
                     "restoring env snapshots, and stops when the env's verifier says an attempt made 24.")
    else:
        lines.append("  Search did not beat greedy with an interval above zero in this run.")
    if o.errors:
        lines.append(f"  {o.errors} episode(s) ended in an error and count as not solved; see the report.")
    if report:
        lines.append(f"HTML report (tables and every search tree): {report}")
    lines.append("The same job on a real model: OPENAI_BASE_URL=http://HOST:PORT/v1 OPENAI_API_KEY=KEY "
                 "TREEGYM_MODEL=NAME bash scripts/quickstart.sh")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run the main job (extra arguments after -- go to treegym sweep)")
    run.add_argument("--out", required=True, help="folder for results.jsonl and trees/")
    run.add_argument("--seed", type=int, default=0, help="the embedded model's run seed (default 0)")
    run.add_argument("extra", nargs=argparse.REMAINDER)
    summary = sub.add_parser("summary", help="the closing lines from a results file of the main job")
    summary.add_argument("results")
    summary.add_argument("--report", default=None, help="the HTML report's path, to print")
    tree = sub.add_parser("tree", help="print the path of the search tree worth showing (nothing if none)")
    tree.add_argument("results")
    args = ap.parse_args(argv)
    if args.command == "run":
        extra = args.extra[1:] if args.extra[:1] == ["--"] else args.extra
        return run_job(args.out, args.seed, extra)
    try:
        if args.command == "tree":
            print(tree_to_show(read_records(args.results)) or "")
            return 0
        outcome = summarise(args.results)
    except JobResultsError as exc:
        print(f"quickstart: {exc}", file=sys.stderr)
        return 2
    print("\n".join(closing_lines(outcome, args.report)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
