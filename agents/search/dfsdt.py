"""Depth-first search-based decision tree (ToolBench DFSDT, Qin et al. 2023): agent ``dfsdt``.

ToolBench's ``DFS_woFilter_w2``: a recursive depth-first search that grows at
most ``width`` (2) children per node, one LLM call per child, and descends into
each new child at once (no ranking of siblings: that is ToT-DFS). From the
second child on, the proposal prompt lists the actions the earlier siblings
took and asks for a different one (the *diversity prompt*; here the prompt spec's
``avoid`` list). The recursion returns how many levels to go back:

* an **answer** - a step that ends the episode and that the model, asked
  with its value prompt on the final state (one call), rates at least
  ``answer_threshold`` (0.5: "likely" or "sure"; ToolBench's
  ``Finish(give_answer)``, which the model chooses itself) - stops the whole
  search: DFSDT stops at the first answer. With ``peek_success=true`` the
  env decides instead: success or a positive reward (a scored WebShop
  purchase), no LLM call;
* a **give-up** - a step that ends the episode and is not an answer (Game of
  24: the model sees one number other than 24 left; ToolBench:
  ``Finish(give_up_and_restart)``) - goes back ``prune_back`` (2) levels: its
  parent is abandoned and the grandparent tries a new child ("give up and
  restart");
* a step at ``max_depth`` or a model answer with nothing usable in it goes
  back one level: the parent tries its next child;
* a node whose ``width`` children are all exhausted goes back one level.

By default the search therefore stops at the first answer: on Game of 24,
where a sequence ends after 4 steps, a model that rates its first final state
"likely" or "sure" (``answer_threshold`` 0.5 is inclusive) ends the search
after 4 proposals and 1 value call, however large the budget.

``max_sequences=N`` ends the search after N decision sequences (answers,
give-ups and ``max_depth`` ends) instead of at the first answer; the answer is
then the first answer found. ``answer_judge=none`` asks the model no value
question: every step that ends the episode is an answer (the model chose to
finish, as ToolBench's model calls ``Finish``).

``judec-dfsdt`` is JUDEC's DFSDT baseline (section 5.1: "ended after
generating 3 decision sequences", no task-specific knowledge):
``max_sequences=3 answer_judge=none``; the record gets
``sequences_success_any`` (solved if any of the 3 sequences is; JUDEC's
scoring) beside ``success`` (the first answer, played).

Defaults follow ToolBench's runner (authors' code, ``DFS_woFilter_w2``):
``width=2``, ``prune_back=2``; ``max_depth=12`` env steps is JUDEC 5.1's 12 steps per
sequence (ToolBench's ``single_chain_max_step`` 12 counts tree nodes, three per step: about 4
steps), the call budget from ``budget`` (ToolBench: 200
queries; here the suite-wide default). ``answer_threshold=0.5`` and
``answer_judge=value`` are ours (our envs have no give-up action; the value
prompt's "likely" is the middle of its scale).

The answer is that first answer leaf; without one, the deepest trajectory that did not
give up, else the last give-up (ToolBench emits a give-up node as its answer).
Node fields: ``stats["give_up"]`` on give-up leaves, ``stats["order"]`` the
DFS visiting order.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from .agent import register_algorithm
from .algorithm import SearchAlgorithm
from .options import option
from .config import SearchConfig
from .tree import SearchNode, SearchTree
from .sequences import sequence_stats

FOUND = 10_000  # "unwind everything": the search has its answer


def _new_child(avoid: list[str], attempt: int, node: SearchNode, hooks: SearchConfig) -> str | None:
    """Propose one action from ``node`` unlike ``avoid`` (its elder siblings'; the diversity prompt) and step it
    unless an elder sibling took it (that child is reused); the action, or None when the model proposed nothing
    usable. A unit for a Ray worker too (where ``node`` arrives without its children)."""
    actions = hooks.propose(node, 1, avoid=avoid, attempt=attempt)
    if actions and actions[0] not in avoid:
        hooks.expand(node, actions[0])
    return actions[0] if actions else None


@dataclass(frozen=True)
class DFSDTConfig:
    """ToolBench DFSDT's settings."""

    width: int = option(2, "authors' code (ToolBench `DFS_woFilter_w2`)", "children per node", minimum=1)
    prune_back: int = option(2, "authors' code (ToolBench DFSDT: a give-up goes back 2 levels)",
                             "levels a give-up backtracks", minimum=1)
    max_depth: int = option(
        12, "paper (JUDEC 5.1: 12 steps per decision sequence for every baseline); ToolBench's "
        "`single_chain_max_step` 12 counts tree nodes, 3 per step (Thought, Action, Action Input; its "
        "`get_depth() // 3` is the step), about 4 steps", "env steps per chain",
                            minimum=1)
    max_sequences: int | None = option(None, "authors' code (DFSDT stops at the first answer)",
                                       "stop after this many decision sequences", minimum=1)
    answer_threshold: float = option(
        0.5, "ours (our envs have no give-up action; \"likely\" or better, inclusive, is an answer)",
        "value from which a final state is an answer")
    answer_judge: str = option(
        "value", "ours (the same reason: the model's value of the final state stands in for its give-up choice)",
        "how a final state is judged an answer", choices=("value", "none"))


#: JUDEC 5.1's DFSDT baseline: 3 decision sequences, no value prompt
JUDEC_DFSDT = {"max_sequences": 3, "answer_judge": "none"}


@register_algorithm("dfsdt", help="ToolBench DFSDT: depth-first, width 2, diversity prompt, give-up backtracking")
@register_algorithm("judec-dfsdt", preset=JUDEC_DFSDT, help="JUDEC's DFSDT baseline: DFSDT until 3 decision sequences, no value calls")
class DFSDT(SearchAlgorithm[DFSDTConfig]):
    """ToolBench DFSDT (see module docstring)."""

    name = "dfsdt"
    value_name = "order"
    #: search_workers: each child is proposed and stepped on a Ray worker, one at a time (a sibling's proposal
    #: avoids its elder siblings' actions and comes after their subtrees: nothing to run at once)
    distributes = True

    Config = DFSDTConfig

    def _fresh(self) -> None:
        """The per-search state, empty (before the first search, for ``stats()``, and at every search)."""
        self.found: SearchNode | None = None
        self.sequences: list[SearchNode] = []
        self.backtracks = 0
        self.give_ups = 0
        self._order = 0

    def search(self, root: SearchNode, hooks: SearchConfig) -> None:
        self._fresh()
        self._dfs(root, hooks)

    def _is_answer(self, node: SearchNode, hooks: SearchConfig) -> bool:
        """Whether a step that ended the episode is an answer (else a give-up). With ``peek_success``
        the env says (success, or a positive reward such as a scored WebShop purchase); without it the
        model judges the final state with its value prompt (one call): ``answer_threshold`` or more
        is an answer. ToolBench's model picks give_answer / give_up_and_restart itself; our envs have
        no give-up action, so the self-judgment stands in for that choice."""
        if self.peek_success:
            return node.success or node.reward > 0
        if self.config.answer_judge == "none":
            return True
        node.stats["judged"] = float(hooks.value(node))
        return node.stats["judged"] >= self.config.answer_threshold

    def _sequence_done(self, node: SearchNode) -> int | None:
        """Count a finished decision sequence; FOUND when ``max_sequences`` of them are reached."""
        self.sequences.append(node)
        if self.config.max_sequences is not None and len(self.sequences) >= self.config.max_sequences:
            return FOUND
        return None

    def _dfs(self, node: SearchNode, hooks: SearchConfig) -> int:
        """Visit ``node``; return the number of levels to go back (``FOUND`` to stop)."""
        node.visits = 1  # DFSDT enters every node once, right after making it
        node.value = self._order
        self._order += 1
        if node.terminal and self._is_answer(node, hooks):
            # an answer (ToolBench's Finish(give_answer)): stop at the first one, unless the search
            # runs to max_sequences decision sequences (JUDEC's baseline setting)
            node.stats["answer"] = True
            self.found = self.found or node
            if self.config.max_sequences is None:
                return FOUND
            return self._sequence_done(node) or 1
        if node.terminal:
            node.stats["give_up"] = True
            self.give_ups += 1
            return self._sequence_done(node) or self.config.prune_back
        if node.depth >= self.config.max_depth:
            return self._sequence_done(node) or 1
        for i in range(self.config.width):
            avoid = [c.action for c in node.children if c.action]
            if hooks.parallel is None:
                action = _new_child(avoid, i, node, hooks)
            else:
                action = hooks.parallel.run([node], [functools.partial(_new_child, avoid, i)], hooks)[0]
            if action is None:
                node.stats["empty_proposals"] = node.stats.get("empty_proposals", 0) + 1
                continue
            child = node.child(action)
            back = self._dfs(child, hooks)
            if back >= FOUND:
                return FOUND
            hooks.prune(child)  # DFSDT never re-enters a subtree it came back from
            if back > 1:
                self.backtracks += 1
                node.stats["abandoned"] = True
                return back - 1
        return 1

    def choose(self, tree: SearchTree) -> SearchNode | None:
        if self.found is not None:
            return self.found
        alive = [n for n in tree.nodes if not n.children and n is not tree.root and not n.stats.get("give_up")]
        if alive:
            return max(alive, key=lambda n: (n.depth, -n.id))
        gave_up = [n for n in tree.nodes if n.stats.get("give_up")]
        return gave_up[-1] if gave_up else None

    def stats(self) -> dict[str, Any]:
        out: dict[str, Any] = dict(dfsdt_backtracks=self.backtracks, dfsdt_give_ups=self.give_ups,
                                   dfsdt_sequences=len(self.sequences))
        if self.config.max_sequences is not None:
            out.update(sequence_stats(self.sequences))
        return out

