"""Tree-structured rollouts for agent RL from real forks: GRPO chains, Tree-GRPO trees, GiGPO anchors.

``sample_rollouts(env_id, llm, task_ids, scheme)`` samples each task's group with a scheme of
``sampling.py`` (:class:`Chain`, :class:`TreeSearch`, :class:`Anchor`), computes the advantages of
``advantages.py`` and yields, per task, its rows (``rows.py``) and what sampling cost
(:class:`Accounting`). ``treegym rollouts`` (``scripts/cmd_rollouts.py``) writes the rows as JSONL.
"""
from __future__ import annotations

from typing import Any, Iterable, Iterator

from .accounting import Accounting
from .forest import Forest, Node
from .player import Player, state_identity
from .rows import advantages_for, forest_rows
from .sampling import MODES, Anchor, Chain, TreeSearch, sample_task


def sample_rollouts(env_id: str, llm: Any, task_ids: Iterable[Any], scheme: Any, *, seed: int = 0,
                    temperature: float = 1.0, max_steps: int = 30, env_kwargs: dict | None = None,
                    scale: str = "std", gamma: float = 0.95,
                    omega: float = 1.0) -> Iterator[tuple[Forest, list[dict[str, Any]], Accounting]]:
    """Per task: (its forest, its rows, what it cost). One env is made and reused for every task."""
    import gymnasium as gym

    env = gym.make(env_id, **(env_kwargs or {}))
    try:
        player = Player(env, env_id, llm, temperature=temperature, seed=seed, max_steps=max_steps,
                        fork=scheme.needs_fork, identify=scheme.needs_identity)
        for i, task_id in enumerate(task_ids):
            forest, spent = sample_task(scheme, player, task_id, seed=seed + i)
            rows = list(forest_rows(forest, scheme.mode, env_id, scale=scale, gamma=gamma, omega=omega))
            yield forest, rows, spent
    finally:
        env.close()


__all__ = ["MODES", "Accounting", "Anchor", "Chain", "Forest", "Node", "Player", "TreeSearch", "advantages_for",
           "forest_rows", "sample_rollouts", "sample_task", "state_identity"]
