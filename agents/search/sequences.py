"""Decision sequences as JUDEC counts them (section 5.1): a baseline that ends after N sequences
(CoT@3, BFS, DFS, DFSDT) solves an instruction if *any* of its sequences does.

The run record then carries both scores: ``success`` (the one answer the agent played) and
``sequences_success_any`` (any sequence's end won). The latter reads the env's success flag
after the search, as ``chosen_success`` does; it never feeds the search.
"""
from __future__ import annotations

from typing import Any, Sequence

from .options import typed_value
from .tree import SearchNode


def sequence_stats(ends: Sequence[SearchNode]) -> dict[str, Any]:
    """``{"decision_sequences": n, "sequences_success_any": bool}`` for the sequences' final steps."""
    return {"decision_sequences": len(ends), "sequences_success_any": any(bool(n.success) for n in ends)}


def first_answer(ends: Sequence[SearchNode]) -> SearchNode:
    """The answer of a baseline with no value to rank its sequences by: the first sequence that ended
    the episode, else the first sequence (``ends`` must not be empty)."""
    return next((n for n in ends if n.terminal), ends[0])


def judec_options(preset: dict[str, Any], options: dict[str, Any], agent: type) -> dict[str, Any]:
    """The options of a JUDEC baseline agent: ``preset`` (the paper's setting) over ``options``. An
    option that contradicts the preset (typed as ``agent``'s config types it) is refused: the agent's
    name promises the paper's setting."""
    for key, value in preset.items():
        if key in options and typed_value(agent.Config, key, options[key], agent.name) != value:
            raise ValueError(f"this agent is JUDEC's baseline with {key}={value}; use the plain agent "
                             f"for {key}={options[key]}")
    return {**options, **preset}
