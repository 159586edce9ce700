"""Benchmark: WebShop memory over many searches (is RSS flat?).

Runs ``--searches`` seeded tree searches (``--agent``, default ``lats``, with the
synthetic LLM; one decision of the agent = one search of ``--budget`` expansions)
on the shipped catalog in one process, each on goal ``seed = i``, and prints the
resident set size (VmRSS) after the first 10 and after all of them, with the
byte totals of the engine's bounded caches. Target: RSS after 100 within 10% of
RSS after 10. The synthetic LLM keeps its own memo of states (bounded in bytes,
32 MB by default: ``TREEGYM_ORACLE_MEMO_MB``); ``--forget-oracle-memo`` clears
it after each search, to see the env's own memory alone.

    python -m treegym.scripts.bench.bench_webshop_memory [--searches 100] [--agent lats] [--budget 20] [--forget-oracle-memo]
"""
from __future__ import annotations

import argparse
import gc
import os
import sys
import time

import gymnasium as gym

import treegym.envs  # noqa: F401 - registers the env ids
from treegym.scripts.bench.bench_support import rss_mb
from treegym.agents.llm_specs import make_llm
from treegym.agents.policy import AgentGaveUp
from treegym.agents.registry import make_agent
from treegym.agents.simulated import oracle

LLM_SPEC = "synthetic:p_correct=0.5,judge_acc=0.8,value_noise=0.3,seed=0"
ENV_ID = "treegym/WebShop-v0"


def cache_bytes(env: gym.Env) -> dict[str, int]:
    """Estimated bytes held by the engine's memo tables (what the byte bounds limit)."""
    engine = env.unwrapped.engine
    return {name: getattr(engine, name).nbytes for name in ("_pages", "_renders", "_experts", "_tasks")}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--searches", type=int, default=100)
    ap.add_argument("--agent", default="lats")
    ap.add_argument("--budget", type=int, default=20)
    ap.add_argument("--catalog", default=None, help="catalog directory (default: the shipped one)")
    ap.add_argument("--forget-oracle-memo", action="store_true",
                    help="clear the synthetic LLM's per-process memo of states after each search (bounded at "
                         "32 MB by default, sessions included), to see the env's own memory alone")
    args = ap.parse_args(argv)

    env = gym.make(ENV_ID, catalog=args.catalog, split="all")

    marks: dict[int, float] = {}
    gave_up = 0
    t0 = time.perf_counter()
    for i in range(args.searches):
        obs, info = env.reset(seed=i)
        policy = make_agent(args.agent, ENV_ID, make_llm(LLM_SPEC, env_id=ENV_ID), seed=i, budget=args.budget)
        policy.reset()
        policy.bind(env)
        try:
            policy.act(obs, info)
        except AgentGaveUp:  # the search ran; the agent found nothing to do next
            gave_up += 1
        if args.forget_oracle_memo:
            oracle._MEMO.clear()
        if i + 1 in (1, 10, 50, args.searches):
            gc.collect()
            marks[i + 1] = rss_mb()
            print(f"after {i + 1:4d} searches: RSS {marks[i + 1]:7.1f} MB  caches {cache_bytes(env)}", flush=True)
    first, last = marks.get(10, marks[min(marks)]), marks[args.searches]
    growth = (last - first) / first
    print(f"{args.searches} searches ({args.agent}, budget {args.budget}) in {time.perf_counter() - t0:.1f} s ({gave_up} gave up after searching); "
          f"RSS after 10: {first:.1f} MB, after {args.searches}: {last:.1f} MB ({growth:+.1%}; target within 10%: "
          f"{'met' if abs(growth) <= 0.10 else 'NOT met'}){'; oracle memo cleared' if args.forget_oracle_memo else ''}; "
          f"load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    env.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
