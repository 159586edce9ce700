"""MCTS/LATS simulations and Elo comparisons on the search's Ray workers (``search_workers``, ``distributed.py``).

**Simulations** (``mcts``, ``lats``, ``radagent-mcts``): tree parallelisation with virtual loss (Chaslot,
Winands and van den Herik 2008, "Parallel Monte-Carlo Tree Search", section 3.3; the virtual loss of
AlphaGo, Silver et al. 2016). Selection and back-up stay on the driver. A round selects up to N leaves
(N workers, never more than the simulations left); after each selection every node on its path counts
one more visit with reward 0 (the virtual loss), so the next selection leans elsewhere, and a leaf in
flight is not selected again. The leaves go to the workers as snapshot bytes; each worker expands its
leaf and simulates from the best new child (``MCTS._play``: env steps, propose and value calls,
rollouts), and sends back the nodes it made, the reward and where the simulation ended. The virtual
losses are then taken back (every touched node gets its exact visits and Q from before the round) and
the results are backed up in the order the leaves were selected; LATS reflects on the driver after each
back-up, as in-process, and the next round's prompts show those reflections.

**Comparisons** (``elo``): the comparisons of one new sequence (``comparisons``, each two order-swapped
judge calls) run at once, one unit per comparison; the opponents are drawn first (the same draws as
in-process: nothing else reads the search's rng in between) and the Elo updates applied in order. The
exploration itself (Eq. 5 descent, the new sequence) stays on the driver: each descent reads the Elo of
the round before.

What changes with more workers: with one worker a round is one simulation (one comparison), so the run
is the in-process one, call for call: the same tree. With N, the leaves of a round are selected without
each other's results (virtual loss instead), so the tree differs from the in-process one, though every
simulation is still a valid select-expand-simulate-back-up; when the budget runs out mid-round, the
simulations that finished are backed up and the stopped ones are not (their nodes stay on the tree,
as in-process); ``stop_on_success`` stops after the round that found the win.
"""
from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any, Iterator, Sequence

from ...envs.core import snapshot_from_bytes, snapshot_to_bytes
from ..llm.base import BudgetExceeded
from .tree import SearchNode

if TYPE_CHECKING:  # pragma: no cover
    from .config import SearchConfig


def parallel_simulations(mcts: Any, start: SearchNode, hooks: "SearchConfig") -> None:
    """``mcts.config.n_iters`` simulations below ``start`` on ``hooks.parallel``'s workers, a round of up to
    one per worker at a time (see the module docstring). Raises ``BudgetExceeded`` after the round in
    which a worker ran out of budget."""
    parallel = hooks.parallel
    worker = type(mcts)(mcts.config)  # a copy without per-search state (the tree) travels to the workers
    worker.peek_success, worker.stop_on_success, worker._base = mcts.peek_success, mcts.stop_on_success, mcts._base
    left = mcts.config.n_iters
    while left > 0:
        leaves, before = _select_round(mcts, start, min(parallel.size, left))
        if not leaves:
            return  # every branch is finished or dead
        try:
            mcts.iterations += len(leaves)
            left -= len(leaves)
            func = functools.partial(_play_remote, worker, list(hooks.reflections))
            answers = parallel.run(leaves, [func] * len(leaves), hooks)
        finally:
            for node, (visits, value) in before.items():  # the virtual losses taken back, exactly
                node.visits, node.value = visits, value
        stopped, done = None, False
        for leaf, answer in zip(leaves, answers):
            leaf.stats.update(answer["stats"])
            if "budget" in answer:
                stopped = stopped or answer["budget"]
                continue
            end = leaf
            for action in answer["end"]:
                end = end.child(action)
            done = mcts._back_up(start, end, answer["reward"], hooks) or done
        if stopped:
            raise BudgetExceeded(stopped)
        if done:
            return


def _select_round(mcts: Any, start: SearchNode, size: int) -> tuple[list[SearchNode], dict[SearchNode, tuple[int, float]]]:
    """Up to ``size`` distinct leaves selected one after another with virtual loss; and the (visits, Q) every
    touched node had before (to take the losses back)."""
    leaves: list[SearchNode] = []
    before: dict[SearchNode, tuple[int, float]] = {}
    while len(leaves) < size:
        path = mcts._select(start, busy=set(leaves))
        if path is None:
            break
        leaves.append(path[-1])
        for node in path:
            before.setdefault(node, (node.visits, node.value))
            node.visits += 1
            node.value -= node.value / node.visits  # one more visit, with reward 0
    return leaves, before


def _play_remote(mcts: Any, reflections: list[str], leaf: SearchNode, hooks: "SearchConfig") -> dict[str, Any]:
    """On a worker: ``mcts._play(leaf)``; the leaf's stats (dead, prior), the reward and the actions from
    ``leaf`` to where the simulation ended, or the budget's message when it ran out."""
    hooks.reflections = reflections
    depth = leaf.depth
    try:
        reward, end = mcts._play(leaf, hooks)
    except BudgetExceeded as exc:
        return {"stats": leaf.stats, "budget": str(exc)}  # the nodes made so far travel back all the same
    return {"stats": leaf.stats, "reward": reward, "end": end.actions()[depth:]}


def compared(leaf: SearchNode, others: Sequence[SearchNode], hooks: "SearchConfig") -> Iterator[tuple[SearchNode, float]]:
    """(other, ``hooks.compare(leaf, other)``) for every one of ``others``, in order: one at a time
    in-process, all at once on ``hooks.parallel``'s workers (one unit per comparison). When the budget
    ran out on a worker, the finished comparisons are yielded, then ``BudgetExceeded`` is raised."""
    if hooks.parallel is None or not others:
        for other in others:
            yield other, hooks.compare(leaf, other)
        return
    funcs = [functools.partial(_compare_remote, _path_of(other), snapshot_to_bytes(other.snapshot)) for other in others]
    answers = hooks.parallel.run([leaf] * len(others), funcs, hooks)
    stopped = None
    for other, answer in zip(others, answers):
        if "budget" in answer:
            stopped = stopped or answer["budget"]
            continue
        other.keep_llm_calls(answer["other_calls"])
        yield other, answer["result"]
    if stopped:
        raise BudgetExceeded(stopped)


def _path_of(node: SearchNode) -> list[dict[str, Any]]:
    """What a prompt needs of ``node``'s path, root first: actions, observations, rewards, thoughts."""
    return [{"observation": n.observation, "info": n.info, "action": n.action, "thought": n.thought,
             "reward": n.reward, "terminal": n.terminal, "success": n.success, "depth": n.depth} for n in node.path()]


def _compare_remote(path: list[dict[str, Any]], data: bytes, leaf: SearchNode, hooks: "SearchConfig") -> dict[str, Any]:
    """On a worker: ``hooks.compare(leaf, other)``, ``other`` rebuilt from its path and snapshot bytes; the
    result and the judge excerpts noted on ``other``, or the budget's message when it ran out."""
    other = None
    for fields in path:
        other = SearchNode(snapshot=None, parent=other, **fields)
    other.snapshot = snapshot_from_bytes(data)
    try:
        result = hooks.compare(leaf, other)
    except BudgetExceeded as exc:
        return {"budget": str(exc)}
    return {"result": result, "other_calls": other.llm_calls}
