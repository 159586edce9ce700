"""``treegym run ENV_ID --agent NAME ...``: evaluate an agent, one JSON line per episode.

Resumable: rerunning the same command skips the episodes already in ``--out``.
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any

from .options import parse_options


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("run", help="evaluate an agent on an env; writes one JSON line per episode")
    p.add_argument("env_id", help="a registered id, e.g. treegym/Game24-v0 (see `treegym list`)")
    p.add_argument("--agent", required=True, help="oracle, random, react, elo, astar, mcts, lats, dfsdt, bfs, dfs, cot@K, reflexion, sc@K, autogpt, ...")
    p.add_argument("--llm", default=None, help="scripted | openai:MODEL | local | synthetic:key=value,... "
                   "(default: openai when OPENAI_BASE_URL or OPENAI_API_KEY is set, else local)")
    p.add_argument("--base-url", default=None, help="OpenAI-compatible endpoint for --llm openai:MODEL")
    p.add_argument("--split", default="test", help="task split when --tasks is not given (default test)")
    p.add_argument("--tasks", default=None, help="task ids: A:B (range), or a comma list 3,5,9")
    p.add_argument("--budget", type=int, default=None, help="LLM calls per episode (default: the agent's own)")
    p.add_argument("--workers", type=int, default=1, help="episodes run in parallel (default 1)")
    add_backend_args(p)
    p.add_argument("--seed", type=int, default=0, help="run seed; per-episode seeds derive from it")
    p.add_argument("--out", default=None, help="results JSONL (default runs/<env>-<agent>-<llm>.jsonl)")
    p.add_argument("--agent-opt", action="append", default=[], metavar="KEY=VALUE", help="agent option (repeatable)")
    p.add_argument("--env-opt", action="append", default=[], metavar="KEY=VALUE", help="gym.make kwarg (repeatable)")
    p.add_argument("--cache", default=None, metavar="FILE.jsonl",
                   help="persistent LLM response cache (record/replay); safe with --workers")
    p.add_argument("--cache-mode", default="auto", choices=("auto", "record", "replay"),
                   help="auto: replay hits, record misses; replay: fail on a miss; record: always call")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=run)


def add_backend_args(p: argparse.ArgumentParser) -> None:
    """--backend, --max-in-flight and --ray-address (shared by run and sweep)."""
    p.add_argument("--backend", default="thread", choices=("thread", "process", "ray"),
                   help="where episodes run: threads (LLM-bound work), spawned processes (CPU-bound envs) "
                        "or Ray actors (--workers of them; the ray extra)")
    p.add_argument("--max-in-flight", type=int, default=None, metavar="N",
                   help="episodes running at once, whatever the worker count (default: --workers)")
    p.add_argument("--ray-address", default=None, metavar="ADDR",
                   help="--backend ray: the cluster to join ('auto' = the one this machine is in); "
                        "default: start a local Ray instance")


def parse_tasks(text: str) -> list[Any]:
    text = text.strip()
    if re.fullmatch(r"\d+:\d+", text):
        a, b = (int(x) for x in text.split(":"))
        if b <= a:
            raise SystemExit(f"treegym: --tasks {text}: the range end must be greater than its start")
        return list(range(a, b))
    items = [t.strip() for t in text.split(",") if t.strip()]
    if not items:
        raise SystemExit("treegym: --tasks is empty; use A:B or a comma list")
    return [int(t) if t.isdigit() else t for t in items]


def default_out(env_id: str, agent: str, llm: str) -> Path:
    safe = lambda s: re.sub(r"[^A-Za-z0-9_.@-]+", "_", s).strip("_")  # noqa: E731
    return Path("runs") / f"{safe(env_id.split('/')[-1])}-{safe(agent)}-{safe(llm)}.jsonl"


def run(args: argparse.Namespace) -> int:
    import gymnasium as gym

    import treegym.envs as tenvs
    from treegym.agents.evaluation import RunConfig, evaluate, format_summary, summarize
    from treegym.agents.llm.base import LLMError
    from treegym.agents.llm.spec import default_spec, make_llm
    from treegym.agents.registry import agent_spec

    try:
        cls = tenvs.env_class(args.env_id)
    except (gym.error.Error, ImportError) as exc:
        print(f"treegym: {exc}", file=sys.stderr)
        return 2
    if args.tasks:
        task_ids = parse_tasks(args.tasks)
    else:
        try:
            task_ids = list(cls.split_task_ids(args.split))
        except (KeyError, ValueError, NotImplementedError) as exc:
            print(f"treegym: {exc}", file=sys.stderr)
            return 2
    env_kwargs = parse_options(args.env_opt)
    agent_options = parse_options(args.agent_opt)

    try:
        spec = agent_spec(args.agent)
    except (KeyError, ValueError) as exc:
        print(f"treegym: {exc.args[0] if exc.args else exc}", file=sys.stderr)
        return 2
    llm = None
    if spec.needs_llm:
        llm_kwargs = {"base_url": args.base_url} if args.base_url else {}
        try:
            llm = make_llm(args.llm or default_spec(), env_id=args.env_id, **llm_kwargs)
        except (LLMError, ValueError, KeyError) as exc:
            print(f"treegym: cannot build the LLM {args.llm or default_spec()!r}: {exc}", file=sys.stderr)
            return 2
    llm_name = getattr(llm, "name", "none") if llm is not None else "none"
    out = Path(args.out) if args.out else default_out(args.env_id, args.agent, llm_name)
    config = RunConfig(
        env_id=args.env_id, agent=args.agent, llm_spec=args.llm, task_ids=task_ids, budget=args.budget,
        workers=max(1, args.workers), seed=args.seed, agent_options=agent_options, env_kwargs=env_kwargs,
        cache_path=args.cache, cache_mode=args.cache_mode, backend=args.backend,
        max_in_flight=args.max_in_flight, ray_address=args.ray_address,
    )
    print(f"treegym run: {args.env_id}, agent {args.agent}, LLM {llm_name}, {len(task_ids)} tasks -> {out}", file=sys.stderr)
    try:
        records = evaluate(config, out, llm=llm, progress=not args.no_progress)
    except (ValueError, KeyError, RuntimeError) as exc:
        print(f"treegym: {exc.args[0] if exc.args else exc}", file=sys.stderr)
        return 2
    print(format_summary(summarize(records), title=f"{args.env_id} | agent {args.agent} | LLM {llm_name}"))
    print(f"results: {out}")
    return 0
