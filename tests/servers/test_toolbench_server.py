"""The tool server: ToolBench's /rapidapi and StableToolBench's /virtual contract, sessions, HTTP-mode env."""
from __future__ import annotations

import json
import urllib.error
import urllib.request

import gymnasium as gym
import pytest

from fuzzing import deep_json
from support.http_json import http_json

pytest.importorskip("flask")

import treegym.envs as te  # noqa: E402
from treegym.envs.toolbench.data import shipped_tasks  # noqa: E402
from treegym.servers.run import BackgroundServer  # noqa: E402
from treegym.servers.toolbench import create_app  # noqa: E402


@pytest.fixture(scope="module")
def server():
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TREEGYM_SERVE_EXPERT", "1")  # these tests compare the expert in-process and over HTTP
        app = create_app()
    srv = BackgroundServer(app, "127.0.0.1", 0).start()
    yield srv
    srv.stop()


def _post(url, body, headers=None):
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                 headers=dict({"Content-Type": "application/json"}, **(headers or {})))
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def _toolbench_client_step(service_url, category, tool, api, action_input):
    """What ToolBench's rapidapi_wrapper._step sends and how it reads the answer."""
    payload = {"category": category, "tool_name": tool, "api_name": api, "tool_input": action_input,
               "strip": "truncate", "toolbench_key": "any"}
    status, response = _post(service_url, payload, headers={"toolbench_key": "any"})
    assert status == 200 and set(response) == {"error", "response"}
    return response


def test_upstream_routes_answer_like_the_toolbench_service(server):
    svc_task = next(t for t in shipped_tasks() if t["template"] == "book_cheapest_flight")
    args = svc_task["gold"]["reference_calls"][0]["arguments"]
    for route in ("/rapidapi", "/virtual"):
        # StableToolBench sends the tool as {tool}_for_{Category} and may keep _for_{tool} on the api
        r = _toolbench_client_step(server.url + route, "Travel", "skyroutes_for_Travel", "search_flights_for_skyroutes",
                                   json.dumps(args))
        assert r["error"] == "" and json.loads(r["response"])["count"] >= 1
    r = _toolbench_client_step(server.url + "/virtual", "Travel", "SkyRoutes", "Search Flights", args)  # dict input
    assert r["error"] == ""
    r = _toolbench_client_step(server.url + "/virtual", "Travel", "skyroutes", "book_flight", '{"flight_id": "FL-1001"}')
    assert r["error"].startswith("Function executing") and "missing 1 required positional argument: 'passengers'" in r["error"]
    r = _toolbench_client_step(server.url + "/virtual", "Travel", "skyroutes", "book_flight", "{not json")
    assert r == {"error": "Tool input parse error...\n", "response": ""}
    r = _toolbench_client_step(server.url + "/rapidapi", "Travel", "nosuchtool", "x", "{}")
    assert r["error"] == "API not working error..."
    status, body = _post(server.url + "/virtual", {"category": "Travel"})
    assert status == 422 and "missing field" in body["error"]


def _get(url):
    with urllib.request.urlopen(url) as r:
        return json.loads(r.read())


