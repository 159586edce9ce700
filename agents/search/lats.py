"""Language Agent Tree Search: agent ``lats`` (Zhou et al. 2023), the MCTS loop of ``mcts.py`` with the
authors' settings and self-reflection.

The loop is ``mcts.py``'s, with
the authors' settings (lapisrocks/LanguageAgentTreeSearch, ``hotpot/lats.py``
and ``webshop/lats.sh``): w_exp = sqrt(2) (its ``value/visits + sqrt(2 ln N /
n)``), 5 children per expansion (``n_generate_sample``), depth limit 7, and
rollouts that sample 5 children per step, keep the best-valued one and go on
until the episode ends or depth 7 (its ``rollout(..., max_depth=7)``, n = 5);
``n_iters`` is the benchmark's (30 on WebShop, 50 on HotPotQA, 30 elsewhere:
ours). It adds **self-reflection**: every rollout that ends without a win gets
a reflection (one LLM call, ``SearchConfig.reflect``); the latest
``max_reflections`` are shown in every later proposal prompt (the search
config's ``reflections``, which the prompt spec shows in its propose and
ReAct prompts).

Its defaults are in the table of ``mcts.py`` and in agents/search/README.md.
"""
from __future__ import annotations

import math
from typing import Any

from ..registry import register_agent
from .agent import build_search_agent
from .mcts import MCTSAgent, iterations_option


#: LATS's iterations per benchmark (the paper; the authors' webshop/lats.sh runs 30, hotpot's
#: lats_search 50), by a word in the env id; other envs take WebShop's 30 (ours).
LATS_ITERATIONS = {"webshop": 30, "hotpot": 50}
LATS_DEFAULT_ITERATIONS = 30


def lats_iterations(env_id: str) -> int:
    """LATS's ``n_iters`` for ``env_id`` (see :data:`LATS_ITERATIONS`)."""
    low = env_id.lower()
    return next((n for word, n in LATS_ITERATIONS.items() if word in low), LATS_DEFAULT_ITERATIONS)


class LATSAgent(MCTSAgent):
    """Language Agent Tree Search: MCTS with LLM values, rollouts and self-reflection (the authors' settings)."""

    name = "lats"

    def __init__(self, env_id: str, llm: Any, *, n_iters: int | None = None, w_exp: float = math.sqrt(2.0),
                 depth_limit: int = 7, simulate: str = "rollout", rollout_depth: Any = "none",
                 rollout_width: int = 5, reflect: bool = True, **options: Any):
        n_iters = lats_iterations(env_id) if n_iters is None else n_iters
        super().__init__(env_id, llm, n_iters=n_iters, w_exp=w_exp, depth_limit=depth_limit, simulate=simulate,
                         rollout_depth=rollout_depth, rollout_width=rollout_width, reflect=reflect, **options)


@register_agent("lats", needs_llm=True, help="LATS: MCTS with LLM value, rollouts to the end and self-reflection (lats@N: N iterations)")
def make_lats(env_id: str, llm: Any, **options: Any) -> LATSAgent:
    return build_search_agent(LATSAgent, env_id, llm, iterations_option(options))
