"""The policy protocol: anything with ``reset()`` and ``act(observation, info) -> str``.

Plug any policy into any env::

    obs, info = env.reset(seed=0)
    policy.reset()
    while True:
        action = policy.act(obs, info)
        obs, reward, terminated, truncated, info = env.step(action)
        if terminated or truncated: break

Policies that plan on a forkable env (search agents, the oracle) also define
``bind(env)``: the episode runner calls it after ``reset`` with the live env.
They may snapshot/branch/restore it while deciding, but must leave it in the
state they found it before returning an action.

``stats()`` (optional) returns extra per-episode numbers for the run record
(search tree size, explored trajectories, ...).
"""
from __future__ import annotations

from typing import Any, Protocol, runtime_checkable


class AgentGaveUp(Exception):
    """A policy has nothing left to try (search space or budget exhausted)."""


@runtime_checkable
class Policy(Protocol):
    def reset(self) -> None: ...

    def act(self, observation: dict, info: dict) -> str: ...


class BasePolicy:
    """Convenience base: no-op ``reset``/``bind``, ``stats`` empty."""

    name = "policy"
    env: Any = None

    def reset(self) -> None:
        pass

    def bind(self, env: Any) -> None:
        self.env = env

    def act(self, observation: dict, info: dict) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    def stats(self) -> dict[str, Any]:
        return {}
