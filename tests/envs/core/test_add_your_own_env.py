"""docs/envs.md's ForkableEnv guide, proven: a new env that follows the env-agent contract
(envs/examples/number_walk.py: snapshot hooks, info["success"], expert(), canonical_action,
task_fields) runs every registered agent with the synthetic LLM, with no agent-side code
at all (the generic prompt spec; a spec of its own is optional)."""
from __future__ import annotations

import gymnasium as gym
import pytest

from treegym.agents.experiments.episode import run_episode
from treegym.agents.llm_specs import make_llm
from treegym.agents.prompts import PromptSpec, get_prompts, spec_env_ids
from support.agent_runs import required_options
from treegym.agents.registry import agent_names, make_agent

ENV = "treegym/NumberWalk-v0"  # registered by conftest.py, as docs/envs.md tells a user to
LLM = "synthetic:p_correct=0.9,judge_acc=0.9,position_bias=0,value_noise=0.1,seed=0"
ENV_SCOPED = {"rule", "gold"}  # WebShop's own baselines: a clear error elsewhere
AGENTS = [n.replace("@K", "@3") for n in agent_names() if n not in ENV_SCOPED]
# bfs spends 3 value calls on each of 8 proposals per kept state, so it needs more calls
# than its default budget to reach the walk's depth without peeking at success.
OPTIONS = {"bfs": {"budget": 400}}


def test_the_new_env_has_no_agent_side_code():
    assert ENV not in spec_env_ids() and type(get_prompts(ENV)) is PromptSpec


@pytest.mark.parametrize("agent", AGENTS)
def test_every_agent_runs_on_the_new_env_with_the_synthetic_llm(agent):
    env = gym.make(ENV)
    llm = make_llm(LLM, env_id=ENV) if agent not in ("oracle", "random") else None
    policy = make_agent(agent, ENV, llm, seed=0, **OPTIONS.get(agent, {}), **required_options(agent))
    record = run_episode(env, policy, seed=0)
    env.close()
    if agent == "random":
        assert record["error"] is None and record["steps"] >= 1
    else:  # the model is accurate and the walk is short: every agent reaches the target
        assert record["success"] and record["error"] is None, (agent, record["actions"], record["error"])
    if llm is not None:
        assert llm.usage.calls >= 1


@pytest.mark.parametrize("agent", sorted(ENV_SCOPED))
def test_env_scoped_agents_name_the_env_they_play(agent):
    with pytest.raises(ValueError, match="only plays treegym/WebShop-v0"):
        make_agent(agent, ENV)
