"""RaDAgent's MCTS@N baseline: agent ``radagent-mcts@N`` (RaDAgent 6.6: "40 and 100 simulations at
each decision step").

The UCT loop of ``mcts.py``, run per decision step: ``n_iters`` simulations from the current
decision step, then a commitment to its best child (by ``output``), then ``n_iters`` more from
there, until the episode ends; ``depth_limit`` counts from the current decision step. The siblings
of each committed decision are pruned (the search never goes back above it). Plain ``mcts@N``
instead grows one tree from the start with N simulations in all. UCT's exploration weight is
RaD-Agent's: 1.41 on sqrt(2 ln N / n) (``test_codes/MCTS.py``), w_exp = 1.41 sqrt(2) here.

``stats()`` adds ``mcts_decisions``; a committed node has ``stats["decision"]`` (its index).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from .agent import register_algorithm
from .config import SearchConfig
from .mcts import MCTS, MCTSConfig
from .options import option
from .tree import SearchNode, SearchTree

#: RaDAgent 6.6's smaller MCTS baseline, MCTS@40 (the other is MCTS@100)
RADAGENT_SIMULATIONS = 40
#: the exploration constant of RaD-Agent's MCTS (test_codes/MCTS.py), on sqrt(2 ln N / n)
RADAGENT_EXPLORATION = 1.41


@dataclass(frozen=True)
class RaDAgentMCTSConfig(MCTSConfig):
    """MCTS@N: plain MCTS's settings, N simulations per decision step."""

    n_iters: int = option(RADAGENT_SIMULATIONS,
                          "paper (RaDAgent 6.6: MCTS@40; `radagent-mcts@100` is MCTS@100)",
                          "simulations before every decision step", minimum=1)
    w_exp: float = option(
        RADAGENT_EXPLORATION * math.sqrt(2.0),
        "authors' code (RaD-Agent `test_codes/MCTS.py`: exploration_constant 1.41 times sqrt(2 ln N / n), "
        "i.e. 1.41 sqrt(2) in our sqrt(ln N / n))", "UCT exploration weight")


@register_algorithm("radagent-mcts@", at="n_iters", help="RaDAgent's MCTS@N baseline: N simulations with ToT's value before every decision (default 40)")
class RaDAgentMCTS(MCTS):
    """MCTS@N as RaDAgent's baseline runs it (see module docstring)."""

    name = "radagent-mcts"
    Config = RaDAgentMCTSConfig

    def _fresh(self) -> None:
        super()._fresh()
        self.decisions: list[SearchNode] = []

    def search(self, root: SearchNode, hooks: SearchConfig) -> None:
        self._fresh()
        current = self._current = root
        while not current.terminal:
            self._base = current.depth
            self._simulations(current, hooks)
            if self.stop_on_success and self.won is not None:
                return
            nxt = self._best_child(current)
            if nxt is None:
                return
            nxt.stats["decision"] = len(self.decisions)
            self.decisions.append(nxt)
            for sibling in current.children:
                if sibling is not nxt:
                    hooks.prune(sibling)  # committed: the search never goes back above nxt
            self._current = current = nxt
            self._base = current.depth
            self._recompute_closed(current)  # the depth limit now counts from here

    def _recompute_closed(self, node: SearchNode) -> bool:
        """Recompute the closed flags below ``node`` (post-order) for the current ``_base``: a node
        the old depth limit closed can be expanded again once the search has committed further down."""
        if node.children:
            closed = all([self._recompute_closed(c) for c in node.children])
        else:
            closed = not self._expandable(node)
        node.stats.pop("closed", None)
        if closed:
            node.stats["closed"] = True
        return closed

    def answer_start(self, tree: SearchTree) -> SearchNode:
        """The last committed decision: the decisions, then (when the budget ended the simulations of
        a decision) the best path below it, as plain MCTS answers."""
        return self._current

    def stats(self) -> dict[str, Any]:
        return {**super().stats(), "mcts_decisions": len(self.decisions)}

