"""scripts/quickstart.sh, the README's first command, past its setup step: the search-vs-greedy
sweep, the results table, one search tree, both pass rates with their interval and the HTML
report; and the interval arithmetic of scripts/quickstart_job.py.

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

from treegym.scripts import quickstart_job
from treegym.envs.core.stats import newcombe, wilson
from treegym.scripts.quickstart_job import JobResultsError, summarise

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
        (a, t) for a in ("react", "dfsdt") for t in quickstart_job.TASKS)
    assert all(not r["error"] for r in records)
    # the table (from the report), then the tree of a solved DFSDT episode, then the closing lines
    table = text.index("| agent | LLM |")
    tree = text.index("==> treegym tree ")
    closing = text.index("==> search over forks vs greedy")
    assert table < tree < closing
    assert "dfsdt(peek_success=True,prune_back=1,temperature=2.0,width=4)" in text[table:tree] and "| react |" in text[table:tree]
    assert "dfsdt tree on treegym/Game24-v0" in text[tree:] and "[solved]" in text[tree:closing]
    # the scripted LLM plays the oracle's moves: greedy solves everything too, and the closing lines say so
    assert "greedy ReAct (temperature 0, one attempt):   10/10 solved" in text[closing:]
    assert "did not beat greedy" in text[closing:] and "OPENAI_BASE_URL" in text[closing:]
    assert (out / "report" / "index.html").is_file() and f"HTML report (tables and every search tree): {out / 'report' / 'index.html'}" in text


def test_wilson_and_newcombe_intervals_match_newcombes_paper():
    # Newcombe (1998), Statistics in Medicine 17:873, table II example (a): 56/70 - 48/80, method 10
    low, high = newcombe(56, 70, 48, 80)
    assert (round(low, 4), round(high, 4)) == (0.0524, 0.3339)
    low, high = wilson(0, 10)
    assert low == 0 and round(high, 4) == 0.2775
    low, high = newcombe(8, 10, 0, 10)
    assert 0.3 < low < 0.5 and high < 1


def _results(path, greedy, search):
    rows = [{"agent": "react", "task_id": i, "success": ok, "llm_calls": 3, "llm": "m", "error": None}
            for i, ok in enumerate(greedy)]
    rows += [{"agent": "dfsdt", "task_id": i, "success": ok, "llm_calls": 10 + i, "llm": "m", "error": None}
             for i, ok in enumerate(search)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_the_summary_counts_each_agent_and_says_when_search_wins(tmp_path):
    won = summarise(_results(tmp_path / "a.jsonl", [False] * 10, [True] * 7 + [False] * 3))
    assert (won.greedy_solved, won.greedy_n, won.search_solved, won.search_n) == (0, 10, 7, 10)
    assert won.search_wins and won.search_calls == 14.5
    text = "\n".join(quickstart_job.closing_lines(won, "r/index.html"))
    assert "0/10 solved" in text and "7/10 solved" in text and "+70 points" in text and "forking and checking" in text
    tied = summarise(_results(tmp_path / "b.jsonl", [False] * 9 + [True], [True] * 4 + [False] * 6))
    assert not tied.search_wins and tied.interval[0] < 0


def test_a_results_file_without_both_agents_is_refused_with_what_to_do(tmp_path):
    path = _results(tmp_path / "c.jsonl", [], [True, False])
    with pytest.raises(JobResultsError, match="no episodes of react"):
        summarise(path)
    (tmp_path / "d.jsonl").write_text("{not json\n")
    with pytest.raises(JobResultsError, match="d.jsonl:1"):
        summarise(tmp_path / "d.jsonl")
    assert quickstart_job.main(["summary", str(tmp_path / "missing.jsonl")]) == 2
