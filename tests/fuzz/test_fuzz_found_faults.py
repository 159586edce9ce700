"""Faults the fuzzers found (issue 25), one regression test each (B-MoCA's are in test_fuzz_android.py).

Hangs and crashes, wrong numbers, documented paths that failed, resources and
exposure: every repro gives the behaviour a user expects.
"""
from __future__ import annotations

import http.client
import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import gymnasium as gym
import pytest

from support.paths import REPO as ROOT
import treegym.envs  # noqa: F401
from treegym.scripts.cli import main

from fuzzing import deep_json, no_hang  # noqa: E402

needs_textworld = pytest.mark.skipif(importlib.util.find_spec("textworld") is None,
                                     reason="textworld is not installed (pip install 'treegym[textworld]')")


def _records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


# ----------------------------------------------------------------------------- hangs and crashes
@needs_textworld
def test_textworld_backslash_commands_are_answered_not_hung(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    env = gym.make("treegym/TextWorld-v0")
    env.reset(seed=0)
    for action in ["\\c", "\\boxed{look}", " \\q", "Action: \\boxed{go north}"]:
        obs, *_ = no_hang(env.step, action, what=f"TextWorld step({action!r})", bound=60)
        assert isinstance(obs["text"], str)
    obs, *_ = env.step("look")
    assert "-=" in obs["text"]  # the game still answers normally
    for action in ["save", "script", "restore"]:  # the interpreter's file commands never write files
        obs, *_ = env.step(action)
        assert "turned off" in obs["text"]
    assert list(tmp_path.iterdir()) == []
    env.close()


@pytest.mark.parametrize("env_id", ["treegym/ToolBench-v0", "treegym/RestBench-v0", "treegym/ToolTasks-v0"])
def test_tool_envs_answer_deeply_nested_json_as_an_invalid_action(env_id):
    env = gym.make(env_id)
    env.reset(seed=0)
    for action in [deep_json(1_000), '{"name": "x", "arguments": ' + deep_json(1_000, "object") + "}",
                   {"name": "x", "arguments": json.loads(deep_json(200, "object"))}]:
        obs, reward, terminated, truncated, info = env.step(action)
        assert reward == 0.0 and not terminated and obs["text"]
    env.close()


@pytest.fixture(scope="module")
def tools_server():
    from treegym.servers.run import serve_in_thread
    from treegym.servers.toolbench import create_app

    with serve_in_thread(create_app()) as srv:
        yield srv


def _http(srv, method: str, path: str, body: bytes | None = None, headers: dict | None = None):
    conn = http.client.HTTPConnection(srv.host, srv.port, timeout=60)
    try:
        conn.request(method, path, body=body, headers=headers or ({"Content-Type": "application/json"} if body else {}))
        resp = conn.getresponse()
        raw = resp.read()
        return resp.status, (json.loads(raw) if raw.startswith((b"{", b"[")) else raw)
    finally:
        conn.close()


def test_session_routes_refuse_deep_json_and_an_infinite_task_id(tools_server):
    status, made = _http(tools_server, "POST", "/api/sessions", b'{"seed": 0}')
    sid = made["session_id"]
    deep = deep_json(1_000).encode()
    for path in ["/api/sessions", f"/api/sessions/{sid}/step", f"/api/sessions/{sid}/reset",
                 f"/api/sessions/{sid}/restore", "/restbench/api/sessions", "/virtual"]:
        status, body = _http(tools_server, "POST", path, deep)
        assert status in (400, 422), (path, status, body)
    status, body = _http(tools_server, "POST", "/api/sessions", b'{"task_id": 1e309}')
    assert status == 400 and "task_id" in body["error"]


@pytest.mark.parametrize("prefix,field,value", [("", "calls", [{"name": 1}]), ("", "world", {"tables": 3}),
                                                ("/restbench", "calls", [{"method": "GET"}]),
                                                ("/tooltasks", "world", [None])])
def test_restore_refuses_a_state_the_engine_cannot_use_and_leaves_the_session_unchanged(tools_server, prefix, field,
                                                                                       value):
    api = f"{prefix}/api/sessions"
    status, made = _http(tools_server, "POST", api, b'{"seed": 1}')
    sid = made["session_id"]
    action = (made["observation"].get("valid_actions") or ["x"])[0]
    _http(tools_server, "POST", f"{api}/{sid}/step", json.dumps({"action": action}).encode())
    before = _http(tools_server, "GET", f"{api}/{sid}")[1]
    bad = dict(before["state"], **{field: value})
    status, body = _http(tools_server, "POST", f"{api}/{sid}/restore", json.dumps({"state": bad}).encode())
    assert status == 400 and "bad session state" in body["error"]
    after = _http(tools_server, "GET", f"{api}/{sid}")[1]
    assert after["state"] == before["state"]
    assert _http(tools_server, "POST", f"{api}/{sid}/step", json.dumps({"action": action}).encode())[0] == 200


# ----------------------------------------------------------------------------- exposure
def test_every_server_refuses_foreign_host_and_origin_unless_allowed(catalog):
    from treegym.servers.run import serve_in_thread
    from treegym.servers.toolbench import create_app as tools_app
    from treegym.servers.webshop import create_app as webshop_app

    for app in (tools_app(), webshop_app(catalog)):
        with serve_in_thread(app) as srv:
            # a web page's cross-origin text/plain POST (no preflight), and DNS rebinding (a foreign Host)
            status, body = _http(srv, "POST", "/api/sessions", b"{}", {"Content-Type": "text/plain",
                                                                      "Origin": "http://evil.example"})
            assert status == 403 and "cross-origin" in body["error"]
            status, body = _http(srv, "POST", "/api/sessions", b"{}", {"Host": "evil.example"})
            assert status == 403 and "evil.example" in body["error"]
            status, _ = _http(srv, "POST", "/api/sessions", b"{}", {"Origin": f"http://127.0.0.1:{srv.port}"})
            assert status == 201  # the site's own pages, and clients sending no Origin, are served
    from treegym.servers.sessions import create_session_app
    from support.line_engine import LineEngine

    with serve_in_thread(create_session_app(LineEngine(), allowed_hosts=["shop.lan"])) as srv:
        assert _http(srv, "POST", "/api/sessions", b"{}", {"Host": "shop.lan:80"})[0] == 201
        assert _http(srv, "POST", "/api/sessions", b"{}", {"Host": "evil.example"})[0] == 403


def test_expert_is_opt_in():
    from support.line_engine import LineEngine
    from treegym.servers.sessions import create_session_app

    for enabled in (False, True):
        client = create_session_app(LineEngine(), serve_expert=enabled).test_client()
        sid = client.post("/api/sessions", json={}).get_json()["session_id"]
        resp = client.get(f"/api/sessions/{sid}/expert")
        assert resp.status_code == (200 if enabled else 403)
        if not enabled:
            assert "--expert" in resp.get_json()["error"]


# ----------------------------------------------------------------------------- wrong numbers
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


def test_report_refuses_a_string_success_and_counts_wrong_answers(tmp_path, capsys):
    out = tmp_path / "runs.jsonl"
    assert main(["run", "treegym/Game24-v0", "--agent", "random", "--tasks", "0:4", "--out", str(out),
                 "--no-progress"]) == 0
    records = _records(out)
    assert all(r["success"] is False and r["error"] is None for r in records)  # four wrong answers
    assert main(["report", str(out), "--out", str(tmp_path / "rep"), "--no-figures"]) == 0
    table = (tmp_path / "rep").glob("*.csv")
    rows = [line for f in table for line in f.read_text().splitlines()[1:]]
    header = next((tmp_path / "rep").glob("*.csv")).read_text().splitlines()[0].split(",")
    assert rows and rows[0].split(",")[header.index("wrong")] == "4"
    records[0]["success"] = "false"
    out.write_text("".join(json.dumps(r) + "\n" for r in records))
    capsys.readouterr()
    assert main(["report", str(out), "--out", str(tmp_path / "rep2"), "--no-figures"]) == 2
    assert "must be true or false" in capsys.readouterr().err


def test_alfworld_numeric_tasks_are_refused_before_any_episode(tmp_path, capsys):
    out = tmp_path / "a.jsonl"
    assert main(["run", "treegym/ALFWorld-v0", "--agent", "oracle", "--tasks", "0:5", "--out", str(out)]) == 2
    assert "not task(s) of treegym/ALFWorld-v0" in capsys.readouterr().err and not out.exists()


def test_split_reaches_the_env(tmp_path):
    from treegym.envs.alfworld.env import ALFWorldEnv

    tid = ALFWorldEnv.split_task_ids("generated_train")[0]
    out = tmp_path / "g.jsonl"
    assert main(["run", "treegym/ALFWorld-v0", "--agent", "oracle", "--split", "generated_train", "--tasks", tid,
                 "--out", str(out), "--no-progress"]) == 0
    (rec,) = _records(out)
    assert rec["success"] and rec["config"]["split"] == "generated_train"


# ----------------------------------------------------------------------------- documented paths
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
    done = _treegym("check", "plugged/NumberWalk-v0", cwd=ROOT, env={"PYTHONPATH": str(tmp_path)})
    assert done.returncode == 0 and "rollback OK" in done.stdout, done.stderr
    done = _treegym("check", "nowhere/Nothing-v0", cwd=ROOT)
    assert done.returncode == 2 and "module:EnvId" in done.stderr


def test_default_split_falls_back_to_the_envs_own(tmp_path, capsys):
    out = tmp_path / "alf.jsonl"
    from treegym.scripts.run_checks import default_split, select_tasks
    from treegym.envs.alfworld.env import ALFWorldEnv

    assert default_split(ALFWorldEnv, {"expert": "handcoded"}) == "valid_unseen"
    ids, split = select_tasks("treegym/ALFWorld-v0", ALFWorldEnv, None, None, {"expert": "handcoded"})
    assert split == "valid_unseen" and len(ids) == 134
    assert main(["run", "treegym/ALFWorld-v0", "--agent", "oracle", "--env-opt", "expert=handcoded",
                 "--tasks", ",".join(ids[:2]), "--out", str(out), "--no-progress"]) == 0
    assert all(r["success"] for r in _records(out))


@needs_textworld
def test_textworld_game_dir_runs_on_its_own_split(tmp_path):
    games = tmp_path / "mygames"
    games.mkdir()
    for f in (ROOT / "envs" / "textworld" / "games").glob("coin_1.*"):
        (games / f.name).write_bytes(f.read_bytes())
    out = tmp_path / "tw.jsonl"
    assert main(["run", "treegym/TextWorld-v0", "--env-opt", f"game_dir={games}", "--agent", "oracle",
                 "--out", str(out), "--no-progress"]) == 0
    (rec,) = _records(out)
    assert rec["success"] and rec["config"]["split"] == "all"


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


# ----------------------------------------------------------------------------- resources
@pytest.mark.slow
def test_process_workers_exit_with_a_killed_parent(tmp_path):
    script = ("import time\nfrom treegym.agents.experiments.process_pool import ThreadedProcessPool\n"
              "pool = ThreadedProcessPool(1, 1)\nfut = pool.submit(time.sleep, (3600,))\n"
              "time.sleep(1)\nprint(pool.pids[0], flush=True)\ntime.sleep(3600)\n")
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    worker = int(parent.stdout.readline())
    os.kill(parent.pid, signal.SIGKILL)
    parent.wait()

    def gone() -> bool:
        while True:
            try:
                os.kill(worker, 0)
            except ProcessLookupError:
                return True
            with open(f"/proc/{worker}/stat") as f:
                if f.read().split(") ", 1)[1].startswith("Z"):
                    return True
            time.sleep(0.05)

    assert no_hang(gone, what=f"worker {worker} still running after its parent was killed", bound=120)
