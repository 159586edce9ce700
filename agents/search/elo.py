"""Elo-based tree search: JUDEC / RaDAgent (Ye et al.), agent ``elo``.

Every decision step (tree node) carries an Elo score, 0 at creation. One
*exploration* (a) descends from the root choosing, at each step d, among its
children and a *rejection* pseudo-child by Eq. 5, a softmax of Elo / tau_d with
the annealed temperature of Eq. 8; (b) where the rejection is drawn, restores
that step's snapshot and generates a new decision sequence from it (one propose
call per step, the first step told which actions its siblings took) until the
env ends the episode, the model proposes nothing usable, or the sequence has
``max_steps`` steps; (c) judges the new sequence against a randomly chosen
earlier one with two order-swapped comparisons (Eq. 6: 1 if it wins both, 0 if
it loses both, else 0.5) and updates both final steps by Eq. 1-3; (d)
recomputes every intermediate step's Elo as the softmax-weighted mean of its
children (Eq. 7). After ``explorations`` rounds (or when the LLM budget is
spent), the answer is the terminal step with the highest Elo (Eq. 9).

Defaults are the paper's (JUDEC section 5.1) where it gives them: r = 173.72, K = 50, initial
Elo 0, rejection Elo 0, 20 explorations, 100 LLM calls, at most 12 steps per
sequence, one comparison pair per new sequence. The authors' code
(yeyn19/RaD-Agent, see agents/search/README.md) differs in places; each
difference is an option (``--agent-opt key=value``):

* ``anneal=paper|code``: tau0 / (1 + sqrt(ln(M+1))) (paper Eq. 8) or
  tau0 / sqrt(1 + ln(1 + M)) (code ``compute_choice_temperature``);
* ``rejection_p=P``: rejection Elo r * ln(P / (1 - P)) as in the code
  (0.5 gives the paper's 0; the Game-of-24 script uses 0.9, about 381.7),
  or set ``rejection_elo`` directly;
* ``max_children=C``: offer the rejection only while a step has fewer than C
  children (code: 4 ToolBench / 15 Game of 24; default unlimited: ours, JUDEC
  names no cap);
* ``comparisons=N``: earlier sequences matched per new sequence (code runs
  about 2.3 matches per new sequence in its ToolBench setting);
* ``final=paper|terminal|code``: Eq. 9, the end of the decision sequence with
  the highest Elo over *all* sequences (paper; a sequence that did not end the
  episode is then continued greedily), ``terminal`` the highest-Elo end that
  ended the episode (ours; falls back to ``paper`` when none did), ``code``
  the highest-Elo end of any kind, giving no answer when that end was pruned
  (code ``to_json``; the agent then gives up);
* ``terminal_children=skip|include``: whether Eq. 5's softmax draws among
  children that ended the episode (ours, the paper is silent: ``skip``, since
  nothing can be explored below such a step; ``include`` keeps them in the
  softmax and a draw of one ends that walk without a new sequence);
* ``tau0``: the initial temperature of Eq. 8. Neither paper gives a value;
  ours is tau0 = r;
* ``stop_on_success=true`` (needs ``peek_success=true``): stop as soon as a
  sequence succeeds (the code's Game-of-24 shortcut; it reads the env's
  success flag, an oracle). Without ``peek_success`` the search never reads
  the env's success flag or reward.

With ``search_workers=N`` a new sequence's ``comparisons`` run at once on Ray workers
(``distributed_sims.py``); the exploration stays in-process.
"""
from __future__ import annotations

import math
from bisect import bisect_right
from itertools import accumulate
from dataclasses import dataclass, replace
from typing import Any, Sequence

from .agent import register_algorithm
from .algorithm import SearchAlgorithm
from .options import option
from .config import SearchConfig
from .distributed_sims import compared
from .tree import SearchNode, SearchTree

ELO_R = 173.72  # = 400 / ln 10: classic Elo with a base-10 scale of 400
ELO_K = 50.0


# ----------------------------------------------------------------- the math (pure functions)
def expected_score(v_x: float, v_y: float, r: float = ELO_R) -> float:
    """Eq. 1: expected superiority of x over y, 1 / (1 + exp(-(v_x - v_y) / r))."""
    return 1.0 / (1.0 + math.exp(-(v_x - v_y) / r))


