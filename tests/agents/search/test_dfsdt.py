"""DFSDT on Game of 24: solving, degrading, give-up backtracking, diversity prompt, budget, rollback,
determinism; then the policy on a hand-built tree: the model judges final states (not the env),
give-up backtracking."""
from __future__ import annotations

import json

import pytest

from support.agent_runs import ACCURATE, ENV, TASKS, WEAK, assert_call_budget_holds_under_threads, garbage_episode, pass_rate, recording, same_state, searched
from support.tree_world import CountingPrompts, TreeLLM, run
from treegym.agents.llm_specs import make_llm
from treegym.agents.search.agent import SearchPolicy
from treegym.agents.search.dfsdt import DFSDT


# ------------------------------ on Game of 24 with the synthetic model

MEDIUM = "synthetic:p_correct=0.5,value_noise=0.3,seed=3"


def test_solves_with_an_accurate_model_and_degrades_with_a_weak_one():
    good = pass_rate("dfsdt", ACCURATE)
    bad = pass_rate("dfsdt", WEAK)
    assert good >= 0.8
    assert bad <= good - 0.5


def _give_up_trees(prune_back: int) -> list:
    trees = []
    for t in TASKS:
        policy, *_ = searched("dfsdt", make_llm(MEDIUM, env_id=ENV), task_id=t, prune_back=prune_back)
        trees.append(policy.result.tree)
    return trees


def test_give_up_backtracks_two_levels():
    checked = 0
    for tree in _give_up_trees(prune_back=2):
        for leaf in (n for n in tree.nodes if n.stats.get("give_up")):
            parent = leaf.parent
            # the give-up abandons its parent: no sibling is tried after it
            assert all(c.id < leaf.id for c in parent.children if c is not leaf)
            nxt = next((n for n in tree.nodes if n.id > leaf.id), None)
            if nxt is not None:
                # the next new step branches from the grandparent or higher, never from the parent
                assert nxt.parent is not parent and nxt.parent.depth <= leaf.depth - 2
                checked += 1
    assert checked >= 2  # the property was exercised, not vacuously true


def test_prune_back_one_tries_the_sibling_instead():
    siblings = 0
    for tree in _give_up_trees(prune_back=1):
        for leaf in (n for n in tree.nodes if n.stats.get("give_up")):
            if any(c.id > leaf.id for c in leaf.parent.children):
                siblings += 1
    assert siblings >= 1


def test_second_child_prompt_lists_the_first_childs_action():
    for task_id in TASKS:  # the first puzzle whose search tried a second child
        llm = recording(MEDIUM)
        policy, *_ = searched("dfsdt", llm, task_id=task_id, peek_success=True)
        tree = policy.result.tree
        parents = [n for n in tree.nodes if len(n.children) >= 2]
        if parents:
            break
    assert parents
    first = parents[0].children[0].action
    proposals = [m for m, kind in zip(llm.calls, llm.kinds) if kind == "propose"]
    assert any(f"- {first}" in m[-1]["content"] for m in proposals)
    assert all(len(n.children) <= 2 for n in tree.nodes)  # width 2


@pytest.mark.parametrize("budget", [1, 3, 6])
def test_never_exceeds_its_budget(budget):
    llm = make_llm(MEDIUM, env_id=ENV)
    policy, env, before, action = searched("dfsdt", llm, budget=budget, task_id=902)
    assert llm.usage.calls <= budget
    assert same_state(env, before)


def test_stops_at_the_first_answer_and_replays_it():
    policy, env, before, first = searched("dfsdt", make_llm(ACCURATE, env_id=ENV), task_id=905)
    tree, chosen = policy.result.tree, policy.result.chosen
    assert chosen.success and chosen is tree.nodes[-1]  # nothing was expanded after the win
    assert same_state(env, before)
    for action in chosen.actions():
        *_, info = env.step(action)
    assert info["success"] and same_state(env, chosen.snapshot)


def test_same_seed_same_tree():
    a, b = (json.dumps(searched("dfsdt", make_llm(MEDIUM, env_id=ENV), task_id=903)[0].result.tree.to_json())
            for _ in range(2))
    assert a == b


@pytest.mark.parametrize("agent", ["dfsdt"])
def test_the_runs_call_budget_holds_under_threads(agent, tmp_path):
    assert_call_budget_holds_under_threads(agent, tmp_path / "runs.jsonl")


@pytest.mark.parametrize("agent", ["dfsdt"])
def test_garbage_answers_end_the_episode_cleanly(agent):
    record, llm = garbage_episode(agent)
    assert not record["success"] and len(llm.calls) <= 40
    assert record["error"] is None or record["error"].startswith(("agent gave up", "budget exhausted")), record["error"]


