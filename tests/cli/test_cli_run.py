"""`treegym run` / `list` / `check` end to end, through the real console entry point."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from support.paths import REPO

from treegym.scripts.cli import main

RECORD_FIELDS = {
    "env_id", "task_id", "agent", "llm", "seed", "success", "reward", "steps", "llm_calls",
    "prompt_tokens", "completion_tokens", "wall_s", "actions", "error",
}


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def treegym_cmd(*args: str) -> list[str]:
    return [sys.executable, "-c", "import sys; from treegym.scripts.cli import main; sys.exit(main())", *args]


def test_list_shows_game24_counts_and_kind(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    line = next(l for l in out.splitlines() if l.startswith("treegym/Game24-v0"))
    assert "native" in line and "test 100" in line and "all 1362" in line


def test_check_passes_on_game24(capsys):
    assert main(["check", "treegym/Game24-v0", "--trajectories", "3"]) == 0
    assert "rollback OK" in capsys.readouterr().out


def test_check_reports_unknown_env(capsys):
    assert main(["check", "treegym/Nope-v0"]) == 2  # bad input: a one-line message, exit 2
    assert "treegym/Nope-v0" in capsys.readouterr().err


def test_run_oracle_writes_one_record_per_episode(tmp_path, capsys):
    out = tmp_path / "oracle.jsonl"
    assert main(["run", "treegym/Game24-v0", "--agent", "oracle", "--tasks", "900:905", "--out", str(out), "--no-progress"]) == 0
    recs = read_jsonl(out)
    assert [r["task_id"] for r in recs] == list(range(900, 905))
    for r in recs:
        assert RECORD_FIELDS <= set(r)
        assert r["success"] is True and r["reward"] == 1.0 and r["error"] is None
        assert r["llm"] == "none" and r["llm_calls"] == 0 and r["agent"] == "oracle"
        assert 1 <= r["steps"] == len(r["actions"]) <= 4
    summary = capsys.readouterr().out
    assert "pass rate" in summary and "100.0%" in summary


def test_run_react_on_scripted_llm_counts_calls(tmp_path):
    out = tmp_path / "react.jsonl"
    assert main(["run", "treegym/Game24-v0", "--agent", "react", "--llm", "scripted", "--tasks", "900,950,999",
                 "--out", str(out), "--no-progress", "--workers", "2"]) == 0
    recs = sorted(read_jsonl(out), key=lambda r: r["task_id"])
    assert [r["task_id"] for r in recs] == [900, 950, 999]
    for r in recs:
        assert r["llm"].startswith("scripted") and r["success"] is True
        assert r["llm_calls"] == r["steps"] > 0, "one LLM call per ReAct step"
        assert r["prompt_tokens"] > 0 and r["completion_tokens"] > 0


def test_budget_ends_an_episode_cleanly(tmp_path):
    out = tmp_path / "budget.jsonl"
    assert main(["run", "treegym/Game24-v0", "--agent", "react", "--llm", "scripted", "--tasks", "900:902",
                 "--budget", "1", "--out", str(out), "--no-progress"]) == 0
    for r in read_jsonl(out):
        assert r["llm_calls"] <= 1
        assert r["success"] is False and "budget" in r["error"]


def test_run_rejects_bad_agent_and_option(tmp_path, capsys):
    out = tmp_path / "x.jsonl"
    assert main(["run", "treegym/Game24-v0", "--agent", "nope", "--out", str(out)]) == 2
    assert "unknown agent" in capsys.readouterr().err
    assert main(["run", "treegym/Game24-v0", "--agent", "random", "--agent-opt", "bogus=1", "--tasks", "900:901",
                 "--out", str(out)]) == 2
    assert "bogus" in capsys.readouterr().err
    assert not out.exists() or out.read_text() == ""


def test_resume_skips_finished_and_drops_torn_line(tmp_path):
    out = tmp_path / "resume.jsonl"
    args = ["run", "treegym/Game24-v0", "--agent", "oracle", "--tasks", "900:904", "--out", str(out), "--no-progress"]
    assert main(args[:5] + ["900:902"] + args[6:]) == 0
    first = read_jsonl(out)
    with open(out, "a") as fh:
        fh.write('{"env_id": "treegym/Game24-v0", "task_id": 90')  # a run killed mid-write
    assert main(args) == 0
    recs = read_jsonl(out)
    assert sorted(r["task_id"] for r in recs) == [900, 901, 902, 903]
    assert recs[:2] == first, "finished episodes are kept as they were"


@pytest.mark.slow
def test_killed_run_restarts_without_repeats_or_losses(tmp_path):
    out = tmp_path / "killed.jsonl"
    cmd = treegym_cmd("run", "treegym/Game24-v0", "--agent", "oracle", "--split", "all", "--out", str(out), "--no-progress")
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while proc.poll() is None and (not out.exists() or out.read_text().count("\n") < 100):
            time.sleep(0.02)
    finally:
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    partial = out.read_text().count("\n")
    assert 100 <= partial < 1362, "the run must have been killed mid-way"
    done = subprocess.run(cmd, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    recs = read_jsonl(out)
    ids = [r["task_id"] for r in recs]
    assert len(ids) == len(set(ids)) == 1362
    assert all(r["success"] for r in recs)


def test_run_with_cache_replays_without_the_model(tmp_path):
    cache = tmp_path / "cache.jsonl"
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    base = ["run", "treegym/Game24-v0", "--agent", "react", "--llm", "scripted", "--tasks", "900:902",
            "--cache", str(cache), "--no-progress"]
    assert main(base + ["--out", str(first)]) == 0
    assert main(base + ["--out", str(second), "--cache-mode", "replay"]) == 0
    a, b = read_jsonl(first), read_jsonl(second)
    assert [r["actions"] for r in a] == [r["actions"] for r in b]
    assert all(r["cache"] == {"cache_hits": r["steps"], "cache_misses": 0} for r in b), b[0].get("cache")


@pytest.mark.slow
def test_process_backend_matches_threads(tmp_path):
    outs = {}
    for backend in ("thread", "process"):
        out = tmp_path / f"{backend}.jsonl"
        assert main(["run", "treegym/Game24-v0", "--agent", "react", "--llm", "scripted", "--tasks", "900:904",
                     "--workers", "2", "--backend", backend, "--out", str(out), "--no-progress"]) == 0
        outs[backend] = sorted(read_jsonl(out), key=lambda r: r["task_id"])
    strip = lambda r: {k: v for k, v in r.items() if k != "wall_s"}  # noqa: E731
    assert [strip(r) for r in outs["thread"]] == [strip(r) for r in outs["process"]]


def test_run_webshop_gold_records_reward_parts(tmp_path):
    out = tmp_path / "ws.jsonl"
    assert main(["run", "treegym/WebShop-v0", "--agent", "gold", "--tasks", "0:3", "--out", str(out), "--no-progress"]) == 0
    recs = read_jsonl(out)
    assert len(recs) == 3
    for r in recs:
        assert r["success"] and r["reward"] == 1.0
        assert r["actions"][0].startswith("search[") and r["actions"][-1] == "click[Buy Now]"
        assert r["reward_parts"]["r_type"] == 1.0 and r["reward_parts"]["r_price"] == 1.0


# ----------------------------------------------------------------------------- faults the fuzzers found (issue 25)

def test_split_reaches_the_env(tmp_path):
    from treegym.envs.alfworld.env import ALFWorldEnv

    tid = ALFWorldEnv.split_task_ids("generated_train")[0]
    out = tmp_path / "g.jsonl"
    assert main(["run", "treegym/ALFWorld-v0", "--agent", "oracle", "--split", "generated_train", "--tasks", tid,
                 "--out", str(out), "--no-progress"]) == 0
    (rec,) = read_jsonl(out)
    assert rec["success"] and rec["config"]["split"] == "generated_train"


def test_default_split_falls_back_to_the_envs_own(tmp_path, capsys):
    out = tmp_path / "alf.jsonl"
    from treegym.scripts.run_checks import default_split, select_tasks
    from treegym.envs.alfworld.env import ALFWorldEnv

    assert default_split(ALFWorldEnv, {"expert": "handcoded"}) == "valid_unseen"
    ids, split = select_tasks("treegym/ALFWorld-v0", ALFWorldEnv, None, None, {"expert": "handcoded"})
    assert split == "valid_unseen" and len(ids) == 134
    assert main(["run", "treegym/ALFWorld-v0", "--agent", "oracle", "--env-opt", "expert=handcoded",
                 "--tasks", ",".join(ids[:2]), "--out", str(out), "--no-progress"]) == 0
    assert all(r["success"] for r in read_jsonl(out))


def _treegym(*args: str, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    code = "import sys; from treegym.scripts.cli import main; sys.exit(main())"
    return subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, capture_output=True, text=True, timeout=600,
                          env={**os.environ, **(env or {})})


def test_an_entry_point_plugin_reaches_the_cli(tmp_path):
    (tmp_path / "walkplugin.py").write_text(
        "import gymnasium as gym\n"
        "def register():\n"
        "    gym.register('plugged/NumberWalk-v0', entry_point='treegym.envs.examples.number_walk:NumberWalkEnv')\n")
    dist = tmp_path / "walkplugin-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: walkplugin\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[treegym.envs]\nwalk = walkplugin:register\n")
    done = _treegym("check", "plugged/NumberWalk-v0", cwd=REPO, env={"PYTHONPATH": str(tmp_path)})
    assert done.returncode == 0 and "rollback OK" in done.stdout, done.stderr
    done = _treegym("check", "nowhere/Nothing-v0", cwd=REPO)
    assert done.returncode == 2 and "module:EnvId" in done.stderr
