"""`treegym check` on a non-forkable env, `tree_out` per task, the budget hint, and no orphans after `kill -9`."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from treegym.scripts.cli import main

GAME24 = "treegym/Game24-v0"


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_check_on_a_plain_gymnasium_env_says_why_without_a_traceback(capsys):
    assert main(["check", "CartPole-v1"]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert err.startswith("FAIL CartPole-v1") and "does not support snapshots" in err and "ForkableEnv" in err


def test_tree_out_without_task_gets_one_file_per_task(tmp_path, capsys):
    tree = tmp_path / "trees" / "tree.json"
    out = tmp_path / "t.jsonl"
    assert main(["run", GAME24, "--agent", "bfs", "--llm", "scripted", "--tasks", "900:902", "--budget", "20",
                 "--agent-opt", f"tree_out={tree}", "--out", str(out), "--no-progress"]) == 0
    assert "one file per task" in capsys.readouterr().err
    assert sorted(p.name for p in tree.parent.iterdir()) == ["tree-900.json", "tree-901.json"]
    saved = {r["task_id"]: r["agent_stats"]["tree_json"] for r in read_jsonl(out)}
    assert saved == {900: str(tmp_path / "trees" / "tree-900.json"), 901: str(tmp_path / "trees" / "tree-901.json")}


def test_budget_spent_in_every_episode_suggests_a_larger_budget(tmp_path, capsys):
    out = tmp_path / "b.jsonl"
    assert main(["run", GAME24, "--agent", "bfs", "--llm", "synthetic:p_correct=0.0", "--budget", "4",
                 "--tasks", "900:903", "--out", str(out), "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert "budget ran out in every episode (3 of 3" in printed and "try a larger --budget" in printed
    # with enough budget to succeed somewhere, no hint
    assert main(["run", GAME24, "--agent", "bfs", "--llm", "scripted", "--budget", "100",
                 "--tasks", "900:903", "--out", str(out), "--no-progress"]) == 0
    assert "larger --budget" not in capsys.readouterr().out


def _children(pid: int) -> list[int]:
    kids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == pid and b"spawn_main" in cmdline:
            kids.append(int(entry.name))
    return kids


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.slow
def test_kill_9_on_a_process_backend_run_leaves_no_workers(tmp_path):
    out = tmp_path / "k.jsonl"
    cmd = [sys.executable, "-c", "import sys; from treegym.scripts.cli import main; sys.exit(main())",
           "run", GAME24, "--agent", "oracle", "--split", "all", "--workers", "2", "--backend", "process",
           "--out", str(out), "--no-progress"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    workers: list[int] = []
    try:
        # liveness waits (not speed checks): the limits only keep a broken build from hanging CI
        deadline = time.monotonic() + 120
        while proc.poll() is None and (not out.exists() or out.read_text().count("\n") < 5):
            assert time.monotonic() < deadline, "the run wrote no records"
            time.sleep(0.05)
        workers = _children(proc.pid)
        assert len(workers) == 2, workers
    finally:
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    deadline = time.monotonic() + 60
    while any(_alive(w) for w in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = [w for w in workers if _alive(w)]
    for w in left:  # do not leave them behind for the next test
        os.kill(w, signal.SIGKILL)
    assert not left, f"worker processes {left} outlived their killed parent"
