"""LATS (MCTS with reflections, ReAct-style sampling and rollouts to the end): reflections in later
prompts on Game of 24 with the synthetic model; then on hand-built trees with scripted values (not
the truth): when it reflects and where the reflections show, and the authors' iterations and rollout
depth per benchmark. The MCTS loop it shares is tested in test_mcts.py."""
from __future__ import annotations

import math

import pytest

from support.agent_runs import WEAK, recording, searched
from support.mcts_trees import node_path, nodes_by_path
from support.tree_world import TreeLLM, run
from treegym.agents.search.agent import SearchPolicy
from treegym.agents.search.lats import LATS


# ------------------------------ on Game of 24 with the synthetic model

def test_lats_shows_reflections_in_later_proposal_prompts():
    llm = recording(WEAK)
    policy, *_ = searched("lats", llm, task_id=904, budget=60)
    kinds = llm.kinds
    assert "reflect" in kinds
    first_reflect = kinds.index("reflect")
    later = [m for m, k in zip(llm.calls[first_reflect + 1:], kinds[first_reflect + 1:]) if k == "propose"]
    earlier = [m for m, k in zip(llm.calls[:first_reflect], kinds[:first_reflect]) if k == "propose"]
    lesson = "Lessons from earlier attempts:"
    assert later and all(lesson in m[-1]["content"] for m in later)
    assert earlier and not any(lesson in m[-1]["content"] for m in earlier)
    assert policy.stats()["reflections"] >= 1


# ------------------------------ on hand-built trees with scripted models (not the truth)

def test_lats_reflects_after_each_simulation_that_the_model_does_not_rate_a_win():
    tree = {"": ["a", "b"], "a": ["a1"], "b": ["b1"]}
    llm = TreeLLM(proposals=tree, values={"a": 0.5, "b": 0.4, "a/a1": 1.0, "b/b1": 0.2})
    agent = run(LATS, tree, llm, n_iters=3, n_actions=2, depth_limit=3)
    reflected = [node_path(n) for n in agent.result.tree.nodes if "reflection" in n.stats]
    assert "a/a1" not in reflected and reflected  # rated 1.0 by the model: no reflection
    assert math.isclose(agent.result.tree.root.visits, agent.stats()["mcts_iterations"])


def test_lats_reflects_on_its_first_failures_only_and_shows_them_in_later_prompts():
    tree = {"": ["a", "b", "c"], "a": ["a1"], "b": ["b1"], "c": ["c1"]}
    llm = TreeLLM(proposals=tree, values={"a": 0.5, "b": 0.4, "c": 0.3, "a/a1": 0.0, "b/b1": 0.0, "c/c1": 0.0})
    agent = run(LATS, tree, llm, n_iters=4, n_actions=3, depth_limit=3, max_reflections=2)
    assert agent.stats()["reflections"] == 2
    reflected_at = [i for i, (kind, _) in enumerate(llm.prompts) if kind == "reflect"]
    assert len(reflected_at) == 2  # the first max_reflections failures, as the authors' code; none after
    later = [text for kind, text in llm.prompts[reflected_at[0] + 1:] if kind == "propose"]
    assert later and all(text.startswith("Lessons from earlier attempts:\n- lesson\n") for text in later)
    # never more than max_reflections (2) lessons
    assert max(text.count("- lesson") for kind, text in llm.prompts if kind == "propose") == 2
    first = [text for kind, text in llm.prompts[: reflected_at[0]] if kind == "propose"]
    assert first and not any("Lessons" in text for text in first)
    ended = [n for n in agent.result.tree.nodes if "reflection" in n.stats]
    assert all(n.stats["reflection"] == "lesson" for n in ended)


def test_the_reflection_prompt_shows_the_models_value_not_the_envs_verdict():
    tree = {"": ["a", "b"], "a": ["a1"], "b": ["b1"]}
    values = {"a": 0.5, "b": 0.25, "a/a1": 0.5, "b/b1": 0.25}
    llm = TreeLLM(proposals=tree, values=values)
    run(LATS, tree, llm, ["a/a1"], n_iters=2, n_actions=2, depth_limit=3, rollout_depth=1)
    outcomes = [text.splitlines()[0] for kind, text in llm.prompts if kind == "reflect"]
    assert outcomes[0] == "outcome: the episode ended in a state valued 0.50"  # a/a1 won; the model said 0.5
    llm = TreeLLM(proposals=tree, values=values)
    run(LATS, tree, llm, ["b/b1"], n_iters=2, n_actions=2, depth_limit=3, rollout_depth=0)
    assert [t.splitlines()[0] for k, t in llm.prompts if k == "reflect"][0] == \
        "outcome: after 1 steps the state was valued 0.50"
    llm = TreeLLM(proposals=tree, values=values)
    run(LATS, tree, llm, ["b/b1"], n_iters=2, n_actions=2, depth_limit=3, rollout_depth=1, peek_success=True,
        stop_on_success=False)
    outcomes = [t.splitlines()[0] for k, t in llm.prompts if k == "reflect"]
    assert outcomes[0] == "outcome: the episode ended without success (reward 0)"
    llm = TreeLLM(proposals=tree, values=dict(values, a=1.0))  # the model is sure about a; the env is not
    run(LATS, tree, llm, ["b/b1"], n_iters=1, n_actions=2, depth_limit=3, rollout_depth=0, peek_success=True)
    assert [t.splitlines()[0] for k, t in llm.prompts if k == "reflect"] == ["outcome: no success after 1 steps"]


