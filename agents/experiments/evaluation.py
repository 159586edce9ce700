"""Evaluation: run (env, agent, LLM, tasks) and write one JSON line per episode.

``evaluate(...)`` is what ``treegym run`` calls. It

* checks the agent and its options up front without building it (``check_agent``: a bad name
  or option fails the run at once), makes the first episode's env up front (a bad
  ``env_kwargs`` value fails the run at once; that env plays the first episode when it runs in
  this process) and, unless told not to, sends the LLM one tiny request (``preflight``) so a
  bad key, model or endpoint fails the run before any episode,
* builds one env and one agent per episode (``gym.make`` + ``make_agent``): once per task,
  gives the agent a per-episode budgeted view of the shared LLM so calls and
  tokens are counted per episode, and counts the LLM client's retries (and
  their causes) per episode,
* runs episodes sequentially, on ``workers`` threads (the default: LLM-bound
  work is I/O) or on ``workers`` spawned processes (``backend="process"``,
  for CPU-heavy envs; the LLM object is pickled into each worker; each worker
  exits on its own when the parent process dies, even by ``kill -9``), or on
  Ray actors (``backend="ray"``); ``max_in_flight`` bounds the episodes
  running at once (:mod:`treegym.agents.experiments.executors`),
* appends each finished record to ``out`` as one line under a lock, flushed
  and fsync-ed, so a killed run loses at most the episodes in flight,
* on restart reuses only records of the very same experiment (the resume key
  is the whole config: see :mod:`treegym.agents.experiments.runs`), reruns episodes that
  failed for an infrastructure reason (unless ``retry_errors=False``), and
  drops a torn last line left by a kill,
* never lets one episode's failure (LLM down, budget spent, env error) stop
  the others: the record says what went wrong in ``error`` and ``error_kind``.

Record fields: ``env_id, task_id, agent, llm, seed, success, reward, steps,
llm_calls, prompt_tokens, completion_tokens, llm_retries, llm_retry_causes,
wall_s, actions, error, error_kind, config, config_hash`` plus whatever the
agent's ``stats()`` adds under ``agent_stats``.
"""
from __future__ import annotations

import os
import sys
import threading
import time
import traceback
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import gymnasium as gym

import treegym.envs  # noqa: F401 - registers the ids, also inside spawned worker processes

from .executors import collect
from ..llm.base import LLM
from ..llm.budget import BudgetedLLM
from ..llm.cache import CachedLLM as CachedLLMType
from ..llm.info import info_of, preflight_of
from .results_file import ResultsFile
from .runs import (
    ResumeState,
    classify_error,
    config_hash,
    episode_key,
    experiment_config,
    lacks_saved_tree,
    llm_config,
    resume_state,
)


from .episode import _jsonable, episode_seed, run_episode
from .progress import progress_bar, search_figures_on
from treegym.envs import env_class
from ..llm_specs import make_llm
from ..registry import agent_spec, check_agent, make_agent
from .executors import make_executor

# ----------------------------------------------------------------- a run
@dataclass
class RunConfig:
    """One ``treegym run``: what to evaluate and how.

    ``split`` is recorded in the experiment config (the split the tasks come
    from or were checked against; None when tasks were given by id alone).
    ``retry_errors`` reruns stored episodes that failed for an infrastructure
    reason; ``preflight`` sends the LLM one tiny request before any episode.
    """

    env_id: str
    agent: str
    llm_spec: str | None = None
    task_ids: Sequence[Any] = ()
    budget: int | None = None
    workers: int = 1
    seed: int = 0
    agent_options: dict | None = None
    env_kwargs: dict | None = None
    llm_kwargs: dict | None = None
    cache_path: str | None = None
    cache_mode: str = "auto"
    backend: str = "thread"  # "thread", "process" or "ray" (agents/executors.py)
    max_in_flight: int | None = None  # episodes running at once (default: workers)
    ray_address: str | None = None  # backend "ray": ray.init address ("auto"); None starts a local instance
    split: str | None = None
    retry_errors: bool = True
    preflight: bool = True

    def __post_init__(self) -> None:
        self.agent_options, self.env_kwargs = judging_options(self.env_id, self.agent_options, self.env_kwargs)

    def experiment(self, llm: Any) -> dict[str, Any]:
        """The experiment config of this run with ``llm`` (see :func:`treegym.agents.experiments.runs.experiment_config`)."""
        return experiment_config(
            env_id=self.env_id, env_options=self.env_kwargs, split=self.split, agent=self.agent,
            agent_options=self.agent_options, budget=self.budget, llm=llm_config(llm), seed=self.seed,
        )


