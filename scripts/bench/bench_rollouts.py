"""Benchmark: chain (GRPO) vs tree (Tree-GRPO) vs anchor (GiGPO-style) rollouts from real forks.

For each env (Game of 24, WebShop, ALFWorld) with the simulated LLM (``synthetic:p_correct=P``)
on ``--tasks`` tasks each, in one run:

1. **Equal trajectory counts**: chain G=8 vs tree M=2, N=1, L=3 (2 x (1 + 3) = 8 leaves per task
   when the trees have nodes to expand) vs anchor G=4, B=2, K=2 (4 + 4 = 8). Printed: trajectories,
   env steps, LLM calls, tokens, and per trajectory each of them as a ratio to chain.
2. **Equal LLM-call budgets**: per task, the tree (then the anchor) run's LLM calls C; chain
   sampling with ``budget=C`` (trajectories until C calls are spent; the last one finishes). Printed:
   trajectories per LLM call of each scheme and the ratio to chain's (Tree-GRPO reports ~1.5x more
   trajectories for the same budget on its QA tasks).
3. **Env time saved by restoring instead of replaying each branch's prefix**: for every branch
   point of the tree runs, a snapshot taken there; then, interleaved, (a) restore it into an env
   that is in another branch point's state and (b) reset a second env and replay the prefix's
   actions. Each restore is checked equal to its replay (observation text and valid actions).
   Printed: the summed medians over the branch points and their ratio, plus the run's own estimate.
4. One small run with the embedded model (``--local``, default on): Game24, chain G=4 vs tree
   M=2, N=1, L=1, counts only (a 135M model plays the plumbing, not the game).

The load average is printed before and after; compare schemes within one run.

    python -m treegym.scripts.bench.bench_rollouts [--tasks 6] [--p-correct 0.6] [--repeats 7] [--no-local]
        [--out bench_rollouts.json]
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from typing import Any

import gymnasium as gym

import treegym.envs as te
from treegym.agents import make_llm
from treegym.agents.training.rollouts import Accounting, Anchor, Chain, TreeSearch, sample_rollouts
from treegym.agents.training.rollouts.rows import row_path

from .bench_support import load_text, provenance

EQUAL_COUNT = {"chain": Chain(group=8), "tree": TreeSearch(trees=2, expand=1, iters=3),
               "anchor": Anchor(group=4, states=2, branch=2)}


def task_ids(env_id: str, n: int) -> list[Any]:
    if env_id.endswith("ALFWorld-v0"):
        return list(te.env_class(env_id).split_task_ids("valid_unseen"))[:n]
    start = 900 if env_id.endswith("Game24-v0") else 0
    return list(range(start, start + n))


def run(env_id: str, llm_spec: str, tasks: list[Any], scheme: Any, seed: int = 0) -> tuple[Accounting, list, list]:
    """Total accounting, per-task accountings and per-task rows of one scheme."""
    llm = make_llm(llm_spec, env_id=env_id)
    total, per_task, rows = Accounting(), [], []
    for _, task_rows, spent in sample_rollouts(env_id, llm, tasks, scheme, seed=seed, max_steps=20):
        total, per_task, rows = total + spent, per_task + [spent], rows + [task_rows]
    return total, per_task, rows


def per_traj(a: Accounting) -> dict[str, float]:
    n = max(a.trajectories, 1)
    return {"steps": a.env_steps / n, "calls": a.llm_calls / n, "tokens": a.tokens / n}


def equal_counts(env_id: str, llm: str, tasks: list[Any]) -> tuple[dict[str, Any], dict[str, list]]:
    out, per_task = {}, {}
    for mode, scheme in EQUAL_COUNT.items():
        total, tasks_acct, rows = run(env_id, llm, tasks, scheme)
        out[mode] = {**total.as_dict(), "per_trajectory": per_traj(total)}
        per_task[mode] = list(zip(tasks_acct, rows))
    base = out["chain"]["per_trajectory"]
    for mode in out:
        out[mode]["ratio_to_chain"] = {k: v / base[k] for k, v in out[mode]["per_trajectory"].items()}
    return out, per_task


def equal_budget(env_id: str, llm: str, tasks: list[Any], per_task: dict[str, list]) -> dict[str, Any]:
    out = {}
    for mode in ("tree", "anchor"):
        traj = calls = chain_traj = chain_calls = 0
        for i, (spent, _) in enumerate(per_task[mode]):
            chain, _, _ = run(env_id, llm, [tasks[i]], Chain(budget=spent.llm_calls), seed=i)
            traj, calls = traj + spent.trajectories, calls + spent.llm_calls
            chain_traj, chain_calls = chain_traj + chain.trajectories, chain_calls + chain.llm_calls
        out[mode] = {"trajectories": traj, "llm_calls": calls, "chain_trajectories": chain_traj,
                     "chain_llm_calls": chain_calls,
                     "trajectories_per_call_ratio": (traj / calls) / (chain_traj / chain_calls)}
    return out


def _seen(obs: dict) -> tuple:
    return str(obs.get("text", "")), tuple(str(a) for a in obs.get("valid_actions") or ())


def restore_vs_replay(env_id: str, tasks: list[Any], task_rows: list[list[dict]], repeats: int) -> dict[str, Any]:
    """Interleaved medians per branch point of restore (into another state) vs reset + prefix replay."""
    points = []  # (task, seed, prefix actions)
    for task, rows in zip(tasks, task_rows):
        nodes = {r["node"]: r for r in rows}
        children: dict[int, int] = {}
        for r in rows:
            if r["parent"] is not None:
                children[r["parent"]] = children.get(r["parent"], 0) + 1
        for node, count in children.items():
            if count > 1:
                points.append((task, nodes[node]["seed"], [r["action"] for r in row_path(nodes, node)]))
    if len(points) < 2:
        return {"branch_points": len(points)}
    a, b = gym.make(env_id), gym.make(env_id)
    snaps, replayed = [], []
    for task, seed, actions in points:
        a.reset(seed=seed, options={"task_id": task})
        for act in actions:
            obs, *_ = a.step(act)
        snaps.append(te.snapshot(a))
        replayed.append(_seen(obs))
    restore_s = [[] for _ in points]
    replay_s = [[] for _ in points]
    mismatches = 0
    for rep in range(repeats):
        for i, (task, seed, actions) in enumerate(points):
            te.restore(a, snaps[(i + 1) % len(points)])  # the env starts in another branch point's state
            t0 = time.perf_counter()
            obs, _ = te.restore(a, snaps[i])
            restore_s[i].append(time.perf_counter() - t0)
            mismatches += _seen(obs) != replayed[i]
            t0 = time.perf_counter()
            obs, _ = b.reset(seed=seed, options={"task_id": task})
            for act in actions:
                obs, *_ = b.step(act)
            replay_s[i].append(time.perf_counter() - t0)
            mismatches += _seen(obs) != replayed[i]
    a.close()
    b.close()
    restore = sum(statistics.median(x) for x in restore_s)
    replay = sum(statistics.median(x) for x in replay_s)
    return {"branch_points": len(points), "prefix_steps": sum(len(p[2]) for p in points),
            "restore_ms": restore * 1e3, "replay_ms": replay * 1e3, "replay_over_restore": replay / restore,
            "mismatches": mismatches, "repeats": repeats}


def local_run(tasks: int) -> dict[str, Any]:
    out = {}
    for mode, scheme in (("chain", Chain(group=4)), ("tree", TreeSearch(trees=2, expand=1, iters=1))):
        t0 = time.perf_counter()
        total, _, _ = run("treegym/Game24-v0", "local", task_ids("treegym/Game24-v0", tasks), scheme)
        out[mode] = {**total.as_dict(), "wall_s": time.perf_counter() - t0, "per_trajectory": per_traj(total)}
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--tasks", type=int, default=6, help="tasks per env (default 6)")
    p.add_argument("--p-correct", type=float, default=0.6, help="the simulated LLM's accuracy (default 0.6)")
    p.add_argument("--repeats", type=int, default=7, help="repetitions of the restore/replay timing (default 7)")
    p.add_argument("--envs", default="treegym/Game24-v0,treegym/WebShop-v0,treegym/ALFWorld-v0")
    p.add_argument("--no-local", action="store_true", help="skip the embedded-model run")
    p.add_argument("--local-tasks", type=int, default=2)
    p.add_argument("--out", default=None, help="also write the figures as JSON here")
    args = p.parse_args(argv)
    llm = f"synthetic:p_correct={args.p_correct}"
    report: dict[str, Any] = {"provenance": provenance(), "llm": llm, "load_before": load_text(), "envs": {}}
    print(f"bench_rollouts: {llm}, {args.tasks} tasks per env; {report['load_before']}", flush=True)
    for env_id in args.envs.split(","):
        tasks = task_ids(env_id, args.tasks)
        counts, per_task = equal_counts(env_id, llm, tasks)
        budget = equal_budget(env_id, llm, tasks, per_task)
        timing = restore_vs_replay(env_id, tasks, [rows for _, rows in per_task["tree"]], args.repeats)
        report["envs"][env_id] = {"equal_trajectories": counts, "equal_llm_calls": budget, "restore_vs_replay": timing}
        print(f"\n{env_id}  (equal trajectory counts; per trajectory, ratio to chain)")
        for mode, c in counts.items():
            r = c["ratio_to_chain"]
            print(f"  {mode:6s} {c['trajectories']:4d} traj {c['env_steps']:5d} steps {c['llm_calls']:5d} calls "
                  f"{c['tokens']:8d} tokens | steps x{r['steps']:.2f} calls x{r['calls']:.2f} tokens x{r['tokens']:.2f}"
                  f" | env time saved ~{c['env_seconds_saved'] * 1e3:.1f} ms (estimate)")
        for mode, b in budget.items():
            print(f"  equal LLM calls, {mode}: {b['trajectories']} traj / {b['llm_calls']} calls vs chain "
                  f"{b['chain_trajectories']} / {b['chain_llm_calls']}: trajectories per call x{b['trajectories_per_call_ratio']:.2f}")
        if "restore_ms" in timing:
            print(f"  restore vs replay at {timing['branch_points']} branch points ({timing['prefix_steps']} prefix steps): "
                  f"{timing['restore_ms']:.2f} ms vs {timing['replay_ms']:.2f} ms (x{timing['replay_over_restore']:.0f}), "
                  f"{timing['mismatches']} restore/replay mismatches, medians of {timing['repeats']}")
        sys.stdout.flush()
    if not args.no_local:
        report["local"] = local_run(args.local_tasks)
        print(f"\nembedded model (local), Game24, {args.local_tasks} tasks:")
        for mode, c in report["local"].items():
            print(f"  {mode:6s} {c['trajectories']:3d} traj {c['env_steps']:4d} steps {c['llm_calls']:4d} calls "
                  f"{c['tokens']:6d} tokens, {c['wall_s']:.1f} s; per trajectory: {c['per_trajectory']['steps']:.2f} steps")
    report["load_after"] = load_text()
    print(f"\n{report['load_after']}; commit {report['provenance']['git_commit']}")
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(report, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
