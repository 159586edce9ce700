"""Resume: a rerun reuses a record only for the very same experiment, and retries infrastructure failures."""
from __future__ import annotations

import json
import os
import time
from pathlib import Path

from support.chat_server import ChatServer, Fault

from treegym.agents.experiments.runs import (
    RESULTS_VERSION,
    config_hash,
    experiment_config,
    latest_records,
    load_reusable_records,
)
from treegym.scripts.cli import main

GAME24 = "treegym/Game24-v0"


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def run(*args: str) -> int:
    return main(["run", GAME24, "--no-progress", *args])


def test_config_covers_every_result_affecting_setting():
    base = dict(env_id=GAME24, agent="bfs", env_options={"max_steps": 4}, split="test",
                agent_options={"temperature": 0.7}, budget=20,
                llm={"name": "openai:m", "model": "m", "base_url": "http://a/v1"}, seed=0)
    h = config_hash(experiment_config(**base))
    changed = {
        "env_id": "treegym/WebShop-v0", "agent": "dfs", "env_options": {"max_steps": 5}, "split": "all",
        "agent_options": {"temperature": 0.9}, "budget": 300, "seed": 1,
        "llm": {"name": "openai:m", "model": "m", "base_url": "http://b/v1"},
    }
    for key, value in changed.items():
        assert config_hash(experiment_config(**{**base, key: value})) != h, f"{key} must be part of the resume key"
    # dict order and tuple/list spelling do not matter; output paths are not part of it
    same = dict(base, agent_options={"tree_out": "t-{task}.json", "temperature": 0.7})
    assert config_hash(experiment_config(**same)) == h
    assert experiment_config(**base)["results_version"] == RESULTS_VERSION


def test_budget_sweep_into_one_file_gives_one_set_per_budget(tmp_path, capsys):
    out = tmp_path / "sweep.jsonl"
    budgets = ("1", "3", "30")
    for b in budgets:
        assert run("--agent", "react", "--llm", "scripted", "--tasks", "900:903", "--budget", b, "--out", str(out)) in (0,)
    recs = read_jsonl(out)
    assert len(recs) == 9
    by_budget: dict[int, list[dict]] = {}
    for r in recs:
        by_budget.setdefault(r["config"]["budget"], []).append(r)
    assert sorted(by_budget) == [1, 3, 30]
    for b, rs in by_budget.items():
        assert sorted(r["task_id"] for r in rs) == [900, 901, 902]
        assert len({r["config_hash"] for r in rs}) == 1
        assert all(r["llm_calls"] <= b for r in rs)
    assert all(not r["success"] for r in by_budget[1]) and all(r["success"] for r in by_budget[30])
    # the last summary is over budget 30 only: 3 episodes, all passed
    out_text = capsys.readouterr().out.split("results:")[-2]
    assert "episodes                 3" in out_text and "100.0%" in out_text


def test_rerun_reuses_and_says_so(tmp_path, capsys):
    out = tmp_path / "r.jsonl"
    assert run("--agent", "oracle", "--tasks", "900:903", "--out", str(out)) == 0
    capsys.readouterr()
    assert run("--agent", "oracle", "--tasks", "900:905", "--out", str(out)) == 0
    err = capsys.readouterr().err
    assert "reused 3 of 5 episodes" in err
    assert len(read_jsonl(out)) == 5


def test_other_env_options_are_not_reused(tmp_path, capsys):
    out = tmp_path / "e.jsonl"
    assert run("--agent", "oracle", "--tasks", "900:902", "--out", str(out)) == 0
    assert run("--agent", "oracle", "--tasks", "900:902", "--env-opt", "max_steps=3", "--out", str(out)) == 0
    recs = read_jsonl(out)
    assert len(recs) == 4
    assert [r["config"]["env_options"] for r in recs] == [{}, {}, {"max_steps": 3}, {"max_steps": 3}]
    assert "reused 0 of 2 episodes" in capsys.readouterr().err


def test_summary_covers_only_this_command(tmp_path, capsys):
    out = tmp_path / "s.jsonl"
    assert run("--agent", "oracle", "--tasks", "900:910", "--out", str(out)) == 0
    capsys.readouterr()
    assert run("--agent", "random", "--tasks", "900:902", "--out", str(out)) in (0,)
    summary = capsys.readouterr().out
    assert "episodes                 2" in summary


