"""One episode: ``run_episode(env, policy, task_id, seed)`` resets, binds a planning policy, plays until the
episode ends and returns its record (success, reward, steps, actions, error, wall_s); ``episode_seed`` derives
the per-task seed of a run."""
from __future__ import annotations

import hashlib
import json
import time
from typing import Any, Callable

import gymnasium as gym

from ..llm.base import BudgetExceeded, LLMError
from ..policy import AgentGaveUp
from .runs import classify_error




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
    end episodes themselves. Budget, give-up and LLM errors end the episode
    with ``error`` and ``error_kind`` set; other exceptions propagate.
    """
    options = dict(reset_options or {})
    if task_id is not None:
        options.setdefault("task_id", task_id)
    t0 = time.perf_counter()
    obs, info = env.reset(seed=seed, options=options or None)
    record = play(env, policy, obs, info, max_actions=max_actions)
    record["wall_s"] = round(time.perf_counter() - t0, 4)
    return record


def play(env: gym.Env, policy: Any, obs: Any, info: dict, *, max_actions: int = 1000,
         on_step: Callable[[str, Any, float], None] | None = None) -> dict[str, Any]:
    """Play ``policy`` on ``env`` from its current state (``obs``, ``info``) until the episode ends;
    returns the outcome fields of a record (``wall_s`` included). ``on_step(action, obs, reward)``
    sees every step. Errors are handled as :func:`run_episode` says."""
    t0 = time.perf_counter()
    actions: list[str] = []
    reward_total, success, error, error_kind = 0.0, False, None, None
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
            if on_step is not None:
                on_step(action, obs, float(reward))
            if terminated or truncated:
                break
        success = bool(info["success"])  # every treegym env reports it (envs/core/contract.py)
    except BudgetExceeded as exc:
        error, error_kind = f"budget exhausted: {exc}", classify_error(exc)
    except AgentGaveUp as exc:
        error, error_kind = f"agent gave up: {exc}", classify_error(exc)
    except LLMError as exc:
        error, error_kind = f"LLM error: {exc}", classify_error(exc)
    record = {
        "success": success,
        "reward": reward_total,
        "steps": steps,
        "actions": actions,
        "error": error,
        "error_kind": error_kind,
        "wall_s": round(time.perf_counter() - t0, 4),
        "reward_parts": _jsonable(info.get("reward_parts")) if isinstance(info, dict) and "reward_parts" in info else None,
    }
    if isinstance(info, dict) and "protocol" in info:
        record["protocol"] = str(info["protocol"])  # how the env judged the episode (report: protocol column)
    if error is None and isinstance(info, dict) and "correct_path" in info:
        record["correct_path"] = bool(info["correct_path"])  # RestBench's path grade (report: CPR)
    return record


def _jsonable(x: Any) -> Any:
    try:
        json.dumps(x)
        return x
    except TypeError:
        return json.loads(json.dumps(x, default=str))


