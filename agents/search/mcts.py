"""Monte Carlo tree search (UCT) over LLM proposals: agent ``mcts``.

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
The answer (``output=follow_max``) is the path that follows the highest Q from
the root (LLM-Reasoners ``follow_max``; with ``peek_success`` the first won
leaf comes first); ``output=max_visit`` follows visit counts; ``output=max_reward``
(LLM-Reasoners' default, ``_dfs_max_reward``) is the path that ended the episode with the
highest sum of its steps' priors, none when no path ended it.

``rollout_depth=none`` rolls out until the env ends the episode (bounded by ``depth_limit``),
ToolChain*'s MCTS baseline. ``mcts@N`` grows one tree from the start with N simulations in all.

The same loop serves two more agents, each in its own module: ``radagent-mcts@N`` (RaDAgent's
MCTS@N baseline: N simulations before every decision step, ``radagent_mcts.py``) and ``lats``
(Zhou et al. 2023, Language Agent Tree Search: the authors' settings, rollouts and self-reflection,
``lats.py``). Defaults and their sources: the ``MCTSConfig`` fields and agents/search/README.md.
With ``search_workers=N`` the simulations run on Ray workers, N at a time with virtual loss
(``distributed_sims.py``).

Node fields: ``value`` = Q (mean backed-up reward), ``visits`` = N;
``stats["prior"]`` the expansion-time value, ``stats["dead"]`` when the model
proposed nothing usable from the node.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from .agent import register_algorithm
from .algorithm import SearchAlgorithm
from .distributed_sims import parallel_simulations
from .options import option
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
    output: str = option(
        "follow_max", "authors' code (LLM-Reasoners `output_strategy='follow_max'`; its default `max_reward` "
        "needs paths that ended the episode, which `simulate=value` seldom grows, and is an option here)",
        "how the answer path is chosen", choices=("follow_max", "max_reward", "max_visit"))
    stop_on_success: bool | None = option(
        None, "ours (none = `peek_success`; LATS stops at the env's reward 1, an oracle here)",
        "stop at the first won step (needs peek_success)", words=("default",))


@register_algorithm("mcts", at="n_iters", help="MCTS/UCT with LLM proposals and ToT value (LLM-Reasoners defaults; mcts@N: N iterations)")
class MCTS(SearchAlgorithm[MCTSConfig]):
    """UCT search with LLM priors (see module docstring)."""

    name = "mcts"
    value_name = "q"
    distributes = True  # search_workers: simulations run on Ray workers, with virtual loss
    _base = 0  # depth of the node the simulations start from (set by search; radagent-mcts moves it down)
    _current: SearchNode  # that node (set by search)

    Config = MCTSConfig

    def _fresh(self) -> None:
        """The per-search state, empty (before the first search, for ``stats()``, and at every search)."""
        self.iterations = 0
        self.won: SearchNode | None = None

    # ------------------------------------------------------------ the loop
    def search(self, root: SearchNode, hooks: SearchConfig) -> None:
        self._fresh()
        self._base = root.depth
        self._current = root  # the node the simulations start from
        self._simulations(root, hooks)

    def _simulations(self, start: SearchNode, hooks: SearchConfig) -> None:
        """``n_iters`` select-expand-simulate-back-propagate rounds below ``start`` (with ``search_workers``:
        on Ray workers, several at once with virtual loss, ``distributed_sims.py``)."""
        if hooks.parallel is not None:
            parallel_simulations(self, start, hooks)
            return
        for _ in range(self.config.n_iters):
            path = self._select(start)
            if path is None:
                return  # every branch is finished or dead
            self.iterations += 1
            reward, end = self._play(path[-1], hooks)
            if self._back_up(start, end, reward, hooks):
                return

    def _play(self, leaf: SearchNode, hooks: SearchConfig) -> tuple[float, SearchNode]:
        """Expand ``leaf`` (when it can be) and simulate from its best new child: (reward, where it ended)."""
        if self._expandable(leaf):
            best = self._expand(leaf, hooks)
            if best is not None:
                leaf = best
        return self._simulate(leaf, hooks)

    def _back_up(self, start: SearchNode, end: SearchNode, reward: float, hooks: SearchConfig) -> bool:
        """Back ``reward`` up from ``end`` to ``start``, note a win; True when the search stops here."""
        for node in reversed(end.path()[start.depth:]):
            self._update(node, reward)
        if self.known_win(end) and self.won is None:
            self.won = end
        if self.stop_on_success and self.won is not None:
            return True
        self.after_simulation(end, reward, hooks)
        return False

    def rollout_stop_depth(self) -> int:
        """A rollout stops at this node depth: the depth limit, counted from where the simulations start."""
        return self._base + self.config.depth_limit

    def after_simulation(self, end: SearchNode, reward: float, hooks: SearchConfig) -> None:
        """Called after each simulation that did not stop the search (LATS reflects here)."""

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
            closed = all(c.stats.get("closed") for c in node.children)  # _closed of each child
        else:
            closed = not self._expandable(node)
        if closed:
            node.stats["closed"] = True

    def uct(self, parent: SearchNode, child: SearchNode) -> float:
        """UCT of ``child`` under ``parent`` (Q, or the prior while unvisited, plus the exploration term)."""
        return self._uct(math.log(max(1, parent.visits)), child)

    def _uct(self, log_parent: float, child: SearchNode) -> float:
        visits = child.visits
        q = child.value if visits else float(child.stats.get("prior", 0.0))
        return q + self.config.w_exp * math.sqrt(log_parent / max(1, visits))

    def _highest_uct(self, parent: SearchNode, options: list[SearchNode]) -> SearchNode:
        """The option with the highest UCT under ``parent`` (ties: the lowest id), ``ln N_parent`` taken once."""
        log_parent = math.log(max(1, parent.visits))
        uct = self._uct
        best, best_score = options[0], uct(log_parent, options[0])
        for child in options[1:]:
            score = uct(log_parent, child)
            if score > best_score or (score == best_score and child.id < best.id):
                best, best_score = child, score
        return best

    def _select(self, root: SearchNode, busy: frozenset | set = frozenset()) -> list[SearchNode] | None:
        """The path to the node to expand or simulate next (None when all is closed, or when the way
        down meets only ``busy`` nodes: leaves Ray workers are simulating from)."""
        if self._closed(root) or root in busy:
            return None
        path = [root]
        node = root
        while node.children:
            options = [c for c in node.children if not c.stats.get("closed") and c not in busy]  # not _closed
            if not options:
                if any(c in busy for c in node.children):
                    return None
                break
            node = self._highest_uct(node, options)
            path.append(node)
            if node.visits == 0:
                break  # a fresh child: simulate it before going deeper
        return path

    def _expand(self, node: SearchNode, hooks: SearchConfig) -> SearchNode | None:
        """Add up to ``n_actions`` children with priors; return the best new one."""
        new = self._grow(node, hooks)
        return self._best_new(new) if new else None

    def _grow(self, node: SearchNode, hooks: SearchConfig, priors: bool = True) -> list[SearchNode]:
        """The new children of ``node``, one per proposal (each valued as it is made, unless ``priors`` is
        false), none after a won step; [] and ``node`` marked dead when nothing usable was proposed."""
        actions = hooks.propose(node, self.config.n_actions)  # a node is expanded once, while it has no children
        if not actions:
            node.stats["dead"] = True
            return []
        new = []
        for action in actions:
            child = hooks.expand(node, action)  # distinct proposals: a new child each
            new.append(child)
            if priors:
                child.stats["prior"] = self._prior(child, hooks)
            if self.known_win(child):
                break  # a won step needs no sibling valued (peek_success only)
        return new

    @staticmethod
    def _best_new(new: list[SearchNode]) -> SearchNode:
        """The new child a simulation starts from: the highest prior (ties: the first made)."""
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
            if current.terminal or current.depth >= self.rollout_stop_depth():
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

    # ------------------------------------------------------------ the answer
    def _best_child(self, node: SearchNode) -> SearchNode | None:
        """The child the answer follows (and radagent-mcts commits to): the most visits (``max_visit``),
        else the highest Q (an unvisited child by its prior); with ``peek_success`` lost steps are skipped."""
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
        won = [n for n in tree.nodes if self.known_win(n)] if self.peek_success else []  # known_win needs it
        if won:
            return min(won, key=lambda n: n.id)
        node = self.answer_start(tree)
        if self.config.output == "max_reward":
            return self._max_reward_end(node)[1]
        while node.children:
            node = self._best_child(node)
        return node if node is not tree.root else None

    def _max_reward_end(self, node: SearchNode, total: float = 0.0) -> tuple[float, SearchNode | None]:
        """(the highest sum of step priors, its end) over the paths below ``node`` that ended the
        episode; (-inf, None) when none did (LLM-Reasoners' ``_dfs_max_reward``; ties: the earlier)."""
        if node.terminal:
            return total, node
        best: tuple[float, SearchNode | None] = (-math.inf, None)
        for child in node.children:
            found = self._max_reward_end(child, total + float(child.stats.get("prior", 0.0)))
            if found[0] > best[0]:
                best = found
        return best

    def answer_start(self, tree: SearchTree) -> SearchNode:
        """Where the answer path starts: the root (radagent-mcts: its last committed decision)."""
        return tree.root

    def stats(self) -> dict[str, Any]:
        return {"mcts_iterations": self.iterations}