# ------------------------------ on hand-built trees with scripted models (not the truth)

TREE = {"": ["a", "b"], "a": ["a1", "a2"], "a/a1": ["x1", "x2"], "a/a2": ["y1"], "b": ["b1"]}
VALUES = {"a/a1/x1": 0.1, "a/a2/y1": 0.9, "a/a1/x2": 0.2}  # unlisted final states: 0.5
WINS = ["a/a1/x2"]  # the env's only win is a state the model would call a give-up


def _llm() -> TreeLLM:
    return TreeLLM(proposals=TREE, values=VALUES)


def _proposed(llm: TreeLLM) -> list[str]:
    return [e[1] for e in llm.log if e[0] == "propose"]


def _path(node) -> str:
    return "/".join(node.actions())


def test_a_give_up_abandons_the_parent_and_the_first_answer_ends_the_search():
    llm = _llm()
    agent = run(DFSDT, TREE, llm, WINS)
    # x1 is judged a give-up (0.1): back two levels, so a1 is abandoned and a proposes a new child (a2);
    # a2's y1 is judged an answer (0.9): the search ends
    assert _proposed(llm) == ["", "a", "a/a1", "a", "a/a2"]
    assert [e[1] for e in llm.log if e[0] == "value"] == ["a/a1/x1", "a/a2/y1"]
    assert _path(agent.result.chosen) == "a/a2/y1" and not agent.result.chosen.success
    nodes = {_path(n): n for n in agent.result.tree.nodes}
    assert nodes["a/a1/x1"].stats["give_up"] and nodes["a/a1"].stats["abandoned"]
    assert agent.stats()["dfsdt_give_ups"] == 1 and agent.stats()["dfsdt_backtracks"] == 1
    # every step is visited once, right after it is made: the visiting order is the creation order
    assert [n.value for n in agent.result.tree.nodes] == list(range(len(agent.result.tree)))
    assert all(n.visits == 1 for n in agent.result.tree.nodes)


def test_prune_back_one_tries_the_sibling():
    llm = _llm()
    agent = run(DFSDT, TREE, llm, WINS, prune_back=1)
    assert _proposed(llm) == ["", "a", "a/a1", "a/a1", "a", "a/a2"]
    # x2 (the env's win) is judged 0.2: a give-up too; then a tries a2, whose y1 is an answer
    assert _path(agent.result.chosen) == "a/a2/y1"


def test_width_bounds_the_children_and_without_an_answer_the_last_give_up_is_played():
    llm = _llm()
    agent = run(DFSDT, TREE, llm, width=1)
    assert _proposed(llm) == ["", "a", "a/a1"]
    assert max(len(n.children) for n in agent.result.tree.nodes) == 1
    assert _path(agent.result.chosen) == "a/a1/x1"


def test_answer_threshold_and_max_depth():
    llm = _llm()
    agent = run(DFSDT, TREE, llm, answer_threshold=0.95)
    assert "b" in _proposed(llm)  # y1 (0.9) is now a give-up as well: the search went on to b
    assert agent.stats()["dfsdt_give_ups"] == 3 and agent.stats()["dfsdt_backtracks"] == 3
    assert _path(agent.result.chosen) == "b/b1"  # no answer: the last give-up
    llm = _llm()
    agent = run(DFSDT, TREE, llm, max_depth=1)
    assert _proposed(llm) == ["", ""]  # depth-1 steps are ends: the root tries its second child
    assert [_path(n) for n in agent.result.tree.root.children] == ["a", "b"]
    assert _path(agent.result.chosen) == "a"  # deepest not given up, first made
    assert [_path(n) for n in agent.algorithm.sequences] == ["a", "b"]


def test_max_sequences_continues_after_an_answer_and_keeps_the_first():
    llm = _llm()
    agent = run(DFSDT, TREE, llm, max_sequences=3)
    assert _proposed(llm) == ["", "a", "a/a1", "a", "a/a2", "a/a2", "", "b"]
    assert agent.stats()["dfsdt_sequences"] == 3
    assert _path(agent.result.chosen) == "a/a2/y1"
    nodes = {_path(n): n for n in agent.result.tree.nodes}
    assert agent.algorithm.found is nodes["a/a2/y1"]
    assert nodes["a/a2"].stats["empty_proposals"] == 1 and "empty_proposals" not in nodes["a"].stats
    assert nodes["a/a2/y1"].stats["answer"] and nodes["b/b1"].stats["answer"]
    assert nodes["a/a2/y1"].stats["judged"] == 0.9


