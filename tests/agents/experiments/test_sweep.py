"""treegym sweep: a grid as one resumable experiment; kill -9 mid-way loses and repeats nothing."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from treegym.agents.experiments.evaluation import RunConfig
from treegym.agents.experiments.sweep import run_sweep
from treegym.scripts.cli import main

ENV = "treegym/Game24-v0"
LLM = "synthetic:p_correct=0.5,judge_acc=0.75,value_noise=0.6"


def _lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()]


def _grid(tasks=range(900, 904), budgets=(10, 20), agents=("elo", "react")) -> list[RunConfig]:
    return [RunConfig(env_id=ENV, agent=a, llm_spec=LLM, task_ids=list(tasks), budget=b) for a in agents for b in budgets]


def test_sweep_records_each_episode_once_and_a_rerun_runs_nothing(tmp_path):
    out = tmp_path / "s.jsonl"
    first = run_sweep(_grid(), out, progress=False, log=lambda m: None)
    assert first.ran == 16 and first.reused == 0 and first.episodes == 16
    recs = _lines(out)
    assert len({(r["config_hash"], r["task_id"], r["seed"]) for r in recs}) == 16 == len(recs)
    assert {r["config"]["budget"] for r in recs} == {10, 20}
    again = run_sweep(_grid(), out, progress=False, log=lambda m: None)
    assert again.ran == 0 and again.reused == 16 and len(_lines(out)) == 16
    # growing the grid runs only the new cells
    more = run_sweep(_grid(budgets=(10, 20, 30)), out, progress=False, log=lambda m: None)
    assert more.ran == 8 and more.reused == 16 and len(_lines(out)) == 24


def test_sweep_refuses_a_cell_listed_twice(tmp_path):
    with pytest.raises(ValueError, match="twice"):
        run_sweep(_grid() + _grid()[:1], tmp_path / "s.jsonl", progress=False)


def test_shared_cache_answers_other_cells(tmp_path):
    grid = _grid(tasks=[900, 901], budgets=(10, 20), agents=("react",))
    res = run_sweep(grid, tmp_path / "s.jsonl", cache_dir=tmp_path / "cache", progress=False, log=lambda m: None)
    stats = [r["cache"] for cell in res.records for r in cell]
    # react asks the same prompts at both budgets: the second cell's calls are cache hits
    assert sum(s["cache_hits"] for s in stats) > 0
    assert len(list((tmp_path / "cache").glob("*.jsonl"))) == 1


def test_sweep_file_and_cli(tmp_path, capsys):
    grid = tmp_path / "grid.toml"
    grid.write_text(f'''
out = "{tmp_path / 'g.jsonl'}"
llms = ["{LLM}"]
budgets = [10, "none"]
[[envs]]
id = "{ENV}"
tasks = "900:902"
[[agents]]
name = "elo"
options = {{ explorations = 3 }}
[[agents]]
name = "oracle"
''')
    assert main(["sweep", str(grid), "--no-progress"]) == 0
    recs = _lines(tmp_path / "g.jsonl")
    # elo at two budgets x 2 tasks, oracle (no LLM, no budget) x 2 tasks
    assert Counter(r["agent"] for r in recs) == {"elo": 4, "oracle": 2}
    assert {r["config"]["agent_options"].get("explorations") for r in recs if r["agent"] == "elo"} == {3}
    assert "| treegym/Game24-v0 | elo {'explorations': 3}" in capsys.readouterr().out
    bad = tmp_path / "bad.toml"
    bad.write_text('agentz = ["elo"]\n')
    assert main(["sweep", str(bad)]) == 2
    assert "unknown key(s) agentz" in capsys.readouterr().err
    assert main(["sweep", "--env", ENV, "--tasks", "900:902", "--agents", "elo", "--llm", LLM,
                 "--budgets", "0", "--out", str(tmp_path / "x.jsonl")]) == 2
    assert "at least 1" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["thread", "ray"])
def test_kill_9_mid_sweep_then_resume_loses_and_repeats_nothing(tmp_path, backend):
    if backend == "ray":
        pytest.importorskip("ray", reason="the ray backend needs the ray extra")
    out = tmp_path / "sweep.jsonl"
    cmd = [sys.executable, "-m", "treegym.scripts.cli", "sweep", "--env", ENV, "--tasks", "900:920",
           "--agents", "elo,react,bfs", "--llm", LLM, "--budgets", "30,60", "--out", str(out),
           "--backend", backend, "--workers", "2", "--no-progress"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    while proc.poll() is None and (not out.exists() or len(out.read_text().splitlines()) < 15):
        time.sleep(0.05)
    assert proc.poll() is None, "the sweep finished before it could be killed: " + proc.stderr.read().decode()[-500:]
    os.killpg(proc.pid, signal.SIGKILL)  # the sweep and its workers (kill -9)
    proc.wait()
    before = _lines(out) if out.read_text().endswith("\n") else _lines(out)[:-1]
    assert 15 <= len(before) < 120
    done = subprocess.run(cmd, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    after = _lines(out)
    keys = Counter((r["config_hash"], r["task_id"], r["seed"]) for r in after)
    assert len(keys) == 120  # 3 agents x 2 budgets x 20 tasks, all recorded
    assert max(keys.values()) == 1  # and none twice: nothing finished was repeated
    assert after[:len(before)] == before  # the records written before the kill are untouched
    assert f"reused {len(before)}" in done.stderr


# ----------------------------------------------------------------------------- faults the fuzzers found (issue 25)

def test_sweep_refuses_unknown_agent_options_and_fails_when_every_episode_fails(tmp_path, capsys, monkeypatch):
    assert main(["sweep", "--env", "treegym/Game24-v0", "--agents", "dfs", "--llm", "synthetic:seed=0",
                 "--tasks", "0:1", "--agent-opt", "dfs:bogus=1", "--out", str(tmp_path / "s.jsonl"),
                 "--no-progress"]) == 2
    assert "bogus" in capsys.readouterr().err and not (tmp_path / "s.jsonl").exists()
    monkeypatch.setenv("TREEGYM_LLM_MAX_RETRIES", "0")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")  # nothing listens: every episode fails
    monkeypatch.setenv("OPENAI_API_KEY", "EMPTY")
    code = main(["sweep", "--env", "treegym/Game24-v0", "--agents", "react", "--llm", "openai:m",
                 "--tasks", "0:2", "--out", str(tmp_path / "f.jsonl"), "--no-progress", "--no-preflight"])
    assert code == 1 and "every episode failed" in capsys.readouterr().err
