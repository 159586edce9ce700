"""The env's own cost of one search's expansions: each (parent state, action) the search expanded, replayed.

A search's expansion restores the parent's state, steps the chosen action and snapshots the child. The
env's cost of that work depends on where the search went (B-MoCA's deep screens, WebShop's typed
queries), so the baseline "at the expanded node" (issue 37) replays the search's own expansions:

* :func:`expansions_of` lists the tree's non-root nodes in creation order (each is one expansion) and
  refuses a tree whose count differs from the search's ``search_expansions`` (a node made otherwise, or
  an expansion the tree lost, would make the replay another workload than the search's).
* :class:`ExpansionReplay` builds every distinct parent's state by reset + replay of the start state's
  actions and the parent's path (untimed; the replayed observation must equal the tree's parent
  observation, else :class:`RollbackRefused`), snapshots it, and then :meth:`ExpansionReplay.run` times,
  as one block (as a search is timed), for each expansion in the search's order: restore the parent's
  snapshot (unless the env holds it: below), step the node's action, snapshot the child and release it. Each step's observation must equal
  the tree's child observation (checked after the clock stops; :class:`RollbackRefused` otherwise).
  :meth:`ExpansionReplay.close` releases the parents' snapshots.

What the replay mirrors: where the search expanded the child it had just made, its snapshot store knows
the env already holds that state and skips the restore; the replay skips it there too (the env holds the
same state, reached by the same step), so a replay restores exactly where the search did and neither
side pays a restore the other does not. What can still tilt the figure: the search's snapshot store may
keep fewer snapshots than one per node (costly snapshot kinds); the replay takes one per expansion.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

import gymnasium as gym

import treegym.envs as te
from treegym.scripts.bench.bench_rollback import RollbackRefused, replay
from treegym.scripts.bench.bench_support import Samples


def expansions_of(root: Any, expansions: int, where: str) -> list[Any]:
    """The non-root nodes under ``root`` in creation order (node ids); raises :class:`RollbackRefused`
    unless there are exactly ``expansions`` of them (the search's ``search_expansions``)."""
    nodes = sorted((n for n in root.iter_subtree() if n.parent is not None), key=lambda n: n.id)
    if len(nodes) != expansions:
        raise RollbackRefused(f"{where}: its tree has {len(nodes)} nodes below the root but the search counted "
                              f"{expansions} expansions; its expansions cannot be replayed one per node")
    return nodes


@dataclass(frozen=True)
class Expansion:
    """One expansion to replay: the parent's snapshot (``parent`` indexes :attr:`ExpansionReplay.parents`),
    the action stepped, and the tree's child node (its observation is the reference)."""

    parent: int
    action: Any
    node: Any


class ExpansionReplay:
    """The expansions ``nodes`` (from :func:`expansions_of`) of a search started at ``start`` (a
    ``bench_overhead.StartState``), ready to replay on ``env``: see the module docstring. ``parent_of[i]``
    is the position of expansion i's parent among the expansions (-1: the root), for callers that follow
    the tree's shape (``bench_overhead_floor``)."""

    def __init__(self, env: gym.Env, start: Any, nodes: Sequence[Any], where: str):
        self.env, self.where = env, where
        self.parents: list[Any] = []  # snapshots, one per distinct parent
        position = {id(n): i for i, n in enumerate(nodes)}
        slot: dict[int, int] = {}
        items = []
        try:
            for node in nodes:
                parent = node.parent
                if id(parent) not in slot:
                    path = [n.action for n in parent.path()[1:]]
                    obs = replay(env, start.seed, [*start.actions, *path])[0]
                    d = te.first_difference(obs, parent.observation)
                    if d is not None:
                        raise RollbackRefused(f"{where}: reset + replay to the parent of node {node.id} "
                                              f"({len(path)} actions below the root) differs from the tree: {d}")
                    slot[id(parent)] = len(self.parents)
                    self.parents.append(te.snapshot(env))
                items.append(Expansion(slot[id(parent)], node.action, node))
        except BaseException:
            self.close()
            raise
        self.items: tuple[Expansion, ...] = tuple(items)
        self.parent_of: tuple[int, ...] = tuple(position.get(id(n.parent), -1) for n in nodes)
        #: per expansion, whether its parent is the child the previous expansion made: the env holds it
        #: then, and the search (and the replay) skip its restore
        self.follow_on: tuple[bool, ...] = tuple(bool(i) and p == i - 1 for i, p in enumerate(self.parent_of))
        self.follow_ons = sum(self.follow_on)

    def __len__(self) -> int:
        return len(self.items)

    def run(self, samples: Samples, name: str, each: Callable[[int, Expansion, tuple], None] | None = None) -> None:
        """Replay every expansion once, timed as one block and recorded per expansion under ``name``;
        ``each(i, expansion, step_result)``, when given, runs inside the clock after expansion i's step
        (``bench_overhead_floor``'s per-expansion work). The env is first moved off the first parent's
        state; a follow-on expansion (:attr:`follow_on`) steps from the state the previous one left, as
        the search did. Raises :class:`RollbackRefused` when a step's observation differs from the tree's child."""
        env, parents, items = self.env, self.parents, self.items
        if not items:
            return
        restore, snapshot, release, step = te.restore, te.snapshot, te.release, env.step
        restore(env, parents[items[0].parent])
        step(items[0].action)  # the first timed restore comes from another state
        seen = []
        c0, w0 = samples.clock()
        if each is None:
            for item, held in zip(items, self.follow_on):
                if not held:
                    restore(env, parents[item.parent])
                seen.append(step(item.action)[0])
                release(env, snapshot(env))
        else:
            for i, (item, held) in enumerate(zip(items, self.follow_on)):
                if not held:
                    restore(env, parents[item.parent])
                result = step(item.action)
                seen.append(result[0])
                release(env, snapshot(env))
                each(i, item, result)
        c1, w1 = samples.clock()
        samples.add(name, (c1 - c0) / len(items), (w1 - w0) / len(items))
        for item, obs in zip(items, seen):
            d = te.first_difference(obs, item.node.observation)
            if d is not None:
                raise RollbackRefused(f"{self.where}: replaying node {item.node.id} ({item.action!r} from its "
                                      f"parent's restored state) gave another observation than the tree's: {d}")

    def close(self) -> None:
        """Release the parents' snapshots (untimed); idempotent."""
        parents, self.parents = self.parents, []
        for snap in parents:
            te.release(self.env, snap)
