"""URL-chosen worlds: an upstream ToolBench client that can set only its service URL gets its own world."""
from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request

import pytest

pytest.importorskip("flask")

from treegym.envs.toolbench.data import shipped_tasks  # noqa: E402
from treegym.envs.toolbench.env import shipped_engine  # noqa: E402
from treegym.servers.toolbench.client import post_call, upstream_payload  # noqa: E402


def _req(method, url, body=None):
    req = urllib.request.Request(url, data=None if body is None else json.dumps(body).encode(), method=method,
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def in_process_replies(task):
    """Each gold call's {"error", "response"} from a fresh in-process world (the engine's call log)."""
    engine = shipped_engine("terminal")
    state = engine.initial_state(task["query_id"], None)
    out = []
    for c in task["gold"]["reference_calls"]:
        state = engine.step(state, json.dumps({"name": c["name"], "arguments": c["arguments"]})).state
        out.append({"error": state.calls[-1].error, "response": state.calls[-1].response})
    return out


def replay_over_url(base_url, task):
    return [post_call(base_url + "/virtual", upstream_payload(task, c["name"], c["arguments"]))
            for c in task["gold"]["reference_calls"]]


def test_url_only_client_gets_its_own_world_and_can_reset_it(tool_server):
    task = next(t for t in shipped_tasks() if t["template"] == "book_cheapest_flight")
    want = in_process_replies(task)
    base = f"{tool_server.url}/s/alice"
    assert _req("POST", base + "/reset", {"task_id": task["query_id"]})[0] == 200
    assert replay_over_url(base, task) == want
    # the same bookings again in the same world differ (seats, booking ids): the world really changed
    assert replay_over_url(base, task) != want
    status, shown = _req("GET", base)
    assert status == 200 and shown["task_id"] == task["query_id"] and shown["calls"] == 2 * len(want)
    # another URL is another world; /rapidapi answers the same as /virtual
    bob = f"{tool_server.url}/s/bob"
    got = [post_call(bob + "/rapidapi", upstream_payload(task, c["name"], c["arguments"]))
           for c in task["gold"]["reference_calls"]]
    assert got == want
    # reset puts alice back at the task's start
    assert _req("POST", base + "/reset?task_id=" + str(task["query_id"]))[1]["calls"] == 0
    assert replay_over_url(base, task) == want
    assert _req("DELETE", base) == (200, {"closed": "alice"})
    assert _req("GET", base)[0] == 404


def test_bad_session_names_tasks_and_bodies_answer_clearly(tool_server):
    assert _req("POST", f"{tool_server.url}/s/bad.name/virtual", {})[0] == 404
    status, body = _req("POST", f"{tool_server.url}/s/carol/reset", {"task_id": 99999999})
    assert status == 400 and "unknown ToolBench task" in body["error"]
    status, body = _req("POST", f"{tool_server.url}/s/carol/virtual", {"category": "Travel"})
    assert status == 422 and "missing field" in body["error"]
    status, body = _req("POST", f"{tool_server.url}/s/carol/reset", [1, 2])
    assert status == 400 and "JSON object" in body["error"]


def test_32_concurrent_url_sessions_replay_gold_calls_like_a_fresh_world(tool_server):
    # stateful tasks first (bookings, transfers, orders): a shared world would change their answers
    tasks = [t for t in shipped_tasks() if t["gold"]["reference_calls"] and t["gold"].get("allowed_mutations")]
    tasks = (tasks + [t for t in shipped_tasks() if t["gold"]["reference_calls"]])[:32]
    want = {t["query_id"]: in_process_replies(t) for t in tasks}
    results, errors = {}, []

    def worker(k, task):
        try:
            base = f"{tool_server.url}/s/worker-{k}"
            _req("POST", base + "/reset", {"task_id": task["query_id"]})
            results[k] = (replay_over_url(base, task), replay_over_url(base, task))
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(repr(exc))

    threads = [threading.Thread(target=worker, args=(k, t)) for k, t in enumerate(tasks)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert all(results[k][0] == want[t["query_id"]] for k, t in enumerate(tasks))
    # the second replay in each world saw the first one's changes (and only its own)
    assert sum(results[k][1] != want[t["query_id"]] for k, t in enumerate(tasks)) >= 16
