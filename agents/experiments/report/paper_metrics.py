"""The seed papers' metrics beside the pass rate, for ``treegym report``'s tables.

Each is computed only from what the records carry, and is None (its column left out) where no
record of a condition carries it:

* ``any_of_sequences`` (JUDEC 5.1): the share of episodes in which *any* of the agent's decision
  sequences won (``agent_stats["sequences_success_any"]``: CoT@3, Reflexion, sc@K, and the
  ``judec-*`` baselines, which end after 3 sequences). JUDEC scores its baselines this way; the
  table's pass rate is the one answer the agent played.
* ``purchase_rate`` and ``precision`` (Auto-GPT study, Table 1, on WebShop): purchases /
  episodes and successful purchases / purchases, from ``agent_stats["purchased"]`` (the
  ``autogpt`` agent's records; :func:`purchase_metrics`).

RestBench's correct path rate (``correct_path``) and JUDEC's preference rank have their own
places: the CPR column (:func:`.tables.correct_path`) and ``preference.md`` (:mod:`.preference`).
"""
from __future__ import annotations

from typing import Any, Sequence


def _stats(record: dict) -> dict:
    stats = record.get("agent_stats")
    return stats if isinstance(stats, dict) else {}


def any_of_sequences(records: Sequence[dict]) -> float | None:
    """The share of episodes with a winning decision sequence, None when no record says."""
    if not any("sequences_success_any" in _stats(r) for r in records):
        return None
    return sum(_stats(r).get("sequences_success_any") is True for r in records) / len(records)


def purchase_metrics(records: Sequence[dict]) -> dict[str, float]:
    """WebShop's Precision and Purchase Rate (Auto-GPT paper, Table 1): purchase rate = episodes that
    ended with a purchase / episodes; precision = successful purchases / purchases. Reads each
    record's ``agent_stats["purchased"]`` (an Auto-GPT run record) and ``success``."""
    n = len(records)
    bought = [r for r in records if (r.get("agent_stats") or {}).get("purchased")]
    wins = sum(1 for r in bought if r.get("success"))
    return {"episodes": n, "purchase_rate": len(bought) / n if n else 0.0,
            "precision": wins / len(bought) if bought else 0.0}


def purchases(records: Sequence[dict]) -> tuple[float | None, float | None]:
    """(purchase rate, precision), both None when no record says whether it purchased; precision is
    None when nothing was purchased (no purchase to be precise about)."""
    if not any("purchased" in _stats(r) for r in records):
        return None, None
    m = purchase_metrics(records)
    bought = any(_stats(r).get("purchased") for r in records)
    return m["purchase_rate"], (m["precision"] if bought else None)


def paper_metrics(records: Sequence[dict]) -> dict[str, Any]:
    """The keyword fields of :class:`.tables.Row` that this module computes."""
    rate, precision = purchases(records)
    return {"any_of_sequences": any_of_sequences(records), "purchase_rate": rate, "precision": precision}


#: (Row field, Markdown/HTML column title, CSV column) in the order the tables show them
COLUMNS = (("any_of_sequences", "pass rate (any sequence)", "pass_rate_any_sequence"),
           ("purchase_rate", "purchase rate", "purchase_rate"),
           ("precision", "precision", "precision"))


def shown(rows: Sequence[Any]) -> list[tuple[str, str, str]]:
    """The columns some row of a table has a value for."""
    return [c for c in COLUMNS if any(getattr(r, c[0]) is not None for r in rows)]


def percent(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:.1f}%"
