"""Adding a request kind is one new type plus its prompt text.

This file defines a ``critique`` kind ("was the last step a good one?") and nothing
else in the repository changes for it: files touched to add the kind = 1 (this test
file; 0 files of the package). The type carries its prompt and the state it concerns;
for the simulated models it registers its truth (from the env's expert, through
``oracle.examine``), how a perfect model words it, and how the synthetic model errs.
It then runs through the scripted LLM, the synthetic LLM, and the real OpenAI client
against the tests' chat server (which answers from the oracle through the relay).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import gymnasium as gym

from support.chat_server import ChatServer
from support.oracle_relay import OracleRelay
from treegym.agents.llm.openai_client import OpenAICompatibleLLM
from treegym.agents.llm_specs import make_llm
from treegym.agents.requests import AgentRequest
from treegym.agents.simulated import oracle
from treegym.agents.simulated.oracle import OracleAnswer
from treegym.envs import snapshot

ENV = "treegym/Game24-v0"
CRITIQUE_PROMPT = "You check steps of a Game of 24 solution. Numbers left: {left}. Is the last step a good one? " \
                  "Answer good or bad."


@dataclass(frozen=True)
class CritiqueRequest(AgentRequest):
    """Was the step that led to ``states[0]`` a good one (the task is still solvable)?"""

    kind: ClassVar[str] = "critique"

    @classmethod
    def for_state(cls, env, state, observation) -> "CritiqueRequest":
        left = " ".join(str(x) for x in observation["left"])
        return cls([{"role": "user", "content": CRITIQUE_PROMPT.format(left=left)}], env, ((state, ()),),
                   choices=("good", "bad"))


def _truth(request: CritiqueRequest, malformed) -> OracleAnswer:
    value = oracle.examine(request).value
    return OracleAnswer("critique", value=value, text="good" if value > 0.5 else "bad")


def _synthetic(truth: OracleAnswer, rng, model) -> str:  # right with the judge's accuracy
    return truth.text if rng.random() < model.judge_acc else {"good": "bad", "bad": "good"}[truth.text]


oracle.register_kind(CritiqueRequest, _truth, render=lambda truth, prompts: truth.text, corrupt=_synthetic)


def _good_and_dead():
    env = gym.make(ENV)
    env.reset(options={"task_id": 900})
    good_obs, *_ = env.step("10 - 4 = 6 (left: 5 6 6)")
    good = snapshot(env)
    env.reset(options={"task_id": 900})
    dead_obs, *_ = env.step("10 * 6 = 60 (left: 4 5 60)")
    dead = snapshot(env)
    return env, CritiqueRequest.for_state(env, good, good_obs), CritiqueRequest.for_state(env, dead, dead_obs)


def test_the_scripted_llm_answers_a_new_kind_with_its_truth():
    env, good, dead = _good_and_dead()
    llm = make_llm("scripted", env_id=ENV)
    assert good.send(llm) == ["good"] and dead.send(llm) == ["bad"]
    assert llm.kinds == ["critique", "critique"]
    assert llm.calls[0][0]["content"].startswith("You check steps") and "5 6 6" in llm.calls[0][0]["content"]


def test_the_synthetic_llm_errs_on_a_new_kind_as_the_kind_says():
    env, good, dead = _good_and_dead()
    right = make_llm("synthetic:judge_acc=1", env_id=ENV)
    wrong = make_llm("synthetic:judge_acc=0", env_id=ENV)
    assert good.send(right) == ["good"] and dead.send(right) == ["bad"]
    assert good.send(wrong) == ["bad"] and dead.send(wrong) == ["good"]
    # the truth comes from the state, not from the prompt: the same prompt about the dead state
    swapped = CritiqueRequest(good.messages, env, dead.states, choices=good.choices)
    assert swapped.send(right) == ["bad"]


def test_a_new_kind_goes_through_the_real_openai_client_as_its_prompt():
    env, good, dead = _good_and_dead()
    relay = OracleRelay(ENV)
    with ChatServer(reply=relay.reply) as server:
        llm = relay.wrap(OpenAICompatibleLLM("test-model", base_url=server.base_url, api_key="EMPTY", backoff=0.001))
        assert good.send(llm) == ["good"] and dead.send(llm) == ["bad"]
        bodies = [r.body for r in server.chat_requests()]
    assert [b["messages"] for b in bodies] == [list(good.messages), list(dead.messages)]  # the prompt, as is
    assert all(b["temperature"] == 0.0 and "n" not in b for b in bodies)
