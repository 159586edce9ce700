"""The report's HTML page: tables, figures, preference ranks and the search-tree viewer.

``write_page(out_dir, ...)`` writes ``index.html``, one self-contained file
apart from the PNG figures beside it. Every episode is listed; an episode
whose agent saved its search tree (``--agent-opt tree_out=...``, the record's
``agent_stats.tree_json``) gets an "open tree" button: the tree JSON is
embedded in the page (so it works from ``file://``, where browsers block
``fetch``) and opens in the offline viewer of :mod:`.treeview` (collapsible
tree, chosen path marked, node detail with observation and LLM exchanges,
search and filters), which sits in the page flow above the episode table.
Trees that cannot be read are listed with the reason; at most ``max_trees``
trees and ``max_embed_bytes`` of tree JSON are embedded, and further trees get
a viewer page of their own under ``trees/`` (the page says how many).
The page fits a 1300 px window: long cells are clipped, the full text in a tooltip.
"""
from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any, Callable, Sequence

from .paper_metrics import percent, shown
from .preference import PreferenceResult
from .treeview import embed, open_script, viewer_head, viewer_html, write_tree_page
from .records import Runs, cell_of
from .tables import Row

MAX_TREES = 500
MAX_EMBED_BYTES = 30_000_000   # tree JSON embedded in index.html; further trees get pages of their own

# Fits a 1300 px window: tables shrink (long cells clipped with the full text as a tooltip, headers wrap)
# and the tree viewer sits in the page flow, so it never covers the episode rows' buttons.
_CSS = """
body{font-family:system-ui,sans-serif;margin:1em;max-width:1600px;color:#222}
table{border-collapse:collapse;margin:.5em 0 1.5em;max-width:100%}
td,th{border:1px solid #ccc;padding:2px 5px;font-size:12.5px}
th{background:#f3f3f3;white-space:normal}td.num{text-align:right;white-space:nowrap}
.sim{color:#a15c00;font-weight:600}
img{max-width:100%;border:1px solid #ddd;margin:.5em 0}
td.clip{max-width:16em;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.clipname{display:inline-block;max-width:14em;overflow:hidden;text-overflow:ellipsis;white-space:nowrap;
vertical-align:bottom}
button{font-size:12px}
"""

def _e(x: Any) -> str:
    return html.escape(str(x))


def _table(rows: Sequence[Row]) -> str:
    show_cpr = any(r.cpr is not None for r in rows)
    extra = shown(rows)
    show_protocol = any(r.protocol for r in rows)  # how the env judged (Game of 24: treegym or tot)
    labels = 4 if show_protocol else 3  # the leading text columns
    head = ["agent", "LLM", "budget"] + (["protocol"] if show_protocol else []) + [
        "episodes", "pass rate", "95% CI", "mean reward"] + (
        ["CPR"] if show_cpr else []) + [title for _f, title, _c in extra] + [
        "LLM calls", "tokens", "cost (USD)", "wall s", "wrong", "gave up", "errors"]
    out = ["<table class='results'><tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr>"]
    for r in rows:
        llm = (f"<span class='clipname' title='{_e(r.cell.llm)}'>{_e(r.cell.llm)}</span>"
               + (" <span class='sim'>(simulated)</span>" if r.cell.simulated else ""))
        cells = [_e(r.cell.agent_label), llm, _e(r.cell.budget if r.cell.budget is not None else "own")]
        cells += [_e(r.protocol or "-")] if show_protocol else []
        cells += [str(r.episodes), f"{r.pass_rate * 100:.1f}%", f"[{r.ci_low * 100:.1f}, {r.ci_high * 100:.1f}]",
                 f"{r.mean_reward:.3f}"]
        cells += ([("-" if r.cpr is None else f"{r.cpr * 100:.1f}%")] if show_cpr else [])
        cells += [percent(getattr(r, field)) for field, _t, _c in extra]
        cells += [f"{r.mean_calls:.1f}", f"{r.mean_tokens:.0f}", "-" if r.mean_cost is None else f"{r.mean_cost:.4f}",
                  f"{r.mean_wall_s:.2f}", str(r.wrong), str(r.gave_up), str(r.errors)]
        out.append("<tr>" + "".join(f"<td class='num'>{c}</td>" if i >= labels else f"<td>{c}</td>"
                                    for i, c in enumerate(cells)) + "</tr>")
    return "\n".join(out + ["</table>"])


