"""Every registered agent plays treegym/BMoCA-v0 with the synthetic (oracle-backed) LLM, and the B-MoCA prompt."""
from __future__ import annotations

import gymnasium as gym
import pytest

import treegym.envs  # noqa: F401 - registers the ids
from treegym.agents.experiments.episode import run_episode
from treegym.agents.llm_specs import make_llm
from treegym.agents.prompts import get_prompts
from support.agent_runs import required_options
from treegym.agents.registry import agent_names, make_agent

ENV = "treegym/BMoCA-v0"
LLM = "synthetic:p_correct=0.9,judge_acc=0.9,position_bias=0,value_noise=0.1,seed=0"
TASK = "test_env_100/go_to_the_timer_page_in_clock"  # open Clock, tap the Timer tab
AGENTS = [n.replace("@K", "@3") for n in agent_names() if n not in ("rule", "gold")]


@pytest.mark.parametrize("agent", AGENTS)
def test_every_agent_runs_on_bmoca_with_the_synthetic_llm(agent):
    env = gym.make(ENV, split="test")
    llm = make_llm(LLM, env_id=ENV) if agent not in ("oracle", "random") else None
    record = run_episode(env, make_agent(agent, ENV, llm, seed=0, **required_options(agent)), task_id=TASK, seed=0)
    env.close()
    assert record["error"] is None, (agent, record["error"])
    if agent != "random":
        assert record["success"] and record["steps"] <= 5, (agent, record["actions"])
    if llm is not None:
        assert llm.usage.calls >= 1


def test_bmoca_prompt_is_upstream_style_and_parses_the_four_functions():
    env = gym.make(ENV, split="test")
    obs, _ = env.reset(options={"task_id": "test_env_100/turn_on_wifi"})
    spec = get_prompts(ENV).bind(env)
    system, user = (m["content"] for m in spec.react_messages(obs, []))
    assert "Description:" in system and "dual-gesture(touch_y, touch_x, lift_y, lift_x)" in system
    assert user.startswith("Goal: turn on wifi\nPrevious actions: (none)\nObservation: [{'numeric_tag': 0")
    assert obs["text"] in user  # the whole element list, never cut
    assert spec.parse_action("Description: home\nThought: open it\nAction: tap( 2 )", obs) == "tap(2)"
    assert spec.parse_action("Action: swipe('UP')", obs) == 'swipe("up")'
    assert spec.parse_action("Action: dual-gesture(0.5, 0.5, 0.5, 0.1)", obs) == "dual-gesture(0.5, 0.5, 0.5, 0.1)"
    reply = spec.render_react("tap(2)")
    assert reply.splitlines()[0].startswith("Description:") and spec.parse_action(reply, obs) == "tap(2)"
    env.close()
