"""Per-env result tables: one row per cell (agent x LLM x budget), as Markdown and CSV.

Columns: episodes, pass rate with its bootstrap 95% interval (percentile
method, 2,000 resamples of the episodes, a fixed RNG seed so the same records
give the same interval), mean reward, CPR (correct path rate: the share of
episodes whose record says ``correct_path`` is true; only for envs whose
records carry it), mean LLM calls, mean tokens (prompt + completion), mean
cost in USD (tokens x the price table; empty for a model without a price),
mean and total wall time, episodes that ended with an error; and the seed papers' other
metrics where the records carry them (:mod:`.paper_metrics`: JUDEC's any-of-the-sequences pass
rate, Auto-GPT's purchase rate and precision); and the judging protocol when the records carry one
(``protocol``: Game of 24's ``treegym`` or ``tot``), so pass rates judged differently are never shown
unlabelled side by side.

Episodes that ended with an error (budget spent, LLM down) count as failures:
they are what the agent achieved. The error column shows how many there were.
"""
from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from ..runs import failure_counts, wrong_answers
from .paper_metrics import COLUMNS as PAPER_COLUMNS, paper_metrics, percent, shown
from .records import Cell, Runs, succeeded
from treegym.envs.core.stats import bootstrap_ci


#: USD per 1M tokens (input, output) by model-name prefix, as published by
#: OpenAI in 2025. Prices change: override with ``--prices FILE.json``
#: (``{"model-prefix": [input, output], ...}``). A model the table does not name
#: costs what its backend declared in the record (``llm_info.price``: simulated
#: and local models declare 0), else its cost is unknown ('-').
DEFAULT_PRICES: dict[str, tuple[float, float]] = {
    "openai:gpt-4o-mini": (0.15, 0.60),
    "openai:gpt-4o": (2.50, 10.00),
    "openai:gpt-4.1-mini": (0.40, 1.60),
    "openai:gpt-4.1": (2.00, 8.00),
    "openai:gpt-3.5-turbo": (0.50, 1.50),
    "none": (0.0, 0.0),  # no LLM
}


def load_prices(path: str | Path | None) -> dict[str, tuple[float, float]]:
    """The default price table updated with the JSON file at ``path`` (ValueError names a bad entry)."""
    prices = dict(DEFAULT_PRICES)
    if path is None:
        return prices
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"price table {path}: {exc}; expected JSON like "
                         '{"openai:gpt-4o-mini": [0.15, 0.60]} (USD per 1M input, output tokens)') from None
    if not isinstance(data, dict):
        raise ValueError(f"price table {path}: expected a JSON object of model prefix -> [input, output]")
    for key, value in data.items():
        if (not isinstance(value, (list, tuple)) or len(value) != 2
                or not all(isinstance(v, (int, float)) and v >= 0 for v in value)):
            raise ValueError(f"price table {path}: {key!r} must map to [input, output] USD per 1M tokens, "
                             f"got {value!r}")
        prices[str(key)] = (float(value[0]), float(value[1]))
    return prices


def price_of(llm: str, prices: dict[str, tuple[float, float]]) -> tuple[float, float] | None:
    """The longest price-table prefix matching ``llm``, or None (unknown price: no cost is shown)."""
    match = max((p for p in prices if llm.startswith(p)), key=len, default=None)
    return prices[match] if match is not None else None


@dataclass(frozen=True)
class Row:
    cell: Cell
    episodes: int
    pass_rate: float
    ci_low: float
    ci_high: float
    mean_reward: float
    cpr: float | None
    mean_calls: float
    mean_tokens: float
    mean_cost: float | None
    mean_wall_s: float
    total_wall_s: float
    gave_up: int  # episodes the agent ended without an answer or with its budget spent (runs.failure_counts)
    errors: int  # episodes that ended in an LLM, infrastructure or code error
    wrong: int = 0  # episodes that ended with no error and no success: a wrong answer (runs.wrong_answers)
    any_of_sequences: float | None = None  # JUDEC 5.1: any decision sequence won (.paper_metrics)
    purchase_rate: float | None = None  # Auto-GPT Table 1 (WebShop)
    precision: float | None = None  # Auto-GPT Table 1: successful purchases / purchases
    protocol: str = ""  # how the env judged the episodes (records' "protocol"; "" when the env has one way)


def correct_path(record: dict) -> bool | None:
    """The record's correct-path flag (top level or in ``reward_parts``), None when it has none."""
    for src in (record, record.get("reward_parts") or {}):
        if isinstance(src, dict) and "correct_path" in src:
            return bool(src["correct_path"])
    return None


def row_of(cell: Cell, records: Sequence[dict], prices: dict[str, tuple[float, float]]) -> Row:
    n = len(records)
    succ = [succeeded(r) for r in records]
    lo, hi = bootstrap_ci(succ)
    paths = [correct_path(r) for r in records]
    cpr = (sum(bool(p) for p in paths) / n) if any(p is not None for p in paths) else None
    price = price_of(cell.llm, prices) or cell.price
    tokens_in = sum(int(r.get("prompt_tokens") or 0) for r in records)
    tokens_out = sum(int(r.get("completion_tokens") or 0) for r in records)
    cost = None if price is None else (tokens_in * price[0] + tokens_out * price[1]) / 1e6 / n
    wall = sum(float(r.get("wall_s") or 0.0) for r in records)
    return Row(cell, n, sum(succ) / n, lo, hi, sum(float(r.get("reward") or 0.0) for r in records) / n, cpr,
               sum(int(r.get("llm_calls") or 0) for r in records) / n, (tokens_in + tokens_out) / n, cost,
               wall / n, wall, *failure_counts(records), wrong_answers(records), **paper_metrics(records),
               protocol=protocol_of(records))


