"""The report's HTML page: tables, figures, preference ranks and a search-tree viewer.

``write_page(out_dir, ...)`` writes ``index.html``, one self-contained file
apart from the PNG figures beside it. Every episode is listed; an episode
whose agent saved its search tree (``--agent-opt tree_out=...``, the record's
``agent_stats.tree_json``) gets an "open tree" button: the tree JSON is
embedded in the page (so it works from ``file://``, where browsers block
``fetch``) and drawn as a collapsible tree, one line per node with its action,
value, visits and marks (the chosen path in bold, solved / failed ends).
Trees that cannot be read are listed with the reason; at most ``max_trees``
trees are embedded (the page says how many were left out).
"""
from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any, Callable, Sequence

from .preference import PreferenceResult
from .records import Runs, cell_of
from .tables import Row

MAX_TREES = 500

_CSS = """
body{font-family:system-ui,sans-serif;margin:1.5em;max-width:1400px;color:#222}
table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #ccc;padding:3px 7px;font-size:13px}
th{background:#f3f3f3}td.num{text-align:right}.sim{color:#a15c00;font-weight:600}
img{max-width:100%;border:1px solid #ddd;margin:.5em 0}
#tree{border:1px solid #bbb;padding:.5em;min-height:3em;font-family:monospace;font-size:13px;background:#fafafa;
position:sticky;top:0;max-height:45vh;overflow:auto;z-index:1}
td.clip{max-width:22em;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
#tree details{margin-left:1.2em}#tree summary{cursor:pointer}
.chosen{font-weight:bold;color:#0a5}.solved{color:#0a5}.failed{color:#c00}
button{font-size:12px}
"""

_JS = """
function label(n, valueName){
  var s = (n.action === null ? '(root)' : n.action) + '  [' + valueName + ' ' + Number(n.value).toFixed(2)
        + ', visits ' + n.visits + ']';
  if (n.terminal) s += n.success ? '  [solved]' : '  [failed]';
  return s;
}
function showTree(id){
  var data = JSON.parse(document.getElementById('tree-' + id).textContent);
  var box = document.getElementById('tree');
  box.innerHTML = '';
  var head = document.createElement('div');
  head.id = 'tree-title';
  head.textContent = data.title + ' - ' + data.tree.nodes.length + ' nodes, value = ' + data.tree.value_name;
  box.appendChild(head);
  var kids = {};
  data.tree.nodes.forEach(function(n){ (kids[n.parent] = kids[n.parent] || []).push(n); });
  function build(n){
    var d = document.createElement('details');
    d.open = n.chosen || n.depth < 1;
    d.className = 'node';
    d.setAttribute('data-node', n.id);
    var s = document.createElement('summary');
    s.textContent = label(n, data.tree.value_name);
    if (n.chosen) s.className = 'chosen';
    else if (n.terminal) s.className = n.success ? 'solved' : 'failed';
    d.appendChild(s);
    (kids[n.id] || []).forEach(function(c){ d.appendChild(build(c)); });
    return d;
  }
  (kids[null] || [data.tree.nodes[0]]).forEach(function(r){ box.appendChild(build(r)); });
  box.scrollTop = 0;
}
"""


def _e(x: Any) -> str:
    return html.escape(str(x))


