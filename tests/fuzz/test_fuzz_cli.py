"""The command line with bad values for every option of every command.

Each case is one option (or positional) of a working command line replaced by a
bad value: empty, negative, huge, not a number, unicode, a folder, a system
file, a very long string. Asserts: the command exits with 0, 1 or 2 (2 = it
refused the input with a message), never raises (no traceback) and never
hangs. Commands run in-process (``treegym.scripts.cli.main``).
"""
from __future__ import annotations

import argparse
import contextlib
import io

import pytest

from fuzzing import count, no_hang, rng_for, tally
from treegym.scripts.cli import build_parser, main

BAD = ["", "-1", "0", "nan", "1e309", "99999999999999999999", "ü²", "/etc/passwd", "x" * 3000, "a=b", "::",
       "0:99999999999", "\x00", "..", "-"]
FOLDER = "<a folder>"  # replaced by the test's tmp folder
BAD.append(FOLDER)


def _base(tmp_path) -> dict[str, list[str]]:
    run_out = tmp_path / "run.jsonl"
    assert main(["run", "treegym/Game24-v0", "--agent", "oracle", "--tasks", "0:2", "--out", str(run_out),
                 "--no-progress"]) == 0
    return {
        "run": ["run", "treegym/Game24-v0", "--agent", "oracle", "--tasks", "0:1", "--out", str(tmp_path / "r.jsonl"),
                "--no-progress"],
        "sweep": ["sweep", "--env", "treegym/Game24-v0", "--agents", "oracle", "--tasks", "0:1",
                  "--out", str(tmp_path / "s.jsonl"), "--no-progress"],
        "report": ["report", str(run_out), "--out", str(tmp_path / "report"), "--no-figures"],
        "check": ["check", "treegym/Game24-v0", "--trajectories", "1"],
        "serve": ["serve", "tools", "--port", "-5"],  # never a working line: serve would not return
        "tree": ["tree", str(run_out)],
        "list": ["list"],
    }


def _options(command: str) -> list[argparse.Action]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return [a for a in sub.choices[command]._actions
            if not isinstance(a, (argparse._HelpAction, argparse._StoreTrueAction, argparse._SubParsersAction))]


def _with(argv: list[str], action: argparse.Action, value: str) -> list[str]:
    if not action.option_strings:  # a positional: replace the first one of its kind after the command
        positions = [i for i, a in enumerate(argv[1:], 1) if not a.startswith("--")
                     and not argv[i - 1].startswith("--")]
        index = {"env_id": 0, "site": 0, "file": 0, "runs": 0}.get(action.dest, 0)
        if not positions:
            return argv + [value]
        out = list(argv)
        out[positions[index]] = value
        return out
    flag = action.option_strings[-1]
    if flag in argv and not isinstance(action, argparse._AppendAction):
        out = list(argv)
        out[out.index(flag) + 1] = value
        return out
    return argv + [flag, value]


def _run(argv: list[str]) -> tuple[int, str]:
    err = io.StringIO()

    def go() -> int:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            try:
                return int(main(argv) or 0)
            except SystemExit as exc:
                return exc.code if isinstance(exc.code, int) else 1

    code = no_hang(go, what=f"treegym {' '.join(a[:60] for a in argv)}")
    return code, err.getvalue()


@pytest.mark.parametrize("command", ["run", "sweep", "report", "check", "serve", "tree", "list"])
def test_bad_values_for_every_option_exit_with_a_message(command, tmp_path, monkeypatch):
    for var in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "TREEGYM_MODEL", "TREEGYM_ALLOWED_HOSTS", "TREEGYM_SERVE_EXPERT"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.chdir(tmp_path)
    base = _base(tmp_path)[command]
    rng = rng_for(f"cli:{command}")
    folder = tmp_path / "a-folder"
    folder.mkdir()
    cases = [(a, v) for a in _options(command) for v in BAD]
    rng.shuffle(cases)
    for action, value in cases[:count(len(cases))]:
        if not action.option_strings and value in ("/", "..", FOLDER) and command in ("report",):
            continue  # a folder of runs is searched recursively: valid input, not a bad value
        if command == "serve" and (action.dest == "allow_host" or (action.dest == "port" and value == "0")):
            continue  # any host name may be allowed, and port 0 is "a free port": serve would start
        value = str(folder) if value == FOLDER else value
        argv = _with(base, action, value)
        code, err = _run(argv)
        tally("CLI invocations")
        assert code in (0, 1, 2), (argv, code, err[-2000:])
        assert "Traceback" not in err, (argv, err[-2000:])
        if command == "serve":
            assert code != 0, (argv, "serve accepted a bad value")
