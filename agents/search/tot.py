"""Tree of Thoughts search (Yao et al. 2023): agents ``bfs`` and ``dfs``, and JUDEC's baselines.

Both use ToT's Game-of-24 recipe through the search config: a *propose* call
returns several candidate next steps at once (``n_propose`` asked for, ToT's
one-shot prompt lists 8), every candidate is stepped in the env from its
parent's snapshot, and every new state gets a *value*: the mean of
``n_evaluate`` LLM value calls (sure 1 / likely 0.5 / impossible 0; ToT sums
20/1/0.001 over its samples, which orders states the same way up to ties),
final states included; only with ``peek_success=true`` (an oracle) does a
step that ended the episode get the env's verdict (1 won / 0 lost) instead.

``bfs`` (ToT ``solve``, method_generate=propose, method_evaluate=value,
method_select=greedy): level by level, propose from every state of the
frontier, value every new state, keep the best ``breadth`` (b = 5) as the next
frontier, for ``max_depth`` levels (Game of 24: 3 operations + answer = 4).

``dfs`` (ToT's DFS, used for crosswords): from a state, propose, value the
candidates, and descend into them best-first; a candidate whose value is below
``value_threshold`` is pruned (not descended into), and when a state's
candidates are exhausted the search backtracks to its parent. At most
``max_children`` candidates are tried per state.

Only with ``peek_success=true`` may the search stop at the first won step
(``stop_on_success``, on by default when peeking; ToT checks success only
after its search). The answer is the highest-valued state (ties: one that
ended the episode, then the deeper), and the agent continues from it greedily
if it did not end the episode (see ``SearchAgent``).

JUDEC's baselines (section 5.1: "we do not introduce any task-specific
knowledge"; no value prompt) are the agents ``judec-bfs`` and ``judec-dfs``:

* ``judec-bfs`` = ``bfs`` with ``n_propose=2 breadth=3 select=compare
  max_sequences=3``: 2 candidates per state, the 3 best open states per level
  kept by pairwise comparison (every pair judged once with two order-swapped
  calls, a state's value its share of wins; ToolEval-style), final states
  not valued; the search ends after 3 decision sequences (steps that ended
  the episode, or states kept at ``max_depth``);
* ``judec-dfs`` = ``dfs`` with ``n_propose=2 select=none max_sequences=3``:
  no value calls, candidates descended in the order the model proposed them,
  no pruning; the search ends after 3 decision sequences.

With ``select`` other than ``value`` there is no value to pick the answer by:
the answer is the first decision sequence that ended the episode, else the
first sequence (ours: JUDEC scores the three sequences, see below). Every
decision sequence's end is kept (``agent.sequences``) and the run record gets
``sequences_success_any`` (JUDEC 5.1: an instruction counts as solved if any
of the three sequences solves it), read after the search like
``chosen_success``. ``node.value`` is the state's value; ``stats["pruned"]``
marks DFS prunes, ``stats["level"]`` the BFS level a state was kept at.
"""
from __future__ import annotations

from typing import Any, Sequence

from ..registry import register_agent
from .agent import SearchAgent, build_search_agent
from .config import SearchConfig
from .tree import SearchNode, SearchTree
from .sequences import first_answer, judec_options, sequence_stats


