"""treegym/ToolBench-v0: actions in both forms, status codes, reward modes, snapshots, the contract."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import gymnasium as gym
import pytest

import treegym.envs as te
from treegym.envs.toolbench.data import shipped_tasks


def _task(template):
    return next(t["query_id"] for t in shipped_tasks() if t["template"] == template)


@pytest.fixture()
def env():
    e = gym.make("treegym/ToolBench-v0", split="all")
    yield e
    e.close()


def test_reset_gives_query_functions_and_example_actions(env):
    tid = _task("book_cheapest_flight")
    obs, info = env.reset(options={"task_id": tid})
    assert obs["text"] == obs["instruction"] and "cheapest flight" in obs["text"]
    names = [f["name"] for f in info["functions"]]
    assert names[-1] == "Finish" and "book_flight_for_skyroutes" in names
    assert info["status_code"] is None and info["success"] is False and info["group"] == "G1"
    assert all(json.loads(a)["name"] in names for a in obs["valid_actions"])
    fields = env.unwrapped.task_fields()
    assert fields["query_id"] == tid and fields["system_prompt"].startswith("You should use functions")


def test_json_and_react_forms_give_the_same_observation(env):
    tid = _task("book_cheapest_flight")
    env.reset(options={"task_id": tid})
    call = json.loads(env.unwrapped.expert().next_action)
    a = env.step(json.dumps(call))
    env.reset(options={"task_id": tid})
    react = f"Thought: search first\nAction: {call['name']}\nAction Input: {json.dumps(call['arguments'])}\n"
    b = env.step(react)
    env.reset(options={"task_id": tid})
    c = env.step(call)  # a dict works too
    assert a[0] == b[0] == c[0] and a[4]["status_code"] == 0
    assert json.loads(a[0]["text"])["error"] == ""
    # ToolBench matches function names by suffix (the first function whose name ends with the given one)
    env.reset(options={"task_id": tid})
    d = env.step({"name": "flights_for_skyroutes", "arguments": call["arguments"]})
    assert d[0] == a[0]


@pytest.mark.parametrize("action,code,text", [
    ("just do it", 2, "Invalid action: no tool call found"),
    ('{"name": "teleport_for_skyroutes", "arguments": {}}', 1, "No such function name: teleport_for_skyroutes"),
    ('{"name": "book_flight_for_skyroutes", "arguments": {"flight_id": "FL-1001"}}', 2, "missing 1 required positional argument"),
    ("Action: book_flight_for_skyroutes\nAction Input: {flight_id: FL-1}", 2, "Tool input parse error"),
    ('{"name": "Finish", "arguments": {"return_type": "give_answer"}}', 2, 'must have "final_answer"'),
    ('[{"name": "a"}, {"name": "b"}]', 2, "make one tool call per step"),
])
def test_bad_actions_answer_with_toolbench_codes_and_never_raise(env, action, code, text):
    env.reset(options={"task_id": _task("book_cheapest_flight")})
    obs, r, term, trunc, info = env.step(action)
    assert info["status_code"] == code and text in obs["text"] and not term and r == 0.0
    assert info["tool_calls"] == 1


def test_hidden_reward_mode_keeps_reward_zero_but_reports_evaluation():
    tid = _task("weather")
    out = {}
    for mode in ("terminal", "hidden"):
        e = gym.make("treegym/ToolBench-v0", split="all", reward_mode=mode)
        e.reset(options={"task_id": tid})
        total = 0.0
        while True:
            obs, r, term, trunc, info = e.step(e.unwrapped.expert_action())
            total += r
            if term or trunc:
                break
        out[mode] = (total, info["success"], info["evaluation"]["pass"])
    assert out["terminal"] == (1.0, True, True) and out["hidden"] == (0.0, True, True)
    with pytest.raises(ValueError, match="reward_mode"):
        gym.make("treegym/ToolBench-v0", reward_mode="secret")


def test_snapshot_restore_undoes_a_booking_and_replays_exactly(env):
    tid = _task("book_cheapest_flight")
    env.reset(options={"task_id": tid})
    env.step(env.unwrapped.expert_action())
    snap = te.snapshot(env)
    booked = env.step(env.unwrapped.expert_action())
    assert json.loads(json.loads(booked[0]["text"])["response"])["booking_id"] == "BK-0001"
    world_after = env.unwrapped.state.world
    te.restore(env, snap)
    assert env.unwrapped.state.world.get("flight_bookings", "BK-0001") is None
    again = env.step(env.unwrapped.expert_action())
    assert again[0] == booked[0] and env.unwrapped.state.world == world_after
    # the same booking id again: the restored branch did not see the other branch's side effects
    report = te.check_rollback(gym.make("treegym/ToolBench-v0", task_ids=[tid]), n_trajectories=3)
    assert report.steps_checked > 0


def test_state_json_round_trip_and_truncation():
    e = gym.make("treegym/ToolBench-v0", split="all", max_steps=3)
    tid = _task("new_playlist")
    e.reset(options={"task_id": tid})
    e.step(e.unwrapped.expert_action())
    eng = e.unwrapped.engine
    state = e.unwrapped.state
    assert eng.state_from_json(json.loads(json.dumps(eng.state_to_json(state)))) == state
    e.step(e.unwrapped.expert_action())
    obs, r, term, trunc, info = e.step(e.unwrapped.expert_action())
    assert trunc and not term and obs["valid_actions"] == ()


def test_canonical_action_and_groups():
    e = gym.make("treegym/ToolBench-v0", group="G3")
    assert all(t >= 30000 for t in e.unwrapped._pool)
    u = e.unwrapped
    a = u.canonical_action('{"arguments": {"b": 1, "a": 2}, "name": "x_for_y"}')
    b = u.canonical_action("Thought: hm\nAction: x_for_y\nAction Input: {\"a\": 2, \"b\": 1}")
    assert a == b == '{"arguments": {"a": 2, "b": 1}, "name": "x_for_y"}'
    assert u.canonical_action("nothing here") is None
    with pytest.raises(ValueError, match="group"):
        gym.make("treegym/ToolBench-v0", group="G4")
    with pytest.raises(ValueError, match="unknown ToolBench task"):
        gym.make("treegym/ToolBench-v0", task_ids=[5])


@pytest.mark.slow
def test_observations_are_identical_across_processes_and_hash_seeds():
    code = ("import json, gymnasium as gym, treegym.envs\n"
            "e = gym.make('treegym/ToolBench-v0', split='dev'); out = []\n"
            "for tid in e.unwrapped._pool[::2]:\n"
            "    o, i = e.reset(options={'task_id': tid})\n"
            "    while True:\n"
            "        o, r, t, tr, i = e.step(e.unwrapped.expert_action()); out.append(o['text'])\n"
            "        if t or tr: break\n"
            "print(json.dumps(out))\n")
    runs = []
    for seed in ("1", "2"):
        res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             env=dict(os.environ, PYTHONHASHSEED=seed), check=True)
        runs.append(res.stdout)
    assert runs[0] == runs[1] and len(json.loads(runs[0])) > 50
