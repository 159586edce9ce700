"""What a run prints at the end: ``summarize(records)`` (pass rate, mean reward, calls, tokens, failures),
``format_summary``, and the messages for a run where every episode failed or the budget always ran out."""
from __future__ import annotations

from typing import Any, Iterable, Sequence


from .runs import failure_counts, wrong_answers




_FAILED_KINDS = frozenset({"llm", "infra", "exception"})


def summarize(records: Iterable[dict]) -> dict[str, Any]:
    recs = list(records)
    n = len(recs)
    if not n:
        return {"episodes": 0}
    gave_up, errors = failure_counts(recs)
    return {
        "episodes": n,
        "pass_rate": sum(bool(r.get("success")) for r in recs) / n,
        "mean_reward": sum(float(r.get("reward") or 0.0) for r in recs) / n,
        "mean_calls": sum(int(r.get("llm_calls") or 0) for r in recs) / n,
        "mean_tokens": sum(int(r.get("prompt_tokens") or 0) + int(r.get("completion_tokens") or 0) for r in recs) / n,
        "wrong": wrong_answers(recs),
        "gave_up": gave_up,
        "errors": errors,
        "llm_retries": sum(int(r.get("llm_retries") or 0) for r in recs),
        "wall_s": sum(float(r.get("wall_s") or 0.0) for r in recs),
    }


def format_summary(summary: dict[str, Any], title: str = "") -> str:
    if not summary.get("episodes"):
        return f"{title}: no episodes"
    rows = [
        ("episodes", f"{summary['episodes']}"),
        ("pass rate", f"{summary['pass_rate'] * 100:.1f}%"),
        ("mean reward", f"{summary['mean_reward']:.3f}"),
        ("mean LLM calls", f"{summary['mean_calls']:.1f}"),
        ("mean tokens", f"{summary['mean_tokens']:.0f}"),
        ("wrong answer", f"{summary.get('wrong', 0)} (ended with no error and no success)"),
        ("agent gave up", f"{summary.get('gave_up', 0)} (no answer, or its LLM budget spent)"),
        ("episodes with errors", f"{summary['errors']}"),
        ("LLM retries", f"{summary.get('llm_retries', 0)}"),
        ("episode wall time (sum)", f"{summary['wall_s']:.1f} s"),
    ]
    width = max(len(k) for k, _ in rows)
    lines = [title] if title else []
    lines += [f"  {k.ljust(width)}  {v}" for k, v in rows]
    return "\n".join(lines)


def all_failed(records: Sequence[dict]) -> str | None:
    """When every episode failed (an LLM, infrastructure or code error, not a spent budget), the message to exit with."""
    if not records or not all(r.get("error_kind") in _FAILED_KINDS for r in records):
        return None
    first = records[0]
    return (f"every episode failed ({len(records)} of {len(records)}); the first error "
            f"(task {first.get('task_id')!r}): {first.get('error')}")


def budget_warning(records: Sequence[dict], budget: int | None) -> str | None:
    """A hint when the LLM call budget ran out in every episode and none succeeded."""
    def ran_out(r: dict) -> bool:
        stats = r.get("agent_stats") or {}
        return (r.get("error_kind") == "budget" or stats.get("search_stopped") == "budget"
                or (r.get("error_kind") == "gave_up" and "budget" in str(r.get("error")))
                or (budget is not None and int(r.get("llm_calls") or 0) >= budget))

    if not records or any(r.get("success") for r in records) or not all(ran_out(r) for r in records):
        return None
    used = f"--budget {budget}" if budget is not None else "the agent's default budget"
    calls = max(int(r.get("llm_calls") or 0) for r in records)
    return (f"warning: the LLM call budget ran out in every episode ({len(records)} of {len(records)}, "
            f"up to {calls} calls) with no success at {used}; try a larger --budget")


