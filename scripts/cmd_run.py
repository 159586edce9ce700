"""``treegym run ENV_ID --agent NAME ...``: evaluate an agent, one JSON line per episode.

Inputs are checked before any episode (``run_checks``: exit 2 with one line
naming what is wrong); the LLM gets one tiny preflight request (exit 1 when it
fails). Resumable: a rerun into the same ``--out`` reuses only records of the
very same experiment (see ``treegym.agents.experiments.runs``), reruns episodes that failed
for an infrastructure reason unless ``--no-retry-errors``, and says how many it
reused. The summary covers the tasks and settings of this command only. Exit
1 when every episode failed (the first error is printed).
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any

from treegym.agents.llm.base import LLMError
from treegym.agents.llm.info import info_of

from .options import nonnegative_int, parse_options, positive_float, positive_int
from .run_checks import InputError, check_agent_options, check_env_options, check_output_file, select_tasks


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("run", help="evaluate an agent on an env; writes one JSON line per episode")
    p.add_argument("env_id", help="a registered id, e.g. treegym/Game24-v0 (see `treegym list`)")
    p.add_argument("--agent", required=True, help="oracle, random, react, elo, astar, mcts, lats, dfsdt, bfs, dfs, cot@K, reflexion, sc@K, autogpt, ...")
    p.add_argument("--llm", default=None, help="scripted | openai:MODEL | local | synthetic:key=value,... | "
                   "PREFIX:ARG of an installed treegym.llms plugin "
                   "(default: openai when OPENAI_BASE_URL or OPENAI_API_KEY is set, else local)")
    p.add_argument("--base-url", default=None, help="OpenAI-compatible endpoint for --llm openai:MODEL")
    p.add_argument("--split", default=None,
                   help="task split: every task of it when --tasks is absent (default test); with --tasks, "
                        "the tasks must belong to it")
    p.add_argument("--tasks", default=None, help="task ids: A:B (range, end excluded), or a comma list 3,5,9")
    p.add_argument("--budget", type=positive_int, default=None, help="LLM calls per episode (default: the agent's own)")
    p.add_argument("--workers", type=positive_int, default=1, help="episodes run in parallel (default 1)")
    add_backend_args(p)
    p.add_argument("--seed", type=nonnegative_int, default=0, help="run seed; per-episode seeds derive from it")
    p.add_argument("--out", default=None, help="results JSONL (default runs/<env>-<agent>-<llm>.jsonl)")
    p.add_argument("--agent-opt", action="append", default=[], metavar="KEY=VALUE", help="agent option (repeatable)")
    p.add_argument("--env-opt", action="append", default=[], metavar="KEY=VALUE", help="gym.make kwarg (repeatable)")
    p.add_argument("--timeout", type=positive_float, default=None, metavar="SECONDS",
                   help="seconds per LLM request (default: TREEGYM_LLM_TIMEOUT or 60; --llm local: "
                        "TREEGYM_LOCAL_TIMEOUT or 600)")
    p.add_argument("--max-retries", type=nonnegative_int, default=None, metavar="N",
                   help="retries per LLM request after a timeout, connection error, 429/5xx or garbled answer "
                        "(default: TREEGYM_LLM_MAX_RETRIES or 4; --llm local: 1)")
    p.add_argument("--no-retry-errors", action="store_true",
                   help="keep stored episodes that failed with an infrastructure error (LLM unreachable, auth, "
                        "timeout) instead of running them again")
    p.add_argument("--no-preflight", action="store_true", help="skip the one-request LLM check before the episodes")
    p.add_argument("--cache", default=None, metavar="FILE.jsonl",
                   help="persistent LLM response cache (record/replay); safe with --workers")
    p.add_argument("--cache-mode", default="auto", choices=("auto", "record", "replay"),
                   help="auto: replay hits, record misses; replay: fail on a miss; record: always call")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--save-trees", nargs="?", const="", default=None, metavar="DIR",
                   help="search agents: save each episode's search tree as DIR/<task>.json (default DIR: next to "
                        "--out, <out>.trees/); `treegym export` turns them into training data")
    p.set_defaults(func=run)


def add_backend_args(p: argparse.ArgumentParser) -> None:
    """--backend, --max-in-flight and --ray-address (shared by run and sweep)."""
    p.add_argument("--backend", default="thread", choices=("thread", "process", "ray"),
                   help="where episodes run: threads (LLM-bound work), spawned processes (CPU-bound envs) "
                        "or Ray actors (--workers of them; the ray extra)")
    p.add_argument("--max-in-flight", type=positive_int, default=None, metavar="N",
                   help="episodes running at once, whatever the worker count (default: --workers)")
    p.add_argument("--ray-address", default=None, metavar="ADDR",
                   help="--backend ray: the cluster to join ('auto' = the one this machine is in); "
                        "default: start a local Ray instance")


def default_out(env_id: str, agent: str, llm: str) -> Path:
    safe = lambda s: re.sub(r"[^A-Za-z0-9_.@-]+", "_", s).strip("_")  # noqa: E731
    return Path("runs") / f"{safe(env_id.split('/')[-1])}-{safe(agent)}-{safe(llm)}.jsonl"


def save_trees_option(agent: str, searches: bool, options: dict, folder: str, out: Path) -> dict:
    """``options`` with ``tree_out`` set for ``--save-trees [folder]`` (an option of search agents:
    ``searches`` says whether ``agent`` is one)."""
    if not searches:
        raise InputError(f"--save-trees saves search trees; agent {agent!r} does not search "
                         "(use elo, astar, mcts, lats, dfsdt, bfs or dfs)")
    if "tree_out" in options:
        raise InputError("pass either --save-trees or --agent-opt tree_out=..., not both")
    base = Path(folder) if folder else out.with_name(out.stem + ".trees")
    if base.exists() and not base.is_dir():
        raise InputError(f"--save-trees {base} is a file; name a folder")
    return dict(options, tree_out=str(base / "{task}.json"))


def build_llm(llm_spec: str, args: argparse.Namespace) -> Any:
    """``make_llm(llm_spec)`` with ``--base-url``, ``--timeout`` and ``--max-retries``; ``InputError`` when the
    last two are given for an LLM that does not declare itself reached over HTTP (``LLMInfo.over_http``)."""
    from treegym.agents.llm_specs import make_llm

    base = {"base_url": args.base_url} if args.base_url is not None else {}
    http = {k: v for k, v in (("timeout", args.timeout), ("max_retries", args.max_retries)) if v is not None}
    try:
        llm = make_llm(llm_spec, env_id=args.env_id, **base, **http)
    except TypeError:
        if not http:
            raise
        # a backend that takes no HTTP options rejects them: say so plainly when that was the problem
        llm = make_llm(llm_spec, env_id=args.env_id, **base)
        if info_of(llm).over_http:
            raise
    if http and not info_of(llm).over_http:
        raise InputError(f"--timeout and --max-retries apply to LLMs reached over HTTP (openai:MODEL, local), "
                         f"not to --llm {llm_spec}")
    return llm


def _fail(message: str, code: int = 2) -> int:
    print(f"treegym: {message}", file=sys.stderr)
    return code


def run(args: argparse.Namespace) -> int:
    import gymnasium as gym

    import treegym.envs as tenvs
    from treegym.agents.experiments.evaluation import RunConfig, evaluate, judging_options
    from treegym.agents.experiments.summary import all_failed, budget_warning, format_summary, summarize
    from treegym.agents.llm_specs import default_spec
    from treegym.agents.registry import agent_spec, check_agent

    try:
        cls = tenvs.env_class(args.env_id)
    except (gym.error.Error, ImportError) as exc:
        return _fail(str(exc))
    try:
        env_kwargs = parse_options(args.env_opt)
        agent_options = parse_options(args.agent_opt)
        agent_options, env_kwargs = judging_options(args.env_id, agent_options, env_kwargs)  # --agent-opt protocol=
        check_env_options(args.env_id, cls, env_kwargs)  # the run makes its first env: a bad value fails there
        task_ids, split = select_tasks(args.env_id, cls, args.tasks, args.split, env_kwargs)
        spec = agent_spec(args.agent)
    except (InputError, KeyError, ValueError) as exc:
        return _fail(str(exc.args[0] if exc.args else exc))

    llm = None
    llm_spec = args.llm or default_spec()
    if spec.needs_llm:
        try:
            llm = build_llm(llm_spec, args)
        except InputError as exc:
            return _fail(str(exc))
        except (LLMError, ValueError, KeyError, TypeError) as exc:
            return _fail(f"cannot build the LLM {llm_spec!r}: {exc}")
    try:
        check_agent_options(lambda opts: check_agent(args.agent, args.env_id, llm, seed=args.seed, **opts),
                            args.agent, agent_options)
    except InputError as exc:
        return _fail(str(exc))

    llm_name = getattr(llm, "name", "none") if llm is not None else "none"
    out = Path(args.out) if args.out else default_out(args.env_id, args.agent, llm_name)
    try:
        check_output_file(out)
    except InputError as exc:
        return _fail(str(exc))
    if args.save_trees is not None:
        try:
            agent_options = save_trees_option(args.agent, spec.searches, agent_options, args.save_trees, out)
        except InputError as exc:
            return _fail(str(exc))
    config = RunConfig(
        env_id=args.env_id, agent=args.agent, llm_spec=args.llm, task_ids=task_ids, budget=args.budget,
        workers=args.workers, seed=args.seed, agent_options=agent_options, env_kwargs=env_kwargs,
        cache_path=args.cache, cache_mode=args.cache_mode, backend=args.backend, split=split,
        retry_errors=not args.no_retry_errors, preflight=not args.no_preflight,
        max_in_flight=args.max_in_flight, ray_address=args.ray_address,
    )
    print(f"treegym run: {args.env_id}, agent {args.agent}, LLM {llm_name}, {len(task_ids)} tasks -> {out}", file=sys.stderr)
    try:
        records = evaluate(config, out, llm=llm, progress=not args.no_progress)
    except LLMError as exc:
        return _fail(f"the LLM check before the first episode failed, so nothing ran: {exc}", 1)
    except (ValueError, KeyError, RuntimeError) as exc:
        return _fail(str(exc.args[0] if exc.args else exc))
    print(format_summary(summarize(records), title=f"{args.env_id} | agent {args.agent} | LLM {llm_name}"))
    warning = budget_warning(records, args.budget)
    if warning:
        print(warning)
    print(f"results: {out}")
    failed = all_failed(records)
    if failed:
        return _fail(failed, 1)
    return 0
