"""``treegym sweep``: a grid of envs x agents x LLMs x budgets x seeds as one resumable experiment.

From the command line::

    treegym sweep --env treegym/Game24-v0 --tasks 900:920 --agents elo,react,bfs \\
        --llm synthetic:p_correct=0.5 --budgets 30,60,100,200 --out runs/sweep.jsonl

or from a TOML (or YAML, with pyyaml) file, ``treegym sweep grid.toml``::

    out = "runs/sweep.jsonl"          # results file (also --out)
    llms = ["synthetic:p_correct=0.5,judge_acc=0.75,value_noise=0.6"]
    budgets = [30, 60, 100, 200]      # LLM calls per episode; "none" = the agent's own
    seeds = [0]                       # run seeds (replicates)
    workers = 2                       # also backend, max_in_flight, ray_address, cache_dir, trees
    [[envs]]
    id = "treegym/Game24-v0"
    tasks = "900:920"                 # or a list, or split = "test" for the whole split
    options = {}                      # gym.make kwargs
    [[agents]]
    name = "elo"
    options = { explorations = 20 }
    [[agents]]
    name = "react"

Command-line flags override the file. Every (cell, task) episode is recorded
once in the one results file; rerunning the command after a crash or
``kill -9`` runs only what is missing (see ``treegym.agents.experiments.sweep``).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from treegym.agents.llm.base import LLMError

from .cmd_run import add_backend_args
from .options import parse_options, positive_int
from .run_checks import InputError, check_agent_options, check_env_options, check_output_file, select_tasks

FILE_KEYS = {"out", "envs", "agents", "llms", "budgets", "seeds", "workers", "backend", "max_in_flight",
             "ray_address", "cache_dir", "trees"}


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("sweep", help="run a grid (envs x agents x LLMs x budgets x seeds) as one resumable experiment")
    p.add_argument("file", nargs="?", default=None, help="a TOML or YAML grid file (see `treegym sweep --help`)")
    p.add_argument("--env", action="append", default=None, metavar="ENV_ID", help="env id (repeatable)")
    p.add_argument("--tasks", default=None, help="task ids for every env: A:B or a comma list")
    p.add_argument("--split", default=None, help="task split (every task of it when --tasks is absent)")
    p.add_argument("--agents", default=None, help="comma-separated agent names, e.g. elo,react,bfs")
    p.add_argument("--agent-opt", action="append", default=[], metavar="AGENT:KEY=VALUE",
                   help="an option for one agent of the grid, e.g. elo:explorations=10 (repeatable)")
    p.add_argument("--llm", action="append", default=None, metavar="SPEC", help="LLM spec (repeatable)")
    p.add_argument("--budgets", default=None, help="comma-separated LLM call budgets ('none' = the agent's own)")
    p.add_argument("--seeds", default=None, help="comma-separated run seeds (default 0)")
    p.add_argument("--workers", type=positive_int, default=None, help="parallel workers (default 1)")
    add_backend_args(p)
    p.set_defaults(backend=None)
    p.add_argument("--out", default=None, help="results JSONL (default runs/sweep.jsonl)")
    p.add_argument("--cache-dir", default=None, metavar="DIR",
                   help="persistent LLM response caches, one per LLM and env, shared by all cells")
    p.add_argument("--trees", default=None, metavar="DIR", help="search agents save their trees under DIR/<cell>/")
    p.add_argument("--no-retry-errors", action="store_true", help="keep stored infrastructure failures")
    p.add_argument("--no-preflight", action="store_true", help="skip the one-request LLM check")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=run)


def load_grid_file(path: str | Path) -> dict[str, Any]:
    """The grid in a TOML (.toml) or YAML (.yaml/.yml) file; InputError says what is wrong."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot read the sweep file {path}: {exc.strerror or exc}") from None
    if path.suffix in (".yaml", ".yml"):
        try:
            import yaml
        except ImportError:
            raise InputError(f"{path}: YAML sweep files need pyyaml (pip install pyyaml), or write TOML") from None
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            raise InputError(f"{path} is not valid YAML: {exc}") from None
    else:
        try:
            import tomllib
        except ImportError:  # Python 3.10
            raise InputError(f"{path}: TOML sweep files need Python 3.11+ (tomllib); use YAML with pyyaml") from None
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise InputError(f"{path} is not valid TOML: {exc}") from None
    if not isinstance(data, dict):
        raise InputError(f"{path}: the sweep file must hold a table of keys ({', '.join(sorted(FILE_KEYS))})")
    unknown = sorted(set(data) - FILE_KEYS)
    if unknown:
        raise InputError(f"{path}: unknown key(s) {', '.join(unknown)}; known keys: {', '.join(sorted(FILE_KEYS))}")
    return data


