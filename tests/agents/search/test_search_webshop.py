"""Every search agent end to end on WebShop (the shipped catalog, in-process) with the synthetic LLM.

The search must leave the env where it found it, keep within its budget, never
read the env's success flag (``peek_success`` off), play only legal actions (a
listed one or a free-form ``search[...]`` query), and end the episode with a
record and no crash.
"""
from __future__ import annotations

import gymnasium as gym
import pytest

from treegym.agents.experiments.episode import run_episode
from treegym.agents.llm_specs import make_llm
from treegym.agents.registry import make_agent
from treegym.envs import snapshot

ENV = "treegym/WebShop-v0"
LLM = "synthetic:p_correct=0.9,judge_acc=0.9,position_bias=0,value_noise=0.1,seed=0"
SMALL = {  # settings that keep each search to a few seconds
    "elo": {"explorations": 4, "max_steps": 8},
    "astar": {"iterations": 6, "memory_id": "none"},
    "mcts": {"n_iters": 4, "n_actions": 3},
    "lats": {"n_iters": 3, "n_actions": 2},
    "dfsdt": {"max_depth": 8},
    "bfs": {"breadth": 2, "n_propose": 3, "n_evaluate": 1, "max_depth": 4},
    "dfs": {"n_propose": 3, "n_evaluate": 1, "max_depth": 6, "max_sequences": 3},
}


@pytest.mark.parametrize("agent", sorted(SMALL))
def test_search_agent_runs_end_to_end_on_webshop(agent, catalog):
    env = gym.make(ENV, catalog=catalog.root, split="all")
    try:
        llm = make_llm(LLM, env_id=ENV)
        policy = make_agent(agent, ENV, llm, seed=0, budget=40, **SMALL[agent])
        obs, info = env.reset(options={"task_id": 0})
        before = snapshot(env)
        policy.reset()
        policy.bind(env)
        result = policy.run_search(obs, info)
        now = snapshot(env)
        assert (now.payload, now.steps) == (before.payload, before.steps)  # the search left no trace
        tree = result.tree
        assert len(tree) > 2 and llm.usage.calls <= 40
        prompts = policy.prompts
        for node in tree.nodes[1:]:
            parent_obs = node.parent.observation
            listed = {str(a).lower() for a in parent_obs.get("valid_actions", ())}
            assert node.action.lower() in listed or prompts.is_templated(node.action, parent_obs), node.action
        stats = policy.stats()
        assert stats["peek_success"] is False and stats["search_llm_calls"] <= 40
        # the whole episode through the runner: a record, no crash
        episode_llm = make_llm(LLM, env_id=ENV)
        record = run_episode(env, make_agent(agent, ENV, episode_llm, seed=0, budget=40, **SMALL[agent]),
                             task_id=0, seed=0)
        assert record["error"] is None or record["error"].startswith("agent gave up"), record["error"]
        assert episode_llm.usage.calls <= 40 and 0.0 <= record["reward"] <= 1.0
    finally:
        env.close()


def test_astar_keeps_free_form_search_queries_on_webshop(catalog):
    env = gym.make(ENV, catalog=catalog.root, split="all")
    try:
        llm = make_llm("synthetic:p_correct=0.5,seed=1", env_id=ENV)
        policy = make_agent("astar", ENV, llm, seed=0, budget=30, iterations=2, memory_id="none")
        obs, info = env.reset(options={"task_id": 1})
        policy.reset()
        policy.bind(env)
        tree = policy.run_search(obs, info).tree
        queries = [c.action for c in tree.root.children if c.action.lower().startswith("search[")]
        assert queries, [c.action for c in tree.root.children]
        for child in tree.root.children:
            assert 0 < child.stats["g2"] <= 1 and child.stats["g2"] * policy.config.k == pytest.approx(
                round(child.stats["g2"] * policy.config.k))  # a count over k
    finally:
        env.close()


@pytest.mark.parametrize("peek", [False, True])
def test_value_and_compare_prompts_show_the_done_pages_score_only_with_peek_success(peek, catalog):
    """The done page reads "Your score (min 0.0, max 1.0) [SEP] 1.0": the env's reward. A value or
    comparison prompt shows it to the model only when the search may read the env's verdict."""
    from treegym.agents.prompts import get_prompts
    from treegym.agents.search.config import SearchConfig
    from treegym.agents.search.tree import SearchTree
    from treegym.agents.simulated.scripted import ScriptedLLM

    env = gym.make(ENV, catalog=catalog.root, split="all")
    try:
        obs, info = env.reset(options={"task_id": 0})
        plan = env.unwrapped.expert().plan
        llm = ScriptedLLM(["sure"] * 3 + ["Answer: A"] * 4)
        hooks = SearchConfig(env, get_prompts(ENV), llm, peek_success=peek)
        root = hooks.make_root(obs, info)
        hooks.tree = SearchTree(root, algorithm="test", env_id=ENV)
        node = root
        for action in plan:
            node = hooks.expand(node, action)
        assert node.terminal and "Your score" in node.observation["text"]
        hooks.value(node)
        hooks.compare(node, node.parent)
        prompts = [m[-1]["content"] for m in llm.calls]
        assert len(prompts) == 3 and all(("Your score" in p) is peek for p in prompts)
        if not peek:
            assert all("Thank you for shopping with us!" in p for p in prompts)  # the page itself stays
    finally:
        env.close()
