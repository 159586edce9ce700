"""ToolBench tasks: shipped counts and splits, every reference plan passes, empty/give-up Finish fail."""
from __future__ import annotations

import collections
import json

import pytest

from treegym.envs.toolbench.data import shipped_splits, shipped_tasks
from treegym.envs.toolbench.env import ToolBenchEnv
from treegym.envs.tools_common.checks import check_answer, in_order, resolve


def test_shipped_tasks_groups_unsolvable_share_and_splits():
    tasks = shipped_tasks()
    assert len(tasks) >= 280
    groups = collections.Counter(t["group"] for t in tasks)
    assert set(groups) == {"G1", "G2", "G3"} and min(groups.values()) >= 70
    unsolvable = sum(not t["gold"]["solvable"] for t in tasks)
    assert 0.08 <= unsolvable / len(tasks) <= 0.13
    for t in tasks:  # ToolBench's query format
        assert {"query", "query_id", "api_list", "relevant APIs"} <= set(t)
        assert all({"category_name", "tool_name", "api_name", "required_parameters", "optional_parameters"} <= set(a)
                   for a in t["api_list"])
        tools = {a["tool_name"] for a in t["api_list"]}
        cats = {a["category_name"] for a in t["api_list"]}
        rel_tools = {r[0] for r in t["relevant APIs"]}
        if t["group"] == "G1":
            assert len(tools) == 1
        if t["group"] == "G3" and t["gold"]["solvable"]:
            assert len(cats) >= 2 and len(rel_tools) >= 2
    splits = shipped_splits()
    assert set(splits["dev"]).isdisjoint(splits["test"])
    assert sorted(splits["dev"] + splits["test"]) == sorted(t["query_id"] for t in tasks)


def _play(env, task_id, actions):
    env.reset(options={"task_id": task_id})
    out = None
    for a in actions:
        out = env.step(a)
        if out[2] or out[3]:
            break
    return out


def _check_reference_plans(split):
    env = ToolBenchEnv(split="all", max_steps=20)
    tasks = [t for t in shipped_tasks() if split == "all" or t["split"] == split]
    for t in tasks:
        tid = t["query_id"]
        env.reset(options={"task_id": tid})
        while True:
            obs, r, term, trunc, info = env.step(env.expert().next_action)
            if term or trunc:
                break
        assert term and info["success"] and r == 1.0, (tid, info.get("evaluation"))
        assert info["evaluation"]["correct_path"] and info["evaluation"]["hallucinated_calls"] == 0
        empty = _play(env, tid, ['{"name": "Finish", "arguments": {"return_type": "give_answer", "final_answer": ""}}'])
        assert empty[2] and not empty[4]["success"] and empty[1] == 0.0, tid
        give_up = _play(env, tid, ['{"name": "Finish", "arguments": {"return_type": "give_up_and_restart"}}'])
        assert give_up[4]["give_up"] and give_up[4]["status_code"] == 4
        assert give_up[4]["success"] == (not t["gold"]["solvable"]), tid
    return len(tasks)


def test_reference_plans_pass_and_empty_or_give_up_finish_is_judged_right_dev():
    assert _check_reference_plans("dev") >= 50


@pytest.mark.slow
def test_every_reference_plan_passes_and_empty_finish_fails_all_tasks():
    assert _check_reference_plans("all") == len(shipped_tasks())


def test_second_booking_forbidden_mutation_and_wrong_answer_fail_a_solvable_task():
    task = next(t for t in shipped_tasks() if t["template"] == "book_cheapest_flight")
    env = ToolBenchEnv(split="all")
    env.reset(options={"task_id": task["query_id"]})
    plan = list(env.expert().plan)
    obs, r, term, trunc, info = env.step({"name": "Finish", "arguments": {}})
    assert info["status_code"] == 2 and not term  # no return_type: ToolBench's input error, the episode goes on
    for a in plan[:-1]:
        env.step(a)
    env.step(plan[1])  # a second booking of the same flight
    obs, r, term, trunc, info = env.step(plan[-1])
    assert term and not info["success"] and any(c.startswith("state[") for c in info["evaluation"]["failed_checks"])
    wrong = json.loads(plan[-1])
    wrong["arguments"]["final_answer"] = "Booked it."
    env.reset(options={"task_id": task["query_id"]})
    for a in plan[:-1]:
        env.step(a)
    obs, r, term, trunc, info = env.step(json.dumps(wrong))
    assert term and not info["success"] and info["evaluation"]["failed_checks"][0].startswith("answer[0]")
    # a mutation of a collection the reference plan never touches is forbidden
    from treegym.envs.toolbench.gold import evaluate
    from treegym.envs.toolbench.service import default_service
    svc = default_service()
    email_task = next(t for t in shipped_tasks() if t["template"] == "email_contact")
    gold = email_task["gold"]
    world = svc.initial_world
    for c in gold["reference_calls"]:
        world, _ = svc.call_spec(world, svc.by_function[c["name"]][0], c["arguments"])
    finish = {"return_type": "give_answer", "final_answer": gold["final_answer"]}
    assert evaluate(gold, svc.initial_world, world, finish, gold["reference_calls"], [])["pass"]
    world2, _ = svc.call(world, "Productivity", "todolist", "add_todo", {"title": "spam"})
    ev = evaluate(gold, svc.initial_world, world2, finish, gold["reference_calls"], [])
    assert not ev["pass"] and ev["failed_checks"] == ["mutated todos"]


def test_gold_helpers():
    responses = [{"results": [{"id": "A-1", "price": 12.5}]}]
    assert resolve({"x": "$0.results.0.id", "y": "total {$0.results.0.price} USD"}, responses) == \
        {"x": "A-1", "y": "total 12.50 USD"}
    assert check_answer({"kind": "number", "value": 1234.5, "tol": 0.011}, "It costs $1,234.50 in total")
    assert not check_answer({"kind": "number", "value": 1234.5, "tol": 0.011}, "It costs 1234")
    assert check_answer({"kind": "contains", "value": "BK-0001"}, "Your booking (bk-0001) is confirmed.")
    assert in_order(["a", "c"], ["a", "b", "c"]) and not in_order(["c", "a"], ["a", "b", "c"])


@pytest.mark.slow
def test_builder_reproduces_the_shipped_files():
    from treegym.envs.toolbench.build import build
    from treegym.envs.toolbench.service import DATA_DIR
    files = build(None)
    for rel, text in files.items():
        assert (DATA_DIR / rel).read_text(encoding="utf-8") == text, rel
    # the fixture tables the build derives everything from are shipped by the shared tools package
    from treegym.envs.tools_common.fixture_data import fixtures_text
    from treegym.envs.tools_common.fixtures import FIXTURES_FILE
    assert FIXTURES_FILE.read_text(encoding="utf-8") == fixtures_text()
