"""Decision sequences as JUDEC counts them (section 5.1): a baseline that ends after N sequences
(CoT@3, BFS, DFS, DFSDT) solves an instruction if *any* of its sequences does.

The run record then carries both scores: ``success`` (the one answer the agent played) and
``sequences_success_any`` (any sequence's end won). The latter reads the env's success flag
after the search, as ``chosen_success`` does; it never feeds the search.
"""
from __future__ import annotations

from typing import Any, Sequence

from .tree import SearchNode


def sequence_stats(ends: Sequence[SearchNode]) -> dict[str, Any]:
    """``{"decision_sequences": n, "sequences_success_any": bool}`` for the sequences' final steps."""
    return {"decision_sequences": len(ends), "sequences_success_any": any(bool(n.success) for n in ends)}


def first_answer(ends: Sequence[SearchNode]) -> SearchNode:
    """The answer of a baseline with no value to rank its sequences by: the first sequence that ended
    the episode, else the first sequence (``ends`` must not be empty)."""
    return next((n for n in ends if n.terminal), ends[0])