def elo_update(v_x: float, v_y: float, result: float, k: float = ELO_K, r: float = ELO_R) -> tuple[float, float]:
    """Eq. 3: new (v_x, v_y) after a match with ``result`` = R_{x>y} in {1, 0, 0.5}."""
    e_xy = expected_score(v_x, v_y, r)
    return v_x + k * (result - e_xy), v_y + k * ((1.0 - result) - (1.0 - e_xy))


def softmax(values: Sequence[float], tau: float) -> list[float]:
    """exp(v / tau) normalised (shifted by the max for numerical safety)."""
    if not values:
        return []
    top = max(values)
    weights = [math.exp((v - top) / tau) for v in values]
    total = sum(weights)
    return [w / total for w in weights]


def aggregate_elo(child_values: Sequence[float], tau: float) -> float:
    """Eq. 7: an intermediate step's Elo, sum_j alpha_j v_j with alpha = softmax(v / tau) (the softmax's
    arithmetic, in its order, inlined: this runs for every step a match touched)."""
    if not child_values:
        return 0
    top = max(child_values)
    weights = [math.exp((v - top) / tau) for v in child_values]
    total = sum(weights)
    return sum([w / total * v for w, v in zip(weights, child_values)])


def choice_index(rng: Any, probs: Sequence[float]) -> int:
    """``int(rng.choice(len(probs), p=probs))`` for a numpy ``Generator`` with the same draw and the
    same answer (cumulative sums normalised by the last, one ``rng.random()``, the first index whose
    cumulative share exceeds it), without numpy's per-call array set-up."""
    cdf = list(accumulate(map(float, probs)))
    total = cdf[-1]
    return bisect_right([c / total for c in cdf], rng.random())


def selection_probabilities(child_values: Sequence[float], tau: float,
                            rejection_value: float | None = 0.0) -> list[float]:
    """Eq. 5: probabilities of each child and, last (when ``rejection_value`` is not None), the rejection."""
    values = list(child_values) + ([rejection_value] if rejection_value is not None else [])
    return softmax(values, tau)


def rejection_probability(child_values: Sequence[float], tau: float, rejection_value: float = 0.0) -> float:
    """Probability of drawing the rejection step ("explore a new decision from here") under Eq. 5."""
    return selection_probabilities(child_values, tau, rejection_value)[-1]


def annealed_temperature(tau0: float, updates: int, schedule: str = "paper") -> float:
    """Eq. 8 (``paper``): tau0 / (1 + sqrt(ln(M + 1))); ``code``: tau0 / sqrt(1 + ln(1 + M))."""
    if schedule == "paper":
        return tau0 / (1.0 + math.sqrt(math.log(updates + 1)))
    if schedule == "code":
        return tau0 / math.sqrt(1.0 + math.log(1 + updates))
    raise ValueError(f"anneal must be 'paper' or 'code', not {schedule!r}")


def rejection_value_from_p(p: float, r: float = ELO_R) -> float:
    """The code's rejection Elo r * ln(p / (1 - p)) (p = 0.5 gives 0)."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"rejection_p must be strictly between 0 and 1, got {p}")
    return r * math.log(p / (1.0 - p))


# ----------------------------------------------------------------- the agent
@dataclass(frozen=True)
class EloConfig:
    """JUDEC's Elo-based tree search settings."""

    explorations: int = option(20, "paper (JUDEC 5.1)", "decision sequences to generate", minimum=1)
    max_steps: int = option(12, "paper (JUDEC 5.1)", "steps per sequence", minimum=0)
    k_factor: float = option(ELO_K, "paper (JUDEC 5.1)", "Elo K")
    r: float = option(ELO_R, "paper (JUDEC 5.1)", "Elo scale", minimum=1e-9)
    tau0: float | None = option(None, "ours (none = r: Eq. 8 names tau0, neither paper gives a value)",
                                "initial softmax temperature", minimum=1e-9)
    anneal: str = option("paper", "paper (JUDEC Eq. 8, 4.2)", "annealing schedule", choices=("paper", "code"))
    rejection_elo: float = option(0.0, "paper (JUDEC 5.1: \"the Elo score of d-hat ... 0.0\")",
                                  "Elo of the rejection (explore a new decision)")
    rejection_p: float | None = option(
        None, "ours (unset: `rejection_elo` holds; the authors' code derives it from p)",
        "rejection probability to derive rejection_elo from")
    max_children: int | None = option(
        None, "ours (inferred: JUDEC 4.1 offers the rejection at every step and names no cap; the code caps at 4 / 15)",
        "children per step before no rejection is offered", minimum=1)
    comparisons: int = option(1, "paper (JUDEC Eq. 6, 4.2: one earlier sequence per new one)",
                              "earlier sequences each new one is compared with", minimum=0)
    final: str = option("paper", "paper (JUDEC Eq. 9, 4.3)", "how the answer is chosen",
                        choices=("paper", "terminal", "code"))
    terminal_children: str = option("skip", "ours (paper silent; nothing can be explored below a final step)",
                                    "whether Eq. 5 draws final steps", choices=("skip", "include"))
    stop_on_success: bool | None = option(
        None, "ours (none = `peek_success`, false by default: inferred from JUDEC 4.1 running all explorations)",
        "stop at the first won step (needs peek_success)", words=("default",))
    propose_retries: int = option(3, "ours (paper silent)", "asks before a step counts as having nothing new",
                                  minimum=1)


