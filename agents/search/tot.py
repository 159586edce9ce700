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

A step that ends the episode is valued like any other state, by the LLM's
value prompt; only with ``peek_success=true`` (an oracle) does it get the
env's verdict (1 won / 0 lost), and only then may the search stop at the
first won step (``stop_on_success``, on by default when peeking; ToT checks
success only after its search). The answer is the highest-valued state (ties:
one that ended the episode, then the deeper), and the agent continues from it
greedily if it did not end the episode (see ``SearchAgent``).

JUDEC's baseline settings (section 5.1): BFS with ``n_propose=2 breadth=3
select=compare`` (2 candidates per state, the 3 best states per level kept by
pairwise comparison: every pair judged once with two order-swapped calls, a
state's value its share of wins; no value calls) and DFS with
``max_sequences=3`` (the search ends after 3 decision sequences: steps that
ended the episode or reached ``max_depth``). ``node.value`` is the state's value;
``stats["pruned"]`` marks DFS prunes, ``stats["level"]`` the BFS level a
state was kept at.
"""
from __future__ import annotations

from typing import Any, Sequence

from ..registry import register_agent
from .base import SearchAgent, SearchNode, SearchTree, SearchConfig, _as_bool, build_search_agent


class _ToTAgent(SearchAgent):
    """What BFS and DFS share: proposing, valuing, the answer."""

    value_name = "value"

    def __init__(self, env_id: str, llm: Any, *, n_propose: int = 8, n_evaluate: int = 3, max_depth: int = 4,
                 stop_on_success: bool | None = None, **options: Any):
        options.setdefault("value_samples", n_evaluate)
        super().__init__(env_id, llm, **options)
        for key, v in (("n_propose", n_propose), ("n_evaluate", n_evaluate), ("max_depth", max_depth)):
            if int(v) < 1:
                raise ValueError(f"{self.name}: {key} must be at least 1, got {v}")
        self.n_propose = int(n_propose)
        self.max_depth = int(max_depth)
        self.stop_on_success = self.stop_on_success_option(stop_on_success)
        self.won: SearchNode | None = None
        self.value_states = True  # BFS with select=compare ranks by comparison instead

    def children(self, node: SearchNode, hooks: SearchConfig) -> list[SearchNode]:
        """Propose from ``node``, step every proposal, value every new child (stops early on a win)."""
        actions = hooks.propose(node, self.n_propose, avoid=[c.action for c in node.children if c.action])
        out: list[SearchNode] = []
        for action in actions:
            child = hooks.expand(node, action)
            if child in out:
                continue
            out.append(child)
            if child.terminal:
                child.value = self.terminal_value(child, hooks)
            elif self.value_states:
                child.value = float(hooks.value(child))
            child.visits += 1
            if self.known_win(child):
                self.won = self.won or child
                if self.stop_on_success:
                    break
        return out

    def choose(self, tree: SearchTree) -> SearchNode | None:
        """The first won step (``peek_success`` only), else the highest-valued step, ties going to a
        step that ended the episode, then to the deeper one (ToT outputs its best-valued final state)."""
        if self.won is not None:
            return self.won
        lost = (lambda n: n.terminal and not n.success) if self.peek_success else (lambda n: False)
        nodes = [n for n in tree.nodes if n is not tree.root and not lost(n)]
        if not nodes:
            return None
        return max(nodes, key=lambda n: (n.value, n.terminal, n.depth, -n.id))


class ToTBFSAgent(_ToTAgent):
    """ToT breadth-first search with greedy best-``breadth`` selection (see module docstring)."""

    name = "bfs"

    def __init__(self, env_id: str, llm: Any, *, breadth: int = 5, select: str = "value", **options: Any):
        super().__init__(env_id, llm, **options)
        if int(breadth) < 1:
            raise ValueError(f"bfs: breadth must be at least 1, got {breadth}")
        if select not in ("value", "compare"):
            raise ValueError(f"bfs: select must be 'value' or 'compare', not {select!r}")
        self.breadth = int(breadth)
        self.select = select
        self.value_states = select == "value"
        self.levels = 0

    def search(self, root: SearchNode, hooks: SearchConfig) -> None:
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
            if self.select == "compare":
                self._rank_by_comparison(open_, hooks)
            frontier = sorted(open_, key=lambda c: (-c.value, c.id))[: self.breadth]
            for c in candidates:
                if c not in frontier:
                    hooks.prune(c)  # BFS never returns to a state it did not keep
            for node in frontier:
                node.stats["level"] = level
            if not frontier:
                return

    def _rank_by_comparison(self, nodes: list[SearchNode], hooks: SearchConfig) -> None:
        """``select=compare`` (JUDEC's BFS baseline, ToolEval-style): every pair of this level's
        states is judged once (two order-swapped calls); a state's value is its share of wins."""
        if len(nodes) <= self.breadth:
            return  # all are kept: no comparison needed
        wins = {id(n): 0.0 for n in nodes}
        for i, a in enumerate(nodes):
            for b in nodes[i + 1:]:
                result = hooks.compare(a, b)
                wins[id(a)] += result
                wins[id(b)] += 1.0 - result
        for n in nodes:
            n.value = wins[id(n)] / (len(nodes) - 1)

    def stats(self) -> dict[str, Any]:
        out = super().stats()
        out["bfs_levels"] = self.levels
        return out


class ToTDFSAgent(_ToTAgent):
    """ToT depth-first search with value-threshold pruning (see module docstring)."""

    name = "dfs"

    def __init__(self, env_id: str, llm: Any, *, value_threshold: float = 0.3, max_children: int = 5,
                 max_sequences: int | None = None, **options: Any):
        super().__init__(env_id, llm, **options)
        if int(max_children) < 1:
            raise ValueError(f"dfs: max_children must be at least 1, got {max_children}")
        self.value_threshold = float(value_threshold)
        self.max_children = int(max_children)
        self.max_sequences = None if max_sequences in (None, "", "none") else int(max_sequences)
        if self.max_sequences is not None and self.max_sequences < 1:
            raise ValueError(f"dfs: max_sequences must be at least 1 or none, got {max_sequences}")
        self.sequences = 0
        self.pruned = 0

    def search(self, root: SearchNode, hooks: SearchConfig) -> None:
        self.won, self.pruned, self.sequences = None, 0, 0
        self._dfs(root, hooks)

    def _sequence_done(self, n: int = 1) -> bool:
        """Count ``n`` finished decision sequences; True when ``max_sequences`` is reached."""
        self.sequences += n
        return self.max_sequences is not None and self.sequences >= self.max_sequences

    def _dfs(self, node: SearchNode, hooks: SearchConfig) -> bool:
        """True when the search is over (a win was found, or ``max_sequences`` were made)."""
        if node.depth >= self.max_depth:
            return self._sequence_done()
        kids = self.children(node, hooks)
        if self.won is not None and self.stop_on_success:
            return True
        if self._sequence_done(sum(1 for c in kids if c.terminal)):
            return True
        ranked = sorted((c for c in kids if not c.terminal), key=lambda c: (-c.value, c.id))
        for c in kids:
            if c.terminal or c not in ranked[: self.max_children]:
                hooks.prune(c)  # never descended into
        for child in ranked[: self.max_children]:
            if child.value < self.value_threshold:
                child.stats["pruned"] = True
                self.pruned += 1
                hooks.prune(child)
                continue
            if self._dfs(child, hooks):
                return True
            hooks.prune(child)  # exhausted: the search backtracks past it for good
        return False

    def stats(self) -> dict[str, Any]:
        out = super().stats()
        out["dfs_pruned"] = self.pruned
        out["dfs_sequences"] = self.sequences
        return out


@register_agent("bfs", needs_llm=True, help="Tree of Thoughts BFS: propose, value (3 samples), keep the best 5 per level")
def make_bfs(env_id: str, llm: Any, **options: Any) -> ToTBFSAgent:
    return build_search_agent(ToTBFSAgent, env_id, llm, options)


@register_agent("dfs", needs_llm=True, help="Tree of Thoughts DFS: best-first descent, prune states valued below a threshold")
def make_dfs(env_id: str, llm: Any, **options: Any) -> ToTDFSAgent:
    return build_search_agent(ToTDFSAgent, env_id, llm, options)
