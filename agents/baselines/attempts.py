"""Repeated-attempt baselines: agents ``cot@K``, ``reflexion`` and ``sc@K``.

Each attempt is one ReAct episode (:class:`~treegym.agents.baselines.react.ReactPolicy`,
one LLM call per step, sampled at ``temperature`` with seed ``seed + i`` for
attempt ``i``) played from the task's start on the bound env: before every
attempt the env is restored to the start snapshot, so attempts are independent
and leave no trace in each other. The attempts form a search tree (attempts
that agree on a prefix share its nodes), exported like any other search.
After the attempts the env is restored to the start and the chosen attempt is
played (``SearchPolicy``).

* ``cot@K`` (RaDAgent's CoT@3; ToolBench's ``CoT@n``): up to K independent
  attempts, stopping at the first that succeeds - the env ends the episode
  with success, which the agent sees (Game of 24: "Solved: the last number is
  24"). The episode succeeds if any attempt did ("found a solution within K
  tries", as both papers count it); without a success the last attempt is played.
* ``reflexion`` (Shinn et al. 2023, as RaDAgent runs it on top of CoT@3):
  like ``cot@K`` with ``attempts=3``, but after each failed attempt the model
  writes a self-reflection (one LLM call, ``SearchConfig.reflect``); the latest
  ``max_reflections`` reflections go into every ReAct prompt of the later
  attempts (the prompt spec's ``react_messages(..., reflections)``).
* ``sc@K`` (self-consistency, Wang et al. 2023): K sampled attempts, all
  played out (no early stop: self-consistency does not verify), then a
  majority vote over their final answers; the answer of an attempt is the
  prompt spec's ``answer_key(observation)`` (by default the last line of
  its final observation; Game of 24: ``Numbers left: 24``). The largest group
  wins (ties: the group that appeared first) and its first attempt is played.

Options: ``attempts`` (K; ``cot@5`` / ``sc@5`` / ``reflexion@5`` set it),
``max_steps`` (steps per attempt, default 12), ``temperature`` (default 0.7),
``peek_success`` (cot@K and reflexion need it: they are defined by the env's
success signal and refuse to run without it), ``stop_on_success``, ``max_reflections`` (default 3), plus ``SearchPolicy``'s
``budget``, ``seed``, ``tree_out``. Attempts stop when the call budget is
spent; the finished ones are kept and chosen from. Defaults: ``attempts`` 3
(JUDEC 5.1 / RaDAgent: CoT@3, Reflexion on top of it), 5 for ``sc@K`` (ours),
``max_steps`` 12 (JUDEC 5.1's 12 steps per sequence), ``max_reflections`` 3 and
``temperature`` 0.7 (ours: the search agents' sampling temperature).

Every record also has ``decision_sequences`` (attempts made) and
``sequences_success_any`` (any attempt won; JUDEC 5.1 scores CoT@3 this way),
read after the attempts like ``chosen_success``.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from .react import ReactPolicy
from ..search.agent import register_algorithm
from ..search.algorithm import SearchAlgorithm
from ..search.config import SearchConfig
from ..search.tree import SearchNode, SearchTree
from ..search.options import option
from ..search.sequences import sequence_stats


def answer_key(prompts: Any, node: SearchNode) -> str:
    """What an attempt answered, for voting: the prompt spec's ``answer_key`` of its final observation."""
    return str(prompts.answer_key(node.observation))


@dataclass(frozen=True)
class AttemptsConfig:
    """``cot@K``'s settings."""

    attempts: int = option(3, "paper (JUDEC 5.1, RaDAgent: CoT@3)", "ReAct attempts (K)", minimum=1)
    max_steps: int = option(12, "paper (JUDEC 5.1: 12 steps per sequence)", "steps per attempt", minimum=1)
    stop_on_success: bool | None = option(
        None, "ours (none = `peek_success`, which `cot@K` requires: pass@K stops at a success)",
        "stop at the first successful attempt (needs peek_success)", words=("default",))


@dataclass(frozen=True)
class ReflexionConfig(AttemptsConfig):
    """``reflexion``'s settings."""

    max_reflections: int = option(3, "ours (one per failed attempt of 3)", "reflections shown in prompts",
                                  minimum=1)


@dataclass(frozen=True)
class SCConfig(AttemptsConfig):
    """``sc@K``'s settings."""

    attempts: int = option(5, "ours (self-consistency has no K for our envs)", "sampled attempts (K)", minimum=1)
    stop_on_success: bool | None = option(
        False, "paper (self-consistency plays every sample, then votes)",
        "stop at the first successful attempt (needs peek_success)", words=("default",))


