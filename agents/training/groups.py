"""Group rollouts from forks: K continuations of a policy from one state, for GRPO-style training.

``group_rollouts(env, snap, make_policy, k)`` restores ``snap`` (a treegym ``Snapshot`` of
``env``) into K forks and plays one continuation on each until the episode ends, returning K
:class:`Rollout` values (actions, per-step rewards and observation texts, total reward, success,
error) in fork order. Every fork starts from exactly ``snap``: the env's own RNG state is part
of the snapshot, so the continuations differ only where the policy does (sampling temperature,
seed). ``make_policy(i)`` builds fork ``i``'s policy (anything with ``act(obs, info)``);
:class:`AgentFactory` builds treegym agents with per-fork seeds.

Backends (``backend=``):

* ``sequential`` - one scratch env made from ``env.spec``, restored before each continuation;
* ``thread`` - K forks (``treegym.envs.clone``-style: ``gym.make(spec)`` + restore), played on
  ``workers`` threads (LLM-bound policies);
* ``ray`` - on Ray actors through ``agents/executors.py``; ``make_policy`` and the snapshot are
  pickled (``make_policy`` must be a module-level callable or a ``functools.partial`` of one),
  each task makes its env from the spec (the ``ray`` extra).

A continuation that fails for an episode's own reason (LLM error, budget, the agent giving up)
is returned with ``error`` set, as ``treegym run`` records do; other exceptions propagate.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import gymnasium as gym

from ...envs.core import Snapshot, restore, snapshot
from ..experiments.episode import play
import treegym.envs  # noqa: F401 - registers the ids (also in a Ray worker)
from ..experiments.executors import make_executor
from ..registry import make_agent

BACKENDS = ("sequential", "thread", "ray")


@dataclass
class Rollout:
    """One continuation: what was played and what it earned (``rewards[i]`` after ``actions[i]``)."""

    index: int
    actions: list[str] = field(default_factory=list)
    rewards: list[float] = field(default_factory=list)
    observations: list[str] = field(default_factory=list)
    total_reward: float = 0.0
    success: bool = False
    steps: int = 0
    error: str | None = None
    error_kind: str | None = None

    def as_dict(self) -> dict[str, Any]:
        from dataclasses import asdict

        return asdict(self)


class AgentFactory:
    """A picklable ``make_policy``: fork ``i`` gets ``make_agent(agent, env_id, llm, seed=seed + i, **options)``
    (so forks sample differently and reproducibly). The LLM must be picklable for the Ray backend."""

    def __init__(self, agent: str, env_id: str, llm: Any = None, *, seed: int = 0, **options: Any):
        self.agent, self.env_id, self.llm, self.seed, self.options = agent, env_id, llm, int(seed), options

    def __call__(self, i: int) -> Any:
        return make_agent(self.agent, self.env_id, self.llm, seed=self.seed + int(i), **self.options)


def play_fork(env: gym.Env, snap: Snapshot, policy: Any, index: int, max_steps: int) -> Rollout:
    """Restore ``snap`` into ``env`` and play ``policy`` from there to the episode's end."""
    obs, info = restore(env, snap)
    rollout = Rollout(index=index)

    def seen(action: str, o: Any, reward: float) -> None:
        rollout.rewards.append(reward)
        rollout.observations.append(str(o.get("text", "")) if isinstance(o, dict) else str(o))

    outcome = play(env, policy, obs, info, max_actions=max_steps, on_step=seen)
    rollout.actions = list(outcome["actions"])
    rollout.total_reward = float(outcome["reward"])
    rollout.success = bool(outcome["success"])
    rollout.steps = int(outcome["steps"])
    rollout.error, rollout.error_kind = outcome["error"], outcome["error_kind"]
    return rollout


def _fresh(spec: Any) -> gym.Env:
    return gym.make(spec)


def _remote_fork(spec: Any, snap: Snapshot, make_policy: Callable[[int], Any], index: int, max_steps: int) -> Rollout:
    """One fork in a worker: a fresh env from ``spec``, restored to ``snap``, played."""
    env = _fresh(spec)
    try:
        return play_fork(env, snap, make_policy(index), index, max_steps)
    finally:
        env.close()


def group_rollouts(env: gym.Env, snap: Snapshot | None, make_policy: Callable[[int], Any], k: int, *,
                   backend: str = "sequential", workers: int | None = None, max_steps: int = 100,
                   ray_address: str | None = None) -> list[Rollout]:
    """K continuations of ``make_policy(i)`` from ``snap`` (default: ``env``'s current state); see module docstring.

    ``env`` is not moved (forks are separate envs made from ``env.spec``)."""
    if int(k) < 1:
        raise ValueError(f"a group needs k >= 1 continuations, got {k}")
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; use one of: {', '.join(BACKENDS)}")
    spec = getattr(env, "spec", None)
    if spec is None:
        raise ValueError("group_rollouts needs an env made with gym.make (forks are made from env.spec)")
    if snap is None:
        snap = snapshot(env)
    k, workers = int(k), int(workers or k)
    if backend == "sequential":
        scratch = _fresh(spec)
        try:
            return [play_fork(scratch, snap, make_policy(i), i, max_steps) for i in range(k)]
        finally:
            scratch.close()

    if backend == "thread":
        forks = [_fresh(spec) for _ in range(k)]
        try:
            with make_executor("thread", workers) as pool:
                futures = [pool.submit(play_fork, forks[i], snap, make_policy(i), i, max_steps) for i in range(k)]
                return [f.result() for f in futures]
        finally:
            for f in forks:
                f.close()
    with make_executor("ray", min(workers, k), max_in_flight=k, ray_address=ray_address) as pool:
        futures = [pool.submit(_remote_fork, spec, snap, make_policy, i, max_steps) for i in range(k)]
        return [f.result() for f in futures]
