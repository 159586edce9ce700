"""Figures for ``treegym report`` (matplotlib, the ``plot`` extra; PNG files).

* :func:`plot_pass_rate_vs_budget` - JUDEC Fig. 3 / RaDAgent Fig. 2: pass rate
  against the LLM call budget, one line per agent (with its bootstrap 95%
  interval as a band when given).
* :func:`elo_calibration` + :func:`plot_elo_calibration` - JUDEC Fig. 4: the
  Elo score of the sequence the ``elo`` agent chose on each task
  (``agent_stats.chosen_elo``) is min-max normalised to [0, 1] over all tasks
  of that run, cut into 10 equal-width bins, and every method's pass rate is
  computed on the tasks of each bin. Tasks where the elo agent chose no
  sequence are left out (their number is in the caption).

Every title says "simulated LLM" when the runs used one.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

from .records import Cell, Runs, succeeded
from treegym.envs.core.stats import bootstrap_ci

MARKERS = "os^vD<>phx*+"
SIMULATED_NOTE = "simulated LLM (synthetic model over the env's oracle), not a real model"


def _wrap(title: str, width: int = 110) -> str:
    import textwrap

    return "\n".join(textwrap.fill(line, width) for line in title.split("\n"))


def _pyplot():
    try:
        import matplotlib
    except ImportError:
        raise RuntimeError("figures need matplotlib: pip install 'treegym[plot]'") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


# ----------------------------------------------------------------- pass rate vs budget
def budget_series(runs: Runs, env_id: str) -> dict[str, dict[int, tuple[float, float, float]]]:
    """``{agent [LLM]: {budget: (pass rate, ci low, ci high)}}`` for the cells of ``env_id`` with a budget."""
    cells = {c: r for c, r in runs.cells().items() if c.env_id == env_id and c.budget is not None}
    llms = {c.llm for c in cells}
    out: dict[str, dict[int, tuple[float, float, float]]] = {}
    for cell, recs in cells.items():
        label = cell.agent_label + (f" [{cell.llm}]" if len(llms) > 1 else "")
        succ = [succeeded(r) for r in recs]
        lo, hi = bootstrap_ci(succ)
        out.setdefault(label, {})[int(cell.budget)] = (sum(succ) / len(succ), lo, hi)  # type: ignore[arg-type]
    return out


def plot_pass_rate_vs_budget(series: Mapping[str, Mapping[int, float | tuple[float, float, float]]],
                             path: str | Path, title: str, *, xlabel: str = "LLM call budget per task") -> Path:
    """One line per label over the budgets; values are pass rates in [0, 1] or (rate, ci_low, ci_high)."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(8, 5))
    budgets = sorted({b for by in series.values() for b in by})
    for i, (label, by_budget) in enumerate(series.items()):
        xs = sorted(by_budget)
        vals = [by_budget[b] if isinstance(by_budget[b], tuple) else (by_budget[b], None, None) for b in xs]
        line, = ax.plot(xs, [v[0] * 100 for v in vals], marker=MARKERS[i % len(MARKERS)], label=label)
        if all(v[1] is not None for v in vals) and len(xs) > 1:
            ax.fill_between(xs, [v[1] * 100 for v in vals], [v[2] * 100 for v in vals],
                            color=line.get_color(), alpha=0.12, linewidth=0)
    if len(budgets) > 1 and budgets[0] > 0 and budgets[-1] / budgets[0] >= 4:
        ax.set_xscale("log")
    ax.minorticks_off()
    ax.set_xticks(budgets)
    ax.set_xticklabels([str(b) for b in budgets])
    ax.set_xlabel(xlabel)
    ax.set_ylabel("pass rate (%)")
    ax.set_ylim(0, 100)
    ax.set_title(_wrap(title), fontsize=8)
    return _finish(fig, ax, path)


