"""``treegym rollouts ENV_ID --mode chain|tree|anchor --llm SPEC --tasks ... --out rows.jsonl``: RL rollout groups.

Samples each task's group from real forks of the env (chain: GRPO's G independent trajectories;
tree: Tree-GRPO's M trees expanded N nodes x L rounds; anchor: GiGPO-style G trajectories plus K
branches from B states), computes the papers' advantages and writes one JSON row per agent step
(``treegym.agents.training.rollouts.rows``: TRL's prompt/completion plus ``advantage`` and its
parts). Rows are written task by task; a failure keeps the tasks already done and says so. The
accounting (trajectories, env steps, LLM calls, tokens, env time saved by restoring instead of
replaying prefixes) is printed, and written as JSON with ``--stats``. Exit 2 with one line naming
a bad input, 1 when the LLM or the env fails mid-run.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from .options import nonnegative_int, parse_options, positive_float, positive_int


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("rollouts", help="RL rollout groups from forks (chain / Tree-GRPO tree / GiGPO anchor) "
                                        "as per-step rows with advantages")
    p.add_argument("env_id", help="a treegym env id, e.g. treegym/WebShop-v0")
    p.add_argument("--mode", default="tree", choices=("chain", "tree", "anchor"),
                   help="chain: G independent trajectories (GRPO); tree: Tree-GRPO trees; anchor: GiGPO-style "
                        "trajectories plus branches from chosen states (default tree)")
    p.add_argument("--llm", default=None, help="the policy's LLM spec: synthetic:..., local, openai:MODEL, ...")
    p.add_argument("--tasks", default=None, help="task ids: A:B (end excluded) or a comma list")
    p.add_argument("--split", default=None, help="task split (default: the env's test split, else all)")
    p.add_argument("--out", required=True, help="the JSONL file of rows to write")
    p.add_argument("--stats", default=None, help="also write the accounting as JSON to this file")
    p.add_argument("--group", type=positive_int, default=None,
                   help="chain: trajectories per task (default 8); anchor: trajectories from the root (default 4)")
    p.add_argument("--budget", type=positive_int, default=None,
                   help="chain only: instead of --group, trajectories until the task's LLM calls reach this")
    p.add_argument("--trees", type=positive_int, default=2, help="tree: M trees per task (default 2)")
    p.add_argument("--expand", type=positive_int, default=2, help="tree: N nodes expanded per tree per round (default 2)")
    p.add_argument("--iters", type=nonnegative_int, default=2, help="tree: L expansion rounds (default 2)")
    p.add_argument("--states", type=nonnegative_int, default=2, help="anchor: B states branched (default 2)")
    p.add_argument("--branch", type=positive_int, default=2, help="anchor: K branches per chosen state (default 2)")
    p.add_argument("--temperature", type=float, default=1.0, help="sampling temperature of the policy (default 1.0)")
    p.add_argument("--seed", type=int, default=0, help="seed of the draws, the LLM calls and the resets (default 0)")
    p.add_argument("--max-steps", type=positive_int, default=30, help="cap on a trajectory's steps (default 30)")
    p.add_argument("--scale", default="std", choices=("std", "none"),
                   help="std: (x - mean) / std as the papers; none: x - mean (GiGPO's mean_norm) (default std)")
    p.add_argument("--gamma", type=float, default=0.95, help="anchor: discount of the step returns (default 0.95)")
    p.add_argument("--omega", type=positive_float, default=1.0, help="anchor: weight of the step advantage (default 1)")
    p.add_argument("--env-opt", action="append", default=[], metavar="KEY=VALUE", help="env constructor option")
    p.set_defaults(func=run)


def _fail(message: str, code: int = 2) -> int:
    print(f"treegym rollouts: {message}", file=sys.stderr)
    return code


def _scheme(args: argparse.Namespace):
    from treegym.agents.training.rollouts import Anchor, Chain, TreeSearch

    if args.budget is not None and args.mode != "chain":
        raise ValueError("--budget applies to --mode chain (the tree and anchor sizes are set by their own flags)")
    if args.mode == "chain":
        return Chain(group=args.group or 8, budget=args.budget)
    if args.mode == "tree":
        return TreeSearch(trees=args.trees, expand=args.expand, iters=args.iters)
    return Anchor(group=args.group or 4, states=args.states, branch=args.branch)


def run(args: argparse.Namespace) -> int:
    import gymnasium as gym

    import treegym.envs as tenvs
    from treegym.agents.llm.base import LLMError
    from treegym.agents.llm_specs import default_spec, make_llm
    from treegym.agents.training.rollouts import Accounting, sample_rollouts

    from .run_checks import InputError, check_env_options, check_output_file, select_tasks

    if not 0.0 <= args.gamma <= 1.0:
        return _fail(f"--gamma {args.gamma}: a discount is between 0 and 1")
    if args.temperature < 0:
        return _fail(f"--temperature {args.temperature}: must be 0 or more")
    try:
        cls = tenvs.env_class(args.env_id)
        env_kwargs = parse_options(args.env_opt)
        check_env_options(args.env_id, cls, env_kwargs, make=gym.make)
        task_ids, _ = select_tasks(args.env_id, cls, args.tasks, args.split, env_kwargs)
        check_output_file(args.out)
        if args.stats:
            check_output_file(args.stats, flag="--stats")
        scheme = _scheme(args)
    except (InputError, ValueError, KeyError, gym.error.Error, ImportError) as exc:
        return _fail(str(exc.args[0] if exc.args else exc))
    spec = args.llm or default_spec()
    try:
        llm = make_llm(spec, env_id=args.env_id)
    except (LLMError, ValueError, KeyError, TypeError) as exc:
        return _fail(f"cannot build the LLM {spec!r}: {exc}")

    out = Path(args.out)
    partial = out.with_name(out.name + ".partial")
    total, done, rows_written = Accounting(), 0, 0
    print(f"treegym rollouts: {args.env_id}, mode {scheme.mode}, LLM {getattr(llm, 'name', spec)}, "
          f"{len(task_ids)} tasks -> {out}", file=sys.stderr)
    code = 0
    with open(partial, "w", encoding="utf-8") as fh:
        try:
            for forest, rows, spent in sample_rollouts(args.env_id, llm, task_ids, scheme, seed=args.seed,
                                                       temperature=args.temperature, max_steps=args.max_steps,
                                                       env_kwargs=env_kwargs, scale=args.scale, gamma=args.gamma,
                                                       omega=args.omega):
                for row in rows:
                    fh.write(json.dumps(row, ensure_ascii=False) + "\n")
                fh.flush()
                total, done, rows_written = total + spent, done + 1, rows_written + len(rows)
        except (LLMError, RuntimeError, OSError) as exc:
            code = _fail(f"stopped at task {task_ids[done]!r} ({type(exc).__name__}: {exc}); "
                         f"{out} keeps the {done} task(s) done before it", 1)
    os.replace(partial, out)
    print(f"treegym rollouts: {rows_written} rows from {done} task(s); {total.summary()}", file=sys.stderr)
    if args.stats:
        Path(args.stats).write_text(json.dumps({"env_id": args.env_id, "mode": scheme.mode, **vars_of(scheme),
                                                **total.as_dict()}, indent=1) + "\n")
    return code


def vars_of(scheme: object) -> dict:
    from dataclasses import asdict

    return asdict(scheme)