def _budget(x: Any) -> int | None:
    if x is None or str(x).strip().lower() in ("none", "default", ""):
        return None
    try:
        b = int(str(x).strip())
    except ValueError:
        raise InputError(f"budget {x!r} is not a whole number (or 'none' for the agent's own)") from None
    if b < 1:
        raise InputError(f"budget {b} must be at least 1")
    return b


def _list(text: str | None) -> list[str]:
    return [t.strip() for t in (text or "").split(",") if t.strip()]


def _agents(data: dict, args: argparse.Namespace) -> list[tuple[str, dict]]:
    if args.agents:
        agents = [(a, {}) for a in _list(args.agents)]
    else:
        agents = []
        for i, entry in enumerate(data.get("agents") or []):
            if isinstance(entry, str):
                entry = {"name": entry}
            if not isinstance(entry, dict) or not entry.get("name"):
                raise InputError(f"agents entry {i + 1} must have a name (name = \"elo\")")
            opts = entry.get("options") or {}
            if not isinstance(opts, dict):
                raise InputError(f"agent {entry['name']}: options must be a table of key = value")
            agents.append((str(entry["name"]), dict(opts)))
    for item in args.agent_opt:
        name, sep, pair = item.partition(":")
        if not sep:
            raise InputError(f"--agent-opt {item!r} must look like AGENT:KEY=VALUE, e.g. elo:explorations=10")
        matches = [opts for a, opts in agents if a == name]
        if not matches:
            raise InputError(f"--agent-opt {item!r}: agent {name!r} is not in the grid")
        for opts in matches:
            opts.update(parse_options([pair]))
    if not agents:
        raise InputError("the sweep has no agents: give --agents elo,react or [[agents]] entries in the file")
    return agents


def _check_agent(env_id: str, agent: str, opts: dict) -> None:
    """Check the agent's options without building it where its registration can (``check_agent``; a
    scripted LLM stands in for the real one, so nothing is contacted) and raise :class:`InputError`
    naming an option it rejects, as ``treegym run`` does."""
    from treegym.agents.llm_specs import make_llm
    from treegym.agents.registry import agent_spec, check_agent

    from treegym.agents.experiments.evaluation import judging_options

    llm = make_llm("scripted", env_id=env_id) if agent_spec(agent).needs_llm else None
    opts = judging_options(env_id, opts, None)[0]  # protocol= is the env's (RunConfig moves it there)
    check_agent_options(lambda o: check_agent(agent, env_id, llm, seed=0, **o), agent, opts)


def build_configs(data: dict, args: argparse.Namespace) -> tuple[list[Any], dict[str, Any]]:
    """The grid's RunConfigs (tasks resolved and checked) and the run settings."""
    import gymnasium as gym

    import treegym.envs as tenvs
    from treegym.agents.experiments.evaluation import RunConfig
    from treegym.agents.llm_specs import default_spec
    from treegym.agents.registry import agent_spec

    if args.env:
        envs = [{"id": e, "tasks": args.tasks, "split": args.split} for e in args.env]
    else:
        envs = list(data.get("envs") or [])
        for e in envs:
            if isinstance(e, dict):
                e.setdefault("tasks", args.tasks)
                e.setdefault("split", args.split)
                if args.tasks:
                    e["tasks"] = args.tasks
    if not envs:
        raise InputError("the sweep has no envs: give --env ID or [[envs]] entries with id = \"...\"")
    agents = _agents(data, args)
    llms = args.llm or list(data.get("llms") or [])
    needs_llm = [agent_spec(a).needs_llm for a, _ in agents]
    if any(needs_llm) and not llms:
        llms = [default_spec()]
    budgets = [_budget(b) for b in (_list(args.budgets) if args.budgets else (data.get("budgets") or [None]))]
    try:
        seeds = [int(s) for s in (_list(args.seeds) if args.seeds else (data.get("seeds") or [0]))]
    except ValueError:
        raise InputError("seeds must be whole numbers") from None
    configs = []
    checked: set[tuple[str, str]] = set()
    for e in envs:
        if not isinstance(e, dict) or not e.get("id"):
            raise InputError("every envs entry needs an id (id = \"treegym/Game24-v0\")")
        env_id = str(e["id"])
        try:
            cls = tenvs.env_class(env_id)
        except (gym.error.Error, ImportError) as exc:
            raise InputError(str(exc)) from None
        env_kwargs = dict(e.get("options") or {})
        check_env_options(env_id, cls, env_kwargs, make=gym.make)
        tasks = e.get("tasks")
        if isinstance(tasks, list):
            tasks = ",".join(str(t) for t in tasks)
        task_ids, split = select_tasks(env_id, cls, tasks, e.get("split"), env_kwargs)
        for agent, opts in agents:
            key = (env_id, f"{agent}:{sorted(opts.items())!r}")
            if key not in checked:
                checked.add(key)
                _check_agent(env_id, agent, opts)
        for (agent, opts), uses_llm in zip(agents, needs_llm):
            for llm in (llms if uses_llm else [None]):
                for budget in (budgets if uses_llm else [None]):
                    for seed in seeds:
                        configs.append(RunConfig(env_id=env_id, agent=agent, llm_spec=llm, task_ids=task_ids,
                                                 budget=budget, seed=seed, agent_options=dict(opts),
                                                 env_kwargs=env_kwargs, split=split))
    settings = {
        "out": args.out or data.get("out") or "runs/sweep.jsonl",
        "workers": args.workers or int(data.get("workers") or 1),
        "backend": args.backend or data.get("backend") or "thread",
        "max_in_flight": args.max_in_flight or data.get("max_in_flight"),
        "ray_address": args.ray_address or data.get("ray_address"),
        "cache_dir": args.cache_dir or data.get("cache_dir"),
        "trees": args.trees or data.get("trees"),
    }

    check_output_file(settings["out"])
    if settings["backend"] not in ("thread", "process", "ray"):
        raise InputError(f"backend {settings['backend']!r}: use thread, process or ray")
    return configs, settings