def test_lats_reflections_reach_sampled_react_prompts_too():
    tree = {"": ["a", "b"], "a": ["a1"], "b": ["b1"]}
    samples = {"": ["a", "b"], "a": ["a1"], "b": ["b1"]}
    llm = TreeLLM(samples=samples, values={"a": 0.5, "b": 0.4, "a/a1": 0.0, "b/b1": 0.0})
    run(LATS, tree, llm, n_iters=3, n_actions=2, depth_limit=3, propose_mode="sample")
    first_reflection = next(i for i, (kind, _) in enumerate(llm.prompts) if kind == "reflect")
    later = [text for kind, text in llm.prompts[first_reflection:] if kind == "react"]
    assert later and all(t.startswith("Lessons from earlier attempts:\n- lesson\n") and "\n\nat " in t
                         for t in later)


@pytest.mark.parametrize("env_id,iters", [("treegym/WebShop-v0", 30), ("treegym/HotPotQA-v0", 30),
                                          ("treegym/Game24-v0", 30)])
def test_lats_iterations_follow_the_benchmark(env_id, iters):
    agent = SearchPolicy(LATS, env_id, TreeLLM())
    assert agent.config.n_iters == iters
    assert (agent.config.rollout_width, agent.config.rollout_depth, agent.config.depth_limit, agent.config.n_actions) == (5, None, 7, 5)
    assert agent.config.w_exp == pytest.approx(math.sqrt(2)) and agent.config.reflect and agent.config.simulate == "rollout"
    assert SearchPolicy(LATS, env_id, TreeLLM(), n_iters=7).config.n_iters == 7


@pytest.mark.parametrize("env_id,depth", [("treegym/WebShop-v0", 15), ("treegym/HotPotQA-v0", 4),
                                          ("treegym/Game24-v0", 7)])
def test_lats_rollouts_stop_at_the_authors_depth_per_benchmark(env_id, depth):
    assert SearchPolicy(LATS, env_id, TreeLLM()).config.rollout_max_depth == depth  # webshop/lats.py 15, hotpot/lats.py 4
    assert SearchPolicy(LATS, env_id, TreeLLM(), rollout_max_depth=2).config.rollout_max_depth == 2
    chain = {("/".join(["x"] * i)): ["x"] for i in range(20)}  # x/x/x/... twenty deep
    llm = TreeLLM(proposals=chain)
    agent = run(LATS, chain, llm, n_iters=1, rollout_max_depth=depth, rollout_width=1)
    # one iteration: the root's child, then a rollout down to the rollout depth, past depth_limit (7)
    assert max(n.depth for n in agent.result.tree.nodes) == depth


def test_lats_rolls_out_to_the_end_sampling_five_children_per_step():
    deep = {"": ["a"], "a": ["a1"], "a/a1": ["p", "q", "r", "s", "t"], "a/a1/p": ["e"], "a/a1/q": ["e"],
            "a/a1/r": ["e"], "a/a1/s": ["e"], "a/a1/t": ["e"]}
    values = {"a/a1/r": 0.9, "a/a1/p": 0.1}
    llm = TreeLLM(proposals=deep, values=values)
    agent = run(LATS, deep, llm, n_iters=1)
    nodes = nodes_by_path(agent)
    # one iteration: expand the root (a), roll out from a to the end of the episode (a/a1/r/e),
    # valuing the 5 candidates at a/a1 and keeping the best (r)
    assert "a/a1/r/e" in nodes and nodes["a/a1/r/e"].terminal and nodes["a/a1/r/e"].stats["rollout"]
    assert [e[1] for e in llm.log if e[0] == "value"] == ["a", "a/a1/p", "a/a1/q", "a/a1/r", "a/a1/s",
                                                          "a/a1/t", "a/a1/r/e"]
    assert nodes[""].visits == 1 and nodes["a/a1/r"].visits == 1 and nodes["a/a1/p"].visits == 0
