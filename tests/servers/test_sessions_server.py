"""The generic session server (servers/sessions.py) and EngineEnv's remote mode, on a small engine."""
from __future__ import annotations

import json
import urllib.error
import urllib.request

import numpy as np
import pytest
from support.line_engine import LineEngine, LineState

from treegym.envs.core import EngineEnv, check_rollback, clone, restore, snapshot
from treegym.envs.core.engine_env import RemoteState, SessionServerError
from treegym.envs.core.snapshot import SnapshotError
from treegym.servers.run import serve_in_thread
from treegym.servers.sessions import create_session_app


@pytest.fixture(scope="module")
def server():
    app = create_session_app({"plain": LineEngine(), "shout": LineEngine(shout=True)}, max_content_length=2048,
                             serve_expert=True)
    with serve_in_thread(app) as srv:
        yield srv


def call(url, method="GET", body=None, raw=None):
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    req = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        assert "json" in exc.headers.get("Content-Type", ""), "errors must be JSON"
        return exc.code, json.loads(exc.read())


def test_served_on_loopback_by_default(server):
    assert server.url.startswith("http://127.0.0.1:")
    status, health = call(f"{server.url}/api/health")
    assert status == 200 and health["status"] == "ok" and health["variants"] == ["plain", "shout"]
    assert call(f"{server.url}/api/tasks") == (200, {"splits": {"train": [1, 2], "test": [3, 4]}, "default_split": None})


def test_remote_env_sees_what_the_in_process_env_sees(server):
    local = EngineEnv(LineEngine(), split="test", max_steps=8)
    remote = EngineEnv(LineEngine(), split="test", max_steps=8, server_url=server.url, variant="plain")
    rng = np.random.default_rng(0)
    steps = 0
    for episode in range(6):
        a, b = local.reset(seed=episode), remote.reset(seed=episode)
        assert a == b
        for _ in range(10):
            if rng.random() < 0.5:
                action = local.expert().next_action
            else:
                action = str(rng.choice(["left", "right", "stay", "fly", 7]))
            assert remote.expert() == local.expert()
            x, y = local.step(action), remote.step(action)
            steps += 1
            assert x == y, action
            if x[2] or x[3]:
                break
    assert steps > 20
    remote.close()


def test_remote_env_passes_check_rollback_and_clones_to_a_new_session(server):
    env = EngineEnv(LineEngine(), split="test", max_steps=10, server_url=server.url)
    report = check_rollback(env, n_trajectories=3, max_depth=6)
    assert report.kind == "native" and report.restores == 9
    env.reset(seed=1)
    env.step("right")
    snap = snapshot(env)
    assert isinstance(snap.payload, RemoteState) and json.loads(snap.payload.json)["at"] == 2
    env.step("right")
    assert restore(env, snap)[0]["text"] == "at 2"
    twin = clone(env)
    assert twin.runner.client.session_id != env.runner.client.session_id
    assert twin.step("win")[1] == 0.0 and env.step("right")[0]["text"] == "at 3"  # independent sessions
    with pytest.raises(SnapshotError, match="remote mode"):
        restore(EngineEnv(LineEngine(), split="test"), snap)
    local = EngineEnv(LineEngine(), split="test")
    local.reset()
    with pytest.raises(SnapshotError, match="in-process"):
        restore(env, snapshot(local))
    twin.close()
    env.close()


def test_remote_env_without_a_local_engine_reads_the_task_list(server):
    env = EngineEnv(None, split="train", server_url=server.url, variant="shout")
    obs, info = env.reset(seed=1)
    assert info["task_id"] == 2 and obs["text"] == "AT 1" and env.task.spec == 2
    with pytest.raises(ValueError, match="unknown split 'dev'"):
        EngineEnv(None, split="dev", server_url=server.url)
    with pytest.raises(ValueError, match="needs an engine"):
        EngineEnv(None)
    env.close()


def test_remote_env_without_a_server_says_what_to_do():
    env = EngineEnv(LineEngine(), server_url="http://127.0.0.1:9")
    with pytest.raises(SessionServerError, match="cannot reach the session server at http://127.0.0.1:9"):
        env.reset()
    with pytest.raises(ValueError, match="http"):
        EngineEnv(LineEngine(), server_url="127.0.0.1:9")


