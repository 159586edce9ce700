"""Write a whole report: ``build_report(paths, out_dir, ...)`` (what ``treegym report`` calls).

Files written under ``out_dir``:

* ``results.md`` - every env's table (:mod:`.tables`), and per env
  ``table_<env>.md`` / ``table_<env>.csv``;
* ``pass_rate_vs_budget_<env>.png`` - for an env whose cells span two or more budgets;
* ``elo_calibration_<env>[_b<budget>].png`` - per ``elo`` cell whose records carry ``chosen_elo``;
* ``preference.md`` / ``preference.json`` - preference ranks (:mod:`.preference`);
  ``judge_cache.jsonl`` holds an LLM judge's answers;
* ``index.html`` - the page (:mod:`.html`).
"""
from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from . import figures as figs
from . import html as page
from . import preference as pref
from . import tables
from .records import load_runs


@dataclass
class Report:
    out_dir: Path
    files: list[Path] = field(default_factory=list)
    episodes: int = 0
    notes: list[str] = field(default_factory=list)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text.split("/")[-1]).strip("_") or "env"


def build_report(paths: Sequence[str | Path], out_dir: str | Path, *, prices: str | Path | None = None,
                 judge: str | None = None, figures: bool = True, max_trees: int = page.MAX_TREES,
                 tree_loader: Callable[[Path], dict] | None = None, log: Callable[[str], Any] | None = None) -> Report:
    """Read the runs in ``paths`` and write the report (see module docstring).

    Raises :class:`~.records.RunFileError` / ValueError with a message for unreadable
    inputs and RuntimeError when figures are asked for without matplotlib.
    """
    say = log or (lambda msg: print(msg, file=sys.stderr))
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    runs = load_runs(paths)
    if not runs.records:
        raise ValueError(f"no episode records in {', '.join(map(str, paths))}; pass treegym run/sweep JSONL files")
    rep = Report(out, episodes=len(runs.records))
    rep.notes += runs.warnings()
    price_table = tables.load_prices(prices)
    by_env = tables.env_tables(runs, price_table)

    md = ["# Results", ""] + [f"> Note: {w}.\n" for w in runs.warnings()]
    for env_id, rows in by_env.items():
        text = tables.to_markdown(rows, env_id)
        md += [text, ""]
        for suffix, content in (("md", text + "\n"), ("csv", tables.to_csv(rows, env_id))):
            p = out / f"table_{_slug(env_id)}.{suffix}"
            p.write_text(content, encoding="utf-8")
            rep.files.append(p)
    (out / "results.md").write_text("\n".join(md), encoding="utf-8")
    rep.files.append(out / "results.md")

    figure_list: list[tuple[str, Path]] = []
    if figures:
        cells = runs.cells()
        for env_id in by_env:
            env_cells = [c for c in cells if c.env_id == env_id and c.budget is not None]
            if len({c.budget for c in env_cells}) >= 2:
                p = figs.plot_pass_rate_vs_budget(figs.budget_series(runs, env_id),
                                                  out / f"pass_rate_vs_budget_{_slug(env_id)}.png",
                                                  figs.budget_title(env_id, env_cells))
                figure_list.append((f"{env_id}: pass rate vs. LLM call budget", p))
        elo_cells = [c for c in cells if c.agent == "elo"]
        for cell in elo_cells:
            cal = figs.elo_calibration(runs, cell)
            if cal is None:
                rep.notes.append(f"no Elo calibration for {cell.agent_label} on {cell.env_id} ({cell.llm}): its records "
                                 "carry no chosen_elo (runs from before the elo agent recorded it, or no answer chosen)")
                continue
            name = f"elo_calibration_{_slug(cell.env_id)}" + (f"_b{cell.budget}" if cell.budget is not None else "")
            if len([c for c in elo_cells if c.env_id == cell.env_id and c.budget == cell.budget]) > 1:
                name += "_" + str(sorted(elo_cells).index(cell))
            p = figs.plot_elo_calibration(cal, out / f"{name}.png")
            figure_list.append((f"Elo calibration: {cell.env_id}, {cell.agent_label}, LLM {cell.llm}"
                                + (f", budget {cell.budget}" if cell.budget is not None else ""), p))
        rep.files += [p for _, p in figure_list]

    judge_obj = pref.make_judge(judge, cache_path=out / "judge_cache.jsonl",
                                env_id=runs.envs()[0] if len(runs.envs()) == 1 else None)
    results = pref.preference_ranks(runs, judge_obj)
    (out / "preference.md").write_text(pref.to_markdown(results) + "\n", encoding="utf-8")
    (out / "preference.json").write_text(json.dumps([r.to_json() for r in results], indent=1), encoding="utf-8")
    rep.files += [out / "preference.md", out / "preference.json"]
    if isinstance(judge_obj, pref.LLMJudge):
        rep.notes.append(f"judge {judge_obj.name}: {judge_obj.calls} LLM calls, {judge_obj.cache.hits} cached answers"
                         + (f", {judge_obj.unreadable} unreadable answers counted as 'first'"
                            if judge_obj.unreadable else ""))

    kwargs = {"tree_loader": tree_loader} if tree_loader is not None else {}
    rep.files.append(page.write_page(out, runs, by_env, figure_list, results, max_trees=max_trees,
                                     notes=rep.notes, **kwargs))
    for n in rep.notes:
        say(f"treegym report: {n}")
    return rep