#: Agent options that are the env's make-kwargs when the env takes them: how an episode is judged
#: (``--agent-opt protocol=tot`` is ``--env-opt protocol=tot``, so the record and resume key carry it).
JUDGING_OPTIONS = ("protocol",)


def _env_takes(env_id: str, name: str) -> bool:
    """Whether the env class of ``env_id`` takes the make-kwarg ``name`` (registers a user's env id first)."""
    import inspect

    cls = env_class(env_id)
    try:
        return name in inspect.signature(cls.__init__).parameters
    except (TypeError, ValueError):
        return False


def judging_options(env_id: str, agent_options: dict | None, env_kwargs: dict | None) -> tuple[dict | None, dict | None]:
    """``(agent_options, env_kwargs)`` with each :data:`JUDGING_OPTIONS` agent option moved into the env's
    kwargs when the env takes it; ValueError when the two say different things."""
    if not any(k in (agent_options or {}) for k in JUDGING_OPTIONS):
        return agent_options, env_kwargs
    agent, env = dict(agent_options or {}), dict(env_kwargs or {})
    for key in JUDGING_OPTIONS:
        if key not in agent or not _env_takes(env_id, key):
            continue
        value = agent.pop(key)
        if key in env and env[key] != value:
            raise ValueError(f"--agent-opt {key}={value} and --env-opt {key}={env[key]} disagree; give one of them")
        env[key] = value
    return agent, env


def make_kwargs(config: RunConfig) -> dict[str, Any]:
    """The ``gym.make`` kwargs of an episode: ``env_kwargs``, plus ``split=config.split`` when the env takes a
    ``split`` and ``env_kwargs`` does not set one (the run's tasks were checked against that split, and some
    envs only find a task id in its own split). Registers a user's env id first (a worker process too)."""
    kwargs = dict(config.env_kwargs or {})
    takes_split = _env_takes(config.env_id, "split")  # called always: it registers a user's env id
    if config.split is not None and "split" not in kwargs and takes_split:
        kwargs["split"] = config.split
    return kwargs


def make_env(config: RunConfig) -> gym.Env:
    """A new env of ``config`` (``gym.make`` with :func:`make_kwargs`); a failure is a ValueError naming
    the env and its options (the user's input)."""
    kwargs = make_kwargs(config)
    try:
        return gym.make(config.env_id, **kwargs)
    except Exception as exc:  # noqa: BLE001 - any construction failure is the user's input
        shown = ", ".join(f"{k}={v!r}" for k, v in kwargs.items()) or "no options"
        raise ValueError(f"cannot make {config.env_id} with {shown}: {type(exc).__name__}: {exc}") from None


