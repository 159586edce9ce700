"""MCTS/LATS simulations and Elo comparisons on the search's Ray workers (``search_workers``, ``distributed.py``).

**Simulations** (``mcts``, ``lats``, ``radagent-mcts``): tree parallelisation with virtual loss (Chaslot,
Winands and van den Herik 2008, "Parallel Monte-Carlo Tree Search", section 3.3; the virtual loss of
AlphaGo, Silver et al. 2016). Selection and back-up stay on the driver. A round selects up to N leaves
(N workers, never more than the simulations left); after each selection every node on its path counts
one more visit with reward 0 (the virtual loss), so the next selection leans elsewhere, and a leaf in
flight is not selected again. The leaves go to the workers as snapshot bytes; with one worker each
expands its leaf and simulates from the best new child (``MCTS._play``: env steps, propose and value
calls, rollouts) and sends back the nodes it made, the reward and where the simulation ended; with more,
a round runs in waves spread over the workers (every leaf proposes and steps, every new child is valued,
every rollout runs), so a unit waits on one call, not on a leaf's ``n_actions`` + 1. The virtual
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
simulations it stopped are not backed up (their nodes stay on the tree, as in-process; in waves that is
the whole round when the stop came before its rollouts); ``stop_on_success`` stops after the round that
found the win. Elo's comparisons do not depend on each other: with N workers its tree is the in-process
one while the budget does not bind.
"""
from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any, Iterator, Sequence

from ...envs.core import snapshot_from_bytes, snapshot_to_bytes
from ..llm.base import BudgetExceeded
from .distributed import fresh_copy, rebuilt_path, travelling_path
from .tree import SearchNode

if TYPE_CHECKING:  # pragma: no cover
    from .config import SearchConfig


def parallel_simulations(mcts: Any, start: SearchNode, hooks: "SearchConfig") -> None:
    """``mcts.config.n_iters`` simulations below ``start`` on ``hooks.parallel``'s workers, a round of up to
    one per worker at a time (see the module docstring). Raises ``BudgetExceeded`` after the round in
    which a worker ran out of budget."""
    parallel = hooks.parallel
    worker = fresh_copy(mcts)  # a copy without per-search state (the tree) travels to the workers
    worker._base = mcts._base
    play = _whole if parallel.size == 1 else _phased
    left = mcts.config.n_iters
    while left > 0:
        leaves, before = _select_round(mcts, start, min(parallel.size, left))
        if not leaves:
            return  # every branch is finished or dead
        try:
            mcts.iterations += len(leaves)
            left -= len(leaves)
            played, stopped = play(worker, leaves, hooks)
        finally:
            for node, (visits, value) in before.items():  # the virtual losses taken back, exactly
                node.visits, node.value = visits, value
        done = False
        for result in played:
            if result is not None:
                done = mcts._back_up(start, result[1], result[0], hooks) or done
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


#: per leaf, (reward, the node the simulation ended on), None when the budget stopped it; the budget's message
Played = tuple[list["tuple[float, SearchNode] | None"], "str | None"]


def _whole(mcts: Any, leaves: list[SearchNode], hooks: "SearchConfig") -> Played:
    """Each leaf's whole simulation (``MCTS._play``) as one unit: with one worker, the in-process order of
    calls."""
    outs, stopped = _run(hooks, leaves, functools.partial(_play, mcts))
    return [None if out is None else _ended(leaf, out) for leaf, out in zip(leaves, outs)], stopped


def _phased(mcts: Any, leaves: list[SearchNode], hooks: "SearchConfig") -> Played:
    """The round's simulations in three waves, each spread over the workers: every leaf proposes and steps
    its children, every new child is valued, every simulation that still needs calls (a rollout) runs: one
    call per unit (not a leaf's ``n_actions`` + 1). With ``simulate=value`` (mcts) the tree of :func:`_whole`;
    with rollouts (lats) the rollouts' nodes come after all the round's children, so node ids (and, through
    UCT's tie-breaks, later selections) can differ from it."""
    grow = [leaf for leaf in leaves if mcts._expandable(leaf)]
    _, stopped = _run(hooks, grow, functools.partial(_grow, mcts))
    if stopped:
        return [None] * len(leaves), stopped
    fresh = [child for leaf in grow for child in leaf.children]
    priors, stopped = _run(hooks, fresh, functools.partial(_prior, mcts))
    for child, prior in zip(fresh, priors):
        if prior is not None:
            child.stats["prior"] = prior
    if stopped:
        return [None] * len(leaves), stopped
    grown = set(grow)
    starts = [mcts._best_new(leaf.children) if leaf in grown and leaf.children else leaf for leaf in leaves]
    known = [(s.terminal or mcts.config.simulate == "value") and "prior" in s.stats for s in starts]
    remote = [s for s, k in zip(starts, known) if not k]
    outs, stopped = _run(hooks, remote, functools.partial(_simulate, mcts))
    simulated = iter(outs)
    played = []
    for s, k in zip(starts, known):
        out = None if k else next(simulated)
        played.append((float(s.stats["prior"]), s) if k else None if out is None else _ended(s, out))
    return played, stopped


