"""The three sampling schemes, each building one task's :class:`~.forest.Forest` with a :class:`~.player.Player`.

* :class:`Chain` (GRPO's scheme, the baseline): ``group`` independent trajectories, each from a
  fresh reset, one one-path tree each; or, with ``budget``, trajectories until the task's LLM
  calls reach ``budget`` (the last one finishes, so the calls may pass it by less than one
  trajectory).
* :class:`TreeSearch` (Tree-GRPO, §3.1): ``trees`` (M) trees, each started by one chain from a
  reset; then ``iters`` (L) rounds in which, in every tree, ``expand`` (N) nodes are drawn
  uniformly without replacement among the tree's step nodes that are not leaves, and from each
  one new branch is played to the end by restoring that node's snapshot. The root (the task's
  first state) is not drawn: a new first step is a new tree. A tree with fewer such nodes than N
  expands all of them. Each tree then holds ``1 + N * L`` trajectories when enough nodes are there.
* :class:`Anchor` (GiGPO-style): ``group`` (G) trajectories from one root (each restores the
  root's snapshot after the first), then ``states`` (B) states drawn uniformly among the non-leaf
  step nodes, each branched ``branch`` (K) times. States are identified by the env's own state
  (``player.state_identity``), so every step's anchor group is exact.

The random draws use the player's RNG, so a run is reproducible from its seed.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .accounting import Accounting
from .forest import Forest
from .player import Player

MODES = ("chain", "tree", "anchor")


def _check_sizes(scheme: Any, **minimum: int) -> None:
    """Refuse a size below its minimum, naming the flag that sets it."""
    for name, low in minimum.items():
        value = getattr(scheme, name)
        if not isinstance(value, int) or value < low:
            raise ValueError(f"--{name} must be a whole number of at least {low}, got {value!r}")


def _expandable(forest: Forest, tree: int | None = None) -> list[int]:
    return [n.id for n in forest.steps() if not n.leaf and (tree is None or n.tree == tree)]


def _draw(player: Player, ids: list[int], k: int) -> list[int]:
    if len(ids) <= k:
        return list(ids)
    return sorted(int(i) for i in player.rng.choice(ids, size=k, replace=False))


@dataclass(frozen=True)
class Chain:
    group: int = 8
    budget: int | None = None  # LLM calls per task; when set, trajectories until it is reached

    mode = "chain"
    needs_fork = False
    needs_identity = False

    def __post_init__(self) -> None:
        _check_sizes(self, group=1, **({} if self.budget is None else {"budget": 1}))

    def sample(self, player: Player, forest: Forest) -> None:
        start = player.acct.llm_calls
        tree = 0
        while (tree < self.group) if self.budget is None else (player.acct.llm_calls - start < self.budget):
            player.play_from(forest, player.root(forest, tree).id)
            tree += 1


@dataclass(frozen=True)
class TreeSearch:
    trees: int = 2
    expand: int = 2
    iters: int = 2

    mode = "tree"
    needs_fork = True
    needs_identity = False

    def __post_init__(self) -> None:
        _check_sizes(self, trees=1, expand=1, iters=0)

    def sample(self, player: Player, forest: Forest) -> None:
        for m in range(self.trees):
            player.play_from(forest, player.root(forest, m).id)
        for _ in range(self.iters):
            for m in range(self.trees):
                for node_id in _draw(player, _expandable(forest, m), self.expand):
                    player.play_from(forest, node_id)


@dataclass(frozen=True)
class Anchor:
    group: int = 4
    states: int = 2
    branch: int = 2

    mode = "anchor"
    needs_fork = True
    needs_identity = True

    def __post_init__(self) -> None:
        _check_sizes(self, group=1, states=0, branch=1)

    def sample(self, player: Player, forest: Forest) -> None:
        root = player.root(forest, 0)
        for _ in range(self.group):
            player.play_from(forest, root.id)
        for node_id in _draw(player, _expandable(forest), self.states):
            for _ in range(self.branch):
                player.play_from(forest, node_id)


def sample_task(scheme: Any, player: Player, task_id: Any, seed: int | None = None) -> tuple[Forest, Accounting]:
    """One task's forest under ``scheme`` and what sampling it cost."""
    before = Accounting() + player.acct
    forest = Forest(task_id, seed)
    try:
        scheme.sample(player, forest)
    finally:
        player.forget()
    spent = Accounting(**{k: getattr(player.acct, k) - getattr(before, k) for k in before.__dataclass_fields__})
    spent.tasks = 1
    return forest, spent