def run(args: argparse.Namespace) -> int:
    from treegym.agents.experiments.summary import all_failed
    from treegym.agents.experiments.sweep import run_sweep, with_tree_dir

    try:
        data = load_grid_file(args.file) if args.file else {}
        configs, settings = build_configs(data, args)
        if settings["trees"]:
            configs = [with_tree_dir(c, settings["trees"]) if _takes_tree_out(c) else c for c in configs]
    except (InputError, KeyError, ValueError) as exc:
        print(f"treegym sweep: {exc.args[0] if exc.args else exc}", file=sys.stderr)
        return 2
    n_tasks = sum(len(c.task_ids) for c in configs)
    print(f"treegym sweep: {len(configs)} cells, {n_tasks} episodes on {settings['backend']} "
          f"({settings['workers']} workers) -> {settings['out']}", file=sys.stderr)
    try:
        result = run_sweep(configs, settings["out"], workers=settings["workers"], backend=settings["backend"],
                           max_in_flight=settings["max_in_flight"], ray_address=settings["ray_address"],
                           cache_dir=settings["cache_dir"], retry_errors=not args.no_retry_errors,
                           preflight=not args.no_preflight, progress=not args.no_progress)
    except LLMError as exc:
        print(f"treegym sweep: the LLM check before the first episode failed, so nothing ran: {exc}", file=sys.stderr)
        return 1
    except (ValueError, KeyError, RuntimeError) as exc:
        print(f"treegym sweep: {exc.args[0] if exc.args else exc}", file=sys.stderr)
        return 2
    print(cell_table(result))
    print(f"sweep: {result.episodes} episodes ({result.reused} reused, {result.ran} run); results: {settings['out']}")
    failed = all_failed([r for recs in result.records for r in recs])
    if failed:
        print(f"treegym sweep: {failed}", file=sys.stderr)
        return 1
    return 0


def cell_table(result: Any) -> str:
    """One line per cell: env, agent (options), LLM, budget, seed, pass rate, mean calls, gave up, errors."""
    from treegym.agents.experiments.runs import failure_counts

    lines = ["| env | agent | LLM | budget | seed | episodes | pass rate | mean LLM calls | gave up | errors |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for cfg, recs in zip(result.cells, result.records):
        opts = {k: v for k, v in (cfg.agent_options or {}).items() if k != "tree_out"}
        agent = cfg.agent + (f" {opts}" if opts else "")
        n = len(recs)
        rate = f"{sum(bool(r.get('success')) for r in recs) / n * 100:.1f}%" if n else "-"
        calls = f"{sum(int(r.get('llm_calls') or 0) for r in recs) / n:.1f}" if n else "-"
        gave_up, errors = failure_counts(recs)
        lines.append(f"| {cfg.env_id} | {agent} | {cfg.llm_spec or '-'} | {cfg.budget or 'own'} | {cfg.seed} | "
                     f"{n} | {rate} | {calls} | {gave_up} | {errors} |")
    return "\n".join(lines)


def _takes_tree_out(config: Any) -> bool:
    """Whether the config's agent accepts tree_out: search agents do (their registration says
    ``searches``, as ``treegym run --save-trees`` reads it); nothing is built."""
    from treegym.agents.registry import agent_spec

    return agent_spec(config.agent).searches
