"""A* (ToolChain*): cost functions by hand, memory, and the agent on Game of 24."""
from __future__ import annotations

import uuid

import gymnasium as gym
import pytest

from treegym.agents.experiments.episode import run_episode
from treegym.agents.llm_specs import make_llm
from treegym.agents.registry import make_agent
from treegym.agents.search.astar import (
    LongTermMemory,
    combine,
    future_cost,
    lcs_length,
    lcs_score,
    step_cost,
)
from treegym.envs import snapshot

ENV = "treegym/Game24-v0"


def test_lcs_and_score():
    assert lcs_length("ABCBDAB", "BDCABA") == 4
    assert lcs_length([], ["a"]) == 0
    assert lcs_score(["a", "b", "c"], ["a", "x", "c", "d"]) == pytest.approx(2 / 3)
    assert lcs_score(["a"], ["b", "a"]) == 1.0  # normalised by the shorter plan


def test_cost_combinations():
    assert step_cost(0.5, 0.5, 0.5) == pytest.approx(0.5)
    assert step_cost(1.0, 0.0, 0.5) == 0.0  # a perfect memory match costs nothing
    assert step_cost(0.0, 0.75, 0.5) == pytest.approx(0.5)  # sqrt(1 * 0.25)
    assert step_cost(None, 0.75, 0.5) == pytest.approx(0.25)  # g1 dropped: (1 - g2) alone
    assert step_cost(None, None, 0.5) == 1.0  # both dropped: unit step cost (breadth-first)
    assert future_cost(None, None, 0.5) == 0.0
    assert future_cost(0.36, 0.0, 0.5) == pytest.approx(0.8)  # sqrt(0.64 * 1)
    assert combine(0.25, 1.0, 1.0) == pytest.approx(0.25)


def test_memory_scores():
    mem = LongTermMemory([["a", "b", "c"], ["x", "c"]])
    assert mem.g1(["a", "c"]) == 1.0
    assert mem.g1(["q"]) == 0.0
    # "c" is last in both plans: relative positions 3/3 and 2/2
    assert mem.h1("c") == 1.0
    # "a" is first of a 3-step plan
    assert mem.h1("a") == pytest.approx(1 / 3)
    mem.add(["a", "b", "c"])
    assert len(mem) == 2  # duplicates are not stored twice


def _play(spec, tasks, **opts):
    out = []
    for tid in tasks:
        env = gym.make(ENV)
        llm = make_llm(spec, env_id=ENV)
        agent = make_agent("astar", ENV, llm, memory_id="none", **opts)
        rec = run_episode(env, agent, task_id=tid, seed=0)
        out.append((rec, agent, llm))
    return out


def test_astar_solves_with_an_accurate_model_and_degrades():
    tasks = range(910, 920)
    good = sum(r["success"] for r, _, _ in _play("synthetic:p_correct=0.8,seed=0", tasks))
    bad = sum(r["success"] for r, _, _ in _play("synthetic:p_correct=0.1,seed=0", tasks))
    assert good >= 9
    assert bad < good


def test_astar_respects_the_budget():
    for rec, agent, llm in _play("synthetic:p_correct=0.1,seed=0", [911, 912], budget=7):
        assert agent.result.stopped == "budget" and agent.stats()["search_llm_calls"] == 7
        assert llm.usage.calls == 7  # counted by the model itself: search and greedy fallback share the budget


def test_astar_leaves_the_env_at_the_root_and_is_reproducible():
    def once():
        env = gym.make(ENV)
        obs, info = env.reset(options={"task_id": 915})
        before = snapshot(env)
        agent = make_agent("astar", ENV, make_llm("synthetic:p_correct=0.4,seed=5", env_id=ENV), memory_id="none")
        agent.reset()
        agent.bind(env)
        agent.act(obs, info)
        after = snapshot(env)
        assert (after.payload, after.steps) == (before.payload, before.steps)
        return agent.result.tree.to_json()

    first = once()
    assert len(first["nodes"]) > 3
    assert first == once()


def test_ablation_switches_change_the_search():
    def tree(**opts):
        env = gym.make(ENV)
        obs, info = env.reset(options={"task_id": 913})
        agent = make_agent("astar", ENV, make_llm("synthetic:p_correct=0.5,seed=1", env_id=ENV),
                           memory_id="none", **opts)
        agent.reset()
        agent.bind(env)
        agent.act(obs, info)
        return agent.result.tree.to_json()["nodes"]

    full = tree()
    for switch in ("use_g1", "use_g2", "use_h1", "use_h2"):
        ablated = tree(**{switch: "false"})
        term = switch[4:]
        assert all(n["stats"].get(term) is None for n in ablated if n["parent"] is not None)
        assert [(n["action"], n["value"]) for n in ablated] != [(n["action"], n["value"]) for n in full], switch
    # with no g/h terms every step costs 1 and the search is breadth-first: f = depth
    bfs = tree(use_g1=False, use_g2=False, use_h1=False, use_h2=False)
    assert all(n["value"] == pytest.approx(n["depth"]) for n in bfs)


@pytest.mark.parametrize("peek,expected", [(True, [3, 4]), (False, [2, 2])])
def test_memory_persists_across_episodes_of_a_run_and_learns_from_success_only_with_peek(peek, expected):
    llm = make_llm("synthetic:p_correct=0.9,seed=0", env_id=ENV)
    sizes, memory_id = [], f"test-persist-{uuid.uuid4().hex}"  # fresh per test run, shared by its episodes
    for tid in (916, 917):
        env = gym.make(ENV)
        agent = make_agent("astar", ENV, llm, memory_id=memory_id, n_demos=2, peek_success=peek)
        rec = run_episode(env, agent, task_id=tid, seed=0)
        assert rec["success"]
        sizes.append(agent.stats()["astar_memory_plans"])
    # 2 demonstrations, then (only when the search may read the env's success flag) one solved plan
    # per episode: the memory feeds later searches, so it obeys the same information rule
    assert sizes == expected


def test_bad_weights_are_rejected():
    with pytest.raises(ValueError, match="alpha"):
        make_agent("astar", ENV, make_llm("synthetic:seed=0", env_id=ENV), alpha=2)
