"""Tree of Thoughts search (Yao et al. 2023): agents ``bfs`` and ``dfs``.

Both use ToT's Game-of-24 recipe through the task hooks: a *propose* call
returns several candidate next steps at once (``n_propose`` asked for, ToT's
one-shot prompt lists 8), every candidate is stepped in the env from its
parent's snapshot, and every new state gets a *value*: the env's reward when
the step ended the episode (1 won / 0 lost), else the mean of ``n_evaluate``
LLM value calls (sure 1 / likely 0.5 / impossible 0; ToT sums 20/1/0.001 over
its samples, which orders states the same way up to ties).

``bfs`` (ToT ``solve``, method_generate=propose, method_evaluate=value,
method_select=greedy): level by level, propose from every state of the
frontier, value every new state, keep the best ``breadth`` (b = 5) as the next
frontier, for ``max_depth`` levels (Game of 24: 3 operations + answer = 4).

``dfs`` (ToT's DFS, used for crosswords): from a state, propose, value the
candidates, and descend into them best-first; a candidate whose value is below
``value_threshold`` is pruned (not descended into), and when a state's
candidates are exhausted the search backtracks to its parent. At most
``max_children`` candidates are tried per state.

Both stop as soon as a step wins (``stop_on_success``, default on: the env's
reward says the game is won, which ToT checks after the search). Without a
win, the answer is the best-valued deepest state, and the agent continues from
it greedily (see ``SearchAgent``). ``node.value`` is the state's value;
``stats["pruned"]`` marks DFS prunes, ``stats["level"]`` the BFS level a
state was kept at.
"""
from __future__ import annotations

from typing import Any, Sequence

from ..registry import register_agent
from .base import SearchAgent, SearchNode, SearchTree, TaskHooks, _as_bool, build_search_agent


class _ToTAgent(SearchAgent):
    """What BFS and DFS share: proposing, valuing, the answer."""

    value_name = "value"

    def __init__(self, env_id: str, llm: Any, *, n_propose: int = 8, n_evaluate: int = 3, max_depth: int = 4,
                 stop_on_success: bool = True, **options: Any):
        options.setdefault("value_samples", n_evaluate)
        super().__init__(env_id, llm, **options)
        for key, v in (("n_propose", n_propose), ("n_evaluate", n_evaluate), ("max_depth", max_depth)):
            if int(v) < 1:
                raise ValueError(f"{self.name}: {key} must be at least 1, got {v}")
        self.n_propose = int(n_propose)
        self.max_depth = int(max_depth)
        self.stop_on_success = _as_bool(stop_on_success)
        self.won: SearchNode | None = None

    def children(self, node: SearchNode, hooks: TaskHooks) -> list[SearchNode]:
        """Propose from ``node``, step every proposal, value every new child (stops early on a win)."""
        actions = hooks.propose(node, self.n_propose, avoid=[c.action for c in node.children if c.action])
        out: list[SearchNode] = []
        for action in actions:
            child = hooks.expand(node, action)
            if child in out:
                continue
            out.append(child)
            if child.terminal:
                child.value = 1.0 if child.success else 0.0
            else:
                child.value = float(hooks.value(child))
            child.visits += 1
            if child.success:
                self.won = self.won or child
                if self.stop_on_success:
                    break
        return out

    def choose(self, tree: SearchTree) -> SearchNode | None:
        if self.won is not None:
            return self.won
        won = [n for n in tree.nodes if n.success]
        if won:
            return min(won, key=lambda n: n.id)
        alive = [n for n in tree.nodes if n is not tree.root and not n.terminal]
        if not alive:
            return None
        return max(alive, key=lambda n: (n.depth, n.value, -n.id))


class ToTBFSAgent(_ToTAgent):
    """ToT breadth-first search with greedy best-``breadth`` selection (see module docstring)."""

    name = "bfs"

    def __init__(self, env_id: str, llm: Any, *, breadth: int = 5, **options: Any):
        super().__init__(env_id, llm, **options)
        if int(breadth) < 1:
            raise ValueError(f"bfs: breadth must be at least 1, got {breadth}")
        self.breadth = int(breadth)
        self.levels = 0

    def search(self, root: SearchNode, hooks: TaskHooks) -> None:
        self.won, self.levels = None, 0
        frontier: Sequence[SearchNode] = [root]
        for level in range(1, self.max_depth + 1):
            candidates: list[SearchNode] = []
            for node in frontier:
                candidates += self.children(node, hooks)
                if self.won is not None and self.stop_on_success:
                    return
            self.levels = level
            open_ = [c for c in candidates if not c.terminal]
            frontier = sorted(open_, key=lambda c: (-c.value, c.id))[: self.breadth]
            for node in frontier:
                node.stats["level"] = level
            if not frontier:
                return

    def stats(self) -> dict[str, Any]:
        out = super().stats()
        out["bfs_levels"] = self.levels
        return out


class ToTDFSAgent(_ToTAgent):
    """ToT depth-first search with value-threshold pruning (see module docstring)."""

    name = "dfs"

    def __init__(self, env_id: str, llm: Any, *, value_threshold: float = 0.3, max_children: int = 5,
                 **options: Any):
        super().__init__(env_id, llm, **options)
        if int(max_children) < 1:
            raise ValueError(f"dfs: max_children must be at least 1, got {max_children}")
        self.value_threshold = float(value_threshold)
        self.max_children = int(max_children)
        self.pruned = 0

    def search(self, root: SearchNode, hooks: TaskHooks) -> None:
        self.won, self.pruned = None, 0
        self._dfs(root, hooks)

    def _dfs(self, node: SearchNode, hooks: TaskHooks) -> bool:
        """True when the search is over (a win was found)."""
        if node.terminal or node.depth >= self.max_depth:
            return False
        kids = self.children(node, hooks)
        if self.won is not None and self.stop_on_success:
            return True
        ranked = sorted((c for c in kids if not c.terminal), key=lambda c: (-c.value, c.id))
        for child in ranked[: self.max_children]:
            if child.value < self.value_threshold:
                child.stats["pruned"] = True
                self.pruned += 1
                continue
            if self._dfs(child, hooks):
                return True
        return False

    def stats(self) -> dict[str, Any]:
        out = super().stats()
        out["dfs_pruned"] = self.pruned
        return out


@register_agent("bfs", needs_llm=True, help="Tree of Thoughts BFS: propose, value (3 samples), keep the best 5 per level")
def make_bfs(env_id: str, llm: Any, **options: Any) -> ToTBFSAgent:
    return build_search_agent(ToTBFSAgent, env_id, llm, options)


@register_agent("dfs", needs_llm=True, help="Tree of Thoughts DFS: best-first descent, prune states valued below a threshold")
def make_dfs(env_id: str, llm: Any, **options: Any) -> ToTDFSAgent:
    return build_search_agent(ToTDFSAgent, env_id, llm, options)
