"""The offline search-tree viewer: one HTML component (inline CSS and JS, no network), in the report and standalone.

A saved search tree (``--agent-opt tree_out=FILE``, format ``treegym-search-tree/1``)
opens as a collapsible tree on the left and the selected node's detail on the
right: its action and thought, the observation, the value under the tree's own
name (Elo, f, Q) with visits, reward, depth and the env step, the marks (chosen
path, solved / failed end), the algorithm's per-node stats, the LLM exchanges
kept on the node (prompt and answers, by kind: propose, value, compare, ...)
and those of its parent that proposed it. Older trees without the per-node
``llm`` / ``step`` fields open too (shown as "-").

Children are drawn only when a node is opened, so a tree of 10,000 nodes
opens at once (``scripts/bench/bench_tree_viewer.py`` measures it in Chromium). The
search box matches action, observation, thought and the LLM exchanges; the
filter keeps the chosen path, solved, failed, terminal or unexpanded nodes;
a hit opens the path to it.

``viewer_html()`` is the component (put it in a page once, with
``viewer_head()`` in ``<head>``); ``open_script(payload_id)`` is the JS that
opens the tree embedded in ``<script type="application/json" id=...>``.
``write_tree_page(tree, out)`` writes a standalone page for one tree
(``treegym tree FILE --html OUT``).
"""
from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

CSS = """
#tv{border:1px solid #bbb;background:#fafafa;padding:6px;margin:.5em 0 1em;font-size:13px}
#tv-head{display:flex;flex-wrap:wrap;gap:6px;align-items:center;margin-bottom:6px}
#tv-title{font-weight:600;flex:1 1 100%;overflow-wrap:anywhere}
#tv-q{flex:1 1 16em;min-width:8em}#tv-count{color:#555}
#tv-panes{display:flex;gap:8px;height:68vh;min-height:18em}
#tv-left{flex:1 1 55%;min-width:0;display:flex;flex-direction:column}
#tv-hits{max-height:30%;overflow:auto;border-bottom:1px solid #ddd;font-family:monospace}
#tv-hits:empty{display:none}
#tv-tree{flex:1;overflow:auto;font-family:monospace;white-space:nowrap;background:#fff;border:1px solid #ddd}
#tv-detail{flex:1 1 45%;min-width:0;overflow:auto;background:#fff;border:1px solid #ddd;padding:4px 8px}
#tv-detail pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f4f4f4;padding:4px;margin:2px 0 8px;
max-height:22em;overflow:auto}
#tv-detail table{border-collapse:collapse;margin:0 0 6px}#tv-detail td{border:1px solid #ddd;padding:1px 6px}
.tn{padding-left:1.1em}.tn>.row{cursor:pointer;padding:1px 2px}.tn>.row:hover{background:#eef}
.tn>.row.sel{background:#cde;outline:1px solid #79a}.tog{display:inline-block;width:1.1em;color:#555}
.tn.chosen>.row{font-weight:bold;color:#0a5}.tn.solved>.row{color:#0a5}.tn.failed>.row{color:#c00}
.hit{cursor:pointer;padding:1px 4px}.hit:hover{background:#eef}
.llm{border-left:3px solid #9ab;padding-left:6px;margin:4px 0}
"""

