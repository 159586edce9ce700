"""Reference plans and rule checks shared by the tool families (no LLM in the loop).

* **References** (:func:`resolve`): in a scripted call, a string ``"$k.path.to.value"``
  is replaced by that value of the ``k``-th earlier response, and ``"{$k.path}"`` inside
  a longer string is formatted in (``k`` counts responses from 0; floats with two
  decimals). A path that the response lacks raises :class:`PlanError`.
* **Answer checks** (:func:`check_answer`) on a final answer text: ``contains``
  (normalized substring), ``number`` (some number in the text within ``tol``),
  ``any_of``.
* **State checks** (:func:`check_state`) on a :class:`~.world.WorldState`: ``count``
  (records of a collection matching ``where``, ``{"$contains": s}`` for substrings)
  and ``value`` (one value by ``collection``/``key``/dotted ``path``, with ``eq``,
  ``contains`` or ``tol``).
* :func:`in_order`: the correct-path rule (a gold call sequence contained in order).
"""
from __future__ import annotations

import re
from typing import Any, Mapping, Sequence

from .world import WorldState

_REF = re.compile(r"^\$(\d+)((?:\.[^.\s{}]+)*)$")
_REF_IN = re.compile(r"\{\$(\d+)((?:\.[^.\s{}]+)*)\}")
_NUM = re.compile(r"-?\d[\d,]*(?:\.\d+)?")


class PlanError(ValueError):
    """A reference could not be resolved (the referred response lacks the path)."""


def lookup(value: Any, path: str) -> Any:
    for part in [p for p in path.split(".") if p]:
        if isinstance(value, list):
            try:
                value = value[int(part)]
            except (ValueError, IndexError):
                raise PlanError(f"no item {part!r} in a list of {len(value)}") from None
        elif isinstance(value, dict):
            if part not in value:
                raise PlanError(f"no key {part!r} (keys: {sorted(value)[:8]})")
            value = value[part]
        else:
            raise PlanError(f"cannot take {part!r} of {type(value).__name__}")
    return value


def resolve(obj: Any, responses: Sequence[Any]) -> Any:
    """``obj`` with ``$k.path`` references replaced by values of ``responses[k]``."""
    if isinstance(obj, dict):
        return {k: resolve(v, responses) for k, v in obj.items()}
    if isinstance(obj, list):
        return [resolve(v, responses) for v in obj]
    if isinstance(obj, str):
        m = _REF.match(obj)
        if m:
            k = int(m.group(1))
            if k >= len(responses):
                raise PlanError(f"reference to step {k} before it ran")
            return lookup(responses[k], m.group(2))

        def fmt(match: re.Match) -> str:
            k = int(match.group(1))
            if k >= len(responses):
                raise PlanError(f"reference to step {k} before it ran")
            v = lookup(responses[k], match.group(2))
            return format_value(v)
        return _REF_IN.sub(fmt, obj)
    return obj


def format_value(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.2f}"
    return str(v)


def normalize(text: Any) -> str:
    return " ".join(re.sub(r"[^\w.@+:/-]+", " ", str(text).lower()).split())


def numbers_in(text: str) -> list[float]:
    out = []
    for m in _NUM.findall(str(text)):
        try:
            out.append(float(m.replace(",", "")))
        except ValueError:
            pass
    return out


def check_answer(check: Mapping[str, Any], answer: str) -> bool:
    kind = check["kind"]
    if kind == "contains":
        return normalize(check["value"]) in normalize(answer)
    if kind == "number":
        tol = float(check.get("tol", 0.011))
        return any(abs(x - float(check["value"])) <= tol for x in numbers_in(answer))
    if kind == "any_of":
        return any(normalize(v) in normalize(answer) for v in check["values"])
    raise ValueError(f"unknown answer check kind {kind!r}")


def _matches(record: Any, where: Mapping[str, Any]) -> bool:
    if not where:
        return True
    if not isinstance(record, dict):
        return False
    for k, want in where.items():
        have = record.get(k)
        if isinstance(want, dict) and "$contains" in want:
            if normalize(want["$contains"]) not in normalize(have if not isinstance(have, list) else " ".join(map(str, have))):
                return False
        elif isinstance(want, (int, float)) and not isinstance(want, bool):
            if not isinstance(have, (int, float)) or abs(have - want) > 1e-6:
                return False
        elif normalize(have) != normalize(want):
            return False
    return True


def check_state(check: Mapping[str, Any], world: WorldState) -> bool:
    kind = check["kind"]
    if kind == "count":
        n = sum(1 for _, rec in world.items(check["collection"]) if _matches(rec, check.get("where", {})))
        return n == int(check["eq"])
    if kind == "value":
        value = world.get(check["collection"], check["key"])
        try:
            value = lookup(value, check.get("path", ""))
        except PlanError:
            return False
        if "contains" in check:
            return isinstance(value, (list, str)) and check["contains"] in value
        if "tol" in check:
            return isinstance(value, (int, float)) and abs(value - check["eq"]) <= check["tol"]
        return value == check["eq"]
    raise ValueError(f"unknown state check kind {kind!r}")


def in_order(path: Sequence[str], calls: Sequence[str]) -> bool:
    """True when ``path`` is an in-order subsequence of ``calls`` (the correct-path rule)."""
    it = iter(calls)
    return all(any(c == step for c in it) for step in path)
