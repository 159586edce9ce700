"""Evaluation: run (env, agent, LLM, tasks) and write one JSON line per episode.

``evaluate(...)`` is what ``treegym run`` calls. It

* builds one env and one agent per episode (``gym.make`` + ``make_agent``),
  gives the agent a per-episode budgeted view of the shared LLM so calls and
  tokens are counted per episode,
* runs episodes sequentially, on ``workers`` threads (the default: LLM-bound
  work is I/O) or on ``workers`` spawned processes (``backend="process"``,
  for CPU-heavy envs; the LLM object is pickled into each worker),
* appends each finished record to ``out`` as one line under a lock, flushed
  and fsync-ed, so a killed run loses at most the episodes in flight,
* on restart skips the episodes already in ``out`` (key: env, task, seed,
  agent, llm) and drops a torn last line left by a kill,
* never lets one episode's failure (LLM down, budget spent, env error) stop
  the others: the record says what went wrong in ``error``.

Record fields: ``env_id, task_id, agent, llm, seed, success, reward, steps,
llm_calls, prompt_tokens, completion_tokens, wall_s, actions, error`` plus
whatever the agent's ``stats()`` adds under ``agent_stats``.
"""
from __future__ import annotations

import hashlib
import json
import os
import sys
import threading
import time
import traceback
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

import gymnasium as gym

import treegym.envs  # noqa: F401 - registers the ids, also inside spawned worker processes

from .llm.base import LLM, BudgetExceeded, LLMError
from .llm.cache import CachedLLM as CachedLLMType
from .policy import AgentGaveUp


@dataclass(frozen=True)
class EpisodeKey:
    env_id: str
    task_id: Any
    seed: int
    agent: str
    llm: str

    @classmethod
    def of(cls, record: dict) -> "EpisodeKey":
        return cls(record["env_id"], _task_key(record["task_id"]), int(record["seed"]), record["agent"], record["llm"])


def _task_key(task_id: Any) -> Any:
    return tuple(task_id) if isinstance(task_id, list) else task_id


def episode_seed(base_seed: int, task_id: Any) -> int:
    """A deterministic per-episode seed from the run seed and the task id."""
    digest = hashlib.sha256(f"{base_seed}:{task_id}".encode()).digest()
    return int.from_bytes(digest[:4], "little") & 0x7FFFFFFF


# ----------------------------------------------------------------- one episode
def run_episode(
    env: gym.Env,
    policy: Any,
    *,
    task_id: Any = None,
    seed: int | None = None,
    reset_options: dict | None = None,
    max_actions: int = 1000,
) -> dict[str, Any]:
    """Run ``policy`` on ``env`` for one episode; returns the outcome fields of a record.

    ``max_actions`` is a safety net for envs with no step limit; treegym envs
    end episodes themselves.
    """
    options = dict(reset_options or {})
    if task_id is not None:
        options.setdefault("task_id", task_id)
    t0 = time.perf_counter()
    actions: list[str] = []
    reward_total, success, error = 0.0, False, None
    obs, info = env.reset(seed=seed, options=options or None)
    if callable(getattr(policy, "reset", None)):
        policy.reset()
    if callable(getattr(policy, "bind", None)):
        policy.bind(env)
    steps = 0
    try:
        while steps < max_actions:
            action = policy.act(obs, info)
            actions.append(action)
            obs, reward, terminated, truncated, info = env.step(action)
            steps += 1
            reward_total += float(reward)
            if terminated or truncated:
                break
        success = bool(info.get("success", info.get("won", False)))
    except BudgetExceeded as exc:
        error = f"budget exhausted: {exc}"
    except AgentGaveUp as exc:
        error = f"agent gave up: {exc}"
    except LLMError as exc:
        error = f"LLM error: {exc}"
    return {
        "success": success,
        "reward": reward_total,
        "steps": steps,
        "actions": actions,
        "error": error,
        "wall_s": round(time.perf_counter() - t0, 4),
        "reward_parts": _jsonable(info.get("reward_parts")) if isinstance(info, dict) and "reward_parts" in info else None,
    }


