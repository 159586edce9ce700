"""ToolBench evaluator: per-group pass rates with bootstrap CIs, CPR, comparator, ToolEval export."""
from __future__ import annotations

import json

import gymnasium as gym
import pytest

import treegym.envs  # noqa: F401
from treegym.envs.toolbench.data import shipped_tasks
from treegym.envs.toolbench.evaluator import bootstrap_ci, compare, episode_record, summarize, to_tooleval


def _episodes(n_per_group=4):
    env = gym.make("treegym/ToolBench-v0", split="all")
    recs = []
    for g in ("G1", "G2", "G3"):
        ids = [t["query_id"] for t in shipped_tasks() if t["group"] == g and t["gold"]["solvable"]][:n_per_group]
        for k, tid in enumerate(ids):
            env.reset(options={"task_id": tid})
            if k % 2 == 0:  # the gold plan
                while True:
                    o, r, t, tr, i = env.step(env.unwrapped.expert_action())
                    if t or tr:
                        break
            else:  # one hallucinated call, one invalid call, then a wrong answer
                env.step('{"name": "no_such_api", "arguments": {}}')
                gold_name = json.loads(env.unwrapped.expert_action())["name"]
                env.step(json.dumps({"name": gold_name, "arguments": {"bogus": 1}}))
                env.step('{"name": "Finish", "arguments": {"return_type": "give_answer", "final_answer": "no idea"}}')
            recs.append(episode_record(env, llm_calls=3 + k, tokens=100))
    return recs


def test_summary_per_group_with_ci_cpr_and_diagnostics():
    recs = _episodes()
    s = summarize(recs)
    assert s["episodes"] == 12 and s["pass_rate"] == 0.5 and s["correct_path_rate"] == 0.5
    lo, hi = s["pass_rate_ci95"]
    assert 0.0 <= lo < 0.5 < hi <= 1.0
    assert set(s["groups"]) == {"G1", "G2", "G3"} and all(g["pass_rate"] == 0.5 for g in s["groups"].values())
    assert s["hallucinated_calls"] == 6 and s["invalid_calls"] == 6 and s["mean_tokens"] == 100
    assert summarize(recs) == s  # seeded bootstrap
    assert bootstrap_ci([1.0] * 5) == (1.0, 1.0)
    with pytest.raises(ValueError):
        summarize([])


def test_comparator_and_judge_hook():
    recs = _episodes(2)
    good, bad = recs[0], recs[1]
    assert compare(good, bad) == 1 and compare(bad, good) == -1
    slower = dict(good, llm_calls=good["llm_calls"] + 5)
    assert compare(good, slower) == 1
    assert compare(good, dict(good)) == 0
    assert compare(good, dict(good), judge=lambda q, a, b: "b") == -1
    with pytest.raises(ValueError, match="judge must answer"):
        compare(good, dict(good), judge=lambda q, a, b: "maybe")


def test_tooleval_export_format():
    recs = _episodes(1)
    out = to_tooleval(recs, method="DFS_woFilter_w2")
    assert set(out) == {str(r["query_id"]) for r in recs}
    first = out[str(recs[0]["query_id"])]
    assert first["available_tools"][-1] == "Finish"
    ans = first["answer"]
    assert ans["method"] == "DFS_woFilter_w2" and json.loads(ans["final_answer"])["return_type"] == "give_answer"
    node, tools = ans["answer_details"][0], []
    while node["next"]:
        node = node["next"][0]
        if node["role"] == "tool":
            tools.append(node["message"]["name"])
            assert set(node["message"]) == {"name", "arguments", "response"}
    assert tools[-1] == "Finish" and len(tools) == ans["total_steps"]
    json.dumps(out)
