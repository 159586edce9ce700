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

The references and checks themselves live in ``treegym.envs.tools_common.checks``
(shared with RestBench-v0). **Pass** (:func:`evaluate`): Finish with
``give_answer``, every answer and state check, no forbidden mutation. For an unsolvable task: Finish with
``give_up_and_restart`` or an answer with a ``no_result`` phrase, and no
mutation at all.
"""
from __future__ import annotations

import json
from typing import Any, Mapping, Sequence

from treegym.envs.tools_common.checks import check_answer, check_state, in_order
from treegym.envs.tools_common.world import WorldState, changed_collections

NO_RESULT_PHRASES = ("no ", "not ", "none", "unable", "cannot", "can't", "unavailable", "sold out",
                     "insufficient", "couldn't", "could not", "sorry", "doesn't exist", "does not exist")


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