def _jsonable(x: Any) -> Any:
    try:
        json.dumps(x)
        return x
    except TypeError:
        return json.loads(json.dumps(x, default=str))


# ----------------------------------------------------------------- the results file
class ResultsFile:
    """Append-only JSONL of episode records, safe to resume after a kill."""

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        self._lock = threading.Lock()

    def load(self) -> list[dict]:
        """Records already written. A torn last line (killed mid-write) is removed from the file."""
        if not self.path.exists():
            return []
        raw = self.path.read_bytes()
        records, good_end = [], 0
        pos = 0
        for line in raw.splitlines(keepends=True):
            end = pos + len(line)
            if line.endswith(b"\n"):
                text = line.strip()
                if text:
                    try:
                        records.append(json.loads(text))
                    except json.JSONDecodeError as exc:
                        raise ValueError(
                            f"{self.path}: line at byte {pos} is not JSON ({exc}); fix or move the file, "
                            "it is not a treegym results file"
                        ) from None
                good_end = end
            pos = end
        if good_end < len(raw):
            print(f"treegym: dropping an unfinished last line of {self.path} (a run was killed mid-write)", file=sys.stderr)
            with open(self.path, "r+b") as fh:
                fh.truncate(good_end)
        return records

    def append(self, record: dict) -> None:
        line = (json.dumps(record, ensure_ascii=False, default=str) + "\n").encode()
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                os.write(fd, line)
                os.fsync(fd)
            finally:
                os.close(fd)


# ----------------------------------------------------------------- a run
@dataclass
class RunConfig:
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


def summarize(records: Iterable[dict]) -> dict[str, Any]:
    recs = list(records)
    n = len(recs)
    if not n:
        return {"episodes": 0}
    return {
        "episodes": n,
        "pass_rate": sum(bool(r.get("success")) for r in recs) / n,
        "mean_reward": sum(float(r.get("reward") or 0.0) for r in recs) / n,
        "mean_calls": sum(int(r.get("llm_calls") or 0) for r in recs) / n,
        "mean_tokens": sum(int(r.get("prompt_tokens") or 0) + int(r.get("completion_tokens") or 0) for r in recs) / n,
        "errors": sum(1 for r in recs if r.get("error")),
        "wall_s": sum(float(r.get("wall_s") or 0.0) for r in recs),
    }


def format_summary(summary: dict[str, Any], title: str = "") -> str:
    if not summary.get("episodes"):
        return f"{title}: no episodes"
    rows = [
        ("episodes", f"{summary['episodes']}"),
        ("pass rate", f"{summary['pass_rate'] * 100:.1f}%"),
        ("mean reward", f"{summary['mean_reward']:.3f}"),
        ("mean LLM calls", f"{summary['mean_calls']:.1f}"),
        ("mean tokens", f"{summary['mean_tokens']:.0f}"),
        ("episodes with errors", f"{summary['errors']}"),
        ("episode wall time (sum)", f"{summary['wall_s']:.1f} s"),
    ]
    width = max(len(k) for k, _ in rows)
    lines = [title] if title else []
    lines += [f"  {k.ljust(width)}  {v}" for k, v in rows]
    return "\n".join(lines)


def run_task(config: RunConfig, llm: LLM | None, cached: Any, llm_name: str, task_id: Any, seed: int) -> dict:
    """One episode of ``config`` as a finished record. Never raises for an episode's own failure.

    Module-level (not a closure) so a process pool can run it.
    """
    from .llm.wrappers import BudgetedLLM
    from .registry import make_agent

    record: dict[str, Any] = {
        "env_id": config.env_id, "task_id": task_id, "agent": config.agent, "llm": llm_name, "seed": seed,
    }
    episode_llm = inner = None
    if llm is not None:
        # Each episode gets its own cache session (replayed samples in
        # order) and its own budget, which also counts its calls and tokens.
        inner = cached.session() if cached is not None else llm
        episode_llm = BudgetedLLM(inner, max_calls=config.budget)
    env = None
    try:
        env = gym.make(config.env_id, **(config.env_kwargs or {}))
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
        wall_s=outcome["wall_s"], actions=outcome["actions"], error=outcome["error"],
    )
    if outcome.get("reward_parts") is not None:
        record["reward_parts"] = outcome["reward_parts"]
    if stats:
        record["agent_stats"] = _jsonable(stats)
    if isinstance(inner, CachedLLMType):
        record["cache"] = inner.stats()
    return record