def _pref_table(res: PreferenceResult) -> str:
    out = [f"<h3>Preference rank: {_e(res.env_id)}, LLM {_e(res.llm)}"
           + (f", budget {res.budget}" if res.budget is not None else "") + "</h3>",
           f"<p>Judge: {_e(res.judge)}; {res.tasks} tasks; both orders per pair"
           + (" <span class='sim'>(simulated)</span>" if res.simulated else "") + ".</p>",
           "<table class='preference'><tr><th>method</th><th>average rank (1 = best)</th>"
           "<th>mean pairwise score</th></tr>"]
    for m in sorted(res.mean_rank, key=lambda m: res.mean_rank[m]):
        out.append(f"<tr><td>{_e(m)}</td><td class='num'>{res.mean_rank[m]:.2f}</td>"
                   f"<td class='num'>{res.wins[m]:.3f}</td></tr>")
    return "\n".join(out + ["</table>"])


def _read_tree(path: Path) -> dict:
    """The tree JSON at ``path`` (ValueError says why it is unreadable)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"cannot read {path}: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("nodes"), list) or not data["nodes"]:
        raise ValueError(f"{path} is not a treegym search tree (no 'nodes' list)")
    return data


def _load_tree(path: str, base: Path, loader: Callable[[Path], dict]) -> tuple[dict | None, str]:
    p = Path(path)
    if not p.is_absolute() and not p.exists():
        p = base / p
    try:
        return loader(p), ""
    except ValueError as exc:
        return None, str(exc)


class _TreeCells:
    """The "search tree" cell of each episode row: a button opening the tree embedded in the page, or, past
    ``max_trees`` trees or ``max_embed_bytes`` of embedded JSON, a link to a page of its own under ``trees/``."""

    def __init__(self, out_dir: Path, loader: Callable[[Path], dict], max_trees: int, max_embed_bytes: int):
        self.out_dir, self.loader = out_dir, loader
        self.max_trees, self.max_embed_bytes = max_trees, max_embed_bytes
        self.embedded: list[str] = []
        self.embedded_bytes = 0
        self.own_pages = 0

    def cell(self, i: int, record: dict, title: str) -> str:
        stats = record.get("agent_stats")
        tree_path = stats.get("tree_json") if isinstance(stats, dict) else None
        if not tree_path:
            return "-"
        tree, why = _load_tree(str(tree_path), self.out_dir, self.loader)
        if tree is None:
            return f"unreadable: {_e(why)}"
        blob = embed(f"tree-{i}", title, tree)
        if len(self.embedded) < self.max_trees and self.embedded_bytes + len(blob) <= self.max_embed_bytes:
            self.embedded.append(blob)
            self.embedded_bytes += len(blob)
            return f"<button class='open-tree' onclick='{_e(open_script(f'tree-{i}'))}'>open tree</button>"
        write_tree_page(tree, self.out_dir / "trees" / f"tree-{i}.html", title=title)
        self.own_pages += 1
        return f"<a class='tree-page' href='trees/tree-{i}.html'>open tree (own page)</a>"


def write_page(out_dir: str | Path, runs: Runs, tables: dict[str, list[Row]], figures: Sequence[tuple[str, Path]],
               preference: Sequence[PreferenceResult], *, title: str = "treegym report",
               max_trees: int = MAX_TREES, max_embed_bytes: int = MAX_EMBED_BYTES, notes: Sequence[str] = (),
               tree_loader: Callable[[Path], dict] = _read_tree) -> Path:
    """Write ``out_dir/index.html`` (see module docstring); ``figures`` are (caption, png path) pairs.

    ``tree_loader(path) -> dict`` reads a tree file, raising ValueError with the reason
    (``treegym report`` passes the checking loader of ``treegym tree``)."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    simulated = any(cell_of(r).simulated for r in runs.records)
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>{_e(title)}</title>",
             f"<style>{_CSS}</style>{viewer_head()}</head><body>", f"<h1>{_e(title)}</h1>",
             f"<p>{len(runs.records)} episodes from {len(runs.sources)} run file(s)"
             + (f"; {runs.duplicates} duplicate records counted once" if runs.duplicates else "") + ".</p>"]
    if simulated:
        parts.append("<p class='sim' id='simulated-note'>Some or all runs use a simulated LLM (the synthetic model "
                     "over the env's oracle): their numbers describe the search algorithms under a model of known "
                     "quality, not a real model.</p>")
    parts += [f"<p>{_e(n)}</p>" for n in notes]
    parts.append("<h2>Results</h2>")
    for env_id, rows in tables.items():
        parts += [f"<h3>{_e(env_id)}</h3>", _table(rows)]
    if figures:
        parts.append("<h2>Figures</h2>")
        for caption, png in figures:
            rel = Path(png).relative_to(out_dir) if Path(png).is_relative_to(out_dir) else Path(png)
            parts.append(f"<figure><img src='{_e(rel.as_posix())}' alt='{_e(caption)}'>"
                         f"<figcaption>{_e(caption)}</figcaption></figure>")
    parts.append("<h2>Preference ranks</h2>")
    parts += [_pref_table(r) for r in preference] or ["<p>No condition has two methods on common tasks.</p>"]

    parts += ["<h2>Episodes</h2>", "<p id='tree-hint'>Open an episode's search tree with its button; it shows "
              "here, with each node's action, observation, value, visits, env step and LLM exchanges.</p>",
              viewer_html(),
              "<table class='episodes'><tr><th>env</th><th>agent</th><th>LLM</th><th>budget</th><th>task</th>"
              "<th>success</th><th>reward</th><th>LLM calls</th><th>error</th><th>search tree</th></tr>"]
    trees = _TreeCells(out_dir, tree_loader, max_trees, max_embed_bytes)
    for i, r in enumerate(runs.records):
        cell = cell_of(r)
        tree_cell = trees.cell(i, r, f"{cell.agent_label} on {cell.env_id} task {r.get('task_id')} ({cell.llm})")
        parts.append(
            f"<tr><td>{_e(cell.env_id)}</td><td>{_e(cell.agent_label)}</td>"
            f"<td class='clip' title='{_e(cell.llm)}'>{_e(cell.llm)}</td>"
            f"<td>{_e(cell.budget if cell.budget is not None else 'own')}</td><td>{_e(r.get('task_id'))}</td>"
            f"<td>{'yes' if r.get('success') else 'no'}</td><td class='num'>{float(r.get('reward') or 0):.3f}</td>"
            f"<td class='num'>{int(r.get('llm_calls') or 0)}</td>"
            f"<td class='clip' title='{_e(r.get('error') or '')}'>{_e(r.get('error') or '')}</td>"
            f"<td>{tree_cell}</td></tr>")
    parts.append("</table>")
    if trees.own_pages:
        parts.append(f"<p>{trees.own_pages} search trees open on pages of their own (<code>trees/</code>) to keep this "
                     f"page small (at most {max_trees} trees and {max_embed_bytes / 1e6:.0f} MB embedded).</p>")
    parts += trees.embedded + ["</body></html>"]
    path = out_dir / "index.html"
    path.write_text("\n".join(parts), encoding="utf-8")
    return path