def run_task(config: RunConfig, llm: LLM | None, cached: Any, llm_name: str, task_id: Any, seed: int,
             experiment: dict | None = None, env: gym.Env | None = None) -> dict:
    """One episode of ``config`` as a finished record. Never raises for an episode's own failure.

    ``experiment`` is the run's experiment config (computed when not given); ``env`` an env of
    ``config`` made already (the run's first, made up front), else one is made here.
    Module-level (not a closure) so a process pool can run it.
    """
    from ..llm.openai_client import count_retries  # lazy: imports the openai package (about a second)

    if experiment is None:
        experiment = config.experiment(llm)
    record: dict[str, Any] = {
        "env_id": config.env_id, "task_id": task_id, "agent": config.agent, "llm": llm_name, "seed": seed,
    }
    if llm is not None:
        record["llm_info"] = info_of(llm).as_record()  # what the report reads (simulated, price), never the name
    episode_llm = inner = None
    if llm is not None:
        # Each episode gets its own cache session (replayed samples in
        # order) and its own budget, which also counts its calls and tokens.
        inner = cached.session() if cached is not None else llm
        episode_llm = BudgetedLLM(inner, max_calls=config.budget)
    with count_retries() as retries:
        try:
            env = env if env is not None else gym.make(config.env_id, **make_kwargs(config))
            policy = make_agent(config.agent, config.env_id, episode_llm, seed=seed, **dict(config.agent_options or {}))
            outcome = run_episode(env, policy, task_id=task_id, seed=seed)
            stats = policy.stats() if callable(getattr(policy, "stats", None)) else {}
        except Exception as exc:  # noqa: BLE001 - one broken episode must not stop the run
            outcome = _failed(exc)
            stats = {}
        finally:
            if env is not None:
                env.close()
    usage = episode_llm.usage.as_dict() if episode_llm is not None else {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0}
    record.update(
        success=outcome["success"], reward=outcome["reward"], steps=outcome["steps"],
        llm_calls=usage["calls"], prompt_tokens=usage["prompt_tokens"], completion_tokens=usage["completion_tokens"],
        llm_retries=sum(retries.values()), llm_retry_causes=dict(sorted(retries.items())),
        wall_s=outcome["wall_s"], actions=outcome["actions"], error=outcome["error"],
        error_kind=outcome["error_kind"],
    )
    if outcome.get("reward_parts") is not None:
        record["reward_parts"] = outcome["reward_parts"]
    if outcome.get("protocol") is not None:
        record["protocol"] = outcome["protocol"]
    if stats:
        record["agent_stats"] = _jsonable(stats)
    if isinstance(inner, CachedLLMType):
        record["cache"] = inner.stats()
    record["config"] = experiment
    record["config_hash"] = config_hash(experiment)
    return record


def _per_task_tree_out(options: dict, log: Callable[[str], None]) -> dict:
    """``tree_out`` without ``{task}`` would be overwritten by every episode: insert ``-{task}`` before the suffix."""
    path = options.get("tree_out")
    if not path or "{task}" in str(path):
        return options
    root, ext = os.path.splitext(str(path))
    fixed = f"{root}-{{task}}{ext}"
    log(f"treegym: tree_out={path} has no {{task}}, so every episode would overwrite it; "
        f"writing one file per task instead: tree_out={fixed}")
    return dict(options, tree_out=fixed)


def _stderr(message: str) -> None:
    print(message, file=sys.stderr)


