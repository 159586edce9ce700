"""How fast the offline tree viewer opens a big search tree, in headless Chromium.

    python scripts/bench/bench_tree_viewer.py [--nodes 10000] [--reps 5]

Writes a standalone viewer page (``treegym tree --html``) for a generated tree of
``--nodes`` nodes (branching 4, each node with a 600-character observation and
two LLM exchanges, like a saved search tree), opens it in Chromium, and
measures, interleaved, medians over ``--reps``:

* **open**: ``tvOpen`` on the embedded tree (JSON.parse, index, draw the chosen
  path, select its leaf), timed inside the page;
* **page load**: navigation start to the load event of the whole page;
* **baseline, eager**: the same tree drawn with every node in the DOM at once
  (what the previous viewer did), timed inside the page.

Target: a 10,000-node tree opens in under a second. Needs Debian's chromium
and chromium-driver (``scripts/install_browser.sh``).
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))

from treegym.agents.experiments.report.treeview import write_tree_page  # noqa: E402

EAGER = """
var t0 = performance.now();
var data = JSON.parse(document.getElementById('tree-data').textContent).tree;
var kids = {}; data.nodes.forEach(function(n){ (kids[n.parent] = kids[n.parent] || []).push(n); });
var box = document.createElement('div'); document.body.appendChild(box);
function build(n){ var d = document.createElement('details'); d.open = true;
  var s = document.createElement('summary'); s.textContent = tvLabel(n); d.appendChild(s);
  (kids[n.id] || []).forEach(function(c){ d.appendChild(build(c)); }); return d; }
TV.data = data; box.appendChild(build(data.nodes[0])); box.getBoundingClientRect();
var ms = performance.now() - t0; box.remove(); return ms;
"""


def make_tree(n: int, seed: int = 0) -> dict:
    rng = random.Random(seed)
    words = "red shoes size nine click search buy back next page price under dollars blue shirt".split()
    nodes = [{"id": 0, "parent": None, "action": None, "thought": "", "observation": "start " * 100, "reward": 0.0,
              "terminal": False, "success": False, "depth": 0, "visits": n, "value": 0.5, "chosen": True,
              "stats": {}, "step": 0, "llm": []}]
    for i in range(1, n):
        parent = nodes[(i - 1) // 4]
        terminal = rng.random() < 0.1
        nodes.append({
            "id": i, "parent": parent["id"], "action": f"search[{' '.join(rng.choices(words, k=4))}] #{i}",
            "thought": "", "observation": " ".join(rng.choices(words, k=110))[:600], "reward": 0.0,
            "terminal": terminal, "success": terminal and rng.random() < 0.3, "depth": parent["depth"] + 1,
            "visits": rng.randint(1, 9), "value": rng.random(), "chosen": False, "stats": {"elo_updates": 2},
            "step": parent["depth"] + 1,
            "llm": [{"kind": "value", "prompt": " ".join(rng.choices(words, k=80)), "answers": ["likely"]},
                    {"kind": "propose", "prompt": " ".join(rng.choices(words, k=80)), "answers": ["search[x]"]}]})
    leaf = nodes[-1]
    chosen = leaf
    while chosen is not None:
        chosen["chosen"] = True
        chosen = nodes[chosen["parent"]] if chosen["parent"] is not None else None
    return {"format": "treegym-search-tree/1", "algorithm": "mcts", "env_id": "treegym/WebShop-v0",
            "value_name": "q", "instruction": "buy red shoes", "chosen": leaf["id"], "nodes": nodes}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--nodes", type=int, default=10_000)
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args()
    from support.browser import browser_missing, start_chromium

    reason = browser_missing()
    if reason:
        print(f"skipped: {reason}")
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        page = write_tree_page(make_tree(args.nodes), Path(tmp) / "tree.html")
        size_mb = page.stat().st_size / 1e6
        driver = start_chromium(Path(tmp) / "profile", width=1300, height=900)
        opens, loads, eager = [], [], []
        try:
            for _ in range(args.reps):
                driver.get(page.as_uri())
                loads.append(driver.execute_script(
                    "var t = performance.getEntriesByType('navigation')[0]; return t.loadEventEnd - t.startTime;"))
                opens.append(driver.execute_script(
                    "var t0 = performance.now(); tvOpenPayload(JSON.parse("
                    "document.getElementById('tree-data').textContent));"
                    "document.getElementById('tv-tree').getBoundingClientRect(); return performance.now() - t0;"))
                assert driver.execute_script("return document.querySelectorAll('#tv-tree .tn.chosen').length") > 1
                eager.append(driver.execute_script(EAGER))
        finally:
            driver.quit()
    o, load, e = statistics.median(opens), statistics.median(loads), statistics.median(eager)
    print(f"tree of {args.nodes:,} nodes, page {size_mb:.1f} MB, {args.reps} interleaved repetitions (medians); "
          f"load average {os.getloadavg()[0]:.2f}")
    print(f"  open (tvOpen: parse + index + chosen path): {o:8.1f} ms")
    print(f"  whole page load (navigation to load event):  {load:8.1f} ms   target < 1000 ms")
    print(f"  baseline, every node drawn at once:           {e:8.1f} ms   ({e / o:.1f}x the open time)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
