"""MCTS and LATS on Game of 24: UCT by hand, solving, degrading, budget, rollback, determinism, reflections."""
from __future__ import annotations

import json
import math

import pytest

from support.agent_runs import ACCURATE, ENV, WEAK, garbage_episode, pass_rate, run_with_budget, recording, same_state, searched
from treegym.agents.llm_specs import make_llm
from treegym.agents.registry import make_agent
from treegym.agents.search.tree import SearchNode
from treegym.agents.search.mcts import MCTSAgent


def _node(visits: int, value: float, prior: float = 0.0) -> SearchNode:
    node = SearchNode(snapshot=None, observation={}, visits=visits, value=value)  # type: ignore[arg-type]
    node.stats["prior"] = prior
    return node


def test_uct_by_hand():
    agent = MCTSAgent(ENV, make_llm(ACCURATE, env_id=ENV), w_exp=1.0)
    parent = _node(visits=8, value=0.0)
    # Q + w * sqrt(ln 8 / 2) = 0.5 + 1.019668...
    assert agent.uct(parent, _node(2, 0.5)) == pytest.approx(0.5 + math.sqrt(math.log(8) / 2))
    # unvisited: the prior stands in for Q, and N counts as 1
    assert agent.uct(parent, _node(0, 0.0, prior=0.25)) == pytest.approx(0.25 + math.sqrt(math.log(8)))


@pytest.mark.parametrize("agent", ["mcts", "lats"])
def test_solves_with_an_accurate_model_and_degrades_with_a_weak_one(agent):
    good = pass_rate(agent, ACCURATE)
    bad = pass_rate(agent, WEAK, budget=30)
    assert good >= 0.8
    assert bad <= good - 0.5


@pytest.mark.parametrize("agent", ["mcts", "lats"])
@pytest.mark.parametrize("budget", [1, 4, 9])
def test_never_exceeds_its_budget_and_stops_cleanly(agent, budget):
    llm = make_llm(WEAK, env_id=ENV)
    policy, env, before, action = searched(agent, llm, budget=budget)
    assert llm.usage.calls <= budget
    assert policy.stats()["search_stopped"] in ("budget", "done")
    assert action is None or isinstance(action, str)
    assert same_state(env, before)


@pytest.mark.parametrize("agent", ["mcts", "lats"])
def test_search_leaves_the_env_where_it_found_it_and_the_plan_replays(agent):
    policy, env, before, first = searched(agent, make_llm(ACCURATE, env_id=ENV), peek_success=True)
    assert same_state(env, before)
    tree = policy.result.tree
    assert len(tree) > 4 and len(policy.result.trajectories) > 1  # branches were explored and abandoned
    chosen = policy.result.chosen
    assert chosen.success and first == chosen.actions()[0]
    # playing the chosen actions on the live env reproduces the chosen leaf exactly
    for action in chosen.actions():
        obs, reward, terminated, truncated, info = env.step(action)
    assert info["success"] and same_state(env, chosen.snapshot)


@pytest.mark.parametrize("agent", ["mcts", "lats"])
def test_same_seed_same_tree(agent):
    trees = [json.dumps(searched(agent, make_llm(WEAK, env_id=ENV), task_id=903, budget=40)[0].result.tree.to_json())
             for _ in range(2)]
    assert trees[0] == trees[1]
    assert len(json.loads(trees[0])["nodes"]) > 5


def test_backed_up_values_are_visit_weighted_means():
    """Q(n) * N(n) = sum over children of Q * N + (simulations that ended at n) * prior(n)
    (tests/test_policy_mcts.py checks the same by hand on a scripted tree)."""
    policy, *_ = searched("mcts", make_llm(WEAK, env_id=ENV), budget=40, stop_on_success=False)
    root = policy.result.tree.root
    assert root.visits == policy.stats()["mcts_iterations"] > 1
    for node in policy.result.tree.nodes:
        if node.visits:
            own = node.visits - sum(c.visits for c in node.children)
            total = sum(c.visits * c.value for c in node.children) + own * node.stats.get("prior", 0.0)
            assert own >= 0 and node.visits * node.value == pytest.approx(total)


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


def test_bad_options_are_named():
    with pytest.raises(ValueError, match="simulate"):
        MCTSAgent(ENV, make_llm(ACCURATE, env_id=ENV), simulate="dice")
    with pytest.raises(ValueError, match="n_actions"):
        MCTSAgent(ENV, make_llm(ACCURATE, env_id=ENV), n_actions=0)


@pytest.mark.parametrize("agent", ["mcts", "lats"])
def test_the_runs_call_budget_holds_under_threads(agent, tmp_path):
    records = run_with_budget(agent, WEAK, 6, tmp_path / "runs.jsonl")
    assert len(records) == 4
    for r in records:
        assert r["llm_calls"] <= 6 and r["prompt_tokens"] > 0
        assert r["error"] is None or r["error"].startswith(("agent gave up", "budget exhausted")), r["error"]


def test_mcts_at_n_sets_the_iterations():
    llm = make_llm(WEAK, env_id=ENV)
    policy, *_ = searched("mcts@3", llm, budget=200, stop_on_success=False)
    assert policy.config.n_iters == 3 and policy.stats()["mcts_iterations"] <= 3
    assert policy.result.tree.root.visits == policy.stats()["mcts_iterations"]
    with pytest.raises(ValueError, match="@3"):
        make_agent("mcts@3", ENV, llm, n_iters=5)


@pytest.mark.parametrize("agent", ["mcts", "lats"])
def test_garbage_answers_end_the_episode_cleanly(agent):
    record, llm = garbage_episode(agent)
    assert not record["success"] and len(llm.calls) <= 40
    assert record["error"] is None or record["error"].startswith(("agent gave up", "budget exhausted")), record["error"]


def test_mcts_through_the_real_openai_client_and_a_local_server():
    from support.agent_runs import episode
    from support.chat_server import ChatServer
    from support.oracle_relay import OracleRelay
    from treegym.agents.llm.openai_client import OpenAICompatibleLLM

    relay = OracleRelay(ENV)
    with ChatServer(reply=relay.reply) as server:
        llm = relay.wrap(OpenAICompatibleLLM("test-model", base_url=server.base_url, api_key="EMPTY", backoff=0.001))
        record, policy = episode("mcts", llm, 904, budget=30)
        served = len(server.chat_requests())
    assert record["success"] and record["error"] is None
    assert served == policy.stats()["search_llm_calls"] <= 30