@register_algorithm("cot@", at="attempts", help="K independent ReAct attempts from the start; success if one succeeds (cot@3)")
class Attempts(SearchAlgorithm[AttemptsConfig]):
    """K ReAct attempts from the start (see module docstring); subclasses decide reflection and choice."""

    name = "cot"
    value_name = "attempt"

    #: cot@K and reflexion are defined by the env's success signal (pass@K, Reflexion's failure
    #: feedback): they refuse to run without peek_success=true. sc@K does not need it.
    needs_success_signal = True

    Config = AttemptsConfig

    def check(self, peek_success: bool) -> None:
        super().check(peek_success)
        if self.needs_success_signal and not peek_success:
            raise ValueError(f"{self.name}: this baseline counts an episode as solved when any attempt succeeds "
                             "(and reflects after failed ones), which reads the env's success flag; pass "
                             "peek_success=true (--agent-opt peek_success=true) to allow that oracle, or use sc@K")

    def _fresh(self) -> None:
        """The per-search state, empty (before the first search, for ``stats()``, and at every search)."""
        self.finished: list[SearchNode] = []
        self.reflections: list[str] = []

    # ------------------------------------------------------------ the attempts
    def search(self, root: SearchNode, hooks: SearchConfig) -> None:
        self._fresh()
        for i in range(self.config.attempts):
            leaf = self.attempt(root, hooks, i)
            leaf.stats.setdefault("attempts", []).append(i)
            leaf.value = i
            self.finished.append(leaf)
            if self.known_win(leaf) and self.stop_on_success:
                return
            if not self.known_win(leaf) and i + 1 < self.config.attempts:
                self.after_failure(leaf, hooks)

    def attempt(self, root: SearchNode, hooks: SearchConfig, i: int) -> SearchNode:
        """Play one ReAct episode from ``root`` through ``hooks.expand``; return its last node."""
        policy = ReactPolicy(hooks.env_id, hooks.llm, temperature=hooks.temperature,
                             reflections=list(self.reflections), seed=hooks.seed + i, prompts=hooks.prompts)
        policy.reset()
        policy.bind(hooks.env)
        node = root
        while not node.terminal and node.depth < self.config.max_steps:
            hooks.restore(node)  # the policy's request is about the live env: put it at this node
            action = policy.act(node.observation, node.info)
            if not action:
                node.stats["empty_answer"] = True
                break
            node = hooks.expand(node, action, thought=policy.transcript[-1])  # the reply the action came from
            node.visits += 1
        return node

    def after_failure(self, leaf: SearchNode, hooks: SearchConfig) -> None:
        """Called after a failed attempt that is not the last one (Reflexion reflects here)."""

    # ------------------------------------------------------------ the answer
    def choose(self, tree: SearchTree) -> SearchNode | None:
        won = [leaf for leaf in self.finished if self.known_win(leaf)]
        if won:
            return won[0]
        return self.finished[-1] if self.finished else None

    def stats(self) -> dict[str, Any]:
        out: dict[str, Any] = {"attempts": len(self.finished)}
        out["attempts_succeeded"] = sum(1 for leaf in self.finished if leaf.success)
        out.update(sequence_stats(self.finished))  # JUDEC's CoT@3 scoring: solved if any attempt is
        return out


@register_algorithm("reflexion", at="attempts", help="cot@3 with a self-reflection after each failed attempt in later prompts")
class Reflexion(Attempts):
    """Attempts with a self-reflection after each failure, shown to the later attempts."""

    name = "reflexion"

    Config = ReflexionConfig

    def after_failure(self, leaf: SearchNode, hooks: SearchConfig) -> None:
        if leaf.terminal:
            outcome = f"failed: the episode ended without success after {leaf.depth} steps"
        else:
            outcome = f"failed: not finished after {leaf.depth} steps"
        text = hooks.reflect(leaf, outcome)
        if text:
            leaf.stats["reflection"] = text
            self.reflections.append(text)
            del self.reflections[: max(0, len(self.reflections) - self.config.max_reflections)]

    def stats(self) -> dict[str, Any]:
        out = super().stats()
        out["reflections"] = len(self.reflections)
        return out


@register_algorithm("sc@", at="attempts", help="self-consistency: K sampled attempts, majority vote over final answers (sc@5)")
class SelfConsistency(Attempts):
    """K sampled attempts and a majority vote over their final answers."""

    name = "sc"
    needs_success_signal = False

    Config = SCConfig

    def _fresh(self) -> None:
        super()._fresh()
        self.votes: dict[str, int] | None = None  # answer -> attempts, once the vote is taken

    def start(self, hooks: Any) -> None:
        super().start(hooks)
        self.prompts = hooks.prompts  # the vote reads each answer through the env's prompt spec

    def choose(self, tree: SearchTree) -> SearchNode | None:
        if not self.finished:
            return None
        keys = [answer_key(self.prompts, leaf) for leaf in self.finished]
        counts = Counter(keys)
        self.votes = dict(counts)
        first_seen = {k: i for i, k in reversed(list(enumerate(keys)))}
        winner = max(counts, key=lambda k: (counts[k], -first_seen[k]))
        for leaf, key in zip(self.finished, keys):
            leaf.stats["answer"] = key
        return self.finished[first_seen[winner]]

    def stats(self) -> dict[str, Any]:
        out = super().stats()
        if self.votes is not None:
            out["sc_votes"] = dict(sorted(self.votes.items(), key=lambda kv: -kv[1])[:10])
        return out