class _ToTAgent(SearchAgent):
    """What BFS and DFS share: proposing, valuing, the answer."""

    value_name = "value"

    #: the ``select`` values this algorithm takes; ``value`` is ToT's value prompt
    selects: tuple[str, ...] = ("value",)

    def __init__(self, env_id: str, llm: Any, *, n_propose: int = 8, n_evaluate: int = 3, max_depth: int = 4,
                 select: str = "value", max_sequences: int | None = None, stop_on_success: bool | None = None,
                 **options: Any):
        options.setdefault("value_samples", n_evaluate)
        super().__init__(env_id, llm, **options)
        for key, v in (("n_propose", n_propose), ("n_evaluate", n_evaluate), ("max_depth", max_depth)):
            if int(v) < 1:
                raise ValueError(f"{self.name}: {key} must be at least 1, got {v}")
        if select not in self.selects:
            raise ValueError(f"{self.name}: select must be one of {', '.join(self.selects)}, not {select!r}")
        self.n_propose = int(n_propose)
        self.max_depth = int(max_depth)
        self.select = select
        self.max_sequences = None if max_sequences in (None, "", "none") else int(max_sequences)
        if self.max_sequences is not None and self.max_sequences < 1:
            raise ValueError(f"{self.name}: max_sequences must be at least 1 or none, got {max_sequences}")
        self.stop_on_success = self.stop_on_success_option(stop_on_success)
        self._fresh()

    def _fresh(self) -> None:
        """The per-search state, empty (before the first search, for ``stats()``, and at every search)."""
        self.won: SearchNode | None = None
        self.sequences: list[SearchNode] = []  # the final step of every finished decision sequence

    @property
    def value_states(self) -> bool:
        """Whether states get ToT's value prompt (``select=value``); JUDEC's baselines use none."""
        return self.select == "value"

    def _sequence_done(self, ends: Sequence[SearchNode]) -> bool:
        """Count finished decision sequences; True when ``max_sequences`` is reached (the rest are dropped)."""
        self.sequences += ends
        if self.max_sequences is None:
            return False
        del self.sequences[self.max_sequences:]
        return len(self.sequences) == self.max_sequences

    def children(self, node: SearchNode, hooks: SearchConfig) -> list[SearchNode]:
        """Propose from ``node``, step every proposal, value every new child (stops early on a win)."""
        actions = hooks.propose(node, self.n_propose)  # a state is expanded once, while it has no children
        out: list[SearchNode] = []
        for action in actions:
            child = hooks.expand(node, action)  # distinct proposals: a new child each
            out.append(child)
            if child.terminal and self.peek_success:
                child.value = self.terminal_value(child, hooks)  # the env's verdict
            elif self.value_states:  # the model's value, final states included
                child.value = float(hooks.value(child))
            child.visits = 1  # valued once, when made
            if self.known_win(child):
                self.won = self.won or child
                if self.stop_on_success:
                    break
        return out

    def choose(self, tree: SearchTree) -> SearchNode | None:
        """The first won step (``peek_success`` only); without values (``select`` not ``value``) the first
        decision sequence that ended the episode (:func:`first_answer`); else the highest-valued step,
        ties going to a step that ended the episode, then to the deeper one (ToT outputs its best-valued
        final state)."""
        if self.won is not None:
            return self.won
        if not self.value_states and self.sequences:
            return first_answer(self.sequences)
        nodes = [n for n in tree.nodes
                 if n is not tree.root and not (self.peek_success and n.terminal and not n.success)]
        if not nodes:
            return None
        return max(nodes, key=lambda n: (n.value, n.terminal, n.depth, -n.id))


class ToTBFSAgent(_ToTAgent):
    """ToT breadth-first search with greedy best-``breadth`` selection (see module docstring)."""

    name = "bfs"

    selects = ("value", "compare")

    def __init__(self, env_id: str, llm: Any, *, breadth: int = 5, **options: Any):
        super().__init__(env_id, llm, **options)
        if int(breadth) < 1:
            raise ValueError(f"bfs: breadth must be at least 1, got {breadth}")
        self.breadth = int(breadth)

    def _fresh(self) -> None:
        super()._fresh()
        self.levels = 0

    def search(self, root: SearchNode, hooks: SearchConfig) -> None:
        self._fresh()
        frontier: Sequence[SearchNode] = [root]
        for level in range(1, self.max_depth + 1):
            candidates: list[SearchNode] = []
            for node in frontier:
                candidates += self.children(node, hooks)
                if self.won is not None and self.stop_on_success:
                    return
            self.levels = level
            if self._sequence_done([c for c in candidates if c.terminal]):
                return
            open_ = [c for c in candidates if not c.terminal]
            if self.select == "compare":
                self._rank_by_comparison(open_, hooks)
            frontier = sorted(open_, key=lambda c: (-c.value, c.id))[: self.breadth]
            for c in candidates:
                if c not in frontier:
                    hooks.prune(c)  # BFS never returns to a state it did not keep
            for node in frontier:
                node.stats["level"] = level
            if not frontier or (level == self.max_depth and self._sequence_done(frontier)):
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
        if self.max_sequences is not None:
            out.update(sequence_stats(self.sequences))
        return out


