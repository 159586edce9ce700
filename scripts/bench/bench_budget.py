"""Pass rate against LLM call budget on the Game of 24 test split, for every agent, in one run.

The shape of JUDEC/RaDAgent's Figure 3 (pass rate vs. API-call limit): every
agent runs every puzzle at every budget with one fixed synthetic LLM (a
simulated model of known accuracy over the env's exact oracle, so the run is
offline and reproducible). The budget is the episode's whole LLM call budget
(``treegym run --budget``): search agents search within it and play their
answer; the others (react, autogpt) stop when it is spent. The paper-faithful
baselines run too: JUDEC's ``judec-bfs``, ``judec-dfs``, ``judec-dfsdt`` (no
value calls, 3 decision sequences; their cells add JUDEC's any-of-the-3 pass
rate, ``any``) and RaDAgent's ``radagent-mcts@40`` (40 simulations per decision).

Writes, under ``--out`` (default ``runs/bench_budget``): one results file per
budget (``budget_<B>.jsonl``, resumable: a rerun skips finished episodes),
``table.md`` (pass rate % and mean calls per agent and budget) and
``pass_rate_vs_budget.png``.

    python -m treegym.scripts.bench.bench_budget --puzzles 20 --workers 2

Information: by default no agent reads the env's success flag or reward during
its search (``peek_success`` off for every agent); ``cot@3`` and ``reflexion``
are defined by that signal (pass@K, failure feedback) and are left out.
``--peek-success`` gives every search and attempt agent the oracle
(``peek_success=true``: stop at a won step, the env's verdict on final
states), cot@3 and reflexion included; its results go to ``*_peek`` files so
the two settings never mix.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Sequence
from treegym.agents.experiments.evaluation import RunConfig, evaluate
from treegym.agents.experiments.report.figures import SIMULATED_NOTE, plot_pass_rate_vs_budget
from treegym.agents.experiments.report.paper_metrics import any_of_sequences
from treegym.agents.experiments.summary import summarize
from treegym.agents.registry import agent_spec
from treegym.envs.registration import env_class

AGENTS = ("elo", "astar", "mcts", "lats", "dfsdt", "bfs", "dfs", "react", "cot@3", "reflexion", "sc@5", "autogpt",
          "judec-bfs", "judec-dfs", "judec-dfsdt", "radagent-mcts@40")
NEED_PEEK = ("cot@3", "reflexion")  # pass@K / failure feedback: defined by the env's success signal
NO_SEARCH = ("react", "autogpt")  # not search agents: no peek_success option (they never read success)
BUDGETS = (30, 50, 100, 200)
ENV_ID = "treegym/Game24-v0"
LLM_SPEC = "synthetic:p_correct=0.5,judge_acc=0.75,position_bias=0.1,value_noise=0.6,seed=0"


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="bench_budget", description=__doc__.split("\n\n")[0])
    p.add_argument("--agents", default=None,
                   help="comma-separated agent names (default: all twelve with --peek-success, else all but "
                        + " and ".join(NEED_PEEK) + ")")
    p.add_argument("--peek-success", action="store_true",
                   help="let every search/attempt agent read the env's success flag (peek_success=true)")
    p.add_argument("--budgets", default=",".join(map(str, BUDGETS)), help="comma-separated call budgets")
    p.add_argument("--puzzles", type=int, default=100, help="first N puzzles of the test split (default all 100)")
    p.add_argument("--split", default="test", help="Game of 24 split (default test = rows 900-999)")
    p.add_argument("--llm", default=LLM_SPEC, help=f"LLM spec (default {LLM_SPEC})")
    p.add_argument("--workers", type=int, default=2, help="episode threads per (agent, budget)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default="runs/bench_budget", help="output folder")
    return p.parse_args(argv)


def _ints(text: str, what: str) -> list[int]:
    try:
        values = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise SystemExit(f"bench_budget: --{what} must be comma-separated whole numbers, got {text!r}") from None
    if not values or any(v < 1 for v in values):
        raise SystemExit(f"bench_budget: --{what} needs at least one number >= 1, got {text!r}")
    return values


def run(args: argparse.Namespace) -> dict[str, dict[int, dict]]:
    """Evaluate every (agent, budget); returns summary[agent][budget]."""
    agents = _agents(args)
    budgets = _ints(args.budgets, "budgets")
    for a in agents:
        agent_spec(a)  # an unknown name fails now, with the list of known ones
    ids = env_class(ENV_ID).split_task_ids(args.split)
    if args.puzzles < 1:
        raise SystemExit("bench_budget: --puzzles must be at least 1")
    task_ids = ids[: args.puzzles]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    summary: dict[str, dict[int, dict]] = {a: {} for a in agents}
    for budget in budgets:
        for agent in agents:
            t0 = time.perf_counter()
            peek = args.peek_success and agent not in NO_SEARCH
            config = RunConfig(env_id=ENV_ID, agent=agent, llm_spec=args.llm, task_ids=task_ids, budget=budget,
                               workers=args.workers, seed=args.seed,
                               agent_options={"peek_success": True} if peek else None)
            suffix = "_peek" if args.peek_success else ""
            records = evaluate(config, out / f"budget_{budget}{suffix}.jsonl", progress=False)
            _check_setting(records, agent, peek, out / f"budget_{budget}{suffix}.jsonl")
            s = summarize(records)
            s["any_of_sequences"] = any_of_sequences(records) if agent.startswith("judec-") else None
            s["simulated"] = any((r.get("llm_info") or {}).get("simulated") for r in records)
            summary[agent][budget] = s
            print(f"budget {budget:4d}  {agent:10s}  pass {s['pass_rate'] * 100:5.1f}%  "
                  f"calls {s['mean_calls']:6.1f}  errors {s['errors']:3d}  {time.perf_counter() - t0:6.1f} s",
                  file=sys.stderr, flush=True)
    return summary


def _check_setting(records: list[dict], agent: str, peek: bool, path: Path) -> None:
    """Refuse results written under another ``peek_success`` setting (a results file from an older run)."""
    if agent in NO_SEARCH:
        return
    for r in records:
        stats = r.get("agent_stats") or {}
        if stats and stats.get("peek_success", None) is not peek:
            raise SystemExit(f"bench_budget: {path} holds {agent} episodes run with peek_success="
                             f"{stats.get('peek_success', 'unrecorded')}, not {peek}; move the file away and rerun")


def _agents(args: argparse.Namespace) -> list[str]:
    if args.agents is None:
        return [a for a in AGENTS if args.peek_success or a not in NEED_PEEK]
    agents = [a.strip() for a in args.agents.split(",") if a.strip()]
    missing = [a for a in agents if a in NEED_PEEK] if not args.peek_success else []
    if missing:
        raise SystemExit(f"bench_budget: {', '.join(missing)} need the env's success flag; add --peek-success")
    return agents


def table(summary: dict[str, dict[int, dict]], budgets: Sequence[int], title: str) -> str:
    head = "| agent | " + " | ".join(f"{b} calls" for b in budgets) + " |"
    lines = [title, "", head, "|---" * (len(budgets) + 1) + "|"]
    for agent, by_budget in summary.items():
        cells = []
        for b in budgets:
            s = by_budget.get(b)
            if not (s and s.get("episodes")):
                cells.append("-")
                continue
            anyof = f", any {s['any_of_sequences'] * 100:.0f}%" if s.get("any_of_sequences") is not None else ""
            cells.append(f"{s['pass_rate'] * 100:.0f}%{anyof} ({s['mean_calls']:.0f})")
        lines.append(f"| {agent} | " + " | ".join(cells) + " |")
    lines += ["", "Cells: pass rate (mean LLM calls used per episode); for JUDEC's baselines also the share of "
              "puzzles solved by any of their decision sequences (JUDEC 5.1's scoring, `any`)."]
    return "\n".join(lines)


def plot(summary: dict[str, dict[int, dict]], budgets: Sequence[int], path: Path, title: str) -> Path:
    """The pass-rate-vs-budget figure, drawn by ``treegym report``'s figure code."""
    series = {agent: {b: s["pass_rate"] for b, s in by_budget.items() if b in budgets and s.get("episodes")}
              for agent, by_budget in summary.items()}
    if any(s.get("simulated") for by_budget in summary.values() for s in by_budget.values()):
        title += "\n" + SIMULATED_NOTE  # the records say their LLM was simulated (llm_info)
    return plot_pass_rate_vs_budget(series, path, title, xlabel="LLM call budget per puzzle")


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    budgets = _ints(args.budgets, "budgets")
    t0 = time.perf_counter()
    summary = run(args)
    info = "every search agent reads the env's success flag" if args.peek_success else "no agent reads success"
    title = (f"Game of 24 ({args.split}, {args.puzzles} puzzles): pass rate vs. LLM call budget, {info}\n"
             f"LLM {args.llm}")
    text = table(summary, budgets, title.replace("\n", "; "))
    out = Path(args.out)
    suffix = "_peek" if args.peek_success else ""
    (out / f"table{suffix}.md").write_text(text + "\n")
    png = plot(summary, budgets, out / f"pass_rate_vs_budget{suffix}.png", title)
    print(text)
    print(f"\nwrote {out / f'table{suffix}.md'} and {png} in {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
