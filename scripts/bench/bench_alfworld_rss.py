"""ALFWorld memory: does the process's RSS stay flat over many tree searches?

    python -m treegym.scripts.bench.bench_alfworld_rss [--searches 100] [--tasks 10] [--agent mcts] [--budget 30]

Runs ``--searches`` seeded searches (``--agent`` with the synthetic LLM, whose truth is the env's
planner expert) one after the other in this process, on ``--tasks`` shipped games taken in turn
(search ``i`` plays game ``i % tasks`` with seed ``i``), each on a fresh ``gym.make`` env that is
closed afterwards. Prints the RSS after the first ``--tasks`` searches (every game loaded once, the
caches warm) and after each tenth of the run; target: the RSS at the end within 10 % of the RSS
after ``--tasks`` searches. ``--tasks 0`` plays a new game every search (RSS then grows with the
games parsed and cached: bounded by the game cache, not a leak), reported for reference.
"""
from __future__ import annotations

import argparse
import gc
import os
import sys
import time

from treegym.scripts.bench.bench_support import rss_mb
from treegym.agents.llm_specs import make_llm
from treegym.agents.registry import make_agent
import treegym.envs  # noqa: F401 - registers the ids
from treegym.envs.alfworld.tasks import shipped_games

ENV_ID = "treegym/ALFWorld-v0"
LLM_SPEC = "synthetic:p_correct=0.7,judge_acc=0.8,value_noise=0.3,seed={seed}"


def one_search(agent: str, task_id: str, seed: int, budget: int) -> int:
    """One search from reset on ``task_id``; returns its expansions."""
    import gymnasium as gym

    env = gym.make(ENV_ID)
    try:
        obs, info = env.reset(options={"task_id": task_id})
        llm = make_llm(LLM_SPEC.format(seed=seed), env_id=ENV_ID)
        policy = make_agent(agent, ENV_ID, llm, seed=seed, budget=budget)
        policy.reset()
        policy.bind(env)
        policy.run_search(obs, info)
        return int(policy.stats().get("search_expansions", 0))
    finally:
        env.close()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--searches", type=int, default=100)
    ap.add_argument("--tasks", type=int, default=10, help="games taken in turn (0: a new game every search)")
    ap.add_argument("--agent", default="mcts")
    ap.add_argument("--budget", type=int, default=30)
    args = ap.parse_args(argv)
    ids = list(shipped_games())
    pool = ids[: args.tasks] if args.tasks else ids
    warm = args.tasks or 1
    print(f"load average {os.getloadavg()[0]:.2f}; RSS at start {rss_mb():.1f} MB")
    marks: dict[int, float] = {}
    t0 = time.perf_counter()
    expansions = 0
    for i in range(args.searches):
        expansions += one_search(args.agent, pool[i % len(pool)], i, args.budget)
        done = i + 1
        if done == warm or done % max(1, args.searches // 10) == 0 or done == args.searches:
            gc.collect()
            marks[done] = rss_mb()
            print(f"  after {done:4d} searches: RSS {marks[done]:7.1f} MB  ({expansions} expansions, "
                  f"{time.perf_counter() - t0:.1f} s)", flush=True)
    base, end = marks[warm], marks[args.searches]
    growth = (end - base) / base * 100.0
    ok = growth <= 10.0
    print(f"RSS after {warm} searches {base:.1f} MB, after {args.searches} {end:.1f} MB: {growth:+.1f} % "
          f"(target within 10 %: {'met' if ok else 'MISSED'}); load average {os.getloadavg()[0]:.2f}")
    return 0 if ok or not args.tasks else 1


if __name__ == "__main__":
    sys.exit(main())
