"""Sweeps: a grid of run configs executed as one resumable experiment into one results file.

``run_sweep(configs, out, ...)`` takes the grid's cells (one
:class:`~treegym.agents.experiments.evaluation.RunConfig` per env x agent x LLM x budget
x seed, tasks resolved; ``treegym sweep`` builds them from the command line or
a TOML/YAML file) and

* reads ``out`` once and, per episode (cell, task, seed), reuses the record
  the resume rules of :mod:`treegym.agents.experiments.runs` allow (same experiment config,
  not an infrastructure failure); everything else is run;
* runs all remaining episodes of all cells through **one** executor
  (:mod:`treegym.agents.experiments.executors`: threads, processes or Ray; episodes in
  flight bounded by ``max_in_flight``), so small cells do not serialise the
  grid, and appends each finished record to ``out`` (fsync-ed), so a crash or
  ``kill -9`` loses only the episodes in flight and a rerun repeats none of
  the finished ones;
* shows one progress bar over the whole grid (reused episodes count as done);
* builds one LLM per (LLM spec, env) and shares it across the cells that use
  it; with ``cache_dir`` each such LLM gets one persistent response cache
  (``cache_dir/<llm>-<env>.jsonl``) shared by those cells, so a prompt asked
  in one cell is answered from the cache in every other (and in a rerun);
* sends each LLM one preflight request before the first episode (unless
  ``preflight=False``), so a bad key or endpoint fails the sweep at once.

Records are exactly those of ``treegym run`` for the same cell (the same
``run_task``), so ``treegym report`` reads a sweep like any run.
"""
from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Sequence

from ..llm.info import preflight_of
from .episode import episode_seed
from .evaluation import RunConfig, _watch_parent, run_task
from .progress import progress_bar
from .executors import collect, make_executor
from .results_file import ResultsFile
from .runs import config_hash, episode_key, lacks_saved_tree, resume_state
from ..llm.cache import CachedLLM
from ..llm_specs import make_llm
from ..registry import agent_spec


@dataclass
class SweepResult:
    """What a sweep did: records per cell (grid order, one per task) and counts."""

    cells: list[RunConfig]
    records: list[list[dict]]
    reused: int = 0
    ran: int = 0
    retried: int = 0
    notes: list[str] = field(default_factory=list)

    @property
    def episodes(self) -> int:
        return sum(len(r) for r in self.records)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.@=,-]+", "_", text).strip("_")[:120] or "x"


def _llm_key(config: RunConfig) -> tuple[str, str]:
    return (config.llm_spec or "", config.env_id)


