"""Evaluation over episodes: pass rates with bootstrap CIs, correct path rate, call diagnostics,
a deterministic pairwise comparator (+ an LLM-judge hook) and export to ToolEval's converted format.

An **episode record** (:func:`episode_record`) is a JSON-able dict taken from a
finished (or stopped) ToolBench-v0 env: ``query_id, query, group,
available_tools, calls [{name, arguments, code, response}], finish,
evaluation`` plus, when the caller knows them, ``llm_calls`` and ``tokens``.

* :func:`summarize` -> pass rate overall and per group with a seeded
  percentile-bootstrap 95% CI, correct path rate (CPR), mean tool calls,
  hallucinated calls, invalid-argument calls, calls beyond the gold path,
  LLM calls and tokens. Episodes without gold (upstream data) count in the
  call diagnostics and are left out of the pass rate (``no_gold``).
* :func:`compare` -> +1 / -1 / 0: pass beats fail; both pass: fewer tool
  calls, then fewer LLM calls; both fail: more satisfied checks; a remaining
  tie goes to ``judge(query, a, b)`` when one is given ("a", "b" or "tie").
* :func:`to_tooleval` -> ``{qid: {query, available_tools, answer: {method,
  total_steps, final_answer, answer_details}}}`` with ``answer_details`` the
  nested ``{role, message, next}`` graph ToolEval (and StableToolEval) read.
"""
from __future__ import annotations

import json
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from ..core.stats import bootstrap_ci


def episode_record(env: Any, llm_calls: int | None = None, tokens: int | None = None) -> dict[str, Any]:
    """The record of the env's current episode (see the module docstring)."""
    u = getattr(env, "unwrapped", env)
    if u.task is None:
        raise ValueError("the env has no episode yet; call reset() and play first")
    state = u.engine_state()
    fields = u.task_fields()
    calls = [{"name": c.name, "arguments": c.arguments, "code": c.code, "response": c.response} for c in state.calls]
    rec = {"query_id": fields["query_id"], "query": fields["query"], "group": fields.get("group"),
           "available_tools": [f["name"] for f in fields["functions"]], "calls": calls,
           "finish": dict(state.finish) if state.finish is not None else None, "evaluation": u.evaluate()}
    if llm_calls is not None:
        rec["llm_calls"] = int(llm_calls)
    if tokens is not None:
        rec["tokens"] = int(tokens)
    return rec


def _rate(records: Sequence[Mapping[str, Any]], seed: int) -> dict[str, Any]:
    graded = [r for r in records if r["evaluation"].get("pass") is not None]
    passes = [1.0 if r["evaluation"]["pass"] else 0.0 for r in graded]
    out: dict[str, Any] = {"episodes": len(records), "graded": len(graded), "no_gold": len(records) - len(graded)}
    if graded:
        out["pass_rate"] = float(np.mean(passes))
        out["pass_rate_ci95"] = bootstrap_ci(passes, seed=seed)
        out["correct_path_rate"] = float(np.mean([1.0 if r["evaluation"].get("correct_path") else 0.0 for r in graded]))
    return out


def summarize(records: Sequence[Mapping[str, Any]], seed: int = 0) -> dict[str, Any]:
    """Aggregates over episode records (see the module docstring)."""
    if not records:
        raise ValueError("no episodes to summarize")
    out = _rate(records, seed)
    ev = [r["evaluation"] for r in records]
    out["mean_tool_calls"] = float(np.mean([e.get("tool_calls", 0) for e in ev]))
    out["hallucinated_calls"] = int(sum(e.get("hallucinated_calls", 0) for e in ev))
    out["invalid_calls"] = int(sum(e.get("invalid_calls", 0) for e in ev))
    out["extra_calls"] = int(sum(e.get("extra_calls", 0) for e in ev))
    out["finished"] = float(np.mean([1.0 if e.get("finished") else 0.0 for e in ev]))
    for key in ("llm_calls", "tokens"):
        vals = [r[key] for r in records if key in r]
        if vals:
            out[f"mean_{key}"] = float(np.mean(vals))
    groups = sorted({r.get("group") for r in records if r.get("group")})
    out["groups"] = {g: _rate([r for r in records if r.get("group") == g], seed) for g in groups}
    return out


def compare(a: Mapping[str, Any], b: Mapping[str, Any],
            judge: Callable[[str, Mapping[str, Any], Mapping[str, Any]], str] | None = None) -> int:
    """+1 when ``a`` is better, -1 when ``b`` is, 0 for a tie (see the module docstring)."""
    ea, eb = a["evaluation"], b["evaluation"]
    pa, pb = bool(ea.get("pass")), bool(eb.get("pass"))
    if pa != pb:
        return 1 if pa else -1
    if pa:
        key_a = (ea.get("tool_calls", 0), a.get("llm_calls", 0))
        key_b = (eb.get("tool_calls", 0), b.get("llm_calls", 0))
    else:
        key_a = (-ea.get("checks_passed", 0), ea.get("tool_calls", 0))
        key_b = (-eb.get("checks_passed", 0), eb.get("tool_calls", 0))
    if key_a != key_b:
        return 1 if key_a < key_b else -1
    if judge is not None:
        verdict = str(judge(a.get("query", ""), a, b)).strip().lower()
        if verdict not in ("a", "b", "tie"):
            raise ValueError(f"judge must answer 'a', 'b' or 'tie', got {verdict!r}")
        return {"a": 1, "b": -1, "tie": 0}[verdict]
    return 0


def _details(calls: Sequence[Mapping[str, Any]], finish: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """ToolEval's nested execution graph: assistant -> tool -> assistant -> ... (one chain)."""
    nodes: list[dict[str, Any]] = []
    for c in calls:
        if c["name"] == "Finish":
            continue
        try:
            args = json.loads(c["arguments"]) if isinstance(c["arguments"], str) else c["arguments"]
        except ValueError:
            args = c["arguments"]
        nodes.append({"role": "assistant", "message": "", "next": []})
        nodes.append({"role": "tool", "message": {"name": c["name"], "arguments": json.dumps(args, ensure_ascii=False),
                                                  "response": c.get("response", "")}, "next": []})
    if finish is not None:
        nodes.append({"role": "assistant", "message": "", "next": []})
        nodes.append({"role": "tool", "message": {"name": "Finish", "arguments": json.dumps(dict(finish), ensure_ascii=False),
                                                  "response": ""}, "next": []})
    root: dict[str, Any] = {"role": "system", "message": "", "next": []}
    cur = root
    for n in nodes:
        cur["next"] = [n]
        cur = n
    return [root]


def to_tooleval(records: Sequence[Mapping[str, Any]], method: str) -> dict[str, Any]:
    """Episodes in ToolEval's converted-answer format, keyed by query id (strings)."""
    out: dict[str, Any] = {}
    for r in records:
        finish = r.get("finish")
        final = json.dumps(dict(finish), ensure_ascii=False) if finish else ""
        out[str(r["query_id"])] = {
            "query": r["query"], "available_tools": list(r["available_tools"]),
            "answer": {"method": method, "total_steps": len(r["calls"]), "final_answer": final,
                       "answer_details": _details(r["calls"], finish)}}
    return out
