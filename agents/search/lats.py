"""Language Agent Tree Search: agent ``lats`` (Zhou et al. 2023), the MCTS loop of ``mcts.py`` with the
authors' settings and self-reflection.

The loop is ``mcts.py``'s, with
the authors' settings (lapisrocks/LanguageAgentTreeSearch, ``hotpot/lats.py``
and ``webshop/lats.sh``): w_exp = sqrt(2) (its ``value/visits + sqrt(2 ln N /
n)``), 5 children per expansion (``n_generate_sample``), depth limit 7, and
rollouts that sample 5 children per step, keep the best-valued one and go on
until the episode ends or the benchmark's rollout depth (its ``rollout(..., max_depth=...)``:
15 on WebShop, 4 on HotPotQA; 7, the depth limit, elsewhere: ours), n = 5;
``n_iters`` is the benchmark's (30 on WebShop and on HotPotQA, the authors' scripts; 30
elsewhere: ours). It adds **self-reflection**: the first ``max_reflections`` (3) rollouts that end
without a win get a reflection each (one LLM call, ``SearchConfig.reflect``; the authors' code
reflects while it has fewer than 4 failed trajectories, then no more); they are shown in every
later proposal prompt (the search config's ``reflections``, which the prompt spec shows in its
propose and ReAct prompts).

Its defaults and their sources: the ``LATSConfig`` fields and agents/search/README.md.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

from .agent import register_algorithm
from .config import SearchConfig
from .mcts import MCTS, MCTSConfig
from .options import option
from .tree import SearchNode


#: LATS's iterations per benchmark (the authors' webshop/lats.sh and hotpot/lats.sh run 30, as does
#: hotpot/lats.py's lats_search default; run.py's --iterations default of 50 is overridden there), by a
#: word in the env id; other envs take WebShop's 30 (ours).
LATS_ITERATIONS = {"webshop": 30, "hotpot": 30}
LATS_DEFAULT_ITERATIONS = 30


#: How deep a LATS rollout goes (the node depth it stops at), by benchmark: the authors' code calls
#: ``rollout(..., max_depth=15)`` in webshop/lats.py and ``max_depth=4`` in hotpot/lats.py; other
#: envs take the expansion depth limit, 7 (ours).
LATS_ROLLOUT_DEPTH = {"webshop": 15, "hotpot": 4}
LATS_DEFAULT_ROLLOUT_DEPTH = 7


def _by_env(env_id: str, table: dict[str, int], default: int) -> int:
    low = env_id.lower()
    return next((n for word, n in table.items() if word in low), default)


def lats_iterations(env_id: str) -> int:
    """LATS's ``n_iters`` for ``env_id`` (see :data:`LATS_ITERATIONS`)."""
    return _by_env(env_id, LATS_ITERATIONS, LATS_DEFAULT_ITERATIONS)


def lats_rollout_depth(env_id: str) -> int:
    """LATS's ``rollout_max_depth`` for ``env_id`` (see :data:`LATS_ROLLOUT_DEPTH`)."""
    return _by_env(env_id, LATS_ROLLOUT_DEPTH, LATS_DEFAULT_ROLLOUT_DEPTH)


@dataclass(frozen=True)
class LATSConfig(MCTSConfig):
    """MCTS with the LATS authors' settings and self-reflection."""

    n_iters: int | None = option(  # type: ignore[assignment]
        None, "authors' code (`webshop/lats.sh --iterations 30`, `hotpot/lats.sh --iterations 30`, "
        "`hotpot/lats.py lats_search(iterations=30)`); else ours (WebShop's)",
        "simulations (none: by env, see LATS_ITERATIONS)", minimum=1)
    w_exp: float = option(math.sqrt(2.0), "authors' code (`hotpot/lats.py` UCT: value/visits + sqrt(2 ln N / n))",
                          "UCT exploration weight")
    depth_limit: int = option(7, "authors' code (`hotpot/lats.py expand_node`: depth >= 7 ends a branch)",
                              "steps below the start a branch may grow", minimum=1)
    simulate: str = option("rollout", "paper (LATS simulation)", "how a new child is scored",
                           choices=("value", "rollout"))
    rollout_depth: int | None = option(
        None, "authors' code (`rollout` counts no steps of its own; `rollout_max_depth` bounds it)",
        "rollout steps (none: until the episode ends or rollout_max_depth)", minimum=0)
    rollout_max_depth: int | None = option(
        None, "authors' code (`webshop/lats.py rollout(..., max_depth=15)`, `hotpot/lats.py "
        "rollout(..., max_depth=4)`); else ours (the depth limit, 7)",
        "the node depth a rollout stops at (none: by env, see LATS_ROLLOUT_DEPTH)", minimum=0)
    rollout_width: int = option(5, "authors' code (`rollout`: n = 5 samples per step, the best-valued kept)",
                                "proposals per rollout step (the best-valued one is kept)", minimum=1)
    reflect: bool = option(True, "paper (LATS self-reflection)", "reflect on failed simulations")
    max_reflections: int = option(
        3, "authors' code (LATS `hotpot/lats.py`: reflections are made for the first 3 failed trajectories)",
        "failed simulations reflected on (the first ones)", minimum=0)


@register_algorithm("lats", at="n_iters", help="LATS: MCTS with LLM value, rollouts to the end and self-reflection (lats@N: N iterations)")
class LATS(MCTS):
    """Language Agent Tree Search: MCTS with LLM values, rollouts and self-reflection (the authors' settings)."""

    name = "lats"
    Config = LATSConfig

    @classmethod
    def for_env(cls, config: LATSConfig, env_id: str) -> LATSConfig:
        """``n_iters`` and ``rollout_max_depth`` unset: the benchmark's (:func:`lats_iterations`,
        :func:`lats_rollout_depth`)."""
        if config.n_iters is None:
            config = replace(config, n_iters=lats_iterations(env_id))
        if config.rollout_max_depth is None:
            config = replace(config, rollout_max_depth=lats_rollout_depth(env_id))
        return config

    def rollout_stop_depth(self) -> int:
        """A rollout stops at this node depth: the authors' ``max_depth`` (not the expansion limit)."""
        return self._base + int(self.config.rollout_max_depth)

    def _fresh(self) -> None:
        super()._fresh()
        self.reflections: list[str] = getattr(self, "reflections", [])
        self.reflections.clear()  # emptied in place: the search config shows this very list
        self.reflected = 0  # failed simulations reflected on

    def search(self, root: SearchNode, hooks: SearchConfig) -> None:
        if self.config.reflect:
            hooks.reflections = self.reflections  # shown in every later propose and ReAct prompt
        super().search(root, hooks)

    def after_simulation(self, end: SearchNode, reward: float, hooks: SearchConfig) -> None:
        """Reflect on the first ``max_reflections`` failed simulations (the authors' code makes
        reflections while it has fewer than 4 failed trajectories), none after."""
        failed = not end.success if self.peek_success else reward < 1.0
        if (self.config.reflect and (end.terminal or self.config.simulate == "rollout") and failed
                and self.reflected < self.config.max_reflections):
            self.reflected += 1
            self._reflect(end, hooks, reward)

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


    def stats(self) -> dict[str, Any]:
        out = super().stats()
        if self.config.reflect:
            out["reflections"] = len(self.reflections)
        return out