def evaluate(
    config: RunConfig,
    out: str | os.PathLike,
    *,
    llm: LLM | None = None,
    progress: bool = True,
    on_record: Callable[[dict], None] | None = None,
) -> list[dict]:
    """Run every task of ``config`` not already in ``out``; return all records of this config."""
    from .llm.spec import make_llm
    from .registry import agent_spec, make_agent

    spec = agent_spec(config.agent)
    if llm is None and spec.needs_llm:
        llm = make_llm(config.llm_spec, env_id=config.env_id, **(config.llm_kwargs or {}))
    llm_name = getattr(llm, "name", "none") if (llm is not None and spec.needs_llm) else "none"
    cached = None
    if llm is not None and spec.needs_llm and config.cache_path:
        cached = CachedLLMType(llm, config.cache_path, mode=config.cache_mode)  # type: ignore[arg-type]

    # Build one agent up front so a bad name or option fails the run at once,
    # with its message, instead of failing every episode.
    make_agent(config.agent, config.env_id, llm if spec.needs_llm else None, seed=config.seed,
               **dict(config.agent_options or {}))

    results = ResultsFile(out)
    existing = results.load()
    done = {EpisodeKey.of(r) for r in existing if "env_id" in r}
    todo = []
    for task_id in config.task_ids:
        seed = episode_seed(config.seed, task_id)
        key = EpisodeKey(config.env_id, _task_key(task_id), seed, config.agent, llm_name)
        if key not in done:
            todo.append((task_id, seed))
    mine = [r for r in existing if "env_id" in r and EpisodeKey.of(r).env_id == config.env_id
            and r.get("agent") == config.agent and r.get("llm") == llm_name]

    def one(task_id: Any, seed: int) -> dict:
        return run_task(config, llm if spec.needs_llm else None, cached, llm_name, task_id, seed)

    bar = _progress(len(todo), config, progress)
    new: list[dict] = []
    try:
        if config.workers <= 1 and not config.max_in_flight and config.backend != "ray":
            for task_id, seed in todo:
                rec = one(task_id, seed)
                results.append(rec)
                new.append(rec)
                bar.update(1)
                if on_record:
                    on_record(rec)
        else:
            with _executor(config) as pool:
                if config.backend in ("process", "ray"):
                    futures = [pool.submit(run_task, config, llm if spec.needs_llm else None, cached, llm_name, t, s)
                               for t, s in todo]
                else:
                    futures = [pool.submit(one, t, s) for t, s in todo]
                try:
                    for fut in as_completed(futures):
                        rec = fut.result()
                        results.append(rec)
                        new.append(rec)
                        bar.update(1)
                        if on_record:
                            on_record(rec)
                except BaseException:
                    for f in futures:
                        f.cancel()
                    raise
    finally:
        bar.close()
    return mine + new


def _failed(exc: BaseException) -> dict[str, Any]:
    tb = traceback.extract_tb(exc.__traceback__)
    where = f" at {tb[-1].filename.rsplit('/', 1)[-1]}:{tb[-1].lineno}" if tb else ""
    return {"success": False, "reward": 0.0, "steps": 0, "actions": [], "wall_s": 0.0,
            "error": f"{type(exc).__name__}: {exc}{where}"}


def _executor(config: RunConfig) -> Any:
    from .executors import make_executor

    return make_executor(config.backend, config.workers, max_in_flight=config.max_in_flight,
                         ray_address=config.ray_address)


class _NoBar:
    def update(self, n: int) -> None:
        pass

    def close(self) -> None:
        pass


def _progress(total: int, config: RunConfig, enabled: bool) -> Any:
    if not enabled or total == 0:
        return _NoBar()
    from tqdm import tqdm

    return tqdm(total=total, desc=f"{config.env_id} {config.agent}", unit="ep", file=sys.stderr, dynamic_ncols=True)
