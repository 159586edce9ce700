"""treegym/ToolTasks-v0: the four ToolChain*-style domains, final-state success, parsing, snapshots."""
from __future__ import annotations

import json

import gymnasium as gym
import pytest

import treegym.envs as te
from treegym.envs.tooltasks.domains import dict_f1
from treegym.envs.tooltasks.env import shipped_tasks


def test_counts_and_every_reference_plan_passes_while_doing_nothing_fails():
    tasks = shipped_tasks()
    assert {t["domain"] for t in tasks} == {"home_search", "trip_booking", "sheets", "virtual_home"} and len(tasks) == 90
    env = gym.make("treegym/ToolTasks-v0", split="all")
    for t in tasks:
        env.reset(options={"task_id": t["task_id"]})
        while True:
            obs, r, term, trunc, info = env.step(env.unwrapped.expert_action())
            if term or trunc:
                break
        assert term and r == 1.0 and info["evaluation"]["executable"], t["task_id"]
        env.reset(options={"task_id": t["task_id"]})
        final = "search()" if t["domain"] in ("home_search", "trip_booking") else "done()"
        assert not env.step(final)[4]["success"]


def test_home_search_order_rules_f1_and_call_forms():
    tid = next(t["task_id"] for t in shipped_tasks() if t["domain"] == "home_search")
    env = gym.make("treegym/ToolTasks-v0", split="all")
    obs, info = env.reset(options={"task_id": tid})
    assert {f["name"] for f in info["functions"]} >= {"set_location", "search"}
    o = env.step("set_num_beds(2)")[0]
    assert o["text"] == "Error: call set_location first"
    a = env.step('API.set_location("Boston")')[0]["text"]
    env.reset(options={"task_id": tid})
    b = env.step('{"name": "set_location", "arguments": {"value": "Boston"}}')[0]["text"]
    env.reset(options={"task_id": tid})
    c = env.step('Action: set_location\nAction Input: {"value": "Boston"}')[0]["text"]
    assert a == b == c == "OK: location = 'Boston'"
    assert env.step("__import__('os').system('true')")[0]["text"].startswith("Error")  # never executed
    assert env.step("set_location(value=open('x'))")[0]["text"].startswith("Error: arguments must be literals")
    assert dict_f1({"a": 1, "b": 2}, {"a": 1, "b": 3}) == 0.5


def test_sheets_and_virtual_home_state_with_snapshot():
    env = gym.make("treegym/ToolTasks-v0", domain="virtual_home", split="all")
    tid = next(t["task_id"] for t in shipped_tasks() if t["domain"] == "virtual_home" and "milk" in t["query"])
    env.reset(options={"task_id": tid})
    env.step('walk("kitchen")')
    assert env.step('grab("milk")')[0]["text"] == "Error: the milk is inside the closed fridge"
    snap = te.snapshot(env)
    env.step('open("fridge")')
    env.step('grab("milk")')
    te.restore(env, snap)
    assert env.unwrapped.state.world.get("objects", "fridge")["open"] is False
    assert env.unwrapped.expert().next_action == 'open("fridge")'
    sheets = gym.make("treegym/ToolTasks-v0", domain="sheets", split="all")
    sheets.reset()
    assert sheets.step('update_cell("Z9", 1)')[0]["text"].startswith("Error: cell Z9 is outside")
    assert sheets.step("delete_row(1)")[0]["text"].startswith("Error: row 1 is not a data row")
    assert sheets.unwrapped.canonical_action('update_cell("B2", 3)') == '{"arguments": {"cell": "B2", "value": 3}, "name": "update_cell"}'
    with pytest.raises(ValueError, match="domain must be"):
        gym.make("treegym/ToolTasks-v0", domain="kitchen")


@pytest.mark.slow
def test_builder_reproduces_the_shipped_tasks():
    from treegym.envs.tooltasks.tasks import build_tasks
    assert json.loads(json.dumps(build_tasks())) == list(shipped_tasks())


