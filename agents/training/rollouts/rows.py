"""Training rows from a sampled forest: one JSON object per agent step.

Fields of every row:

* ``prompt`` - the chat messages the policy saw (``system``, ``user``), and ``completion`` - its
  reply as one ``assistant`` message: TRL's conversational prompt-completion format;
* ``advantage`` - the number to multiply the completion's log-probability by, with its parts per
  scheme: ``advantage_intra`` / ``advantage_inter`` (tree), ``advantage_episode`` /
  ``advantage_step`` / ``anchor`` / ``anchor_size`` (anchor); formulas in ``advantages.py``;
* ``reward`` - the trajectory's outcome (the env's episode return); for a step shared by several
  trajectories, the mean over them, with ``leaves`` = how many trajectories pass through it;
* ``env_id``, ``mode``, ``task_id`` (a string), ``seed`` (the reset's seed: with the task and the
  path's actions it reproduces the step's state), ``tree``, ``node``, ``parent`` (the previous step's
  ``node``; null for a first step), ``depth`` (1 for a first step), ``action`` (as played),
  ``step_reward`` (the env's reward for this step), ``leaf`` (the trajectory ended here).
"""
from __future__ import annotations

from typing import Any, Iterator

from . import advantages as adv
from .forest import Forest


def advantages_for(mode: str, forest: Forest, *, scale: str = "std", gamma: float = 0.95,
                   omega: float = 1.0) -> dict[int, dict[str, Any]]:
    """The advantage parts of every step node under ``mode``'s formulas."""
    if mode == "chain":
        return adv.grpo(forest, scale=scale)
    if mode == "tree":
        return adv.tree_grpo(forest, scale=scale)
    if mode == "anchor":
        return adv.gigpo(forest, gamma=gamma, omega=omega, scale=scale)
    raise ValueError(f"unknown mode {mode!r}; use chain, tree or anchor")


def forest_rows(forest: Forest, mode: str, env_id: str, **formula: Any) -> Iterator[dict[str, Any]]:
    """The rows of one task's forest, by node id (module docstring)."""
    parts = advantages_for(mode, forest, **formula)
    for node in forest.steps():
        below = forest.leaves_below(node.id)
        outcomes = [forest.outcome(i) for i in below]
        parent = forest.nodes[node.parent] if node.parent is not None else None
        row: dict[str, Any] = {
            "env_id": env_id, "mode": mode, "task_id": str(forest.task_id), "seed": forest.seed, "tree": node.tree, "node": node.id,
            "parent": None if parent is None or parent.is_root else parent.id, "depth": node.depth,
            "prompt": node.prompt, "completion": [{"role": "assistant", "content": node.completion}],
            "action": node.action, "step_reward": node.reward,
            "reward": sum(outcomes) / len(outcomes) if outcomes else 0.0, "leaves": len(below), "leaf": node.leaf,
        }
        row.update(parts[node.id])
        yield row


def row_path(rows_by_node: dict[int, dict[str, Any]], node: int) -> list[dict[str, Any]]:
    """One task's rows from its first step down to ``node`` (rows keyed by ``node``, linked by ``parent``)."""
    out = []
    at: int | None = node
    while at is not None:
        out.append(rows_by_node[at])
        at = rows_by_node[at]["parent"]
    return out[::-1]
