"""Issue 31 item 4 and the JSON API's messages: a state every route cannot serve is refused at
restore with one line naming the field (envs/core/state_json.py, each family's state_from_json),
and an over-long JSON integer is called that, not "not a JSON object"."""
from __future__ import annotations

import http.client
import json

import gymnasium as gym
import pytest

from treegym.envs.core.signed import StateSigner
from treegym.envs.core.state_json import StateReader
from treegym.servers.env_server import create_env_app
from treegym.servers.run import serve_in_thread


def _post(srv, path: str, body: bytes) -> tuple[int, dict]:
    conn = http.client.HTTPConnection(srv.host, srv.port, timeout=60)
    try:
        conn.request("POST", path, body=body, headers={"Content-Type": "application/json"})
        resp = conn.getresponse()
        return resp.status, json.loads(resp.read())
    finally:
        conn.close()


def _get(srv, path: str) -> dict:
    conn = http.client.HTTPConnection(srv.host, srv.port, timeout=60)
    try:
        conn.request("GET", path)
        return json.loads(conn.getresponse().read())
    finally:
        conn.close()


@pytest.fixture(scope="module")
def tooltasks():
    with serve_in_thread(create_env_app("treegym/ToolTasks-v0")) as srv:
        yield srv


def _session_on(srv, task_id: str) -> tuple[str, dict]:
    status, made = _post(srv, "/api/sessions", json.dumps({"task_id": task_id}).encode())
    assert status == 201, made
    sid = made["session_id"]
    return sid, _get(srv, f"/api/sessions/{sid}")["state"]


@pytest.mark.parametrize("task, path, value, names", [
    ("virtual_home-001", ("objects", "cup", "in"), [], "world.objects.cup.in"),  # was 200, then every step 500
    ("virtual_home-001", ("objects", "cup", "in"), "no-such-thing", "world.objects.cup.in"),
    ("virtual_home-001", ("objects", "cup", "room"), 3, "world.objects.cup.room"),
])
def test_a_tooltasks_world_the_handlers_cannot_use_is_refused_naming_the_field(tooltasks, task, path, value, names):
    sid, state = _session_on(tooltasks, task)
    bad = json.loads(json.dumps(state))
    where = bad["world"]
    for key in path[:-1]:
        where = where[key]
    where[path[-1]] = value
    status, answer = _post(tooltasks, f"/api/sessions/{sid}/restore", json.dumps({"state": bad}).encode())
    assert status == 400 and names in answer["error"] and "\n" not in answer["error"], answer
    assert _get(tooltasks, f"/api/sessions/{sid}")["state"] == state  # the session is as it was
    status, _ = _post(tooltasks, f"/api/sessions/{sid}/step", json.dumps({"action": "look"}).encode())
    assert status == 200


def test_a_sheet_whose_cells_cannot_be_sorted_is_refused(tooltasks):
    sid, state = _session_on(tooltasks, next(t for t in _task_ids() if t.startswith("sheets")))
    bad = json.loads(json.dumps(state))
    bad["world"]["sheet"]["rows"][1][0] = None  # sort_rows compared None with str: '<' not supported
    status, answer = _post(tooltasks, f"/api/sessions/{sid}/restore", json.dumps({"state": bad}).encode())
    assert status == 400 and "world.sheet.rows" in answer["error"], answer


def _task_ids() -> list[str]:
    env = gym.make("treegym/ToolTasks-v0")
    try:
        return list(env.unwrapped.task_pool.ids("all"))
    finally:
        env.close()


@pytest.mark.parametrize("env_id, field, value, says", [
    ("treegym/ALFWorld-v0", "moves", "3", "'moves' must be an integer"),
    ("treegym/ALFWorld-v0", "facts", [["holds", "agent1"]], "not a fact"),
    ("treegym/ToolBench-v0", "done", 1, "'done' must be true or false"),
    ("treegym/RestBench-v0", "evaluation", "[]", "'evaluation' must be JSON text of an object"),
    ("treegym/ToolTasks-v0", "observation", "\ud800", "'observation' holds a lone surrogate"),
    ("treegym/ToolTasks-v0", "task_id", [1], "'task_id' must be an integer"),
])
def test_every_family_names_the_wrong_field_in_process(env_id, field, value, says):
    env = gym.make(env_id).unwrapped
    env.reset(seed=0)
    engine = env.engine
    data = json.loads(json.dumps(engine.state_to_json(env.state)))
    data[field] = value
    with pytest.raises(ValueError, match=says):
        engine.state_from_json(data)
    env.close()


def test_the_reader_refuses_coercions_and_bounds_integers():
    r = StateReader({"n": 2 ** 60, "t": ["a", 1], "b": 0}, "test state")
    with pytest.raises(ValueError, match=r"'n' must be an integer in .* got 1152921504606846976"):
        r.integer("n")
    with pytest.raises(ValueError, match=r"'t\[1\]' must be a string"):
        r.texts_of(r.get("t"), "t")
    with pytest.raises(ValueError, match="'b' must be true or false"):
        r.flag("b")
    with pytest.raises(ValueError, match="has no field 'x'"):
        r.text("x")


def test_a_signed_state_with_a_non_ascii_mac_is_refused_as_not_ours():
    signer = StateSigner("state")
    data = signer.dumps(("x", 1))
    with pytest.raises(ValueError, match="bad mac"):
        signer.loads({**data, "mac": "é" * 64})


def test_a_5000_digit_integer_is_called_too_long_not_missing_json(tooltasks):
    for body in (b'{"task_id": ' + b"9" * 5000 + b"}", b'{"seed": -' + b"1" * 5000 + b"}"):
        status, answer = _post(tooltasks, "/api/sessions", body)
        assert status == 400 and "more than 4300 digits" in answer["error"], answer
        assert "must be a JSON object" not in answer["error"]