def _finish(fig: Any, ax: Any, path: str | Path) -> Path:
    """Grid, legend and layout shared by every figure; save as PNG at ``path`` and free the figure."""
    import matplotlib.pyplot as plt

    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8, ncol=2)
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


# ----------------------------------------------------------------- Elo calibration
def _task(record: dict) -> str:
    return json.dumps(record.get("task_id"), default=str)


def chosen_elo(record: dict) -> float | None:
    stats = record.get("agent_stats") or {}
    v = stats.get("chosen_elo") if isinstance(stats, dict) else None
    return None if v is None else float(v)


@dataclass
class Calibration:
    """Pass rate per normalised-Elo bin for each method (see module docstring)."""

    elo_cell: Cell
    bins: int
    counts: list[int]  # tasks per bin
    rates: dict[str, list[float | None]]  # method label -> pass rate per bin (None: no episodes)
    excluded: int  # tasks where the elo agent chose nothing


def elo_calibration(runs: Runs, elo_cell: Cell, bins: int = 10) -> Calibration | None:
    """The calibration of ``elo_cell`` against the cells with the same env, LLM and budget (None: no Elo data)."""
    cells = runs.cells()
    scores = {_task(r): chosen_elo(r) for r in cells[elo_cell]}
    excluded = sum(1 for v in scores.values() if v is None)
    scores = {t: v for t, v in scores.items() if v is not None}
    if not scores:
        return None
    lo, hi = min(scores.values()), max(scores.values())
    span = hi - lo
    bin_of = {t: (min(bins - 1, int((v - lo) / span * bins)) if span > 0 else bins - 1) for t, v in scores.items()}
    counts = [sum(1 for b in bin_of.values() if b == i) for i in range(bins)]
    peers = [c for c in cells if c.env_id == elo_cell.env_id and c.llm == elo_cell.llm and c.budget == elo_cell.budget]
    rates: dict[str, list[float | None]] = {}
    for cell in peers:
        per_bin: list[list[bool]] = [[] for _ in range(bins)]
        for r in cells[cell]:
            b = bin_of.get(_task(r))
            if b is not None:
                per_bin[b].append(succeeded(r))
        rates[cell.agent_label] = [(sum(x) / len(x)) if x else None for x in per_bin]
    return Calibration(elo_cell, bins, counts, rates, excluded)


def plot_elo_calibration(cal: Calibration, path: str | Path) -> Path:
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(8, 5))
    centers = [(i + 0.5) / cal.bins for i in range(cal.bins)]
    for i, (label, rates) in enumerate(cal.rates.items()):
        xs = [c for c, r in zip(centers, rates) if r is not None]
        ys = [r * 100 for r in rates if r is not None]
        ax.plot(xs, ys, marker=MARKERS[i % len(MARKERS)], label=label)
    ax.set_xlim(0, 1)
    ax.set_ylim(-2, 102)
    ax.set_xticks([i / cal.bins for i in range(cal.bins + 1)])
    ax.set_xlabel("normalised Elo score of the sequence the elo agent chose (bin)")
    ax.set_ylabel("pass rate on the bin's tasks (%)")
    c = cal.elo_cell
    title = (f"Elo calibration on {c.env_id}: {c.agent_label}, LLM {c.llm}"
             + (f", budget {c.budget}" if c.budget is not None else "")
             + f"\ntasks per bin: {cal.counts}" + (f"; {cal.excluded} tasks without a chosen sequence left out"
                                                    if cal.excluded else ""))
    if c.simulated:
        title += "\n" + SIMULATED_NOTE
    ax.set_title(_wrap(title), fontsize=8)
    return _finish(fig, ax, path)


def budget_title(env_id: str, cells: Sequence[Cell]) -> str:
    llms = sorted({c.llm for c in cells})
    title = f"{env_id}: pass rate vs. LLM call budget (band: bootstrap 95% CI)\nLLM {', '.join(llms)}"
    if any(c.simulated for c in cells):
        title += "\n" + SIMULATED_NOTE
    return title
