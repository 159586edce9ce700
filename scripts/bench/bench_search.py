"""Benchmark: search-framework overhead per node expansion, per algorithm, on Game of 24.

Each algorithm searches ``--puzzles`` puzzles of the test split with a
deterministic offline model (the synthetic LLM). Time spent inside the model's
``complete`` is measured and subtracted, so what is left is the agent's own
cost: prompt building, parsing, tree bookkeeping, and the env work of each
expansion. The baseline, measured in the same run on the same puzzles, is the
env work alone that one expansion needs: ``restore`` a snapshot, ``step`` one
action, ``snapshot`` the result (the suite helpers on a ``gym.make`` env).

Per algorithm it prints the median over puzzles of

* ``framework`` - (search CPU time - model CPU time) / expansions, in microseconds;
* ``baseline``  - restore + step + snapshot per expansion, in microseconds;
* ``adapter``   - of the framework time, the env's prompt spec: prompt building and parsing;
* ``ratio``     - framework / baseline;
* ``search code`` - framework - adapter - baseline: what the algorithm and the
  search framework themselves add per expansion.

Times are CPU time of this process (``time.process_time``), so other work on
the machine does not inflate them. Target: ``framework`` under 1 ms per expansion.

    python -m treegym.scripts.bench.bench_search [--puzzles N] [--agents a,b] [--budget B]
"""
from __future__ import annotations

import argparse
import statistics
import time
from typing import Any, Sequence

from treegym.scripts.bench.bench_support import TimedLLM
from treegym.agents.llm_specs import make_llm
from treegym.agents.prompts import get_prompts
from treegym.agents.registry import make_agent
import treegym.envs  # noqa: F401 - registers the ids
from treegym.envs import restore, snapshot
from treegym.envs.registration import env_class

ENV_ID = "treegym/Game24-v0"
AGENTS = ("mcts", "lats", "dfsdt", "bfs", "dfs", "cot@3", "reflexion", "sc@5", "elo", "astar")
LLM_SPEC = "synthetic:p_correct=0.5,judge_acc=0.8,value_noise=0.3,seed=0"
TARGET_US = 1000.0


class TimedAdapter:
    """An env's prompt spec that forwards every hook and adds up the time spent in them
    (prompt building and answer parsing: the LLM-facing part of the framework)."""

    def __init__(self, adapter: Any):
        self._adapter = adapter
        self.seconds = 0.0

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._adapter, name)
        if not callable(attr):
            return attr

        def timed(*args: Any, **kwargs: Any) -> Any:
            t0 = time.process_time()
            try:
                return attr(*args, **kwargs)
            finally:
                self.seconds += time.process_time() - t0

        return timed


def search_cost(agent: str, task_id: int, spec: str, budget: int) -> tuple[float, float, int]:
    """(framework seconds, of which adapter seconds, expansions) for one search of ``agent`` on ``task_id``."""
    import gymnasium as gym

    env = gym.make(ENV_ID)
    try:
        obs, info = env.reset(options={"task_id": task_id})
        llm = TimedLLM(make_llm(spec, env_id=ENV_ID))
        adapter = TimedAdapter(get_prompts(ENV_ID))
        options: dict[str, Any] = {"budget": budget, "prompts": adapter}
        if agent in ("mcts", "lats", "bfs", "dfs"):
            options["stop_on_success"] = False  # grow a full-size tree
        if agent.startswith(("cot@", "reflexion")):
            options["peek_success"] = True  # these baselines are defined by the success signal
        policy = make_agent(agent, ENV_ID, llm, seed=0, **options)
        policy.reset()
        policy.bind(env)
        t0 = time.process_time()
        policy.run_search(obs, info)
        cpu = time.process_time() - t0
        expansions = int(policy.stats().get("search_expansions", 0))
        return cpu - llm.cpu_seconds, adapter.seconds, expansions
    finally:
        env.close()


def baseline_cost(task_id: int, repeats: int = 200) -> float:
    """Seconds per restore + step + snapshot on a gym.make env (median of ``repeats``)."""
    import gymnasium as gym

    env = gym.make(ENV_ID)
    try:
        obs, _ = env.reset(options={"task_id": task_id})
        root = snapshot(env)
        actions = list(obs["valid_actions"])
        samples = []
        for i in range(repeats):
            t0 = time.process_time()
            restore(env, root)
            env.step(actions[i % len(actions)])
            snapshot(env)
            samples.append(time.process_time() - t0)
        return statistics.median(samples)
    finally:
        env.close()


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="bench_search", description=__doc__.split("\n\n")[0])
    p.add_argument("--agents", default=",".join(AGENTS))
    p.add_argument("--puzzles", type=int, default=10, help="first N test puzzles (default 10)")
    p.add_argument("--budget", type=int, default=100, help="LLM calls per search (default 100)")
    p.add_argument("--llm", default=LLM_SPEC)
    args = p.parse_args(argv)
    if args.puzzles < 1 or args.budget < 1:
        raise SystemExit("bench_search: --puzzles and --budget must be at least 1")

    tasks = env_class(ENV_ID).split_task_ids("test")[: args.puzzles]
    base_per_task = {t: baseline_cost(t) for t in tasks}
    agents = [a.strip() for a in args.agents.split(",") if a.strip()]
    search_cost(agents[0], tasks[0], args.llm, args.budget)  # warm-up: imports, caches, first-call costs
    rows = []
    for agent in agents:
        per_exp, adapter_part, base, counts = [], [], [], []
        for t in tasks:
            seconds, adapter_seconds, expansions = search_cost(agent, t, args.llm, args.budget)
            if expansions:
                per_exp.append(seconds / expansions)
                adapter_part.append(adapter_seconds / expansions)
                base.append(base_per_task[t])
                counts.append(expansions)
        if not per_exp:
            rows.append((agent, 0, None, None, None))
            continue
        med = statistics.median
        rows.append((agent, med(counts), med(per_exp) * 1e6, med(adapter_part) * 1e6, med(base) * 1e6))

    print(f"Game of 24, {len(tasks)} test puzzles, budget {args.budget} calls, LLM {args.llm} (its time subtracted)")
    print("medians over puzzles, microseconds per node expansion")
    print(f"{'agent':10s} {'expansions':>10s} {'framework':>10s} {'adapter':>8s} {'baseline':>9s} {'ratio':>6s} "
          f"{'search code':>12s}  target: framework < {TARGET_US:.0f}")
    worst = 0.0
    for agent, n, fw, ad, bl in rows:
        if fw is None:
            print(f"{agent:10s} {'0':>10s}  (no expansions)")
            continue
        worst = max(worst, fw)
        print(f"{agent:10s} {n:10.0f} {fw:10.1f} {ad:8.1f} {bl:9.1f} {fw / bl:6.1f} {fw - ad - bl:12.1f}  "
              f"{'ok' if fw < TARGET_US else 'OVER'}")
    print("framework = search CPU time - LLM CPU time; adapter = prompt building + parsing (part of framework);")
    print("baseline = restore + step + snapshot of one expansion, measured in this run; "
          "search code = framework - adapter - baseline")
    print(f"worst framework cost per expansion: {worst:.1f} us ({'within' if worst < TARGET_US else 'over'} "
          f"the {TARGET_US:.0f} us target)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
