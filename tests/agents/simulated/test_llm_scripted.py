"""ScriptedLLM and the ``scripted`` spec."""
from __future__ import annotations

import gymnasium as gym
import pytest

from treegym.agents.llm import LLMError
from treegym.agents.llm_specs import make_llm
from treegym.agents.simulated.scripted import ScriptedLLM, ScriptExhausted
from treegym.agents.llm.base import LLM, approx_tokens
from treegym.agents.llm.request import Request

MSG = [{"role": "user", "content": "what now?"}]


def test_list_is_consumed_in_order_and_calls_recorded():
    llm = ScriptedLLM(["first", "second", "third"])
    assert isinstance(llm, LLM)
    assert llm.complete(Request(MSG)) == ["first"]
    assert llm.complete(Request(MSG, n=2)) == ["second", "third"]
    assert llm.calls == [MSG, MSG] and llm.remaining == 0
    assert llm.usage.calls == 2
    assert llm.usage.prompt_tokens == 2 * approx_tokens("what now?")
    assert llm.usage.completion_tokens == sum(approx_tokens(t) for t in ["first", "second", "third"])


def test_running_out_is_a_clear_error():
    llm = ScriptedLLM(["only"])
    llm.complete(Request(MSG))
    with pytest.raises(ScriptExhausted, match="ran out of responses after 1") as err:
        llm.complete(Request(MSG))
    assert isinstance(err.value, LLMError) and "cycle=True" in str(err.value)


def test_cycle_repeats_the_script():
    llm = ScriptedLLM(["a", "b"], cycle=True)
    assert [llm.complete(Request(MSG))[0] for _ in range(5)] == ["a", "b", "a", "b", "a"]


def test_callable_computes_reply_from_messages():
    llm = ScriptedLLM(lambda messages: messages[-1]["content"].upper(), name="shout")
    assert llm.complete(Request([{"role": "user", "content": "hi"}], n=2)) == ["HI", "HI"]
    assert llm.name == "shout" and llm.remaining is None


def test_recorded_messages_are_copies():
    llm = ScriptedLLM(["x"])
    messages = [{"role": "user", "content": "before"}]
    llm.complete(Request(messages))
    messages[0]["content"] = "after"
    assert llm.calls[0][0]["content"] == "before"


def test_spec_without_env_id_is_a_clear_error():
    with pytest.raises(ValueError, match="needs an env id"):
        make_llm("scripted")


def test_spec_with_env_id_plays_like_the_oracle():
    from treegym.agents.requests import ReactRequest
    from treegym.agents.prompts import Step, get_prompts

    env_id = "treegym/Game24-v0"
    llm = make_llm("scripted", env_id=env_id)
    env = gym.make(env_id)
    prompts = get_prompts(env_id).bind(env)
    obs, info = env.reset(seed=0)
    history: list[Step] = []
    for _ in range(6):
        # a typed request about the env's live state
        reply = ReactRequest(prompts.react_messages(obs, history), env).send(llm)[0]
        action = prompts.parse_action(reply, obs)
        obs, reward, terminated, truncated, info = env.step(action)
        history.append(Step(action, obs["text"], reward))
        if terminated or truncated:
            break
    assert terminated and reward == 1.0
    assert llm.usage.calls == len(history) == len(llm.calls) and set(llm.kinds) == {"react"}
    env.close()


def test_no_script_always_answers_empty_and_empty_script_is_never_callable():
    silent = ScriptedLLM()
    assert [silent.complete(Request(MSG))[0] for _ in range(3)] == ["", "", ""]
    with pytest.raises(ScriptExhausted):
        ScriptedLLM([]).complete(Request(MSG))
