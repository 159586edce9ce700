"""The state fields the tool families (ToolBench, RestBench, ToolTasks) share, read strictly.

Their states hold a task id, a world (``world.WorldState``), a call log, the observation text,
the done flag, and at the end an evaluation (JSON text of an object with ``pass``); ToolBench and
RestBench also the last status code and the Finish arguments. These readers take each from a state
JSON through :class:`~treegym.envs.core.state_json.StateReader`, so a restore names the field that
is wrong instead of failing in a later step.
"""
from __future__ import annotations

import json
from typing import Any

from treegym.envs.core.state_json import StateReader

from .world import WorldState, shape_problem


def read_world(r: StateReader, initial: WorldState) -> WorldState:
    """Field ``world``: an object of collections shaped like the task's ``initial`` world."""
    data = r.object_of(r.get("world"), "world")
    problem = shape_problem(data, initial.to_json())
    if problem:
        raise ValueError(f"{r.what} field 'world' does not fit the task: {problem}")
    r.plain_of(data, "world")  # its strings writable, its numbers finite and bounded
    return WorldState.from_json(data)


def read_evaluation(r: StateReader) -> str | None:
    """Field ``evaluation``: null, or JSON text of an object (what ``observe`` reads ``pass`` from)."""
    text = r.optional("evaluation", r.text_of)
    if text is None:
        return None
    try:
        parsed = json.loads(text)
    except ValueError:
        parsed = None
    if not isinstance(parsed, dict):
        raise ValueError(f"{r.what} field 'evaluation' must be JSON text of an object, got {text[:60]!r}")
    r.plain_of(parsed, "evaluation")
    return text


def read_finish(r: StateReader) -> tuple[tuple[str, Any], ...] | None:
    """Field ``finish``: null, or an object of the Finish call's arguments (strings), as sorted pairs."""
    finish = r.optional("finish", r.object_of)
    if finish is None:
        return None
    return tuple(sorted((r.text_of(k, "finish key"), r.text_of(v, f"finish.{k}")) for k, v in finish.items()))


def read_status(r: StateReader) -> int | None:
    """Field ``status_code``: null or an HTTP status code."""
    return r.optional("status_code", lambda v, name: r.integer_of(v, name, 0, 999))
