"""`treegym run --save-trees` then `treegym export`: DPO pairs in TRL's conversational preference format,
SFT winning paths and per-node value labels, from every search algorithm's tree and on every env family."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from treegym.agents.training.export import ExportOptions, export_lines
from treegym.agents.training.trees import load_tree, node_values
from treegym.scripts.cli import main

GAME24 = "treegym/Game24-v0"
ALGORITHMS = ["elo", "astar", "mcts", "lats", "dfsdt", "bfs", "dfs"]
LLM = "synthetic:p_correct=0.5,seed=1"


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def is_message_list(x: object, roles: set[str]) -> bool:
    return (isinstance(x, list) and len(x) > 0 and all(
        isinstance(m, dict) and set(m) == {"role", "content"} and m["role"] in roles and isinstance(m["content"], str)
        for m in x))


def check_trl_conversational_preference(row: dict) -> None:
    """TRL's documented conversational preference example (DPOTrainer dataset formats): ``prompt``
    a list of chat messages, ``chosen`` and ``rejected`` lists of assistant messages continuing it."""
    assert is_message_list(row["prompt"], {"system", "user", "assistant"})
    assert row["prompt"][-1]["role"] == "user"
    for key in ("chosen", "rejected"):
        assert is_message_list(row[key], {"assistant"})
    assert row["chosen"] != row["rejected"]


def run_with_trees(tmp_path: Path, agent: str, tasks: str = "900:903", env: str = GAME24, budget: str = "40",
                   llm: str = LLM, extra: tuple[str, ...] = ()) -> Path:
    out = tmp_path / f"{agent}.jsonl"
    assert main(["run", env, "--agent", agent, "--llm", llm, "--tasks", tasks, "--budget", budget,
                 "--save-trees", "--out", str(out), "--no-progress", *extra]) == 0
    return out


def test_run_save_trees_then_export_dpo_loads_with_datasets_in_trl_format(tmp_path, capsys):
    datasets = pytest.importorskip("datasets", reason="the train extra (datasets) is not installed")
    records = run_with_trees(tmp_path, "mcts")
    trees = sorted((tmp_path / "mcts.trees").glob("*.json"))
    assert [p.name for p in trees] == ["900.json", "901.json", "902.json"]
    dpo = tmp_path / "dpo.jsonl"
    assert main(["export", str(records), "--format", "dpo", "--min-gap", "0.3", "--out", str(dpo)]) == 0
    rows = read_jsonl(dpo)
    assert rows, capsys.readouterr()
    for row in rows:
        check_trl_conversational_preference(row)
        assert row["value_gap"] >= 0.3 and row["chosen_value"] - row["rejected_value"] == pytest.approx(row["value_gap"])
        # the pair is two siblings of the node the prompt ends at
        tree = load_tree(row["tree"])
        assert tree.nodes[row["chosen_node"]]["parent"] == tree.nodes[row["rejected_node"]]["parent"] == row["node_id"]
        assert row["chosen"][0]["content"] == tree.nodes[row["chosen_node"]]["action"]
        assert len(row["prompt"]) == 2 + 2 * tree.nodes[row["node_id"]]["depth"]  # system, user, then turns

    ds = datasets.load_dataset("json", data_files=str(dpo), split="train")
    assert ds.num_rows == len(rows)
    assert {"prompt", "chosen", "rejected"} <= set(ds.column_names)
    for key in ("prompt", "chosen", "rejected"):  # lists of {role, content} structs, as TRL reads them
        feature = ds.features[key]
        inner = getattr(feature, "feature", None) or feature[0]
        assert set(inner) == {"role", "content"}, feature
    assert ds[0]["prompt"] == rows[0]["prompt"]

    for fmt in ("sft", "values", "prm"):  # every format loads as a dataset
        path = tmp_path / f"{fmt}.jsonl"
        assert main(["export", str(records), "--format", fmt, "--out", str(path)]) == 0
        assert datasets.load_dataset("json", data_files=str(path), split="train").num_rows == len(read_jsonl(path)) > 0

    again = tmp_path / "again.jsonl"  # deterministic: the same bytes twice
    assert main(["export", str(records), "--format", "dpo", "--min-gap", "0.3", "--out", str(again)]) == 0
    assert again.read_bytes() == dpo.read_bytes()


@pytest.mark.parametrize("agent", ALGORITHMS)
def test_every_algorithms_tree_exports_all_formats(tmp_path, agent):
    records = run_with_trees(tmp_path, agent, tasks="900:902")
    trees = [load_tree(p) for p in sorted((tmp_path / f"{agent}.trees").glob("*.json"))]
    assert trees and all(t.algorithm == agent and t.cut_observations() == 0 for t in trees)
    values = list(export_lines(trees, ExportOptions(format="values")))
    assert len(values) == sum(len(t.nodes) - 1 for t in trees)
    for row in values:
        assert (row["label"] is None) == (row["value"] is None)
    sft = list(export_lines(trees, ExportOptions(format="sft")))
    wins = [(t, i) for t in trees for i, n in t.nodes.items() if n["terminal"] and n["success"]]
    assert len(sft) == len(wins)
    for row in sft:
        assert row["messages"][-1]["role"] == "assistant" and row["steps"] == len(row["messages"][2::2])
    prm = list(export_lines(trees, ExportOptions(format="prm")))
    assert len(prm) == sum(1 for t in trees for n in t.nodes.values() if n["terminal"])  # outcome: all valued
    for row in prm:
        assert isinstance(row["prompt"], str) and len(row["completions"]) == len(row["labels"]) == len(row["values"])
        assert all(isinstance(c, str) for c in row["completions"]) and all(isinstance(b, bool) for b in row["labels"])
        assert row["labels"][-1] == row["success"]  # a terminal node's outcome value is its own verdict
    # the search's own values: every pair respects the gap, in the algorithm's units
    for opts in (ExportOptions(value_source="search", min_gap=1e-6), ExportOptions(min_gap=0.25)):
        for row in export_lines(trees, opts):
            check_trl_conversational_preference(row)
            assert row["chosen_value"] - row["rejected_value"] >= opts.min_gap - 1e-9


def test_outcome_values_are_the_share_of_successful_ends_below(tmp_path):
    run_with_trees(tmp_path, "bfs", tasks="900:901")
    tree = load_tree(tmp_path / "bfs.trees" / "900.json")
    values = node_values(tree, "outcome")
    for i in tree.nodes:
        ends = [n for n in tree.nodes.values() if n["terminal"] and i in [p["id"] for p in tree.path(n["id"])]]
        expected = sum(bool(n["success"]) for n in ends) / len(ends) if ends else None
        assert values[i] == expected


@pytest.mark.parametrize("env_id", ["treegym/WebShop-v0", "treegym/ALFWorld-v0", "treegym/ToolBench-v0",
                                    "treegym/RestBench-v0", "treegym/ToolTasks-v0", "treegym/BMoCA-v0",
                                    "treegym/TextWorld-v0"])
def test_export_works_on_every_env_family(tmp_path, env_id):
    from treegym.envs import env_class

    if "TextWorld" in env_id:
        pytest.importorskip("textworld", reason="the textworld extra is not installed")
    split = "valid_unseen" if "ALFWorld" in env_id else "test"
    task = env_class(env_id).split_task_ids(split)[0]
    records = run_with_trees(tmp_path, "mcts", tasks=str(task), env=env_id, budget="25",
                             llm="synthetic:p_correct=0.7,seed=0", extra=("--split", split))
    out = tmp_path / "values.jsonl"
    assert main(["export", str(records), "--format", "values", "--out", str(out)]) == 0
    rows = read_jsonl(out)
    assert rows and all(r["env_id"] == env_id and r["task_id"] == str(task) for r in rows)
    # full observations, not the 200-character excerpts the viewer uses
    tree = load_tree(rows[0]["tree"])
    assert tree.cut_observations() == 0
    assert max(len(m["content"]) for r in rows for m in r["prompt"]) > 0


def test_a_foreign_file_is_refused_in_one_line(tmp_path, capsys):
    bad = tmp_path / "x.json"
    bad.write_text('{"hello": 1}')
    assert main(["export", str(bad), "--out", str(tmp_path / "o.jsonl")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a treegym search tree" in err
    assert not (tmp_path / "o.jsonl").exists()
    assert main(["export", str(tmp_path / "missing.json"), "--out", str(tmp_path / "o.jsonl")]) == 2


def test_a_tree_overwritten_by_another_task_is_skipped_not_exported(tmp_path, capsys):
    records = run_with_trees(tmp_path, "bfs", tasks="900:902")
    folder = tmp_path / "bfs.trees"
    (folder / "900.json").write_text((folder / "901.json").read_text())  # stale: another task's tree
    out = tmp_path / "o.jsonl"
    assert main(["export", str(records), "--format", "values", "--out", str(out)]) == 0
    assert "not this record's" in capsys.readouterr().err
    assert {r["task_id"] for r in read_jsonl(out)} == {"901"}


def test_save_trees_refuses_an_agent_that_does_not_search(tmp_path, capsys):
    assert main(["run", GAME24, "--agent", "react", "--llm", "scripted", "--tasks", "900:901", "--save-trees",
                 "--out", str(tmp_path / "r.jsonl"), "--no-progress"]) == 2
    assert "does not search" in capsys.readouterr().err


def test_records_without_trees_are_replayed_into_one_path_and_checked(tmp_path, capsys):
    out = tmp_path / "oracle.jsonl"
    assert main(["run", GAME24, "--agent", "oracle", "--tasks", "900:903", "--out", str(out), "--no-progress"]) == 0
    records = read_jsonl(out)
    sft = tmp_path / "sft.jsonl"
    assert main(["export", str(out), "--format", "sft", "--out", str(sft)]) == 0
    rows = read_jsonl(sft)
    assert len(rows) == sum(r["success"] for r in records) == 3
    for row, rec in zip(rows, records):
        assert [m["content"] for m in row["messages"][2::2]] == rec["actions"]
        assert row["algorithm"] == "oracle" and row["task_id"] == str(rec["task_id"])
    # a record whose actions do not end as it says (other settings, a changed env) is refused
    bad = dict(records[0], actions=records[0]["actions"][:1])
    (tmp_path / "bad.jsonl").write_text(json.dumps(bad) + "\n")
    assert main(["export", str(tmp_path / "bad.jsonl"), "--format", "sft", "--out", str(tmp_path / "b.jsonl")]) == 0
    assert "the record says True" in capsys.readouterr().err
    assert read_jsonl(tmp_path / "b.jsonl") == []
