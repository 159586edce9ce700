"""Results files never lose a record to a character, say which line is broken, and have one writer.

The LLM is the real ``openai`` client against a real local HTTP server that
sends a lone surrogate as the JSON escape ``"\\ud800"`` (which the client decodes
to a Python string with no UTF-8 form).
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from support.chat_server import ChatServer

from treegym.agents.experiments.results_file import ResultsFile
from treegym.scripts.cli import main

GAME24 = "treegym/Game24-v0"
LONE = "\ud800"


def surrogate_reply(_messages: list[dict]) -> str:
    return f"Action: 4 * 6 = 24 {LONE}"


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_bytes().decode("utf-8").splitlines() if line.strip()]


def test_run_keeps_records_whose_llm_answer_holds_a_lone_surrogate(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", "EMPTY")
    out = tmp_path / "r.jsonl"
    with ChatServer(reply=surrogate_reply) as server:
        args = ["run", GAME24, "--no-progress", "--agent", "react", "--llm", "openai:test-model",
                "--base-url", server.base_url, "--tasks", "900:902", "--out", str(out), "--cache", str(tmp_path / "c")]
        assert main(args) in (0, 1)
        err = capsys.readouterr().err
        assert "treegym: utf-8" not in err
        assert "holds text with no UTF-8 form in actions[0]" in err and "written as JSON \\u escapes" in err
        recs = records(out)
        assert [r["task_id"] for r in recs] == [900, 901]
        assert all(LONE in r["actions"][0] for r in recs), "what the server sent is what was stored"
        assert all(r["error"] is None for r in recs), [r["error"] for r in recs]
        sent = len(server.chat_requests())
        assert main(args) in (0, 1)
        assert "reused 2 of 2" in capsys.readouterr().err and len(server.chat_requests()) == sent


def test_sweep_keeps_both_the_surrogate_records_and_the_llm_free_agents(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", "EMPTY")
    out = tmp_path / "s.jsonl"
    with ChatServer(reply=surrogate_reply) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        assert main(["sweep", "--env", GAME24, "--tasks", "900:902", "--agents", "react,oracle",
                     "--llm", "openai:test-model", "--out", str(out), "--no-progress"]) in (0, 1)
    assert "treegym: utf-8" not in capsys.readouterr().err
    by_agent = sorted((r["agent"], r["task_id"]) for r in records(out))
    assert by_agent == [("oracle", 900), ("oracle", 901), ("react", 900), ("react", 901)]


def test_a_byte_that_is_not_utf8_is_named_with_its_file_and_line(tmp_path, capsys):
    out = tmp_path / "bad.jsonl"
    good = {"env_id": GAME24, "agent": "oracle", "task_id": 900, "seed": 1, "success": True}
    body = json.dumps(good).encode() + b"\n" + b'{"env_id": "x\xff"}\n'
    out.write_bytes(body)
    with pytest.raises(ValueError) as info:
        ResultsFile(out).load()
    message = str(info.value)
    assert f"{out}:2: a byte that is not UTF-8 (0xff at column 14)" in message
    assert main(["run", GAME24, "--no-progress", "--agent", "oracle", "--tasks", "900:901", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"{out}:2:" in err and "utf-8'" not in err
    assert out.read_bytes() == body, "nothing was written to or cut from the file"


def test_a_complete_last_record_without_its_newline_is_kept(tmp_path, capsys):
    out = tmp_path / "r.jsonl"
    args = ["run", GAME24, "--no-progress", "--agent", "oracle", "--tasks", "900:902", "--out", str(out)]
    assert main(args) == 0
    whole = out.read_bytes()
    out.write_bytes(whole[:-1])  # the last record lost only its newline
    assert main(args) == 0
    err = capsys.readouterr().err
    assert "reused 2 of 2" in err and "dropping" not in err
    assert out.read_bytes() == whole
    out.write_bytes(whole[:-5])  # a torn record is still dropped and rerun
    assert main(args) == 0
    assert "dropping an unfinished last line" in capsys.readouterr().err
    assert len(records(out)) == 2


def test_a_second_run_on_the_same_out_is_refused(tmp_path):
    out = tmp_path / "r.jsonl"
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time\n"
         "from treegym.agents.experiments.results_file import ResultsFile\n"
         "with ResultsFile(sys.argv[1]).exclusive():\n"
         "    print('held', flush=True); sys.stdin.read()\n", str(out)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        done = subprocess.run([sys.executable, "-m", "treegym.scripts.cli", "run", GAME24, "--no-progress",
                               "--agent", "oracle", "--tasks", "900:901", "--out", str(out)],
                              capture_output=True, text=True)
        assert done.returncode == 2
        assert f"{out} is being written by another treegym run" in done.stderr
        assert out.read_bytes() == b"", "the refused run wrote nothing"
    finally:
        holder.communicate("")
    assert main(["run", GAME24, "--no-progress", "--agent", "oracle", "--tasks", "900:901", "--out", str(out)]) == 0