JS = r"""
var TV = {data: null, byId: null, kids: null, sel: null, hay: null};
function tvEl(tag, cls, text){ var e = document.createElement(tag); if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text; return e; }
function tvNum(x){ return (typeof x === 'number') ? (Math.abs(x) >= 100 ? x.toFixed(1) : x.toFixed(3)) : '-'; }
function tvLabel(n){
  var s = '#' + n.id + ' ' + (n.action === null || n.action === undefined ? '(root)' : n.action)
        + '  [' + TV.data.value_name + ' ' + tvNum(n.value) + ', visits ' + (n.visits || 0) + ']';
  if (n.terminal) s += n.success ? '  [solved]' : '  [failed]';
  return s;
}
function tvOpenPayload(payload){
  var tree = payload.tree;
  TV.data = tree; TV.byId = {}; TV.kids = {}; TV.sel = null; TV.hay = null;
  tree.value_name = tree.value_name || 'value';
  var solved = 0;
  tree.nodes.forEach(function(n){ TV.byId[n.id] = n; var p = (n.parent === undefined) ? null : n.parent;
    (TV.kids[p] = TV.kids[p] || []).push(n); if (n.terminal && n.success) solved++; });
  document.getElementById('tv').hidden = false;
  document.getElementById('tv-title').textContent = payload.title + ' - ' + tree.nodes.length + ' nodes, '
    + solved + ' solved, value = ' + tree.value_name + (tree.algorithm ? ', ' + tree.algorithm : '');
  document.getElementById('tv-q').value = ''; document.getElementById('tv-filter').value = 'all';
  document.getElementById('tv-hits').innerHTML = ''; document.getElementById('tv-count').textContent = '';
  var box = document.getElementById('tv-tree'); box.innerHTML = '';
  var roots = TV.kids[null] || [tree.nodes[0]];
  roots.forEach(function(r){ box.appendChild(tvRow(r)); });
  var target = (tree.chosen !== null && tree.chosen !== undefined && TV.byId[tree.chosen]) ? tree.chosen : roots[0].id;
  tvReveal(target, false);
  box.scrollTop = 0;
}
function tvRow(n){
  var d = tvEl('div', 'tn' + (n.chosen ? ' chosen' : (n.terminal ? (n.success ? ' solved' : ' failed') : '')));
  d.id = 'tv-n' + n.id; d.setAttribute('data-node', n.id);
  var row = tvEl('div', 'row'); var kids = TV.kids[n.id] || [];
  var tog = tvEl('span', 'tog', kids.length ? '\u25B8' : '\u00B7'); row.appendChild(tog);
  row.appendChild(tvEl('span', 'lab', tvLabel(n)));
  row.onclick = function(ev){ if (ev.target === tog) tvToggle(n.id); else { tvSelect(n.id); tvToggle(n.id, true); } };
  row.ondblclick = function(){ tvToggle(n.id); };
  d.appendChild(row); return d;
}
function tvToggle(id, open){
  var d = document.getElementById('tv-n' + id); if (!d) return;
  var box = d.querySelector(':scope > .kids'); var kids = TV.kids[id] || [];
  if (!kids.length) return;
  if (open === undefined) open = !box || box.hidden;
  if (open && !box){ box = tvEl('div', 'kids'); kids.forEach(function(c){ box.appendChild(tvRow(c)); }); d.appendChild(box); }
  if (box) box.hidden = !open;
  d.querySelector(':scope > .row > .tog').textContent = open ? '\u25BE' : '\u25B8';
}
function tvReveal(id, scroll){
  var path = [], n = TV.byId[id];
  while (n){ path.unshift(n.id); n = (n.parent === null || n.parent === undefined) ? null : TV.byId[n.parent]; }
  for (var i = 0; i < path.length - 1; i++) tvToggle(path[i], true);
  tvSelect(id);
  if (scroll !== false){ var el = document.getElementById('tv-n' + id); if (el) el.scrollIntoView({block: 'nearest'}); }
}
function tvField(t, k, v){ var tr = tvEl('tr'); tr.appendChild(tvEl('td', '', k)); tr.appendChild(tvEl('td', '', v)); t.appendChild(tr); }
function tvCalls(box, calls, heading){
  if (!calls || !calls.length) return;
  box.appendChild(tvEl('h4', '', heading));
  calls.forEach(function(c){
    var d = tvEl('details', 'llm'); d.appendChild(tvEl('summary', '', c.kind + ': ' + (c.answers || []).join(' | ').slice(0, 140)));
    d.appendChild(tvEl('div', '', 'prompt (last message):')); d.appendChild(tvEl('pre', 'prompt', c.prompt || ''));
    (c.answers || []).forEach(function(a, i){ d.appendChild(tvEl('div', '', 'answer ' + (i + 1) + ':')); d.appendChild(tvEl('pre', 'answer', a)); });
    box.appendChild(d);
  });
}
function tvSelect(id){
  var n = TV.byId[id]; if (!n) return;
  if (TV.sel !== null){ var old = document.querySelector('#tv-n' + TV.sel + ' > .row'); if (old) old.classList.remove('sel'); }
  TV.sel = id; var row = document.querySelector('#tv-n' + id + ' > .row'); if (row) row.classList.add('sel');
  var box = document.getElementById('tv-detail'); box.innerHTML = '';
  box.appendChild(tvEl('h4', '', 'node #' + n.id + (n.chosen ? ' (chosen path)' : '')));
  box.appendChild(tvEl('div', '', 'action:')); box.appendChild(tvEl('pre', 'action', n.action === null || n.action === undefined ? '(root: the start state)' : n.action));
  var t = tvEl('table');
  tvField(t, TV.data.value_name, tvNum(n.value)); tvField(t, 'visits', String(n.visits || 0));
  tvField(t, 'reward', tvNum(n.reward)); tvField(t, 'depth', String(n.depth));
  tvField(t, 'env step', (n.step === undefined || n.step === null) ? '-' : String(n.step));
  tvField(t, 'end', n.terminal ? (n.success ? 'solved' : 'failed') : 'no');
  tvField(t, 'children', String((TV.kids[n.id] || []).length));
  box.appendChild(t);
  if (n.thought){ box.appendChild(tvEl('div', '', 'thought:')); box.appendChild(tvEl('pre', 'thought', n.thought)); }
  box.appendChild(tvEl('div', '', 'observation:')); box.appendChild(tvEl('pre', 'observation', n.observation || ''));
  if (n.stats && Object.keys(n.stats).length){ box.appendChild(tvEl('div', '', 'stats:')); box.appendChild(tvEl('pre', 'stats', JSON.stringify(n.stats, null, 1))); }
  tvCalls(box, n.llm, 'LLM calls on this node');
  var parent = TV.byId[n.parent];
  if (parent) tvCalls(box, (parent.llm || []).filter(function(c){ return c.kind === 'propose' || c.kind === 'react'; }),
                      'LLM calls that proposed it (on its parent #' + parent.id + ')');
  if (n.llm === undefined) box.appendChild(tvEl('p', '', 'LLM calls: - (this tree was saved before treegym kept them)'));
}
function tvHay(n){
  var s = [n.action || '', n.observation || '', n.thought || ''];
  (n.llm || []).forEach(function(c){ s.push(c.prompt || ''); s = s.concat(c.answers || []); });
  return s.join('\n').toLowerCase();
}
function tvKeep(n, f){
  if (f === 'chosen') return !!n.chosen; if (f === 'solved') return n.terminal && n.success;
  if (f === 'failed') return n.terminal && !n.success; if (f === 'terminal') return !!n.terminal;
  if (f === 'leaves') return !(TV.kids[n.id] || []).length; return true;
}
function tvSearch(){
  if (!TV.data) return;
  var q = document.getElementById('tv-q').value.trim().toLowerCase(), f = document.getElementById('tv-filter').value;
  var hits = document.getElementById('tv-hits'); hits.innerHTML = '';
  if (!q && f === 'all'){ document.getElementById('tv-count').textContent = ''; return; }
  if (q && !TV.hay) TV.hay = TV.data.nodes.map(tvHay);
  var found = [];
  TV.data.nodes.forEach(function(n, i){ if (tvKeep(n, f) && (!q || TV.hay[i].indexOf(q) >= 0)) found.push(n); });
  document.getElementById('tv-count').textContent = found.length + ' matching node' + (found.length === 1 ? '' : 's')
    + (found.length > 300 ? ' (first 300 listed)' : '');
  found.slice(0, 300).forEach(function(n){
    var h = tvEl('div', 'hit', tvLabel(n)); h.setAttribute('data-node', n.id);
    h.onclick = function(){ tvReveal(n.id); }; hits.appendChild(h);
  });
}
function tvOpen(payloadId){
  tvOpenPayload(JSON.parse(document.getElementById(payloadId).textContent));
  document.getElementById('tv').scrollIntoView({block: 'start'});
}
"""