def test_peek_success_lets_the_env_decide_without_value_calls():
    llm = _llm()
    agent = run(DFSDT, TREE, llm, WINS, prune_back=1, peek_success=True)
    assert "value" not in llm.request_kinds()
    assert agent.result.chosen.success and _path(agent.result.chosen) == "a/a1/x2"
    assert agent.stats()["peek_success"] is True


def test_bad_max_sequences_is_refused():
    with pytest.raises(ValueError, match="max_sequences"):
        run(DFSDT, TREE, _llm(), max_sequences=0)


def test_the_second_child_is_asked_with_the_next_attempt_and_sequences_are_recorded():
    llm = _llm()
    agent = run(DFSDT, TREE, llm, max_sequences=3)
    assert [e[2] for e in llm.log if e[0] == "propose" and e[1] == "a"] == [None, 1]  # attempt i for child i
    assert [_path(n) for n in agent.algorithm.sequences] == ["a/a1/x1", "a/a2/y1", "b/b1"]


def test_peek_counts_a_positive_reward_as_an_answer():
    llm = _llm()
    agent = run(DFSDT, TREE, llm, rewards={"a/a1/x1": 0.25}, peek_success=True)
    assert _path(agent.result.chosen) == "a/a1/x1" and not agent.result.chosen.success  # a scored purchase
    assert "value" not in llm.request_kinds()


def test_prune_back_three_leaves_the_grandparent_too():
    llm = _llm()
    run(DFSDT, TREE, llm, prune_back=3)
    assert _proposed(llm) == ["", "a", "a/a1", "", "b"]


def test_a_step_with_no_proposals_counts_them_and_an_empty_tree_has_no_answer():
    tree = {"": ["a"], "a": ["a1"]}
    llm = TreeLLM(proposals={"": ["a"], "a": []})
    agent = run(DFSDT, tree, llm)
    a = agent.result.tree.root.children[0]
    assert a.stats["empty_proposals"] == 2 and agent.result.chosen is a
    agent = run(DFSDT, tree, TreeLLM(proposals={}))
    assert agent.result.chosen is None and agent.result.tree.root.stats["empty_proposals"] == 2


def test_fresh_stats_and_option_parsing():
    agent = SearchPolicy(DFSDT, "t", TreeLLM(), prompts=object())
    assert agent.stats() == {"dfsdt_backtracks": 0, "dfsdt_give_ups": 0, "dfsdt_sequences": 0}
    assert SearchPolicy(DFSDT, "t", TreeLLM(), prompts=object(), max_sequences="").config.max_sequences is None
    assert SearchPolicy(DFSDT, "t", TreeLLM(), prompts=object(), max_sequences=1).config.max_sequences == 1
    assert SearchPolicy(DFSDT, "t", TreeLLM(), prompts=object()).env_id == "t"


def test_every_child_is_asked_for_as_one_action():
    prompts = CountingPrompts()
    agent = run(DFSDT, TREE, _llm(), WINS, prompts=prompts)
    assert len(prompts.ks) >= 3 and set(prompts.ks) == {1}
    assert agent.result.chosen is not None


def test_judec_dfsdt_takes_three_sequences_without_value_calls():
    from treegym.agents.registry import make_agent

    llm = _llm()
    agent = run(lambda env_id, llm, **o: make_agent("judec-dfsdt", env_id, llm, **o), TREE, llm, WINS)
    assert (agent.config.max_sequences, agent.config.answer_judge) == (3, "none")
    assert "value" not in llm.request_kinds()
    # every final step is an answer (the model chose to end): after one, the parent tries its
    # next child; the third sequence ends the search
    assert [_path(s) for s in agent.algorithm.sequences] == ["a/a1/x1", "a/a1/x2", "a/a2/y1"]
    assert _path(agent.result.chosen) == "a/a1/x1" and not agent.result.chosen.success
    stats = agent.stats()
    assert stats["decision_sequences"] == 3 and stats["sequences_success_any"] is True  # x2 won
    assert "sequences_success_any" not in run(DFSDT, TREE, _llm(), WINS).stats()
    with pytest.raises(ValueError, match="answer_judge"):
        SearchPolicy(DFSDT, "treegym/TreeWorld-v0", _llm(), answer_judge="env")


def test_max_depth_cites_what_counts_env_steps():
    """ToolBench's single_chain_max_step 12 counts tree nodes (three per step), not env steps: our 12
    env steps are JUDEC 5.1's 12 steps per sequence, and the label says so."""
    from dataclasses import fields

    from treegym.agents.search.dfsdt import DFSDTConfig

    field = {f.name: f for f in fields(DFSDTConfig)}["max_depth"]
    assert field.default == 12 and field.metadata["source"].startswith("paper (JUDEC 5.1: 12 steps")
    assert "counts tree nodes" in field.metadata["source"]