def run_sweep(
    configs: Sequence[RunConfig],
    out: str | Path,
    *,
    workers: int = 1,
    backend: str = "thread",
    max_in_flight: int | None = None,
    ray_address: str | None = None,
    cache_dir: str | Path | None = None,
    retry_errors: bool = True,
    preflight: bool = True,
    progress: bool = True,
    llms: dict[tuple[str, str], Any] | None = None,
    log: Callable[[str], None] | None = None,
) -> SweepResult:
    """Run every episode of ``configs`` that ``out`` holds no reusable record for (see module docstring).

    ``llms`` may hand in ready LLM objects by (llm spec, env id). Raises ValueError
    for a grid that lists one experiment twice and LLMError when a preflight fails.
    """
    say = log or (lambda m: print(m, file=sys.stderr))
    if not configs:
        raise ValueError("the sweep has no cells: give at least one env, agent, LLM, budget and seed")
    llm_objs: dict[tuple[str, str], Any] = dict(llms or {})
    cached: dict[tuple[str, str], Any] = {}
    cells: list[tuple[RunConfig, Any, Any, str, dict, str]] = []
    seen: dict[str, int] = {}
    for i, cfg in enumerate(configs):
        needs_llm = agent_spec(cfg.agent).needs_llm
        llm = cache = None
        if needs_llm:
            key = _llm_key(cfg)
            if key not in llm_objs:
                llm_objs[key] = make_llm(cfg.llm_spec, env_id=cfg.env_id, **(cfg.llm_kwargs or {}))
            llm = llm_objs[key]
            if cache_dir is not None:
                if key not in cached:
                    path = Path(cache_dir) / f"{_slug(llm.name)}-{_slug(cfg.env_id.split('/')[-1])}.jsonl"
                    cached[key] = CachedLLM(llm, path)
                cache = cached[key]
        experiment = cfg.experiment(llm)
        chash = config_hash(experiment)
        if chash in seen:
            raise ValueError(f"the sweep lists one experiment twice (cells {seen[chash] + 1} and {i + 1}: "
                             f"{cfg.env_id}, agent {cfg.agent}, budget {cfg.budget}, seed {cfg.seed}); remove one")
        seen[chash] = i
        cells.append((cfg, llm, cache, getattr(llm, "name", "none") if llm is not None else "none", experiment, chash))

    results = ResultsFile(out)
    existed = results.path.exists() and results.path.stat().st_size > 0
    with results.exclusive():
        state = resume_state(results.load(), [c[4] for c in cells], retry_errors=retry_errors)
        found: dict[tuple, dict] = {}
        todo: list[tuple[int, Any, int]] = []
        for i, (cfg, _llm, _cache, _name, _exp, chash) in enumerate(cells):
            for task_id in cfg.task_ids:
                seed = episode_seed(cfg.seed, task_id)
                rec = state.get(chash, task_id, seed)
                if rec is not None and (cfg.agent_options or {}).get("tree_out") and lacks_saved_tree(rec):
                    rec = None  # asked to save trees: a record without one is run again
                if rec is not None:
                    found[episode_key(chash, task_id, seed)] = rec
                else:
                    todo.append((i, task_id, seed))
        total = len(found) + len(todo)
        result = SweepResult(cells=[c[0] for c in cells], records=[], reused=len(found), retried=len(state.retry))
        if existed:
            say(f"treegym sweep: {len(configs)} cells, {total} episodes; reused {len(found)} from {results.path}"
                + (f", rerunning {len(state.retry)} that failed with an infrastructure error" if state.retry else "")
                + (f"; {state.other_records} records of other settings left alone" if state.other_records else ""))

        if todo and preflight:
            for key, llm in llm_objs.items():
                check = preflight_of(llm)
                if check is not None and any(_llm_key(cells[i][0]) == key for i, _t, _s in todo):
                    check()

        bar = progress_bar(total, "sweep", progress, initial=len(found))

        def keep(rec: dict) -> None:
            results.append(rec)
            found[episode_key(rec["config_hash"], rec["task_id"], rec["seed"])] = rec
            result.ran += 1
            bar.update(1)

        def args_of(i: int, task_id: Any, seed: int) -> tuple:
            cfg, llm, cache, name, experiment, _h = cells[i]
            return (cfg, llm, cache, name, task_id, seed, experiment)

        try:
            if workers <= 1 and not max_in_flight and backend != "ray":
                for i, task_id, seed in todo:
                    keep(run_task(*args_of(i, task_id, seed)))
            else:
                # _watch_parent: process workers exit when the sweep dies
                with make_executor(backend, workers, max_in_flight=max_in_flight, ray_address=ray_address,
                                   initializer=_watch_parent, initargs=(os.getpid(),)) as pool:
                    futures = [pool.submit(run_task, *args_of(i, t, s)) for i, t, s in todo]
                    collect(futures, keep)
        finally:
            bar.close()
        for cfg, _llm, _cache, _name, _exp, chash in cells:
            keys = [episode_key(chash, t, episode_seed(cfg.seed, t)) for t in cfg.task_ids]
            result.records.append([found[k] for k in keys if k in found])
    return result


def with_tree_dir(config: RunConfig, tree_dir: str | Path) -> RunConfig:
    """``config`` with ``tree_out`` = ``tree_dir/<cell>/{task}.json`` (search agents save their trees there)."""
    import hashlib

    llm = hashlib.sha256(str(config.llm_spec).encode()).hexdigest()[:6]
    cell = _slug(f"{config.env_id.split('/')[-1]}-{config.agent}-b{config.budget}-s{config.seed}-llm{llm}")
    opts = dict(config.agent_options or {})
    if opts:
        cell += "-" + _slug(",".join(f"{k}={v}" for k, v in sorted(opts.items()) if k != "tree_out"))
    opts["tree_out"] = str(Path(tree_dir) / cell / "{task}.json")
    return replace(config, agent_options=opts)
