"""Tree of Thoughts search (Yao et al. 2023): agents ``bfs`` and ``dfs``, and JUDEC's baselines.

Both use ToT's Game-of-24 recipe through the search config: a *propose* call
returns several candidate next steps at once (``n_propose`` asked for, ToT's
one-shot prompt lists 8), every candidate is stepped in the env from its
parent's snapshot, and every new state gets a *value*: the mean of
``n_evaluate`` LLM value calls (sure 1 / likely 0.5 / impossible 0; ToT instead sums
20/1/0.001 over its samples, which can order states differently: see agents/search/README.md),
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
if it did not end the episode (see ``SearchPolicy``).

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

import functools
from dataclasses import dataclass
from typing import Any, Sequence

from .agent import register_algorithm
from .algorithm import SearchAlgorithm
from .options import option
from .config import SearchConfig
from .distributed import fresh_copy, made_by
from .tree import SearchNode, SearchTree
from .sequences import first_answer, sequence_stats


def _select_option(choices: tuple[str, ...]) -> Any:
    return option("value", "authors' code (ToT `--method_evaluate value`)",
                  "how states are ranked: ToT's value prompt, pairwise comparison, or none", choices=choices)


@dataclass(frozen=True)
class ToTConfig:
    """What ToT's BFS and DFS share."""

    n_propose: int = option(8, "authors' code (ToT's Game-of-24 propose prompt lists 8 steps)",
                            "proposals per state", minimum=1)
    n_evaluate: int = option(3, "authors' code (ToT `scripts/game24/bfs.sh --n_evaluate_sample 3`)",
                             "value calls per state (the default of value_samples)", minimum=1)
    max_depth: int = option(4, "ours (Game of 24: 3 operations + the answer)", "levels", minimum=1)
    select: str = _select_option(("value",))
    max_sequences: int | None = option(
        None, "authors' code (ToT runs its levels / DFS to the end; JUDEC's variants set 3)",
        "stop after this many decision sequences", minimum=1)
    stop_on_success: bool | None = option(
        None, "ours (none = `peek_success`; ToT checks success only after its search)",
        "stop at the first won step (needs peek_success)", words=("default",))


@dataclass(frozen=True)
class BFSConfig(ToTConfig):
    """ToT's BFS."""

    select: str = _select_option(("value", "compare"))
    breadth: int = option(5, "authors' code (ToT `scripts/game24/bfs.sh --n_select_sample 5`)",
                          "states kept per level", minimum=1)


@dataclass(frozen=True)
class DFSConfig(ToTConfig):
    """ToT's DFS."""

    select: str = _select_option(("value", "none"))
    value_threshold: float = option(
        0.3, "ours (below it most of 3 samples said \"impossible\"; ToT's crosswords DFS prunes on its own scale)",
        "states valued below it are pruned")
    max_children: int = option(
        3, "authors' code (ToT `scripts/crosswords/search_crosswords-dfs.ipynb`: `dfs(..., max_per_state=3)`)",
        "children descended into per state", minimum=1)


def _child(algorithm: "_ToT", action: str, node: SearchNode, hooks: SearchConfig) -> SearchNode:
    return algorithm.child(node, action, hooks)


#: JUDEC 5.1's BFS and DFS baselines: no task-specific knowledge (no value prompt), 3 decision sequences
JUDEC_BFS = {"n_propose": 2, "breadth": 3, "select": "compare", "max_sequences": 3}
JUDEC_DFS = {"n_propose": 2, "select": "none", "max_sequences": 3}


class _ToT(SearchAlgorithm[ToTConfig]):
    """What BFS and DFS share: proposing, valuing, the answer."""

    value_name = "value"
    distributes = True  # search_workers: children are made on Ray workers (a BFS level's, a DFS state's at once)

    Config = ToTConfig

    def option_defaults(self) -> dict[str, Any]:
        return {"value_samples": self.config.n_evaluate}

    def _fresh(self) -> None:
        """The per-search state, empty (before the first search, for ``stats()``, and at every search)."""
        self.won: SearchNode | None = None
        self.sequences: list[SearchNode] = []  # the final step of every finished decision sequence

    @property
    def value_states(self) -> bool:
        """Whether states get ToT's value prompt (``select=value``); JUDEC's baselines use none."""
        return self.config.select == "value"

    def _sequence_done(self, ends: Sequence[SearchNode]) -> bool:
        """Count finished decision sequences; True when ``max_sequences`` is reached (the rest are dropped)."""
        self.sequences += ends
        if self.config.max_sequences is None:
            return False
        del self.sequences[self.config.max_sequences:]
        return len(self.sequences) == self.config.max_sequences

    def children(self, node: SearchNode, hooks: SearchConfig) -> list[SearchNode]:
        """Propose from ``node``, step every proposal, value every new child (stops early on a win)."""
        out: list[SearchNode] = []
        for action in self.proposals(node, hooks):
            child = self.child(node, action, hooks)
            out.append(child)
            if self.known_win(child):
                self.won = self.won or child
                if self.stop_on_success:
                    break
        return out

    def proposals(self, node: SearchNode, hooks: SearchConfig) -> list[str]:
        """The actions proposed from ``node`` (a state is expanded once, while it has no children)."""
        return hooks.propose(node, self.config.n_propose)

    def child(self, node: SearchNode, action: str, hooks: SearchConfig) -> SearchNode:
        """Step ``action`` from ``node`` (distinct proposals: a new child each) and value the child."""
        child = hooks.expand(node, action)
        if child.terminal and self.peek_success:
            child.value = self.terminal_value(child, hooks)  # the env's verdict
        elif self.value_states:  # the model's value, final states included
            child.value = float(hooks.value(child))
        child.visits = 1  # valued once, when made
        return child

    def _children_remote(self, frontier: Sequence[SearchNode], hooks: SearchConfig) -> list[SearchNode]:
        """``children`` of every frontier state on the search's Ray workers (``distributed.py``): a copy of
        this algorithm without per-search state travels; wins are read here."""
        worker = fresh_copy(self)
        parallel = hooks.parallel
        try:
            if parallel.size == 1:  # whole states, in order: the in-process order of calls and budget
                parallel.run(frontier, [made_by(worker.children)] * len(frontier), hooks)
            else:  # every frontier state proposes at once, then every proposal is stepped and valued at once
                proposed = parallel.run(frontier, [worker.proposals] * len(frontier), hooks)
                pairs = [(node, action) for node, actions in zip(frontier, proposed) for action in actions or ()]
                parallel.run([node for node, _ in pairs],
                             [made_by(functools.partial(_child, worker, action)) for _, action in pairs], hooks)
        finally:
            for node in frontier:
                for child in node.children:
                    if self.known_win(child):
                        self.won = self.won or child
        return [child for node in frontier for child in node.children]

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