def evaluate(
    config: RunConfig,
    out: str | os.PathLike,
    *,
    llm: LLM | None = None,
    progress: bool = True,
    on_record: Callable[[dict], None] | None = None,
    log: Callable[[str], None] | None = _stderr,
) -> list[dict]:
    """Run every task of ``config`` that ``out`` holds no reusable record for; return this command's records.

    The returned list has one record per task of ``config.task_ids`` (in that
    order): the reused record or the new one. ``log`` gets one line saying how
    many episodes were reused (None: silent). Raises ``ValueError``/``KeyError``
    for a bad agent or option and :class:`LLMError` when the preflight fails.
    """
    log = log or (lambda _m: None)
    spec = agent_spec(config.agent)
    if llm is None and spec.needs_llm:
        llm = make_llm(config.llm_spec, env_id=config.env_id, **(config.llm_kwargs or {}))
    if not spec.needs_llm:
        llm = None
    llm_name = getattr(llm, "name", "none") if llm is not None else "none"
    cached = None
    if llm is not None and config.cache_path:
        cached = CachedLLMType(llm, config.cache_path, mode=config.cache_mode)  # type: ignore[arg-type]

    if config.agent_options and config.agent_options.get("tree_out") and len(config.task_ids) > 1:
        config = _replace(config, agent_options=_per_task_tree_out(dict(config.agent_options), log))

    # Check the agent up front (without building it) so a bad name or option fails the run at once,
    # with its message, instead of failing every episode.
    check_agent(config.agent, config.env_id, llm, seed=config.seed, **dict(config.agent_options or {}))

    experiment = config.experiment(llm)
    chash = config_hash(experiment)
    results = ResultsFile(out)
    existed = results.path.exists() and results.path.stat().st_size > 0
    with results.exclusive():
        state = resume_state(results.load(), [experiment], retry_errors=config.retry_errors)
        plan: list[tuple[Any, int]] = [(t, episode_seed(config.seed, t)) for t in config.task_ids]
        found: dict[tuple, dict] = {}
        todo: list[tuple[Any, int]] = []
        wants_trees = bool((config.agent_options or {}).get("tree_out"))
        treeless = 0
        for task_id, seed in plan:
            rec = state.get(chash, task_id, seed)
            if rec is not None and wants_trees and lacks_saved_tree(rec):
                rec, treeless = None, treeless + 1
            if rec is not None:
                found[episode_key(chash, task_id, seed)] = rec
            else:
                todo.append((task_id, seed))
        planned = {episode_key(chash, t, s) for t, s in plan}
        reused = ResumeState(reusable=dict(found), retry={k: v for k, v in state.retry.items() if k in planned},
                             other_records=state.other_records, tampered_records=state.tampered_records)
        if existed:
            log("treegym: " + reused.describe(len(plan), results.path)
                + (f"; rerunning {treeless} whose search tree was not saved (--save-trees)" if treeless else ""))

        if todo and llm is not None and config.preflight and config.cache_mode != "replay":
            check = preflight_of(llm)
            if check is not None:
                check()

        # The first episode's env, made now so a bad env option fails the run at once; it plays
        # that episode when the episode runs in this process (one env per task), else it only checked.
        first_env = make_env(config) if todo else None
        spare = [first_env] if first_env is not None else []
        if first_env is not None and config.backend in ("process", "ray"):
            spare.pop().close()  # its episode runs in a worker, which makes its own
        spare_lock = threading.Lock()

        def one(task_id: Any, seed: int) -> dict:
            with spare_lock:
                env = spare.pop() if spare else None
            return run_task(config, llm, cached, llm_name, task_id, seed, experiment, env)

        def keep(rec: dict) -> None:
            results.append(rec)
            found[episode_key(chash, rec["task_id"], rec["seed"])] = rec
            bar.update(1)
            if on_record:
                on_record(rec)

        bar = progress_bar(len(todo), f"{config.env_id} {config.agent}", progress)
        try:
            # live search figures in the bar (searches in this process: sequential and thread backends)
            with search_figures_on(bar):
                if config.workers <= 1 and not config.max_in_flight and config.backend != "ray":
                    for task_id, seed in todo:
                        keep(one(task_id, seed))
                else:
                    with _executor(config) as pool:
                        if config.backend in ("process", "ray"):
                            futures = [pool.submit(run_task, config, llm, cached, llm_name, t, s, experiment)
                                       for t, s in todo]
                        else:
                            futures = [pool.submit(one, t, s) for t, s in todo]
                        collect(futures, keep)
        finally:
            bar.close()
        return [found[episode_key(chash, t, s)] for t, s in plan if episode_key(chash, t, s) in found]


def _replace(config: RunConfig, **changes: Any) -> RunConfig:
    from dataclasses import replace

    return replace(config, **changes)


def _failed(exc: BaseException) -> dict[str, Any]:
    tb = traceback.extract_tb(exc.__traceback__)
    where = f" at {tb[-1].filename.rsplit('/', 1)[-1]}:{tb[-1].lineno}" if tb else ""
    return {"success": False, "reward": 0.0, "steps": 0, "actions": [], "wall_s": 0.0,
            "error": f"{type(exc).__name__}: {exc}{where}", "error_kind": classify_error(exc)}


# ----------------------------------------------------------------- process workers
def _watch_parent(parent_pid: int, interval: float = 0.5) -> None:
    """Exit this worker as soon as its parent is gone (``kill -9`` on the run leaves no orphans)."""
    def watch() -> None:
        while os.getppid() == parent_pid:
            time.sleep(interval)
        os._exit(0)

    threading.Thread(target=watch, name="treegym-parent-watch", daemon=True).start()


def _executor(config: RunConfig) -> Any:
    # process workers watch this process and exit when it dies (_watch_parent)
    return make_executor(config.backend, config.workers, max_in_flight=config.max_in_flight,
                         ray_address=config.ray_address, initializer=_watch_parent, initargs=(os.getpid(),))


