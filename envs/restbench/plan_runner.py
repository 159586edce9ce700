"""Playing a RestBench reference plan: each step's ``$k.path`` references resolved from the earlier answers.

Used by both task builders (``tasks.py`` for the generated tasks, ``restbench.py``
for RestBench's own queries).
"""
from __future__ import annotations

import json
import re
from typing import Any

from treegym.envs.tools_common.checks import resolve


def resolve_counts(obj: Any, responses: list) -> Any:
    """Resolve ``{$k.path|len}`` (a list's length) before the ordinary references."""
    if isinstance(obj, str):
        return re.sub(r"\{\$(\d+)((?:\.[^.\s{}|]+)*)\|len\}",
                      lambda m: str(len(resolve(f"${m.group(1)}{m.group(2)}", responses))), obj)
    return obj


def run_plan(engine: Any, task_id: Any, plan: list[str]) -> tuple[Any, list[Any], list[str]]:
    """Play ``plan`` (requests with references, then ``Final Answer``) on a RestBench engine from the task's start.

    Returns (final state, the 2xx bodies in order, the resolved actions); raises RuntimeError on a non-2xx answer.
    """
    state = engine.initial_state(task_id, None)
    responses: list[Any] = []
    actions: list[str] = []
    for step in plan:
        text = resolve(resolve_counts(step, responses), responses)
        actions.append(text)
        state = engine.step(state, text).state
        if not text.startswith("Final Answer"):
            last = state.calls[-1]
            if last.status >= 400:
                raise RuntimeError(f"task {task_id}: {text!r} answered {last.status}: {last.body[:200]}")
            responses.append(json.loads(last.body))
    return state, responses, actions
