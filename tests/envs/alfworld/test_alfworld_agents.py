"""Agents on treegym/ALFWorld-v0: the ALFWorld prompt spec, and search agents with the synthetic LLM end to end."""
from __future__ import annotations

import gymnasium as gym
import pytest

import treegym.envs  # noqa: F401
from treegym.agents.experiments.episode import run_episode
from treegym.agents.llm_specs import make_llm
from treegym.agents.prompts import get_prompts
from treegym.agents.registry import make_agent

ENV = "treegym/ALFWorld-v0"
HEAT = "pick_heat_then_place_in_recep-Apple-None-Fridge-10/trial_T20190906_182259_116320"
TWO = "pick_two_obj_and_place-PepperShaker-None-Drawer-10/trial_T20190912_221141_608117"


def test_prompt_spec_picks_the_few_shot_example_of_the_task_type():
    env = gym.make(ENV)
    obs, info = env.reset(options={"task_id": HEAT})
    spec = get_prompts(ENV).bind(env)
    messages = spec.react_messages(obs, [])
    system = messages[0]["content"]
    assert "heat egg 1 with microwave 1" in system and "put two cellphone" not in system
    assert "heat some apple and put it in fridge" in messages[1]["content"]
    env.reset(options={"task_id": TWO})
    assert "put two cellphone in drawer" in spec.react_messages(obs, [])[0]["content"]
    env0 = gym.make(ENV, style="0.4")
    env0.reset(options={"task_id": HEAT})
    system = get_prompts(ENV).bind(env0).react_messages(obs, [])[0]["content"]
    assert "move egg 1 to countertop 1" in system and "in/on" not in system


def test_react_with_a_perfect_synthetic_llm_wins():
    env = gym.make(ENV)
    llm = make_llm("synthetic:p_correct=1.0,seed=0", env_id=ENV)
    rec = run_episode(env, make_agent("react", ENV, llm), task_id=HEAT, seed=0)
    assert rec["success"] and rec["error"] is None


@pytest.mark.parametrize("agent", ["mcts", pytest.param("elo", marks=pytest.mark.slow),
                                   pytest.param("astar", marks=pytest.mark.slow),
                                   pytest.param("dfsdt", marks=pytest.mark.slow), pytest.param("bfs", marks=pytest.mark.slow)])
def test_search_agents_run_end_to_end_with_the_synthetic_llm(agent):
    env = gym.make(ENV)
    llm = make_llm("synthetic:p_correct=0.9,seed=1", env_id=ENV)
    rec = run_episode(env, make_agent(agent, ENV, llm), task_id=TWO, seed=0)
    assert rec["steps"] >= 1
    assert rec["error"] is None or rec["error"].startswith(("agent gave up", "budget exhausted")), rec["error"]
