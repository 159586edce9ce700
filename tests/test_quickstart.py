"""scripts/quickstart.sh, the README's first command, past its setup step: the search-vs-greedy
sweep, the results table, one search tree and the HTML report.

Run with the oracle-backed ``scripted`` LLM (extra arguments go to ``treegym sweep``) on this
test's interpreter (``TREEGYM_SKIP_SETUP=1``); the embedded model's side is covered by
tests/agents/llm/test_llm_local.py and CI runs setup.sh itself (scripts/test.sh).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_quickstart_compares_search_with_greedy_and_shows_a_tree_and_the_report(tmp_path):
    venv = Path(sys.executable).parent.parent
    if not (venv / "bin" / "treegym").exists():
        pytest.skip(f"no treegym command in {venv}/bin (the quickstart needs an installed venv)")
    out = tmp_path / "qs"
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_BASE_URL", "OPENAI_API_KEY")}
    env.update(TREEGYM_SKIP_SETUP="1", TREEGYM_VENV=str(venv), TREEGYM_QUICKSTART_OUT=str(out))
    proc = subprocess.run(["bash", str(REPO / "scripts" / "quickstart.sh"), "--llm", "scripted"],
                          capture_output=True, text=True, env=env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    text = proc.stdout
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines() if line.strip()]
    assert sorted((r["agent"], r["task_id"]) for r in records) == sorted(
        (a, t) for a in ("react", "dfsdt") for t in (0, 2, 5))
    assert all(not r["error"] for r in records)
    # the table (from the report), then the tree of a solved DFSDT episode, then the report's path
    table = text.index("| agent | LLM |")
    tree = text.index("==> treegym tree ")
    assert table < tree < text.index("HTML report")
    assert "dfsdt(peek_success=True,prune_back=1,temperature=2.0)" in text[table:tree] and "| react |" in text[table:tree]
    assert "dfsdt tree on treegym/Game24-v0" in text[tree:] and "[solved]" in text[tree:]
    assert (out / "report" / "index.html").is_file() and str(out / "report" / "index.html") in text