def _run(hooks: "SearchConfig", nodes: list[SearchNode], call: Any) -> tuple[list[Any], str | None]:
    """``call(node, hooks)`` for every node on the workers: what each returned (None when the budget stopped
    it) and the budget's message; the nodes' stats come back (dead, prior)."""
    if not nodes:
        return [], None
    func = functools.partial(_on_worker, call, list(hooks.reflections))
    outs, stopped = [], None
    for node, answer in zip(nodes, hooks.parallel.run(nodes, [func] * len(nodes), hooks)):
        node.stats.update(answer["stats"])
        stopped = stopped or answer.get("budget")
        outs.append(answer.get("out"))
    return outs, stopped


def _on_worker(call: Any, reflections: list[str], node: SearchNode, hooks: "SearchConfig") -> dict[str, Any]:
    """On a worker: ``call(node, hooks)`` with the search's reflections in the prompts; the node's stats and
    what the call returned, or the budget's message (the nodes made so far travel back all the same)."""
    hooks.reflections = reflections
    try:
        return {"stats": node.stats, "out": call(node, hooks)}
    except BudgetExceeded as exc:
        return {"stats": node.stats, "budget": str(exc)}


def _play(mcts: Any, leaf: SearchNode, hooks: "SearchConfig") -> tuple[float, list[str]]:
    reward, end = mcts._play(leaf, hooks)
    return reward, end.actions()[leaf.depth:]


def _grow(mcts: Any, leaf: SearchNode, hooks: "SearchConfig") -> None:
    mcts._grow(leaf, hooks, priors=False)


def _prior(mcts: Any, child: SearchNode, hooks: "SearchConfig") -> float:
    return mcts._prior(child, hooks)


def _simulate(mcts: Any, node: SearchNode, hooks: "SearchConfig") -> tuple[float, list[str]]:
    reward, end = mcts._simulate(node, hooks)
    return reward, end.actions()[node.depth:]


def _ended(node: SearchNode, out: tuple[float, list[str]]) -> tuple[float, SearchNode]:
    """(reward, the node ``out``'s actions lead to from ``node``)."""
    end = node
    for action in out[1]:
        end = end.child(action)
    return out[0], end


def compared(leaf: SearchNode, others: Sequence[SearchNode], hooks: "SearchConfig") -> Iterator[tuple[SearchNode, float]]:
    """(other, ``hooks.compare(leaf, other)``) for every one of ``others``, in order: one at a time
    in-process, all at once on ``hooks.parallel``'s workers (one unit per comparison). When the budget
    ran out on a worker, the finished comparisons are yielded, then ``BudgetExceeded`` is raised."""
    if hooks.parallel is None or not others:
        for other in others:
            yield other, hooks.compare(leaf, other)
        return
    funcs = [functools.partial(_compare_remote, travelling_path(other), snapshot_to_bytes(other.snapshot))
             for other in others]
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


def _compare_remote(path: list[dict[str, Any]], data: bytes, leaf: SearchNode, hooks: "SearchConfig") -> dict[str, Any]:
    """On a worker: ``hooks.compare(leaf, other)``, ``other`` rebuilt from its path and snapshot bytes; the
    result and the judge excerpts noted on ``other``, or the budget's message when it ran out."""
    other = rebuilt_path(path)
    other.snapshot = snapshot_from_bytes(data)
    try:
        result = hooks.compare(leaf, other)
    except BudgetExceeded as exc:
        return {"budget": str(exc)}
    return {"result": result, "other_calls": other.llm_calls}