@register_algorithm("elo", help="Elo-based tree search (JUDEC/RaDAgent): pairwise LLM judgments, Elo-softmax exploration")
class EloSearch(SearchAlgorithm[EloConfig]):
    """JUDEC / RaDAgent Elo-based tree search (see module docstring for options)."""

    name = "elo"
    value_name = "elo"
    draws = True  # Eq. 5: a walk draws at every step it passes
    distributes = True  # search_workers: a new sequence's comparisons run on Ray workers

    Config = EloConfig

    def _fresh(self) -> None:
        self.sequences: list[SearchNode] = []
        self.chosen: SearchNode | None = None  # the last search's answer (for stats)

    def finish(self, result: Any) -> None:
        self.chosen = result.chosen

    @property
    def give_up_without_answer(self) -> bool:  # type: ignore[override]
        """``final=code``: no answer when the best end was pruned (the authors' code gives up)."""
        return self.config.final == "code"

    def __init__(self, config: EloConfig | None = None):
        super().__init__(self.resolved(config or EloConfig()))

    @staticmethod
    def resolved(config: EloConfig) -> EloConfig:
        """``tau0`` unset: r; ``rejection_p`` set: the rejection Elo it stands for."""
        tau0 = config.r if config.tau0 is None else config.tau0
        rejection = (config.rejection_elo if config.rejection_p is None
                     else rejection_value_from_p(config.rejection_p, config.r))
        return replace(config, tau0=tau0, rejection_elo=rejection)

    # ------------------------------------------------------------ per-node bookkeeping
    @staticmethod
    def updates(node: SearchNode) -> int:
        """M_d: Elo matches that touched this step or a step below it."""
        return int(node.stats.get("elo_updates", 0))

    def tau(self, node: SearchNode) -> float:
        """Eq. 8's temperature at ``node`` (from its match count)."""
        return annealed_temperature(self.config.tau0, node.stats.get("elo_updates", 0), self.config.anneal)

    def _open_children(self, node: SearchNode) -> list[SearchNode]:
        """The children Eq. 5 draws from: not closed, and not terminal unless ``terminal_children=include``."""
        keep_terminal = self.config.terminal_children == "include"
        return [c for c in node.children if (keep_terminal or not c.terminal) and not c.stats.get("closed")]

    def _can_reject(self, node: SearchNode) -> bool:
        if node.stats.get("no_new") or node.terminal or node.depth >= self.config.max_steps:
            return False
        return self.config.max_children is None or len(node.children) < self.config.max_children

    # ------------------------------------------------------------ search
    def search(self, root: SearchNode, hooks: SearchConfig) -> None:
        self.sequences = []
        walks = 0
        # Walks that end in a closed branch cost no LLM call and do not count as explorations;
        # the walk cap only guards against a tree with nothing left to explore.
        while (len(self.sequences) < self.config.explorations and walks < 4 * self.config.explorations
               and not root.stats.get("closed")):
            walks += 1
            start = self._descend(root)
            if start is None or start.terminal:
                continue  # a closed end, or a drawn terminal step (terminal_children=include): nothing to explore
            leaf = self._explore(start, hooks)
            if leaf is None:
                continue
            self.sequences.append(leaf)
            self._judge(leaf, hooks)
            if self.stop_on_success and self.known_win(leaf):
                return

    def _descend(self, root: SearchNode) -> SearchNode | None:
        """Eq. 5 top-down: the step to branch from (None when the walk hit a closed end)."""
        node = root
        while True:
            node.visits += 1
            children = self._open_children(node)
            values = [c.value for c in children]
            if self._can_reject(node):
                values.append(self.config.rejection_elo)  # the last option: explore a new decision from here
            elif not children:
                node.stats["closed"] = True
                return None
            pick = choice_index(self.rng, softmax(values, self.tau(node)))  # = selection_probabilities
            if pick == len(children):
                return node
            node = children[pick]
            if node.terminal:
                node.visits += 1
                return node

    def _explore(self, start: SearchNode, hooks: SearchConfig) -> SearchNode | None:
        """Generate a new decision sequence from ``start``; returns its final step."""
        avoid = [c.action for c in start.children if c.action]
        tries = int(start.stats.get("propose_tries", 0))
        actions = hooks.propose(start, 1, avoid=avoid, attempt=tries)
        if not actions:
            start.stats["propose_tries"] = tries + 1
            if tries + 1 >= self.config.propose_retries:
                start.stats["no_new"] = True  # the model has nothing new from here
            return None
        node = hooks.expand(start, actions[0])  # a new step: the avoid list kept the siblings' actions out
        node.visits = 1
        while not node.terminal and node.depth < self.config.max_steps:
            for attempt in range(self.config.propose_retries):  # an unusable answer is asked again
                actions = hooks.propose(node, 1, attempt=attempt)
                if actions:
                    break
            if not actions:
                break
            node = hooks.expand(node, actions[0])  # a child of a step made in this walk: new too
            node.visits = 1
        if not node.terminal:
            node.stats["closed"] = True  # a dead end: never selected again
        node.stats["sequence"] = len(self.sequences)
        return node

    def _judge(self, leaf: SearchNode, hooks: SearchConfig) -> None:
        """Eq. 6 + Eq. 3 against random earlier sequences, then Eq. 7 bottom-up."""
        earlier = self.sequences[:-1]
        others = [earlier[int(self.rng.integers(len(earlier)))] for _ in range(min(self.config.comparisons, len(earlier)))]
        for other, result in compared(leaf, others, hooks):  # with search_workers: all at once on Ray workers
            leaf.value, other.value = elo_update(leaf.value, other.value, result, self.config.k_factor, self.config.r)
            touched = list({id(x): x for x in leaf.path() + other.path()}.values())
            for n in touched:
                stats = n.stats
                stats["elo_updates"] = stats.get("elo_updates", 0) + 1
            if hooks.tree is not None:
                self._aggregate(touched)

    def _aggregate(self, touched: list[SearchNode]) -> None:
        """Eq. 7 bottom-up over the steps a match touched (the two sequences' paths). Every other
        step keeps its children's Elo and its match count, so re-aggregating the whole tree would
        give it the value it already has."""
        for node in sorted(touched, key=lambda n: n.id, reverse=True):  # children are created after their parents
            children = node.children
            if len(children) == 1:
                # Eq. 7 over one child is its Elo: the softmax weight is exp(0) / 1 = 1.0 exactly, and
                # aggregate_elo's sum adds it to 0.0 (hence 0.0 +: the same float, -0.0 included). Most
                # steps of a new sequence have one child; their tau is not needed.
                node.value = 0.0 + children[0].value
            elif children:
                node.value = aggregate_elo([c.value for c in children], self.tau(node))

    # ------------------------------------------------------------ answer (Eq. 9)
    def choose(self, tree: SearchTree) -> SearchNode | None:
        ends = [s for s in self.sequences if s.terminal] if self.config.final == "terminal" else []
        if not ends:
            ends = list(self.sequences)  # Eq. 9: argmax over every decision sequence's end
        if not ends:
            return None
        best = max(ends, key=lambda n: (n.value, -n.id))
        if self.config.final == "code" and not best.terminal:
            return None  # the code emits no answer; the agent gives up (give_up_without_answer)
        return best

    def stats(self) -> dict[str, Any]:
        out: dict[str, Any] = {"elo_sequences": len(self.sequences)}
        chosen = self.chosen
        if chosen is not None:
            # For the Elo calibration figure (JUDEC Fig. 4; `treegym report` min-max
            # normalises chosen_elo over a run's tasks). chosen_elo_normalized is Eq. 1
            # against a fresh step (Elo 0): a per-episode score in (0, 1).
            out["chosen_elo"] = round(float(chosen.value), 4)
            out["chosen_elo_normalized"] = round(expected_score(float(chosen.value), 0.0, self.config.r), 4)
        return out