def protocol_of(records: Sequence[dict]) -> str:
    """The judging protocols the records were scored under (Game of 24: ``treegym`` or ``tot``), joined."""
    return ",".join(sorted({str(r["protocol"]) for r in records if r.get("protocol")}))


def env_tables(runs: Runs, prices: dict[str, tuple[float, float]] | None = None) -> dict[str, list[Row]]:
    """Rows per env id."""
    prices = prices if prices is not None else dict(DEFAULT_PRICES)
    out: dict[str, list[Row]] = {}
    for cell, recs in runs.cells().items():
        out.setdefault(cell.env_id, []).append(row_of(cell, recs, prices))
    return out


COLUMNS = ("agent", "llm", "budget", "episodes", "pass_rate", "ci95_low", "ci95_high", "mean_reward", "cpr",
           "mean_llm_calls", "mean_tokens", "mean_cost_usd", "mean_wall_s", "total_wall_s", "wrong", "gave_up", "errors",
           "simulated", "pass_rate_any_sequence", "purchase_rate", "precision", "protocol")


def _values(row: Row) -> dict[str, Any]:
    return {
        "agent": row.cell.agent_label, "llm": row.cell.llm,
        "budget": "" if row.cell.budget is None else row.cell.budget, "episodes": row.episodes,
        "pass_rate": round(row.pass_rate, 4), "ci95_low": round(row.ci_low, 4), "ci95_high": round(row.ci_high, 4),
        "mean_reward": round(row.mean_reward, 4), "cpr": "" if row.cpr is None else round(row.cpr, 4),
        "mean_llm_calls": round(row.mean_calls, 2), "mean_tokens": round(row.mean_tokens, 1),
        "mean_cost_usd": "" if row.mean_cost is None else round(row.mean_cost, 6),
        "mean_wall_s": round(row.mean_wall_s, 4), "total_wall_s": round(row.total_wall_s, 3), "wrong": row.wrong,
        "gave_up": row.gave_up,
        "errors": row.errors,
        "simulated": row.cell.simulated,
        **{csv_name: ("" if getattr(row, field) is None else round(getattr(row, field), 4))
           for field, _title, csv_name in PAPER_COLUMNS},
        "protocol": row.protocol,
    }


def to_csv(rows: Sequence[Row], env_id: str) -> str:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=("env_id",) + COLUMNS, lineterminator="\n")
    w.writeheader()
    for row in rows:
        w.writerow({"env_id": env_id, **_values(row)})
    return buf.getvalue()


def to_markdown(rows: Sequence[Row], env_id: str) -> str:
    show_cpr = any(r.cpr is not None for r in rows)
    show_budget = any(r.cell.budget is not None for r in rows)
    show_protocol = any(r.protocol for r in rows)
    head = (["agent", "LLM"] + (["budget"] if show_budget else []) + (["protocol"] if show_protocol else [])
            + ["episodes", "pass rate (95% CI)", "mean reward"])
    extra = shown(rows)
    head += (["CPR"] if show_cpr else []) + [title for _f, title, _c in extra]
    head += ["LLM calls", "tokens", "cost (USD)", "wall s", "wrong", "gave up", "errors"]
    lines = [f"### {env_id}", "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        llm = r.cell.llm + (" (simulated)" if r.cell.simulated else "")
        cells = [r.cell.agent_label, llm] + ([str(r.cell.budget if r.cell.budget is not None else "own")]
                                             if show_budget else [])
        cells += [r.protocol or "-"] if show_protocol else []
        cells += [str(r.episodes), f"{r.pass_rate * 100:.1f}% [{r.ci_low * 100:.1f}, {r.ci_high * 100:.1f}]",
                  f"{r.mean_reward:.3f}"]
        cells += ([("-" if r.cpr is None else f"{r.cpr * 100:.1f}%")] if show_cpr else [])
        cells += [percent(getattr(r, field)) for field, _t, _c in extra]
        cells += [f"{r.mean_calls:.1f}", f"{r.mean_tokens:.0f}",
                  "-" if r.mean_cost is None else f"{r.mean_cost:.4f}", f"{r.mean_wall_s:.2f}", str(r.wrong),
                  str(r.gave_up), str(r.errors)]
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", "Pass rate with a bootstrap 95% interval over episodes; LLM calls, tokens, cost and wall time "
              "are means per episode. Failures in three columns: wrong: the episode ended with no error and no success (a wrong answer); gave up: the agent ended without an answer or spent its LLM budget; "
              "errors: an LLM, infrastructure or code error ended the episode. Wrong + gave up + errors = failed episodes."]
    if extra:
        lines.append("Pass rate (any sequence): episodes in which any of the agent's decision sequences won "
                     "(JUDEC 5.1 scores its baselines so); purchase rate and precision: WebShop purchases / "
                     "episodes and successful purchases / purchases (Auto-GPT study, Table 1).")
    if show_protocol:
        lines.append("Protocol: how the env judged an episode; compare a pass rate only with numbers judged the same "
                     "way. Game of 24: treegym wins as soon as 24 is left (or an answer equals 24); tot judges only "
                     "the final answer line with Tree of Thoughts' rule, as the ToT, RaDAgent and JUDEC tables do.")
    if any(r.cell.simulated for r in rows):
        lines.append("Rows marked (simulated) use a simulated LLM over the env's oracle, not a real model.")
    if any(r.mean_cost is None for r in rows):
        lines.append("Cost '-': no price for that model in the price table (--prices FILE.json).")
    return "\n".join(lines)
