"""Tree of Thoughts BFS and DFS on Game of 24: solving, degrading, beam width, value samples, pruning, budget."""
from __future__ import annotations

import json

import pytest

from support.agent_runs import ACCURATE, ENV, WEAK, garbage_episode, pass_rate, run_with_budget, recording, same_state, searched
from treegym.agents.llm_specs import make_llm

MEDIUM = "synthetic:p_correct=0.5,value_noise=0.4,seed=1"


@pytest.mark.parametrize("agent,options", [("bfs", {"budget": 400}), ("dfs", {})])
def test_solves_with_an_accurate_model_and_degrades_with_a_weak_one(agent, options):
    good = pass_rate(agent, ACCURATE, **options)
    bad = pass_rate(agent, WEAK, **options)
    assert good >= 0.8
    assert bad <= good - 0.5


def test_bfs_keeps_the_best_b_states_per_level_and_values_each_with_n_samples():
    llm = recording(MEDIUM)
    policy, env, before, _ = searched("bfs", llm, task_id=904, budget=400, breadth=3, n_evaluate=2,
                                      stop_on_success=False)
    tree = policy.result.tree
    assert same_state(env, before)
    for level in (1, 2):
        kept = [n for n in tree.nodes if n.stats.get("level") == level]
        assert 0 < len(kept) <= 3
        at_level = [n for n in tree.nodes if n.depth == level and not n.terminal]
        # the kept states are the best-valued ones of their level
        assert min(n.value for n in kept) >= max((n.value for n in at_level if n not in kept), default=0.0)
        # only kept states were expanded further
        assert all(not n.children for n in at_level if n not in kept)
    kinds = llm.kinds
    valued = [n for n in tree.nodes if n.parent is not None]  # final states too: no peeking at success
    assert kinds.count("value") == 2 * len(valued)
    assert kinds.count("propose") == sum(1 for n in tree.nodes if n.children)


def test_dfs_prunes_states_valued_below_the_threshold():
    policy, env, before, _ = searched("dfs", make_llm(MEDIUM, env_id=ENV), task_id=902, value_threshold=0.5,
                                      stop_on_success=False, budget=150)
    tree = policy.result.tree
    pruned = [n for n in tree.nodes if n.stats.get("pruned")]
    assert pruned, "a noisy value model gives some states a low value"
    assert all(n.value < 0.5 and not n.children for n in pruned)
    expanded = [n for n in tree.nodes if n.children and n.parent is not None]
    assert all(n.value >= 0.5 for n in expanded)
    assert same_state(env, before)


def test_dfs_descends_best_first():
    policy, *_ = searched("dfs", make_llm(MEDIUM, env_id=ENV), task_id=901, value_threshold=0.0,
                          stop_on_success=False, budget=80, peek_success=True)  # final states cost no call
    root = policy.result.tree.root
    # the order the root's children were descended into = the order their first children were made
    descended = sorted((c for c in root.children if c.children), key=lambda c: c.children[0].id)
    assert len(descended) >= 2
    values = [c.value for c in descended]
    assert values == sorted(values, reverse=True)
    best = max(c.value for c in root.children if not c.terminal)
    assert descended[0].value == best


@pytest.mark.parametrize("agent", ["bfs", "dfs"])
@pytest.mark.parametrize("budget", [1, 5, 13])
def test_never_exceeds_its_budget(agent, budget):
    llm = make_llm(MEDIUM, env_id=ENV)
    policy, env, before, action = searched(agent, llm, budget=budget)
    assert llm.usage.calls <= budget
    assert same_state(env, before)


@pytest.mark.parametrize("agent", ["bfs", "dfs"])
def test_same_seed_same_tree(agent):
    a, b = (json.dumps(searched(agent, make_llm(MEDIUM, env_id=ENV), task_id=903, budget=80)[0].result.tree.to_json())
            for _ in range(2))
    assert a == b


@pytest.mark.parametrize("agent", ["bfs", "dfs"])
def test_the_runs_call_budget_holds_under_threads(agent, tmp_path):
    records = run_with_budget(agent, WEAK, 6, tmp_path / "runs.jsonl")
    assert len(records) == 4
    for r in records:
        assert r["llm_calls"] <= 6 and r["prompt_tokens"] > 0
        assert r["error"] is None or r["error"].startswith(("agent gave up", "budget exhausted")), r["error"]


@pytest.mark.parametrize("agent", ["bfs", "dfs"])
def test_garbage_answers_end_the_episode_cleanly(agent):
    record, llm = garbage_episode(agent)
    assert not record["success"] and len(llm.calls) <= 40
    assert record["error"] is None or record["error"].startswith(("agent gave up", "budget exhausted")), record["error"]
