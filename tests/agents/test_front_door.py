"""The front door: a quick start imports only ``treegym.agents`` (and ``treegym.envs`` for the ids), and
importing ``treegym.agents`` itself is cheap: it loads no agent, backend, env or experiment module."""
from __future__ import annotations

import subprocess
import sys

import pytest


def test_a_quick_start_episode_through_the_front_door_only():
    import gymnasium as gym

    import treegym.envs  # noqa: F401 - registers the ids
    from treegym.agents import LLM, Policy, evaluate, make_agent, make_llm, run_episode

    assert callable(evaluate)
    llm = make_llm("synthetic:p_correct=1,judge_acc=1,position_bias=0,value_noise=0,seed=0",
                   env_id="treegym/Game24-v0")
    assert isinstance(llm, LLM)
    policy = make_agent("elo", "treegym/Game24-v0", llm)
    assert isinstance(policy, Policy)
    env = gym.make("treegym/Game24-v0", split="test")
    record = run_episode(env, policy, task_id=900, seed=0)
    env.close()
    assert record["success"] is True and record["error"] is None and len(record["actions"]) == 3
    assert llm.usage.calls >= 1


def test_the_front_door_names_what_it_offers_and_refuses_the_rest():
    import treegym.agents as agents

    for name in agents.__all__:
        assert getattr(agents, name) is not None, name
    assert {"make_agent", "make_llm", "run_episode", "evaluate", "Policy", "LLM"} <= set(dir(agents))
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        agents.nope  # noqa: B018


def test_importing_the_front_door_loads_nothing_behind_it():
    code = ("import sys, treegym.agents; "
            "print(sorted(m for m in sys.modules if m.startswith(('treegym.', 'openai', 'gymnasium'))))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "['treegym.agents']"
