"""The snapshots of one search: which nodes hold one, how to get back to any node, when to free them.

A search visits many env states and must return to them. With native
snapshots (a reference to an immutable state) keeping one per node costs
nothing. An ``external`` snapshot (an emulator image, a device handle) costs
seconds to take and holds a resource until released. :class:`SnapshotStore`
owns the search's snapshots and decides per node, by the declared cost of a
snapshot (``treegym.envs.snapshot_cost(env)``: the env's ``snapshot_cost_seconds``,
else ``SNAPSHOT_COST_SECONDS[kind]`` = ``Snapshot.cost_seconds``) against the
measured cost of env steps:

* **native** snapshots (or a declared cost of 0): every node holds one (eager;
  exactly the old behaviour); native ones stay on the tree's nodes after the
  search (a value holds nothing), so the store keeps no entry for them: a node
  is restored from its own ``snapshot``, and pruning frees nothing.
* **other kinds**: the root always holds one; another node holds one only when
  replaying to it from its nearest snapshotted ancestor would cost at least as
  much as taking a snapshot (the summed step seconds since that ancestor reach
  ``cost_seconds``). Otherwise the node is reached by restoring that ancestor
  and replaying the actions on the path (exact: the snapshot protocol promises
  that restore-then-same-actions reproduces the same transitions).

:meth:`restore` starts from the env's current node instead of a snapshot when
that node is an ancestor of the target (no restore at all). Snapshots are
released (``treegym.envs.release``; not native ones) when a subtree is
pruned (:meth:`release_subtree`) and when the search ends (:meth:`close`); a
node whose snapshot was released has ``snapshot = None`` and is still reachable
by replay from an ancestor that holds one. Counters: ``taken``, ``released``,
``restores``, ``replayed_steps``.
"""
from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from ...envs.core import release, restore, snapshot, snapshot_cost, snapshot_kind

if TYPE_CHECKING:  # pragma: no cover
    from .tree import SearchNode


class SnapshotStore:
    """Per-search snapshots of ``env`` keyed by search node (see the module docstring)."""

    def __init__(self, env: Any):
        self.env = env
        self.kind = snapshot_kind(env)
        #: declared seconds per snapshot (the env's ``snapshot_cost_seconds``, else its kind's)
        self.cost_seconds = snapshot_cost(env)
        self.eager = self.kind == "native" or self.cost_seconds <= 0.0
        #: native snapshots are values holding nothing: never released, so nothing is tracked to free them
        self.native = self.kind == "native"
        self._held: dict[SearchNode, Any] = {}
        self._debt: dict[SearchNode, float] = {}  # measured step seconds since the nearest held ancestor
        self.at: SearchNode | None = None         # the node whose state the env is in
        self.root: SearchNode | None = None
        self.taken = self.released = self.restores = self.replayed_steps = 0

    # ------------------------------------------------------------------ taking
    def _take(self, node: "SearchNode") -> None:
        snap = snapshot(self.env)
        self.taken += 1
        self._held[node] = snap
        node.snapshot = snap
        self._debt[node] = 0.0

    def add_root(self, root: "SearchNode") -> None:
        """The env is in ``root``'s state: snapshot it (the search returns there at the end)."""
        self._take(root)
        self.at = self.root = root

    def return_to_root(self) -> None:
        """Restore the root's snapshot (always: also resets what the env did outside the store)."""
        restore(self.env, self._held[self.root])
        self.restores += 1
        self.at = self.root

    def add_child(self, child: "SearchNode", step_seconds: float) -> None:
        """The env has just stepped from ``child.parent`` to ``child`` in ``step_seconds`` (read only
        when snapshots are not eager)."""
        self.at = child
        if self.native:  # one per node, never released: the node holds it, the store keeps no entry
            child.snapshot = snapshot(self.env)
            self.taken += 1
            return
        if self.eager:
            self._take(child)
            return
        debt = self._debt.get(child.parent, 0.0) + max(0.0, float(step_seconds))
        if debt >= self.cost_seconds:
            self._take(child)
        else:
            child.snapshot = None
            self._debt[child] = debt

    # ------------------------------------------------------------------ returning
    def restore(self, node: "SearchNode") -> None:
        """Put the env in ``node``'s state: from the env's current node when it is an ancestor,
        else from the nearest ancestor holding a snapshot, replaying the actions in between."""
        if self.at is node:
            return
        if self.native and node.snapshot is not None:  # every node holds its own (see add_child)
            restore(self.env, node.snapshot)
            self.restores += 1
            self.at = node
            return
        path: list[SearchNode] = []
        start = node
        while start is not None and start is not self.at and self._held_by(start) is None:
            path.append(start)
            start = start.parent
        if start is None:
            raise RuntimeError("no snapshot on the path to this node (was the search's store closed?)")
        if start is not self.at:
            restore(self.env, self._held_by(start))
            self.restores += 1
        for n in reversed(path):
            self.env.step(n.action)
            self.replayed_steps += 1
        self.at = node

    def _held_by(self, node: "SearchNode") -> Any:
        """The snapshot this store holds for ``node``, or None."""
        if self.native:
            return node.snapshot
        return self._held.get(node)

    def moved(self) -> None:
        """The env was moved outside the store (played, restored elsewhere): forget where it is."""
        self.at = None

    # ------------------------------------------------------------------ freeing
    def _release(self, node: "SearchNode") -> None:
        snap = self._held.get(node)
        if snap is None or snap.kind == "native":
            return  # a native snapshot is a value holding nothing: the tree keeps it, restorable after the search
        del self._held[node]
        node.snapshot = None
        release(self.env, snap)
        self.released += 1

    def release_subtree(self, node: "SearchNode") -> None:
        """Free every snapshot held in ``node``'s subtree (a pruned branch the search will not revisit).

        The root keeps its snapshot (the search returns there); pruned nodes stay
        reachable by replay should the algorithm come back after all. Native snapshots are never
        released: nothing to do.
        """
        if self.native:
            return
        for n in node.iter_subtree():
            if n is not self.root:
                self._release(n)

    def close(self) -> None:
        """Free every snapshot still held (the search ended)."""
        for n in list(self._held):
            self._release(n)
        self._debt.clear()

    @property
    def held(self) -> int:
        """Snapshots held now (native ones: one per node taken; none is ever released)."""
        return self.taken if self.native else len(self._held)

    def stats(self) -> dict[str, Any]:
        return {"snapshot_kind": self.kind, "snapshots_taken": self.taken, "snapshots_released": self.released,
                "snapshot_restores": self.restores, "replayed_steps": self.replayed_steps}


def timed_step(env: Any, action: str) -> tuple[tuple, float]:
    """``env.step(action)`` and the seconds it took."""
    t0 = time.perf_counter()
    out = env.step(action)
    return out, time.perf_counter() - t0