class ToTDFSAgent(_ToTAgent):
    """ToT depth-first search with value-threshold pruning (see module docstring)."""

    name = "dfs"

    selects = ("value", "none")

    def __init__(self, env_id: str, llm: Any, *, value_threshold: float = 0.3, max_children: int = 3,
                 **options: Any):
        super().__init__(env_id, llm, **options)
        if int(max_children) < 1:
            raise ValueError(f"dfs: max_children must be at least 1, got {max_children}")
        self.value_threshold = float(value_threshold)
        self.max_children = int(max_children)

    def _fresh(self) -> None:
        super()._fresh()
        self.pruned = 0

    def search(self, root: SearchNode, hooks: SearchConfig) -> None:
        self._fresh()
        self._dfs(root, hooks)

    def _dfs(self, node: SearchNode, hooks: SearchConfig) -> bool:
        """True when the search is over (a win was found, or ``max_sequences`` were made)."""
        if node.depth >= self.max_depth:
            return self._sequence_done([node])
        kids = self.children(node, hooks)
        if self.won is not None and self.stop_on_success:
            return True
        if self._sequence_done([c for c in kids if c.terminal]):
            return True
        # select=none: every value is 0, so the order is the model's (node ids follow the proposals)
        ranked = sorted((c for c in kids if not c.terminal), key=lambda c: (-c.value, c.id))
        for c in kids:
            if c.terminal or c not in ranked[: self.max_children]:
                hooks.prune(c)  # never descended into
        for child in ranked[: self.max_children]:
            if self.value_states and child.value < self.value_threshold:
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
        out["dfs_sequences"] = len(self.sequences)
        if self.max_sequences is not None:
            out.update(sequence_stats(self.sequences))
        return out


@register_agent("bfs", needs_llm=True, help="Tree of Thoughts BFS: propose, value (3 samples), keep the best 5 per level")
def make_bfs(env_id: str, llm: Any, **options: Any) -> ToTBFSAgent:
    return build_search_agent(ToTBFSAgent, env_id, llm, options)


@register_agent("dfs", needs_llm=True, help="Tree of Thoughts DFS: best-first descent, prune states valued below a threshold")
def make_dfs(env_id: str, llm: Any, **options: Any) -> ToTDFSAgent:
    return build_search_agent(ToTDFSAgent, env_id, llm, options)


#: JUDEC 5.1's BFS and DFS baselines: no task-specific knowledge (no value prompt), 3 decision sequences
JUDEC_BFS = {"n_propose": 2, "breadth": 3, "select": "compare", "max_sequences": 3}
JUDEC_DFS = {"n_propose": 2, "select": "none", "max_sequences": 3}


@register_agent("judec-bfs", needs_llm=True, help="JUDEC's BFS baseline: 2 candidates per state, 3 kept by pairwise comparison, no value calls, 3 sequences")
def make_judec_bfs(env_id: str, llm: Any, **options: Any) -> ToTBFSAgent:
    return build_search_agent(ToTBFSAgent, env_id, llm, judec_options(JUDEC_BFS, options))


@register_agent("judec-dfs", needs_llm=True, help="JUDEC's DFS baseline: depth-first in the model's order, no value calls, 3 sequences")
def make_judec_dfs(env_id: str, llm: Any, **options: Any) -> ToTDFSAgent:
    return build_search_agent(ToTDFSAgent, env_id, llm, judec_options(JUDEC_DFS, options))