def test_restore_refuses_a_world_the_handlers_would_crash_on_and_accepts_every_played_state():
    """A restored world must keep its task's shape (a fuzzed snapshot had an object replaced by null,
    accepted, and then every step answered 500); every state the reference plans reach still restores."""
    pytest.importorskip("flask")
    from treegym.servers.toolbench import create_app

    env = gym.make("treegym/ToolTasks-v0")
    engine = env.unwrapped.engine
    for task_id in list(engine.tasks):
        env.reset(options={"task_id": task_id})
        for action in [None, *env.unwrapped.expert().plan]:
            if action is not None:
                env.step(action)
            data = json.loads(json.dumps(engine.state_to_json(env.unwrapped.state)))
            assert engine.state_to_json(engine.state_from_json(data)) == data
    env.close()

    client = create_app().test_client()
    home = next(t for t in engine.tasks if "objects" in engine.tasks[t]["initial_world"])
    sid = client.post("/tooltasks/api/sessions", json={"task_id": home}).get_json()["session_id"]
    before = client.get(f"/tooltasks/api/sessions/{sid}").get_json()["state"]
    broken = json.loads(json.dumps(before))
    broken["world"]["objects"][sorted(broken["world"]["objects"])[0]] = None
    resp = client.post(f"/tooltasks/api/sessions/{sid}/restore", json={"state": broken})
    assert resp.status_code == 400 and "expected object" in resp.get_json()["error"]
    assert client.get(f"/tooltasks/api/sessions/{sid}").get_json()["state"] == before
    assert client.post(f"/tooltasks/api/sessions/{sid}/step", json={"action": "look()"}).status_code == 200


def test_a_call_sent_again_parses_the_same_and_never_shares_a_mutable_argument():
    from treegym.envs.tooltasks.domains import FUNCTIONS
    from treegym.envs.tooltasks.engine import parse_call

    fns = {**FUNCTIONS["home_search"], **FUNCTIONS["sheets"]}
    texts = ['set_location("Boston")', 'API.set_location("Boston")', 'set_num_beds(3)', "set_num_beds(value=3)",
             'update_cell(cell="B3", value=12)', 'update_cell("B3", [1, 2])', "set_location(", "set_location(x)",
             'set_location("a", "b", "c")', 'nope("x")', '{"name": "set_num_beds", "arguments": {"value": 3}}']
    first = [parse_call(t, fns) for t in texts]
    again = [parse_call(t, fns) for t in texts]
    assert first == again
    assert first[0] == ("set_location", {"value": "Boston"}) and first[1] == first[0]
    assert first[2] == first[3] == ("set_num_beds", {"value": 3})
    assert all(isinstance(x, str) for x in first[6:10])  # the errors, as before
    first[0][1]["value"] = "Paris"  # a caller changing what it got changes nothing later
    assert parse_call(texts[0], fns) == ("set_location", {"value": "Boston"})
    lists = [parse_call(texts[5], fns)[1]["value"] for _ in range(2)]
    assert lists == [[1, 2], [1, 2]] and lists[0] is not lists[1]


def test_canonical_forms_are_remembered_per_domain_as_parsing_them_afresh(monkeypatch):
    from treegym.envs.tooltasks import env as tooltasks_env
    from treegym.envs.tooltasks.engine import parse_call

    env = gym.make("treegym/ToolTasks-v0", split="all")
    u = env.unwrapped
    texts = ['search()', 'done()', 'set_location("Boston")', 'update_cell("B2", 3)', 'open("fridge")', 'nonsense',
             '{"name": "set_num_beds", "arguments": {"num_beds": 2}}', 'set_num_beds(2, 3)']

    def afresh(text):
        parsed = parse_call(text, u.engine.functions(u.task.task_id))
        return None if isinstance(parsed, str) else json.dumps({"name": parsed[0], "arguments": parsed[1]}, sort_keys=True)

    seen = {}
    for task in shipped_tasks():  # every domain, each text twice (the second from memory)
        env.reset(options={"task_id": task["task_id"]})
        for text in texts + texts:
            assert u.canonical_action(text) == afresh(text), (task["domain"], text)
        seen[task["domain"]] = u.canonical_action("search()")
    assert seen["home_search"] is not None and seen["sheets"] is None  # the same text, per domain
    monkeypatch.setattr(tooltasks_env, "CANONICAL_MAX", 5)
    for i in range(12):
        assert u.canonical_action(f'set_num_beds({i})') == afresh(f'set_num_beds({i})')
    assert len(u._canonical_memo) <= 5