def test_sessions_snapshot_restore_fork_and_isolation(server):
    tid = next(t["query_id"] for t in shipped_tasks() if t["template"] == "book_cheapest_flight")
    status, a = _post(server.url + "/api/sessions", {"task_id": tid})
    assert status == 201 and a["observation"]["text"].startswith("Book the cheapest")
    sid = a["session_id"]
    plan = _get(f"{server.url}/api/sessions/{sid}/expert")["plan"]
    _post(f"{server.url}/api/sessions/{sid}/step", {"action": plan[0]})
    _, snap = _post(f"{server.url}/api/sessions/{sid}/snapshot", {})
    _, booked = _post(f"{server.url}/api/sessions/{sid}/step", {"action": plan[1]})
    assert json.loads(json.loads(booked["observation"]["text"])["response"])["booking_id"] == "BK-0001"
    _, fork = _post(f"{server.url}/api/sessions/{sid}/fork", {})
    _post(f"{server.url}/api/sessions/{sid}/restore", snap)
    _, again = _post(f"{server.url}/api/sessions/{sid}/step", {"action": plan[1]})
    assert again["observation"] == booked["observation"]  # the booking was undone, then redone identically
    # the fork kept its own world: a second booking there gets the next id
    _, second = _post(f"{server.url}/api/sessions/{fork['session_id']}/step", {"action": plan[1]})
    assert json.loads(json.loads(second["observation"]["text"])["response"])["booking_id"] == "BK-0002"
    # an upstream-style call bound to a session is a step of that episode
    call = json.loads(plan[0])
    status, r = _post(server.url + "/virtual", {"category": "Travel", "tool_name": "skyroutes", "api_name": call["name"],
                                                "tool_input": call["arguments"], "strip": "", "toolbench_key": "",
                                                "session_id": sid})
    assert status == 200 and r["error"] == ""
    assert len(_get(f"{server.url}/api/sessions/{sid}")["state"]["calls"]) == 3
    # the hidden-reward variant
    _, h = _post(server.url + "/api/sessions", {"task_id": tid, "variant": "hidden"})
    for action in plan:
        _, out = _post(f"{server.url}/api/sessions/{h['session_id']}/step", {"action": action})
    assert out["reward"] == 0.0 and out["info"]["success"] is True
    req = urllib.request.Request(f"{server.url}/api/sessions/{sid}", method="DELETE")
    urllib.request.urlopen(req).close()
    status, body = _post(f"{server.url}/api/sessions/{sid}/step", {"action": plan[1]})
    assert status == 404 and "POST /api/sessions" in body["error"]
    status, body = _post(server.url + "/virtual", {"category": "Travel", "tool_name": "skyroutes", "api_name": "x",
                                                   "tool_input": "{}", "session_id": sid})
    assert status == 200 and body["error"] == "API not working error..."
    status, body = _post(server.url + "/virtual", {"category": "Travel", "tool_name": "skyroutes",
                                                   "api_name": call["name"], "tool_input": "{}", "session_id": sid})
    assert status == 404
    status, body = _post(server.url + "/api/sessions", {"task_id": 1})
    assert status == 400 and "unknown ToolBench task" in body["error"]


def test_http_mode_env_gives_the_same_observations_as_in_process(server):
    ids = [t["query_id"] for t in shipped_tasks() if t["split"] == "dev"][::4]
    local = gym.make("treegym/ToolBench-v0", split="all")
    remote = gym.make("treegym/ToolBench-v0", split="all", server_url=server.url)
    for tid in ids:
        a = local.reset(options={"task_id": tid})
        b = remote.reset(options={"task_id": tid})
        assert a == b
        snap_l = snap_r = None
        while True:
            act = local.unwrapped.expert_action()
            assert act == remote.unwrapped.expert_action()
            a, b = local.step(act), remote.step(act)
            assert a == b, tid
            if snap_l is None:
                snap_l, snap_r = te.snapshot(local), te.snapshot(remote)
            if a[2] or a[3]:
                break
        assert te.restore(local, snap_l) == te.restore(remote, snap_r)
        assert remote.unwrapped.task_fields() == local.unwrapped.task_fields()
    report = te.check_rollback(gym.make("treegym/ToolBench-v0", task_ids=ids[:1], server_url=server.url),
                               n_trajectories=2, max_depth=6, run_check_env=False)
    assert report.steps_checked > 0


def test_http_mode_refuses_an_unreachable_server():
    with pytest.raises(Exception, match="treegym serve tools"):
        env = gym.make("treegym/ToolBench-v0", server_url="http://127.0.0.1:9")
        env.reset()


