"""Gold data of a task and the rule-based evaluator (no LLM in the loop).

A task's ``gold`` block (stored in the query file next to ToolBench's fields):

* ``reference_plan``: the scripted calls ``{"name": function, "arguments": {...}}``
  ending with ``Finish``. An argument may refer to an earlier step's response:
  a string ``"$k.path.to.value"`` is replaced by that value, and ``"{$k.path}"``
  inside a longer string is formatted in (``k`` counts calls from 0).
* ``answer``: checks on the final answer text: ``contains`` (normalized
  substring), ``number`` (some number in the text within ``tol``), ``any_of``.
* ``state``: checks on the final world: ``count`` (records of a collection
  matching ``where``, ``{"$contains": s}`` for substrings) and ``value`` (one
  value by ``collection``/``key``/dotted ``path``, with ``eq``, ``contains``
  or ``tol``).
* ``allowed_mutations``: the collections the reference plan changes; a
  change to any other collection is a forbidden mutation (a second booking,
  an email nobody asked for). Unsolvable tasks allow none.
* ``solution_path``: the gold API sequence (function names) and
  ``alternatives`` (other accepted sequences), for the correct path rate.
* ``solvable``; ``no_result``: for unsolvable tasks, phrases of which one in
  the answer counts as correctly reporting that the request cannot be done.

**Pass** (:func:`evaluate`): Finish with ``give_answer``, every answer and
state check, no forbidden mutation. For an unsolvable task: Finish with
``give_up_and_restart`` or an answer with a ``no_result`` phrase, and no
mutation at all.
"""
from __future__ import annotations

import json
import re
from typing import Any, Mapping, Sequence

from .world import WorldState, changed_collections

_REF = re.compile(r"^\$(\d+)((?:\.[^.\s{}]+)*)$")
_REF_IN = re.compile(r"\{\$(\d+)((?:\.[^.\s{}]+)*)\}")
_NUM = re.compile(r"-?\d[\d,]*(?:\.\d+)?")

NO_RESULT_PHRASES = ("no ", "not ", "none", "unable", "cannot", "can't", "unavailable", "sold out",
                     "insufficient", "couldn't", "could not", "sorry", "doesn't exist", "does not exist")


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


def evaluate(gold: Mapping[str, Any], initial: WorldState, final: WorldState, finish: Mapping[str, Any] | None,
             calls: Sequence[Mapping[str, Any]], functions: Sequence[str]) -> dict[str, Any]:
    """The evaluation of one episode (see the module docstring); a JSON-able dict."""
    return_type = (finish or {}).get("return_type")
    answer = str((finish or {}).get("final_answer") or "")
    changed = changed_collections(initial, final)
    ok_calls = [c["name"] for c in calls if c.get("code") == 0]  # answered calls (a business failure counts)
    fn_set = set(functions)
    out: dict[str, Any] = {
        "finished": finish is not None, "return_type": return_type, "solvable": bool(gold.get("solvable", True)),
        "changed": changed, "tool_calls": len(calls),
        "hallucinated_calls": sum(1 for c in calls if c["name"] not in fn_set),
        "invalid_calls": sum(1 for c in calls if c.get("code") == 2),
        "failed_calls": sum(1 for c in calls if c.get("code") == 0 and not c.get("ok")),
    }
    paths = [gold.get("solution_path", [])] + list(gold.get("alternatives", []))
    out["correct_path"] = any(in_order(p, ok_calls) for p in paths)
    out["extra_calls"] = max(0, len(calls) - min(len(p) for p in paths))
    if not out["solvable"]:
        reported = return_type == "give_up_and_restart" or (
            return_type == "give_answer" and any(p in answer.lower() + " " for p in gold.get("no_result", NO_RESULT_PHRASES)))
        out["answer_ok"] = reported
        out["state_ok"] = not changed
        out["forbidden_ok"] = not changed
        out["failed_checks"] = ([] if reported else ["no_result"]) + [f"mutated {c}" for c in changed]
    else:
        failed = []
        if return_type != "give_answer":
            failed.append("no give_answer")
        for i, c in enumerate(gold.get("answer", [])):
            if not check_answer(c, answer):
                failed.append(f"answer[{i}] {c['kind']} {c.get('value', c.get('values'))!r}")
        state_failed = [f"state[{i}] {json.dumps(c, sort_keys=True)}" for i, c in enumerate(gold.get("state", []))
                        if not check_state(c, final)]
        allowed = set(gold.get("allowed_mutations", []))
        forbidden = [f"mutated {c}" for c in changed if c not in allowed]
        out["answer_ok"] = not failed
        out["state_ok"] = not state_failed
        out["forbidden_ok"] = not forbidden
        out["failed_checks"] = failed + state_failed + forbidden
        checks = len(gold.get("answer", [])) + len(gold.get("state", [])) + 1
        out["checks_passed"] = checks - len(failed) - len(state_failed)
    out["pass"] = bool(out["answer_ok"] and out["state_ok"] and out["forbidden_ok"])
    return out