_VIEWER = """<div id='tv' hidden>
<div id='tv-head'><div id='tv-title'></div>
<input id='tv-q' type='search' placeholder='search actions, observations, prompts, answers' oninput='tvSearch()'>
<select id='tv-filter' onchange='tvSearch()'><option value='all'>all nodes</option>
<option value='chosen'>chosen path</option><option value='solved'>solved ends</option>
<option value='failed'>failed ends</option><option value='terminal'>all ends</option>
<option value='leaves'>leaves</option></select><span id='tv-count'></span></div>
<div id='tv-panes'><div id='tv-left'><div id='tv-hits'></div><div id='tv-tree'></div></div>
<div id='tv-detail'></div></div></div>"""


def viewer_head() -> str:
    """The viewer's ``<style>`` and ``<script>`` (inline: the page works offline and from ``file://``)."""
    return f"<style>{CSS}</style><script>{JS}</script>"


def viewer_html() -> str:
    """The viewer's markup (hidden until a tree is opened)."""
    return _VIEWER


def script_json(data: Any) -> str:
    """``data`` as JSON safe inside ``<script type="application/json">``."""
    return json.dumps(data, ensure_ascii=False).replace("<", "\\u003c")


def embed(payload_id: str, title: str, tree: dict) -> str:
    """A tree embedded in the page for :func:`open_script`."""
    return (f"<script type='application/json' id='{html.escape(payload_id)}'>"
            f"{script_json({'title': title, 'tree': tree})}</script>")


def open_script(payload_id: str) -> str:
    return f"tvOpen({json.dumps(payload_id)})"


def tree_title(tree: dict, source: str = "") -> str:
    what = f"{tree.get('algorithm') or 'search'} tree on {tree.get('env_id') or '?'}"
    return what + (f" ({source})" if source else "")


def write_tree_page(tree: dict, out: str | Path, *, title: str | None = None) -> Path:
    """A standalone HTML page showing ``tree`` (a loaded tree JSON), opened on load; returns its path."""
    out = Path(out)
    title = title or tree_title(tree)
    instruction = str(tree.get("instruction") or "")
    page = ("<!doctype html><html><head><meta charset='utf-8'>"
            f"<title>{html.escape(title)}</title>"
            "<style>body{font-family:system-ui,sans-serif;margin:1em;color:#222}</style>"
            f"{viewer_head()}</head><body>"
            f"<h2>{html.escape(title)}</h2>"
            + (f"<p>task: {html.escape(instruction)}</p>" if instruction else "")
            + viewer_html() + embed("tree-data", title, tree)
            + f"<script>{open_script('tree-data')};window.scrollTo(0,0);</script></body></html>")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(page, encoding="utf-8")
    return out