def test_session_api_create_step_snapshot_restore_fork_close(server):
    u = server.url
    status, made = call(f"{u}/api/sessions", "POST", {"task_id": 3, "seed": 2, "variant": "shout"})
    assert status == 201 and made["observation"]["text"] == "AT 2" and made["task_id"] == 3
    sid = made["session_id"]
    status, out = call(f"{u}/api/sessions/{sid}/step", "POST", {"action": "right"})
    assert status == 200 and out["observation"]["text"] == "AT 3" and out["reward"] == 0.0 and not out["terminated"]
    state = call(f"{u}/api/sessions/{sid}/snapshot", "POST")[1]["state"]
    assert state == {"target": 3, "at": 3, "done": False, "notice": ""}
    status, fork = call(f"{u}/api/sessions/{sid}/fork", "POST")
    fid = fork["session_id"]
    assert status == 201 and fid != sid and fork["observation"]["text"] == "AT 3"
    out = call(f"{u}/api/sessions/{sid}/step", "POST", {"action": "win"})[1]
    assert out["reward"] == 1.0 and out["terminated"] and out["info"]["success"]
    assert call(f"{u}/api/sessions/{fid}")[1]["state"]["done"] is False  # the fork did not move
    assert call(f"{u}/api/sessions/{sid}/expert")[1] == {"available": True, "action": None, "plan": [],
                                                           "value": 1.0, "solvable": True}
    status, back = call(f"{u}/api/sessions/{sid}/restore", "POST", {"state": state})
    assert status == 200 and back["observation"]["text"] == "AT 3" and not back["terminated"]
    assert call(f"{u}/api/sessions/{sid}/expert")[1]["plan"] == ["win"]
    status, again = call(f"{u}/api/sessions/{sid}/reset", "POST", {})
    assert status == 200 and again["task_id"] == 3 and again["observation"]["text"] == "AT 0"
    assert call(f"{u}/api/sessions/{sid}", "DELETE") == (200, {"closed": sid})
    assert call(f"{u}/api/sessions/{sid}")[0] == 404
    status, from_state = call(f"{u}/api/sessions", "POST", {"state": state})
    assert status == 201 and from_state["observation"]["text"] == "at 3"  # the default variant
    status, err = call(f"{u}/api/sessions/{from_state['session_id']}/reset", "POST", {})
    assert status == 400 and "task_id" in err["error"]


def test_errors_are_json_say_what_to_do_and_leave_the_session_alone(server):
    u = server.url
    sid = call(f"{u}/api/sessions", "POST", {"task_id": 1})[1]["session_id"]
    cases = [
        (("/api/sessions/nope/step", "POST", {"action": "left"}), 404, "POST /api/sessions"),
        ((f"/api/sessions/{'x' * 80}", "GET", None), 404, "session ids"),
        (("/api/no/such/route", "GET", None), 404, ""),
        (("/api/sessions", "POST", {"task_id": 9}), 400, "tasks are 1..4"),
        (("/api/sessions", "POST", {"split": "dev"}), 400, "unknown split 'dev'"),
        (("/api/sessions", "POST", {"task_id": 1, "variant": "whisper"}), 400, "unknown variant 'whisper'"),
        (("/api/sessions", "POST", {"task_id": 1, "seed": "x"}), 400, "seed must be an integer"),
        ((f"/api/sessions/{sid}/step", "POST", {"action": ["left"]}), 400, "string action"),
        ((f"/api/sessions/{sid}/restore", "POST", {"state": {"at": 1}}), 400, "bad session state"),
        ((f"/api/sessions/{sid}/restore", "POST", {}), 400, "restore needs"),
        ((f"/api/sessions/{sid}/step", "POST", {"action": "x" * 5000}), 413, "too large"),
        ((f"/api/sessions/{sid}/step", "POST", {"action": "boom"}), 500, "RuntimeError: the engine broke"),
    ]
    for (path, method, body), code, words in cases:
        status, err = call(u + path, method, body)
        assert status == code and words in err["error"], (path, body, status, err)
    assert call(f"{u}/api/sessions/{sid}/step", "POST", raw=b"{not json")[0] == 400
    got = call(f"{u}/api/sessions/{sid}")[1]
    assert got["state"] == {"target": 1, "at": 0, "done": False, "notice": ""} and got["variant"] == "plain"


def test_sessions_expire_after_the_ttl_and_the_store_is_bounded():
    now = [1000.0]  # a fake clock: the test does not depend on how fast the machine is
    app = create_session_app(LineEngine(), ttl=60, max_sessions=2, clock=lambda: now[0])
    client = app.test_client()
    sid = client.post("/api/sessions", json={"task_id": 1}).get_json()["session_id"]
    now[0] += 59
    assert client.get(f"/api/sessions/{sid}").status_code == 200  # used: its 60 s start again
    now[0] += 61
    resp = client.get(f"/api/sessions/{sid}")
    assert resp.status_code == 404 and "expired" in resp.get_json()["error"]
    full = create_session_app(LineEngine(), max_sessions=1).test_client()
    assert full.post("/api/sessions", json={}).status_code == 201
    resp = full.post("/api/sessions", json={})
    assert resp.status_code == 503 and "limit" in resp.get_json()["error"]


def test_state_json_round_trips_through_the_engine():
    engine = LineEngine()
    s = LineState(target=2, at=1, notice="n")
    assert engine.state_from_json(json.loads(json.dumps(engine.state_to_json(s)))) == s


def test_a_server_killed_mid_episode_gives_a_clear_error_and_a_restart_resumes_from_a_snapshot():
    app = create_session_app(LineEngine())
    with serve_in_thread(app) as srv:
        env = EngineEnv(LineEngine(), split="test", server_url=srv.url)
        env.reset(seed=0)
        env.step("right")
        snap = snapshot(env)
    with pytest.raises(SessionServerError, match="cannot reach the session server"):
        env.step("right")
    with serve_in_thread(create_session_app(LineEngine())) as srv2:  # a new server: the old session is gone
        again = EngineEnv(LineEngine(), split="test", server_url=srv2.url)
        obs, info = restore(again, snap)  # the snapshot holds the state, so nothing is lost
        assert obs["text"] == "at 1" and info["steps"] == 1
        assert again.step("right")[0]["text"] == "at 2"
        again.close()


# ----------------------------------------------------------------------------- faults the fuzzers found (issue 25)

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
