"""`treegym run` checks its inputs before any episode: one-line errors, exit code 2, nothing written."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from treegym.envs import env_class
from treegym.scripts.cli import main
from treegym.scripts.run_checks import InputError, parse_tasks, select_tasks

GAME24 = "treegym/Game24-v0"
WEBSHOP = "treegym/WebShop-v0"


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def refused(capsys, tmp_path, *args: str) -> str:
    """Run, expect exit 2 with one error line and no results file; return the error line."""
    out = tmp_path / "never.jsonl"
    code = main(["run", *args, "--out", str(out), "--no-progress"])
    err = capsys.readouterr().err.strip()
    assert code == 2, err
    assert not out.exists()
    lines = err.splitlines()
    assert lines[-1].startswith("treegym: ") and "Traceback" not in err
    return lines[-1]


@pytest.mark.parametrize("tasks, says", [
    ("5-9", "A:B"), ("a,b", "'a', 'b'"), ("99999", "99999"), ("1:1000000", "ids 0..1361"),
    ("9:3", "greater than its start"), ("3,,4", "comma list"), ("1:2:3", "A:B"), ("900,900", "twice"),
])
def test_bad_task_selections_are_refused(capsys, tmp_path, tasks, says):
    line = refused(capsys, tmp_path, GAME24, "--agent", "oracle", "--tasks", tasks)
    assert says in line and f"--tasks {tasks}" in line


def test_tasks_must_be_in_the_given_split(capsys, tmp_path):
    line = refused(capsys, tmp_path, WEBSHOP, "--agent", "oracle", "--split", "dev", "--tasks", "0:2")
    assert "split 'dev'" in line and "0, 1" in line and "500..1499" in line


def test_unknown_split_lists_the_splits(capsys, tmp_path):
    line = refused(capsys, tmp_path, GAME24, "--agent", "oracle", "--split", "nope")
    assert "nope" in line and "test" in line


def test_parse_tasks_forms():
    assert parse_tasks("900:903") == [900, 901, 902]
    assert parse_tasks(" 3, 5 ,9") == [3, 5, 9]
    with pytest.raises(InputError):
        parse_tasks("")


def test_webshop_lists_its_split_task_ids():
    cls = env_class(WEBSHOP)
    ids, split = select_tasks(WEBSHOP, cls, None, None)
    assert split == "test" and ids == list(range(500))
    dev, _ = select_tasks(WEBSHOP, cls, None, "dev")
    assert dev[0] == 500 and len(dev) == 1000
    assert select_tasks(WEBSHOP, cls, "600:602", "dev") == ([600, 601], "dev")


def test_webshop_oracle_runs_a_split_without_tasks(tmp_path, capsys):
    catalog = tmp_path / "cat"
    assert main(["webshop", "build", "--products", "10", "--goals", "4", "--out", str(catalog)]) == 0
    out = tmp_path / "ws.jsonl"
    assert main(["run", WEBSHOP, "--agent", "oracle", "--env-opt", f"catalog={catalog}", "--out", str(out),
                 "--no-progress"]) == 0
    recs = read_jsonl(out)
    assert sorted(r["task_id"] for r in recs) == [0, 1, 2, 3]
    assert all(r["success"] and r["config"]["split"] == "test" for r in recs)


def test_unknown_env_option_is_named_with_the_accepted_ones(capsys, tmp_path):
    line = refused(capsys, tmp_path, GAME24, "--agent", "oracle", "--tasks", "900", "--env-opt", "bogus=1")
    assert "bogus" in line and "max_steps" in line


def test_bad_env_option_value_fails_before_any_episode(capsys, tmp_path):
    line = refused(capsys, tmp_path, WEBSHOP, "--agent", "oracle", "--tasks", "1:3",
                   "--env-opt", f"catalog={tmp_path / 'missing'}")
    assert "catalog" in line and "missing" in line


def test_bad_agent_option_is_named(capsys, tmp_path):
    line = refused(capsys, tmp_path, GAME24, "--agent", "bfs", "--llm", "scripted", "--tasks", "900",
                   "--agent-opt", "temperature=0.5", "--agent-opt", "budget=abc")
    assert "budget='abc'" in line and "temperature" not in line


@pytest.mark.parametrize("flag, value", [("--workers", "0"), ("--budget", "-1"), ("--budget", "0"),
                                         ("--seed", "-3"), ("--timeout", "0"), ("--max-retries", "-1"),
                                         ("--workers", "two")])
def test_numeric_flags_are_range_checked(capsys, tmp_path, flag, value):
    with pytest.raises(SystemExit) as exc:
        main(["run", GAME24, "--agent", "oracle", "--tasks", "900", flag, value, "--out", str(tmp_path / "x.jsonl")])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {flag}" in err and repr(value) in err
    assert not (tmp_path / "x.jsonl").exists()


# ----------------------------------------------------------------------------- faults the fuzzers found (issue 25)

def test_alfworld_numeric_tasks_are_refused_before_any_episode(tmp_path, capsys):
    out = tmp_path / "a.jsonl"
    assert main(["run", "treegym/ALFWorld-v0", "--agent", "oracle", "--tasks", "0:5", "--out", str(out)]) == 2
    assert "not task(s) of treegym/ALFWorld-v0" in capsys.readouterr().err and not out.exists()


@pytest.mark.parametrize("argv,message", [
    (["run", "treegym/Game24-v0", "--agent", "oracle", "--tasks", "0:99999999999"], "more than any env has"),
    (["run", "treegym/Game24-v0", "--agent", "oracle", "--tasks", "0:1", "--out", "{tmp}"], "is a folder"),
    (["report", "{runs}", "--out", "{file}"], "is a file, not a folder"),
    (["run", "treegym/Game24-v0", "--agent", "oracle", "--tasks", "0:1", "--env-opt", "noequals"], "key=value"),
])
def test_bad_input_is_one_line_and_exit_2(argv, message, tmp_path, capsys):
    (tmp_path / "a-file").write_text("x")
    runs = tmp_path / "runs.jsonl"
    runs.write_text("")
    argv = [a.format(tmp=tmp_path, file=tmp_path / "a-file", runs=runs) for a in argv]
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
    err = capsys.readouterr().err.strip()
    assert code == 2 and message in err and "Traceback" not in err and len(err.splitlines()) == 1, err
