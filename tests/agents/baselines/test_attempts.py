"""cot@K, Reflexion and sc@K on Game of 24: independent restored attempts, reflections in prompts, voting."""
from __future__ import annotations

import json
import re

import pytest

from support.agent_runs import ACCURATE, ENV, WEAK, assert_call_budget_holds_under_threads, episode, garbage_episode, pass_rate, same_state, searched
from support.tree_world import started
from treegym.agents.search.agent import SearchPolicy
from treegym.agents.baselines.attempts import SelfConsistency
from treegym.agents.simulated.scripted import ScriptedLLM
from treegym.agents.llm_specs import make_llm
from treegym.agents.registry import make_agent
from treegym.agents.requests import ReflectRequest
from treegym.agents.search.tree import SearchNode

LESSON = "LESSON-7: multiply early, 4 * 6 is 24."


def _adds_first_two(request) -> str:
    """A scripted model that always adds the first two numbers left, and reflects with LESSON."""
    if isinstance(request.about, ReflectRequest):
        return LESSON
    left = re.findall(r"^Numbers left: (.*)$", request.messages[-1]["content"], re.MULTILINE)[-1].split()
    return f"Thought: add.\nAction: {left[0]} + {left[1]}"


_adds_first_two.takes_request = True  # ScriptedLLM passes it the whole Request (its typed request included)


def _peek(agent: str) -> dict:
    """cot@K and reflexion are defined by the env's success signal: they need peek_success."""
    return {} if agent.startswith("sc@") else {"peek_success": True}


@pytest.mark.parametrize("agent", ["cot@3", "reflexion"])
def test_cot_and_reflexion_refuse_to_run_without_the_success_signal(agent):
    with pytest.raises(ValueError, match="peek_success=true"):
        make_agent(agent, ENV, make_llm(ACCURATE, env_id=ENV))
    with pytest.raises(ValueError, match="peek_success=true"):
        make_agent("sc@5", ENV, make_llm(ACCURATE, env_id=ENV), stop_on_success=True)


@pytest.mark.parametrize("agent", ["cot@3", "reflexion", "sc@5"])
def test_solves_with_an_accurate_model_and_degrades_with_a_weak_one(agent):
    good = pass_rate(agent, ACCURATE, **_peek(agent))
    bad = pass_rate(agent, WEAK, **_peek(agent))
    assert good >= 0.8
    assert bad <= good - 0.5


def test_reflexion_carries_its_reflection_into_the_next_attempts_prompts():
    llm = ScriptedLLM(_adds_first_two)
    record, policy = episode("reflexion", llm, 900, peek_success=True)  # 4 5 6 10: adding first never makes 24
    assert not record["success"]
    kinds = llm.kinds
    assert kinds.count("reflect") == 2  # after attempts 1 and 2, not after the last
    first_reflect = kinds.index("reflect")
    before = [m for m, k in zip(llm.calls[:first_reflect], kinds) if k == "react"]
    after = [m for m, k in zip(llm.calls[first_reflect + 1:], kinds[first_reflect + 1:]) if k == "react"]
    assert before and not any(LESSON in m[-1]["content"] for m in before)
    assert after and all(LESSON in m[-1]["content"] for m in after)
    assert policy.stats()["attempts"] == 3 and policy.stats()["reflections"] == 2


def test_cot_attempts_restart_from_the_start_and_stop_at_the_first_success():
    llm = make_llm("synthetic:p_correct=0.6,seed=2", env_id=ENV)
    policy, env, before, _ = searched("cot@5", llm, task_id=906, peek_success=True)
    assert same_state(env, before)
    finished = policy.algorithm.finished
    assert all(leaf.path()[0] is policy.result.tree.root for leaf in finished)
    assert all(not leaf.success for leaf in finished[:-1])
    if finished[-1].success:
        assert policy.result.chosen is finished[-1]
    else:
        assert len(finished) == 5


def test_cot_at_k_sets_the_number_of_attempts_and_rejects_a_conflict():
    llm = ScriptedLLM(_adds_first_two)
    record, policy = episode("cot@4", llm, 900, peek_success=True)
    assert policy.stats()["attempts"] == 4 and not record["success"]
    assert policy.stats()["peek_success"] is True
    with pytest.raises(ValueError, match="@3"):
        make_agent("cot@3", ENV, llm, attempts=5, peek_success=True)


def _leaf(text: str) -> SearchNode:
    return SearchNode(snapshot=None, observation={"text": text})  # type: ignore[arg-type]


def test_self_consistency_majority_vote():
    agent = started(SearchPolicy(SelfConsistency, ENV, make_llm(ACCURATE, env_id=ENV)))
    a, b, c, d, e = (_leaf("x\nNumbers left: 25"), _leaf("y\nNumbers left: 24"), _leaf("z\nNumbers left: 25"),
                     _leaf("w\nNumbers left: 24"), _leaf("v\nNumbers left: 24"))
    agent.algorithm.finished = [a, b, c, d, e]
    assert agent.algorithm.choose(None) is b  # 24 has three votes; its first attempt is played
    agent.algorithm.finished = [a, b, c, d]
    assert agent.algorithm.choose(None) is a  # a tie goes to the answer that came first
    assert agent.algorithm.votes == {"Numbers left: 25": 2, "Numbers left: 24": 2}


def test_self_consistency_plays_all_k_attempts_and_chooses_the_majority():
    llm = make_llm("synthetic:p_correct=0.7,seed=5", env_id=ENV)
    policy, env, before, first = searched("sc@5", llm, task_id=903)
    assert policy.stats()["attempts"] == 5  # no early stop
    assert same_state(env, before)
    votes = policy.stats()["sc_votes"]
    assert policy.result.chosen.stats["answer"] == max(votes, key=votes.get)


@pytest.mark.parametrize("agent", ["cot@3", "reflexion", "sc@5"])
@pytest.mark.parametrize("budget", [1, 4, 7])
def test_never_exceeds_its_budget(agent, budget):
    llm = make_llm(WEAK, env_id=ENV)
    policy, env, before, _ = searched(agent, llm, budget=budget, **_peek(agent))
    assert llm.usage.calls <= budget
    assert same_state(env, before)


@pytest.mark.parametrize("agent", ["cot@3", "reflexion", "sc@5"])
def test_same_seed_same_tree(agent):
    a, b = (json.dumps(searched(agent, make_llm(WEAK, env_id=ENV), task_id=904, **_peek(agent))[0]
                       .result.tree.to_json())
            for _ in range(2))
    assert a == b


@pytest.mark.parametrize("agent", ["cot@3", "reflexion", "sc@5"])
def test_the_runs_call_budget_holds_under_threads(agent, tmp_path):
    assert_call_budget_holds_under_threads(agent, tmp_path / "runs.jsonl", **_peek(agent))


@pytest.mark.parametrize("agent", ["cot@3", "reflexion", "sc@5"])
def test_garbage_answers_end_the_episode_cleanly(agent):
    record, llm = garbage_episode(agent, **_peek(agent))
    assert not record["success"] and len(llm.calls) <= 40
    assert record["error"] is None or record["error"].startswith(("agent gave up", "budget exhausted")), record["error"]
