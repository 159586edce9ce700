"""Smaller faults of issue 31: a report of / is refused in one line, --save-trees reruns records that
have no tree and export counts what it used, and patience waits for a value before it counts."""
from __future__ import annotations

import json
from pathlib import Path

from treegym.scripts.cli import main

GAME24 = "treegym/Game24-v0"
LLM = "synthetic:p_correct=0.5,judge_acc=0.75,value_noise=0.6"


def read(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_report_of_the_root_folder_is_refused_in_one_line(tmp_path, capsys):
    assert main(["report", "/", "--out", str(tmp_path / "rep"), "--no-figures"]) == 2
    err = capsys.readouterr().err.strip()
    assert "Traceback" not in err and len(err.splitlines()) == 1
    assert "name the run folder" in err


def test_save_trees_reruns_records_without_a_tree_and_export_counts_honestly(tmp_path, capsys):
    out = tmp_path / "r.jsonl"
    base = ["run", GAME24, "--agent", "mcts", "--llm", LLM, "--tasks", "900:902", "--budget", "20",
            "--out", str(out), "--no-progress"]
    assert main(base) == 0
    assert main(["export", str(out), "--format", "sft", "--out", str(tmp_path / "a.jsonl")]) == 0
    said = capsys.readouterr().out
    assert "from 0 saved tree(s) and 2 record(s) without a tree, replayed as one path each" in said
    assert main([*base, "--save-trees"]) == 0
    assert "rerunning 2 whose search tree was not saved" in capsys.readouterr().err
    latest = read(out)[-2:]
    assert all(Path(r["agent_stats"]["tree_json"]).is_file() for r in latest)
    assert main([*base, "--save-trees"]) == 0
    assert "reused 2 of 2" in capsys.readouterr().err and len(read(out)) == 4
    assert main(["export", str(out), "--format", "sft", "--out", str(tmp_path / "b.jsonl")]) == 0
    said = capsys.readouterr().out
    assert "from 2 saved tree(s) ->" in said


def test_patience_counts_only_once_the_search_has_a_value(tmp_path):
    out = tmp_path / "p.jsonl"
    assert main(["run", GAME24, "--agent", "elo", "--llm", LLM, "--tasks", "900:904", "--agent-opt", "patience=5",
                 "--out", str(out), "--no-progress"]) in (0, 1)
    stats = [r["agent_stats"] for r in read(out)]
    stopped = [s for s in stats if s.get("search_stopped") == "patience"]
    assert stopped, stats
    for s in stopped:
        assert s["search_best_value"] is not None, s
        assert s["search_expansions"] - s["search_best_at_expansion"] >= 5, s