def test_a_record_without_a_config_is_not_reused(tmp_path, capsys):
    out = tmp_path / "old.jsonl"
    old = {"env_id": GAME24, "task_id": 900, "agent": "oracle", "llm": "none", "seed": 1, "success": False,
           "reward": 0.0, "steps": 0, "actions": [], "error": None}
    out.write_text(json.dumps(old) + "\n")
    assert run("--agent", "oracle", "--tasks", "900:901", "--out", str(out)) == 0
    assert "1 whose config is missing or does not match its hash" in capsys.readouterr().err
    recs = read_jsonl(out)
    assert recs[0] == old and recs[1]["success"] is True


def test_edited_record_is_not_reused(tmp_path):
    out = tmp_path / "t.jsonl"
    assert run("--agent", "oracle", "--tasks", "900:901", "--out", str(out)) == 0
    rec = read_jsonl(out)[0]
    rec["config"]["budget"] = 5  # hand-edited: no longer matches its hash
    out.write_text(json.dumps(rec) + "\n")
    state = load_reusable_records(out, [dict(rec["config"], budget=None)])
    assert not state.reusable and state.tampered_records == 1


def _llm_args(server: ChatServer) -> list[str]:
    return ["--agent", "react", "--llm", "openai:test-model", "--base-url", server.base_url,
            "--max-retries", "0", "--tasks", "900:902"]


def test_infrastructure_failures_are_retried_on_the_next_run(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", "EMPTY")
    out = tmp_path / "infra.jsonl"
    with ChatServer(reply=lambda m: "Action: 4 * 6 = 24") as server:
        args = _llm_args(server)
        server.inject(*[Fault.status(500)] * 2)  # the server is down for the first run's two episodes
        assert run(*args, "--no-preflight", "--out", str(out)) == 1
        first = read_jsonl(out)
        assert len(first) == 2 and all(r["error_kind"] == "llm" and "HTTP 500" in r["error"] for r in first)
        assert "every episode failed" in capsys.readouterr().err
        assert server.pending_faults() == 0  # the server is fixed now
        sent = len(server.chat_requests())
        assert run(*args, "--no-retry-errors", "--out", str(out)) == 1, "kept failures are still all failures"
        assert len(read_jsonl(out)) == 2 and len(server.chat_requests()) == sent, "nothing was sent"
        assert "reused 2 of 2" in capsys.readouterr().err
        assert run(*args, "--out", str(out)) == 0
        assert "rerunning 2 that failed with an infrastructure error" in capsys.readouterr().err
        assert len(server.chat_requests()) > sent
    recs = read_jsonl(out)
    assert len(recs) == 4
    latest = list(latest_records(recs).values())
    assert len(latest) == 2 and all(r["error"] is None for r in latest)


def test_budget_exhaustion_is_a_result_not_retried(tmp_path, capsys):
    out = tmp_path / "b.jsonl"
    args = ("--agent", "react", "--llm", "scripted", "--tasks", "900:902", "--budget", "1", "--out", str(out))
    assert run(*args) == 0
    capsys.readouterr()
    assert run(*args) == 0
    assert "reused 2 of 2" in capsys.readouterr().err
    assert len(read_jsonl(out)) == 2


# ----------------------------------------------------------------------------- faults the fuzzers found (issue 25)

def test_a_rebuilt_input_file_at_the_same_path_is_a_new_experiment(tmp_path):
    from treegym.agents.experiments.runs import config_hash, experiment_config

    folder = tmp_path / "catalog"
    folder.mkdir()
    (folder / "products.json").write_text("[1]")
    first = config_hash(experiment_config(env_id="treegym/WebShop-v0", agent="rule", env_options={"catalog": str(folder)}))
    (folder / "products.json").write_text("[2]")  # `treegym webshop build --overwrite` at the same path
    os.utime(folder / "products.json", ns=(time.time_ns() + 10 ** 9,) * 2)
    second = config_hash(experiment_config(env_id="treegym/WebShop-v0", agent="rule", env_options={"catalog": str(folder)}))
    assert first != second
    again = config_hash(experiment_config(env_id="treegym/WebShop-v0", agent="rule", env_options={"catalog": str(folder)}))
    assert again == second
