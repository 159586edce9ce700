"""Every registered agent on the tool envs (ToolBench-v0, RestBench-v0, ToolTasks-v0), and ToolBench
episodes through the real ``openai`` client against the local chat server."""
from __future__ import annotations

import gymnasium as gym
import pytest

import treegym.envs  # noqa: F401
from treegym.agents.experiments.episode import run_episode
from treegym.agents.llm_specs import make_llm
from treegym.agents.prompts import get_prompts
from support.agent_runs import required_options
from treegym.agents.registry import agent_names, make_agent

CASES = [("treegym/ToolBench-v0", 20015), ("treegym/RestBench-v0", 50020), ("treegym/ToolTasks-v0", "sheets-001")]
WEBSHOP_ONLY = {"gold", "rule"}


def _agent(name, env_id, llm):
    extra = required_options(name)
    try:
        return make_agent(name, env_id, llm, seed=0, budget=60, **extra)
    except ValueError as exc:
        if "unknown option(s) 'budget'" not in str(exc):
            raise
        return make_agent(name, env_id, llm, seed=0, **extra)


@pytest.mark.parametrize("env_id,task_id", CASES)
def test_every_registered_agent_runs_on_the_tool_envs(env_id, task_id):
    assert type(get_prompts(env_id)).__name__ != "PromptSpec"  # the env's own prompt spec
    for name in agent_names():
        name = name.replace("@K", "@2")
        if name in WEBSHOP_ONLY:
            with pytest.raises(ValueError, match="only plays treegym/WebShop-v0"):
                make_agent(name, env_id, make_llm("scripted", env_id=env_id))
            continue
        env = gym.make(env_id, split="all")
        record = run_episode(env, _agent(name, env_id, make_llm("scripted", env_id=env_id)), task_id=task_id, seed=0)
        env.close()
        if name == "random":  # uniform over the listed example calls: runs, rarely succeeds
            assert record["error"] is None or "gave up" in record["error"]
            continue
        assert record["success"] and record["error"] is None, (env_id, name, record["error"])


def test_elo_with_the_hidden_reward_gets_no_reward_signal_yet_passes():
    env = gym.make("treegym/ToolBench-v0", split="all", reward_mode="hidden")
    llm = make_llm("synthetic:p_correct=0.9,judge_acc=0.9,position_bias=0,value_noise=0.1,seed=0",
                   env_id="treegym/ToolBench-v0")
    record = run_episode(env, make_agent("elo", "treegym/ToolBench-v0", llm, seed=0, budget=60), task_id=20015, seed=0)
    assert record["reward"] == 0.0 and record["success"] and record["error"] is None


@pytest.mark.parametrize("agent", ["dfsdt", "elo"])
def test_toolbench_through_the_real_openai_client_and_a_local_server(agent):
    from support.chat_server import ChatServer
    from support.oracle_relay import OracleRelay
    from treegym.agents.llm.openai_client import OpenAICompatibleLLM

    env_id = "treegym/ToolBench-v0"
    relay = OracleRelay(env_id)
    with ChatServer(reply=relay.reply) as server:
        llm = relay.wrap(OpenAICompatibleLLM("test-model", base_url=server.base_url, api_key="EMPTY", backoff=0.001))
        env = gym.make(env_id, split="all")
        policy = make_agent(agent, env_id, llm, seed=0, budget=40)
        record = run_episode(env, policy, task_id=30000, seed=0)
        served = server.chat_requests()
    assert record["success"] and record["error"] is None, record["error"]
    assert len(served) == policy.stats()["search_llm_calls"] >= 1
    # the prompts are ToolBench's: the functions of the query and the Finish protocol
    text = " ".join(m["content"] for m in served[0].body["messages"])
    assert "give_up_and_restart" in text and "_for_" in text