def _table(rows: Sequence[Row]) -> str:
    show_cpr = any(r.cpr is not None for r in rows)
    head = ["agent", "LLM", "budget", "episodes", "pass rate", "95% CI", "mean reward"] + (
        ["CPR"] if show_cpr else []) + ["LLM calls", "tokens", "cost (USD)", "wall s", "wrong", "gave up", "errors"]
    out = ["<table class='results'><tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr>"]
    for r in rows:
        llm = _e(r.cell.llm) + (" <span class='sim'>(simulated)</span>" if r.cell.simulated else "")
        cells = [_e(r.cell.agent_label), llm, _e(r.cell.budget if r.cell.budget is not None else "own"),
                 str(r.episodes), f"{r.pass_rate * 100:.1f}%", f"[{r.ci_low * 100:.1f}, {r.ci_high * 100:.1f}]",
                 f"{r.mean_reward:.3f}"]
        cells += ([("-" if r.cpr is None else f"{r.cpr * 100:.1f}%")] if show_cpr else [])
        cells += [f"{r.mean_calls:.1f}", f"{r.mean_tokens:.0f}", "-" if r.mean_cost is None else f"{r.mean_cost:.4f}",
                  f"{r.mean_wall_s:.2f}", str(r.wrong), str(r.gave_up), str(r.errors)]
        out.append("<tr>" + "".join(f"<td class='num'>{c}</td>" if i >= 3 else f"<td>{c}</td>"
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


def _script_json(data: Any) -> str:
    return json.dumps(data, ensure_ascii=False).replace("</", "<\\/")


def write_page(out_dir: str | Path, runs: Runs, tables: dict[str, list[Row]], figures: Sequence[tuple[str, Path]],
               preference: Sequence[PreferenceResult], *, title: str = "treegym report",
               max_trees: int = MAX_TREES, notes: Sequence[str] = (),
               tree_loader: Callable[[Path], dict] = _read_tree) -> Path:
    """Write ``out_dir/index.html`` (see module docstring); ``figures`` are (caption, png path) pairs.

    ``tree_loader(path) -> dict`` reads a tree file, raising ValueError with the reason
    (``treegym report`` passes the checking loader of ``treegym tree``)."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    simulated = any(cell_of(r).simulated for r in runs.records)
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>{_e(title)}</title>",
             f"<style>{_CSS}</style><script>{_JS}</script></head><body>", f"<h1>{_e(title)}</h1>",
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

    parts += ["<h2>Episodes</h2>", "<div id='tree'>Open an episode's search tree with its button.</div>",
              "<table class='episodes'><tr><th>env</th><th>agent</th><th>LLM</th><th>budget</th><th>task</th>"
              "<th>success</th><th>reward</th><th>LLM calls</th><th>error</th><th>search tree</th></tr>"]
    embedded, skipped = [], 0
    for i, r in enumerate(runs.records):
        cell = cell_of(r)
        tree_cell = "-"
        tree_path = (r.get("agent_stats") or {}).get("tree_json") if isinstance(r.get("agent_stats"), dict) else None
        if tree_path:
            if len(embedded) >= max_trees:
                skipped += 1
                tree_cell = "not embedded (limit)"
            else:
                tree, why = _load_tree(str(tree_path), out_dir, tree_loader)
                if tree is None:
                    tree_cell = f"unreadable: {_e(why)}"
                else:
                    title_t = f"{cell.agent_label} on {cell.env_id} task {r.get('task_id')} ({cell.llm})"
                    embedded.append(f"<script type='application/json' id='tree-{i}'>"
                                    f"{_script_json({'title': title_t, 'tree': tree})}</script>")
                    tree_cell = f"<button class='open-tree' onclick='showTree({i})'>open tree</button>"
        parts.append(
            f"<tr><td>{_e(cell.env_id)}</td><td>{_e(cell.agent_label)}</td>"
            f"<td class='clip' title='{_e(cell.llm)}'>{_e(cell.llm)}</td>"
            f"<td>{_e(cell.budget if cell.budget is not None else 'own')}</td><td>{_e(r.get('task_id'))}</td>"
            f"<td>{'yes' if r.get('success') else 'no'}</td><td class='num'>{float(r.get('reward') or 0):.3f}</td>"
            f"<td class='num'>{int(r.get('llm_calls') or 0)}</td>"
            f"<td class='clip' title='{_e(r.get('error') or '')}'>{_e(r.get('error') or '')}</td>"
            f"<td>{tree_cell}</td></tr>")
    parts.append("</table>")
    if skipped:
        parts.append(f"<p>{skipped} more search trees were not embedded (limit {max_trees}); "
                     "view them with <code>treegym tree FILE</code>.</p>")
    parts += embedded + ["</body></html>"]
    path = out_dir / "index.html"
    path.write_text("\n".join(parts), encoding="utf-8")
    return path
