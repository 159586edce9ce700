"""Correct path rate (CPR), as RestGPT defines it: the gold API path is contained, in order, in the executed path.

Gold steps are ``"METHOD /path/{param}"`` templates; an executed request
``"METHOD /concrete/path"`` matches a step when the methods agree and the path
matches the template **segment by segment** (a ``{param}`` matches exactly one
non-empty segment, literal segments must be equal). Alternatives: a task may
list several gold paths; any one contained counts. (RaD-Agent's evaluator
turned every templated path into ``.*`` with ``re.sub(r'.*\\{.*?\\}.*', '.*', p)``,
so only the method was checked for those steps; this matcher does not.)
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Sequence


@lru_cache(maxsize=1024)
def _compile(step: str) -> tuple[str, re.Pattern]:
    method, _, path = step.strip().partition(" ")
    parts = [r"[^/]+" if re.fullmatch(r"\{\w+\}", seg) else re.escape(seg) for seg in path.strip().split("/")]
    return method.upper(), re.compile("^" + "/".join(parts) + "/?$")


def step_matches(step: str, request: str) -> bool:
    method, regex = _compile(step)
    r_method, _, r_path = request.strip().partition(" ")
    return r_method.upper() == method and bool(regex.match(r_path.split("?", 1)[0]))


def path_contained(gold: Sequence[str], executed: Sequence[str]) -> bool:
    it = iter(executed)
    return all(any(step_matches(step, r) for r in it) for step in gold)


def correct_path(gold_paths: Sequence[Sequence[str]], executed: Sequence[str]) -> bool:
    """True when any gold path is contained in order in ``executed`` (see module docstring)."""
    return any(path_contained(p, executed) for p in gold_paths)
