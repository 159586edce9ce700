"""Monte Carlo tree search over LLM proposals: agents ``mcts`` and ``radagent-mcts@N`` (``lats`` is in ``lats.py``).

One iteration (LLM-Reasoners ``MCTS`` phases):

1. **select** - from the root, while the node has children, go to the child
   maximising UCT = Q + w_exp * sqrt(ln N_parent / max(1, N_child)), where Q is
   the mean of the rewards backed up through the child; a child never visited
   is scored by its prior instead of Q (``uct_with_fast_reward``);
2. **expand** - a leaf that is not terminal and above ``depth_limit`` asks for
   ``n_actions`` proposals (``SearchConfig.propose``), steps the env once per
   proposal from the leaf's snapshot, and gives every new child a prior: the
   LLM value (``SearchConfig.value``, ToT's sure/likely/impossible in [0, 1]),
   final states included; only with ``peek_success`` does a child that ended
   the episode get the env's verdict (1 won / 0 lost) instead;
3. **simulate** - ``simulate=value`` (``mcts`` default; RaDAgent's MCTS
   baseline scores states with ToT's value): the reward is the prior of the
   best new child; ``simulate=rollout`` (``lats`` default): from that child,
   ``rollout_width`` proposals per step, keep the best-valued one (a single
   proposal needs no value call), until the env ends the episode, the depth
   limit, or ``rollout_depth`` steps (``none``: no such bound); reward = the
   prior (as in 2.) of the step the rollout ended on;
4. **back-propagate** - every node from the root to where the simulation
   ended (rollout steps are tree nodes too, as in LATS) adds the reward to its
   visits and running mean (``node.value`` = Q, ``node.visits`` = N).

A step that ends the episode is valued by the LLM's own value prompt on the
final state; only with ``peek_success=true`` (an oracle) does it get the env's
verdict (1 won / 0 lost) instead, and only then may the search stop at a won
step (``stop_on_success``, on by default when peeking, as LATS uses the env's
terminal reward).

The search ends after ``n_iters`` iterations, when the LLM budget is spent,
when no node is left to expand, or (``stop_on_success``) when a step has won.
The answer (``output=max_reward``) is the path that follows the highest Q from
the root (LLM-Reasoners ``follow_max``; with ``peek_success`` the first won
leaf comes first); ``output=max_visit`` follows visit counts.

``per_step=true`` runs MCTS@N as RaDAgent's baseline does (RaDAgent 6.6:
"40 and 100 simulations at each decision step"): ``n_iters`` simulations from
the current decision step, then a commitment to its best child (by
``output``), then ``n_iters`` more from there, until the episode ends;
``depth_limit`` then counts from the current decision step. The agent
``radagent-mcts@N`` is that baseline (``per_step=true``, ``n_iters=N``, 40
without ``@N``); plain ``mcts@N`` grows one tree from the start with N
simulations in all. ``rollout_depth=none`` rolls out until the env ends the
episode (bounded by ``depth_limit``), ToolChain*'s MCTS baseline.

``lats`` (Zhou et al. 2023, Language Agent Tree Search) is this loop with the authors' settings and
self-reflection (``reflect``): see ``lats.py``.

Defaults (each overridable with ``--agent-opt key=value``; ``mcts@40`` /
``lats@40`` set ``n_iters``); their sources are in agents/search/README.md:

============  ======  ======================
option        mcts    lats
============  ======  ======================
n_iters       10      30 WebShop / 50 HotPotQA
w_exp         1.0     1.414
depth_limit   5       7
n_actions     5       5
simulate      value   rollout
rollout_depth 4       none (to the end)
rollout_width 1       5
reflect       false   true
============  ======  ======================

Node fields: ``value`` = Q (mean backed-up reward), ``visits`` = N;
``stats["prior"]`` the expansion-time value, ``stats["dead"]`` when the model
proposed nothing usable from the node.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ..registry import register_agent
from .agent import SearchAgent, build_search_agent
from .options import option, typed_value
from .config import SearchConfig
from .tree import SearchNode, SearchTree


@dataclass(frozen=True)
class MCTSConfig:
    """The settings of plain MCTS (UCT with LLM priors; LLM-Reasoners' defaults)."""

    n_iters: int = option(10, "authors' code (LLM-Reasoners `MCTS(n_iters=10)`)", "simulations", minimum=1)
    w_exp: float = option(1.0, "authors' code (LLM-Reasoners `MCTS(w_exp=1.)`)", "UCT exploration weight")
    depth_limit: int = option(5, "authors' code (LLM-Reasoners `MCTS(depth_limit=5)`)",
                              "steps below the start a branch may grow", minimum=1)
    n_actions: int = option(5, "authors' code (LLM-Reasoners' examples; LATS's `n_generate_sample` is 5 too)",
                            "proposals per expansion", minimum=1)
    simulate: str = option("value", "paper (RaDAgent 6.6: the MCTS baseline scores states with ToT's value)",
                           "how a new child is scored", choices=("value", "rollout"))
    rollout_depth: int | None = option(
        4, "ours (used only with `simulate=rollout`; `lats` has the authors' value)",
        "rollout steps (none: until the episode ends, bounded by depth_limit)", minimum=0)
    rollout_width: int = option(1, "ours (used only with `simulate=rollout`; `lats` has the authors' value)",
                                "proposals per rollout step (the best-valued one is kept)", minimum=1)
    reflect: bool = option(False, "authors' code (LLM-Reasoners' MCTS has no reflection)",
                           "reflect on failed simulations")
    max_reflections: int = option(
        3, "authors' code (LATS `hotpot/lats.py`: reflections are made for up to 3 failed trajectories)",
        "reflections shown in prompts", minimum=0)
    output: str = option("max_reward", "authors' code (LLM-Reasoners `output_strategy='max_reward'`)",
                         "how the answer path is chosen", choices=("max_reward", "max_visit"))
    stop_on_success: bool | None = option(
        None, "ours (none = `peek_success`; LATS stops at the env's reward 1, an oracle here)",
        "stop at the first won step (needs peek_success)", words=("default",))
    per_step: bool = option(False, "ours (`mcts@N` grows one tree; `radagent-mcts@N` is the per-decision baseline)",
                            "simulate before every decision step (RaDAgent's MCTS@N)")


class MCTSAgent(SearchAgent):
    """UCT search with LLM priors (see module docstring)."""

    name = "mcts"
    value_name = "q"
    _base = 0  # depth of the node the simulations start from (set by search; per_step moves it down)
    _current: SearchNode  # that node (set by search)

    Config = MCTSConfig

    def __init__(self, env_id: str, llm: Any, **options: Any):
        super().__init__(env_id, llm, **options)
        self.stop_on_success = self.stop_on_success_option(self.config.stop_on_success)
        self._fresh()

    def _fresh(self) -> None:
        """The per-search state, empty (before the first search, for ``stats()``, and at every search)."""
        self.reflections: list[str] = []
        self.iterations = 0
        self.won: SearchNode | None = None
        self.decisions: list[SearchNode] = []

    # ------------------------------------------------------------ the loop
    def search(self, root: SearchNode, hooks: SearchConfig) -> None:
        self._fresh()
        self._base = root.depth
        self._current = root  # the decision step the simulations start from
        if self.config.reflect:
            hooks.reflections = self.reflections
        if not self.config.per_step:
            self._simulations(root, hooks)
            return
        # MCTS@N as RaDAgent's baseline runs it: N simulations before every decision step, then
        # commit to the best child and simulate again from there.
        current = root
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

    def _simulations(self, start: SearchNode, hooks: SearchConfig) -> None:
        """``n_iters`` select-expand-simulate-back-propagate rounds below ``start``."""
        for _ in range(self.config.n_iters):
            path = self._select(start)
            if path is None:
                return  # every branch is finished or dead
            self.iterations += 1
            leaf = path[-1]
            if self._expandable(leaf):
                best = self._expand(leaf, hooks)
                if best is not None:
                    leaf = best
            reward, end = self._simulate(leaf, hooks)
            for node in reversed(end.path()[start.depth:]):
                self._update(node, reward)
            if self.known_win(end) and self.won is None:
                self.won = end
            if self.stop_on_success and self.won is not None:
                return
            failed = not end.success if self.peek_success else reward < 1.0
            if self.config.reflect and (end.terminal or self.config.simulate == "rollout") and failed:
                self._reflect(end, hooks, reward)

    def _expandable(self, node: SearchNode) -> bool:
        return not node.terminal and node.depth - self._base < self.config.depth_limit and not node.stats.get("dead")

    def _closed(self, node: SearchNode) -> bool:
        return bool(node.stats.get("closed"))

    def _update(self, node: SearchNode, reward: float) -> None:
        """Back up ``reward`` into ``node`` (running mean) and refresh its closed flag:
        a node is closed when nothing below it can be expanded or simulated any more."""
        node.visits += 1
        node.value += (reward - node.value) / node.visits
        if node.children:
            closed = all(self._closed(c) for c in node.children)
        else:
            closed = not self._expandable(node)
        if closed:
            node.stats["closed"] = True

    def uct(self, parent: SearchNode, child: SearchNode) -> float:
        q = child.value if child.visits else float(child.stats.get("prior", 0.0))
        return q + self.config.w_exp * math.sqrt(math.log(max(1, parent.visits)) / max(1, child.visits))

    def _select(self, root: SearchNode) -> list[SearchNode] | None:
        """The path to the node to expand or simulate next (None when all is closed)."""
        if self._closed(root):
            return None
        path = [root]
        node = root
        while node.children:
            options = [c for c in node.children if not self._closed(c)]
            if not options:
                break
            node = max(options, key=lambda c: (self.uct(path[-1], c), -c.id))
            path.append(node)
            if node.visits == 0:
                break  # a fresh child: simulate it before going deeper
        return path

    def _expand(self, node: SearchNode, hooks: SearchConfig) -> SearchNode | None:
        """Add up to ``n_actions`` children with priors; return the best new one."""
        actions = hooks.propose(node, self.config.n_actions)  # a node is expanded once, while it has no children
        if not actions:
            node.stats["dead"] = True
            return None
        new = []
        for action in actions:
            child = hooks.expand(node, action)  # distinct proposals: a new child each
            new.append(child)
            child.stats["prior"] = self._prior(child, hooks)
            if self.known_win(child):
                break  # a won step needs no sibling valued (peek_success only)
        return max(new, key=lambda c: (c.stats["prior"], -c.id))

    def _prior(self, node: SearchNode, hooks: SearchConfig) -> float:
        if node.terminal:
            return self.terminal_value(node, hooks)
        return float(hooks.value(node))

    def _reward(self, node: SearchNode, hooks: SearchConfig) -> float:
        """The simulation's reward at ``node`` (its prior, computed once)."""
        if "prior" not in node.stats:
            node.stats["prior"] = self._prior(node, hooks)
        return float(node.stats["prior"])

    def _simulate(self, node: SearchNode, hooks: SearchConfig) -> tuple[float, SearchNode]:
        """(reward, the node the simulation ended on: ``node`` itself or a rollout descendant)."""
        if node.terminal or self.config.simulate == "value":
            return self._reward(node, hooks), node
        current = node
        steps = 0
        while self.config.rollout_depth is None or steps < self.config.rollout_depth:
            steps += 1
            if current.terminal or current.depth - self._base >= self.config.depth_limit:
                break
            actions = hooks.propose(current, self.config.rollout_width)
            if not actions:
                current.stats["dead"] = True
                break
            children = [hooks.expand(current, a) for a in actions]
            if len(children) == 1:
                nxt = children[0]
            else:
                for c in children:  # new children (a rollout step starts from a node without any)
                    c.stats["prior"] = self._prior(c, hooks)
                nxt = max(children, key=lambda c: (c.stats["prior"], -c.id))
            nxt.stats["rollout"] = True
            current = nxt
        return self._reward(current, hooks), current

    def _reflect(self, end: SearchNode, hooks: SearchConfig, reward: float) -> None:
        """One reflection on a simulation that did not win. The outcome shown to the model is the env's
        verdict only with ``peek_success``; otherwise it is the model's own value of where it ended."""
        if self.peek_success:
            outcome = ("the episode ended without success (reward %g)" % end.reward if end.terminal
                       else f"no success after {end.depth} steps")
        else:
            outcome = (f"the episode ended in a state valued {reward:.2f}" if end.terminal
                       else f"after {end.depth} steps the state was valued {reward:.2f}")
        text = hooks.reflect(end, outcome)
        if text:
            end.stats["reflection"] = text
            self.reflections.append(text)
            del self.reflections[: max(0, len(self.reflections) - self.config.max_reflections)]

    # ------------------------------------------------------------ the answer
    def _best_child(self, node: SearchNode) -> SearchNode | None:
        """The child the answer follows: the highest Q (``max_reward``; an unvisited child by its
        prior) or the most visits (``max_visit``); with ``peek_success`` lost steps are skipped."""
        if not node.children:
            return None
        key = ((lambda c: (c.visits, c.value, -c.id)) if self.config.output == "max_visit"
               else (lambda c: (c.value if c.visits else c.stats.get("prior", 0.0), c.visits, -c.id)))
        candidates = node.children
        if self.peek_success:
            candidates = [c for c in node.children if not (c.terminal and not c.success)] or node.children
        return max(candidates, key=key)

    def choose(self, tree: SearchTree) -> SearchNode | None:
        if self.won is not None:
            return self.won
        won = [n for n in tree.nodes if self.known_win(n)]
        if won:
            return min(won, key=lambda n: n.id)
        # per_step: the committed decisions, then (when the budget ended the simulations of a decision)
        # the best path below the last one, as plain MCTS answers
        node = self._current if self.config.per_step else tree.root
        while node.children:
            node = self._best_child(node)
        return node if node is not tree.root else None

    def stats(self) -> dict[str, Any]:
        out = super().stats()
        out["mcts_iterations"] = self.iterations
        if self.config.per_step:
            out["mcts_decisions"] = len(self.decisions)
        if self.config.reflect:
            out["reflections"] = len(self.reflections)
        return out


#: RaDAgent 6.6's smaller MCTS baseline, MCTS@40 (the other is MCTS@100)
RADAGENT_SIMULATIONS = 40


def iterations_option(options: dict[str, Any]) -> dict[str, Any]:
    """``mcts@40`` (RaDAgent's MCTS@40 naming), ``lats@40``: ``n_iters=40`` (``options`` without ``at``)."""
    at = options.pop("at", None)
    if at is not None:
        if "n_iters" in options and typed_value(MCTSConfig, "n_iters", options["n_iters"], "mcts") != at:
            raise ValueError(f"the agent name says @{at} but n_iters={options['n_iters']}; give one of them")
        options["n_iters"] = at
    return options


@register_agent("mcts", needs_llm=True, help="MCTS/UCT with LLM proposals and ToT value (LLM-Reasoners defaults; mcts@N: N iterations)")
def make_mcts(env_id: str, llm: Any, **options: Any) -> MCTSAgent:
    return build_search_agent(MCTSAgent, env_id, llm, iterations_option(options))


@register_agent("radagent-mcts@", needs_llm=True, help="RaDAgent's MCTS@N baseline: N simulations with ToT's value before every decision (default 40)")
def make_radagent_mcts(env_id: str, llm: Any, **options: Any) -> MCTSAgent:
    if "per_step" in options and not typed_value(MCTSConfig, "per_step", options["per_step"], "radagent-mcts"):
        raise ValueError("radagent-mcts runs its simulations per decision step (per_step=true); "
                         "use mcts@N for one tree grown from the start")
    options = iterations_option({**options, "per_step": True})
    options.setdefault("n_iters", RADAGENT_SIMULATIONS)
    return build_search_agent(MCTSAgent, env_id, llm, options)