def test_rest_routes_serve_the_restbench_mocks(server):
    with urllib.request.urlopen(server.url + "/rest/tmdb/search/movie?query=the") as r:
        body = json.loads(r.read())
    assert r.status == 200 and body["total_results"] >= 1
    mid = body["results"][0]["id"]
    with urllib.request.urlopen(f"{server.url}/rest/tmdb/movie/{mid}/credits") as r:
        assert json.loads(r.read())["crew"][0]["job"] == "Director"
    status, created = _post(server.url + "/rest/spotify/users/treegym_user/playlists", {"name": "Server Mix"})
    assert status == 201 and created["name"] == "Server Mix"
    with urllib.request.urlopen(server.url + "/rest/spotify/me/playlists") as r:
        assert "Server Mix" in [p["name"] for p in json.loads(r.read())["items"]]
    status, body = _post(server.url + "/rest/spotify/me", {})
    assert status == 405
    try:
        urllib.request.urlopen(server.url + "/rest/tmdb/movie/999999")
    except urllib.error.HTTPError as exc:
        assert exc.code == 404 and "could not be found" in json.loads(exc.read())["status_message"]
    else:
        raise AssertionError("expected 404")


@pytest.mark.parametrize("env_id,prefix,task_id", [("treegym/RestBench-v0", "/restbench", 50020),
                                                    ("treegym/ToolTasks-v0", "/tooltasks", "virtual_home-003")])
def test_restbench_and_tooltasks_http_mode_match_in_process(server, env_id, prefix, task_id):
    local = gym.make(env_id, split="all")
    remote = gym.make(env_id, split="all", server_url=server.url + prefix)
    assert local.reset(options={"task_id": task_id}) == remote.reset(options={"task_id": task_id})
    snaps = None
    while True:
        act = local.unwrapped.expert_action()
        assert act == remote.unwrapped.expert_action()
        a, b = local.step(act), remote.step(act)
        assert a == b
        if snaps is None:
            snaps = (te.snapshot(local), te.snapshot(remote))
        if a[2] or a[3]:
            break
    assert te.restore(local, snaps[0]) == te.restore(remote, snaps[1])
    remote.close()


# ----------------------------------------------------------------------------- faults the fuzzers found (issue 25)

@pytest.fixture(scope="module")
def tools_server():
    from treegym.servers.run import serve_in_thread
    from treegym.servers.toolbench import create_app

    with serve_in_thread(create_app()) as srv:
        yield srv


def test_session_routes_refuse_deep_json_and_an_infinite_task_id(tools_server):
    status, made = http_json(tools_server, "POST", "/api/sessions", b'{"seed": 0}')
    sid = made["session_id"]
    deep = deep_json(1_000).encode()
    for path in ["/api/sessions", f"/api/sessions/{sid}/step", f"/api/sessions/{sid}/reset",
                 f"/api/sessions/{sid}/restore", "/restbench/api/sessions", "/virtual"]:
        status, body = http_json(tools_server, "POST", path, deep)
        assert status in (400, 422), (path, status, body)
    status, body = http_json(tools_server, "POST", "/api/sessions", b'{"task_id": 1e309}')
    assert status == 400 and "task_id" in body["error"]


@pytest.mark.parametrize("prefix,field,value", [("", "calls", [{"name": 1}]), ("", "world", {"tables": 3}),
                                                ("/restbench", "calls", [{"method": "GET"}]),
                                                ("/tooltasks", "world", [None])])
def test_restore_refuses_a_state_the_engine_cannot_use_and_leaves_the_session_unchanged(tools_server, prefix, field,
                                                                                       value):
    api = f"{prefix}/api/sessions"
    status, made = http_json(tools_server, "POST", api, b'{"seed": 1}')
    sid = made["session_id"]
    action = (made["observation"].get("valid_actions") or ["x"])[0]
    http_json(tools_server, "POST", f"{api}/{sid}/step", json.dumps({"action": action}).encode())
    before = http_json(tools_server, "GET", f"{api}/{sid}")[1]
    bad = dict(before["state"], **{field: value})
    status, body = http_json(tools_server, "POST", f"{api}/{sid}/restore", json.dumps({"state": bad}).encode())
    assert status == 400 and "bad session state" in body["error"]
    after = http_json(tools_server, "GET", f"{api}/{sid}")[1]
    assert after["state"] == before["state"]
    assert http_json(tools_server, "POST", f"{api}/{sid}/step", json.dumps({"action": action}).encode())[0] == 200
