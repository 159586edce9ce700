"""The rollout forest of one task: nodes are whole agent steps, trajectories are root-to-leaf paths.

A :class:`Forest` holds every node sampled for one task (one GRPO "prompt"): one root per tree
(the state after ``reset``, no action) and one :class:`Node` per agent step (the chat prompt the
policy saw, its completion, the action the env played and the reward the env gave). A node is a
*leaf* when its trajectory ended there (the env terminated or truncated it, or the step cap was
reached); every leaf is one trajectory, and a trajectory's outcome is the sum of the env rewards
on its path (the episode's return). Chain sampling gives G one-path trees, Tree-GRPO M branching
trees, GiGPO-style anchor sampling one tree whose root has G children.

The forest is plain data, so the advantage formulas (``advantages.py``) are functions of it and the
tests build forests by hand.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterator


@dataclass
class Node:
    """One agent step (or, with ``parent is None``, a tree's root: the state after reset)."""

    id: int
    parent: int | None
    tree: int
    depth: int = 0
    action: str = ""
    completion: str = ""
    prompt: list[dict[str, str]] = field(default_factory=list)
    reward: float = 0.0  # the env's reward for this step
    leaf: bool = False  # a trajectory ended after this step
    state_key: str = ""  # identity of the env state after this step (root: after reset); "" = unknown
    children: list[int] = field(default_factory=list)

    @property
    def is_root(self) -> bool:
        return self.parent is None


class Forest:
    """The nodes of one task's rollout group (module docstring); ids are 0, 1, 2, ... in creation order."""

    def __init__(self, task_id: Any = None, seed: int | None = None) -> None:
        self.task_id, self.seed = task_id, seed  # the reset's task and seed (a root's state)
        self.nodes: list[Node] = []

    def add_root(self, tree: int, state_key: str = "") -> Node:
        node = Node(id=len(self.nodes), parent=None, tree=int(tree), state_key=state_key)
        self.nodes.append(node)
        return node

    def add_step(self, parent: int, *, action: str, reward: float = 0.0, completion: str = "",
                 prompt: list[dict[str, str]] | None = None, leaf: bool = False, state_key: str = "") -> Node:
        up = self.nodes[parent]
        if up.leaf:
            raise ValueError(f"node {parent} ended its trajectory; no step can follow it")
        node = Node(id=len(self.nodes), parent=up.id, tree=up.tree, depth=up.depth + 1, action=action,
                    completion=completion, prompt=list(prompt or []), reward=float(reward), leaf=bool(leaf),
                    state_key=state_key)
        up.children.append(node.id)
        self.nodes.append(node)
        return node

    # ------------------------------------------------------------------ reading
    def steps(self) -> Iterator[Node]:
        """Every non-root node, by id."""
        return (n for n in self.nodes if n.parent is not None)

    def leaves(self, tree: int | None = None) -> list[Node]:
        return [n for n in self.nodes if n.leaf and (tree is None or n.tree == tree)]

    def trees(self) -> list[int]:
        return sorted({n.tree for n in self.nodes})

    def path(self, node_id: int) -> list[Node]:
        """The steps from the root down to ``node_id`` (the root itself left out)."""
        out: list[Node] = []
        node = self.nodes[node_id]
        while node.parent is not None:
            out.append(node)
            node = self.nodes[node.parent]
        return out[::-1]

    def outcome(self, leaf_id: int) -> float:
        """The trajectory's return: the sum of the env rewards on the root-to-leaf path."""
        return float(sum(n.reward for n in self.path(leaf_id)))

    def leaves_below(self, node_id: int) -> list[int]:
        """The leaves (trajectories) whose path goes through ``node_id`` (itself, for a leaf)."""
        out, todo = [], [node_id]
        while todo:
            node = self.nodes[todo.pop()]
            if node.leaf:
                out.append(node.id)
            todo.extend(node.children)
        return sorted(out)

    def pre_state_key(self, node_id: int) -> str:
        """The identity of the state a step was taken from (its parent's ``state_key``)."""
        parent = self.nodes[node_id].parent
        return "" if parent is None else self.nodes[parent].state_key