@register_algorithm("bfs", help="Tree of Thoughts BFS: propose, value (3 samples), keep the best 5 per level")
@register_algorithm("judec-bfs", preset=JUDEC_BFS, help="JUDEC's BFS baseline: 2 candidates per state, 3 kept by pairwise comparison, no value calls, 3 sequences")
class ToTBFS(_ToT):
    """ToT breadth-first search with greedy best-``breadth`` selection (see module docstring)."""

    name = "bfs"

    Config = BFSConfig

    def _fresh(self) -> None:
        super()._fresh()
        self.levels = 0

    def search(self, root: SearchNode, hooks: SearchConfig) -> None:
        self._fresh()
        frontier: Sequence[SearchNode] = [root]
        for level in range(1, self.config.max_depth + 1):
            candidates: list[SearchNode] = []
            if hooks.parallel is not None:
                candidates = self._children_remote(frontier, hooks)
                if self.won is not None and self.stop_on_success:
                    return
            for node in frontier if hooks.parallel is None else ():
                candidates += self.children(node, hooks)
                if self.won is not None and self.stop_on_success:
                    return
            self.levels = level
            if self._sequence_done([c for c in candidates if c.terminal]):
                return
            open_ = [c for c in candidates if not c.terminal]
            if self.config.select == "compare":
                self._rank_by_comparison(open_, hooks)
            frontier = sorted(open_, key=lambda c: (-c.value, c.id))[: self.config.breadth]
            for c in candidates:
                if c not in frontier:
                    hooks.prune(c)  # BFS never returns to a state it did not keep
            for node in frontier:
                node.stats["level"] = level
            if not frontier or (level == self.config.max_depth and self._sequence_done(frontier)):
                return

    def _rank_by_comparison(self, nodes: list[SearchNode], hooks: SearchConfig) -> None:
        """``select=compare`` (JUDEC's BFS baseline, ToolEval-style): every pair of this level's
        states is judged once (two order-swapped calls); a state's value is its share of wins."""
        if len(nodes) <= self.config.breadth:
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
        out: dict[str, Any] = {"bfs_levels": self.levels}
        if self.config.max_sequences is not None:
            out.update(sequence_stats(self.sequences))
        return out


@register_algorithm("dfs", help="Tree of Thoughts DFS: best-first descent, prune states valued below a threshold")
@register_algorithm("judec-dfs", preset=JUDEC_DFS, help="JUDEC's DFS baseline: depth-first in the model's order, no value calls, 3 sequences")
class ToTDFS(_ToT):
    """ToT depth-first search with value-threshold pruning (see module docstring)."""

    name = "dfs"

    Config = DFSConfig

    def _fresh(self) -> None:
        super()._fresh()
        self.pruned = 0

    def search(self, root: SearchNode, hooks: SearchConfig) -> None:
        self._fresh()
        self._dfs(root, hooks)

    def _dfs(self, node: SearchNode, hooks: SearchConfig) -> bool:
        """True when the search is over (a win was found, or ``max_sequences`` were made)."""
        if node.depth >= self.config.max_depth:
            return self._sequence_done([node])
        kids = self.children(node, hooks) if hooks.parallel is None else self._children_remote([node], hooks)
        if self.won is not None and self.stop_on_success:
            return True
        if self._sequence_done([c for c in kids if c.terminal]):
            return True
        # select=none: every value is 0, so the order is the model's (node ids follow the proposals)
        ranked = sorted((c for c in kids if not c.terminal), key=lambda c: (-c.value, c.id))
        for c in kids:
            if c.terminal or c not in ranked[: self.config.max_children]:
                hooks.prune(c)  # never descended into
        for child in ranked[: self.config.max_children]:
            if self.value_states and child.value < self.config.value_threshold:
                child.stats["pruned"] = True
                self.pruned += 1
                hooks.prune(child)
                continue
            if self._dfs(child, hooks):
                return True
            hooks.prune(child)  # exhausted: the search backtracks past it for good
        return False

    def stats(self) -> dict[str, Any]:
        out: dict[str, Any] = {"dfs_pruned": self.pruned}
        out["dfs_sequences"] = len(self.sequences)
        if self.config.max_sequences is not None:
            out.update(sequence_stats(self.sequences))
        return out

