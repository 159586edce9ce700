"""The synthetic LLM: oracle truth (from the env, through the typed request) corrupted by known knobs,
deterministic, named as a simulation."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import gymnasium as gym
import pytest

from treegym.agents.llm_specs import make_llm
from treegym.agents.simulated.synthetic import SyntheticLLM, parse_spec
from treegym.agents.prompts import Step, get_prompts
from treegym.agents.requests import (
    CompareRequest, ImagineRequest, ProposeRequest, ReactRequest, ReflectRequest, ValueRequest,
)
from treegym.envs import snapshot
from treegym.envs.game24.solver import is_solvable
from treegym.agents.llm.request import Request

ENV = "treegym/Game24-v0"
PROMPTS = get_prompts(ENV)


def _env(task_id):
    env = gym.make(ENV)
    obs, _ = env.reset(options={"task_id": task_id})
    PROMPTS.bind(env)
    return env, obs


def _obs(task_id):
    return _env(task_id)[1]


def _ask(llm, kind, env, *states, **kw):
    """The ``kind`` request about ``states`` (snapshots; default: the live env), sent to ``llm``."""
    messages = kw.pop("messages")
    n = kw.pop("n", 1)
    typed = KINDS[kind](messages, env, tuple((s, ()) for s in states) or ((None, ()),), n=n,
                        temperature=1.0 if n > 1 else 0.0, **kw)
    return typed.send(llm)


KINDS = {"react": ReactRequest, "propose": ProposeRequest, "compare": CompareRequest, "value": ValueRequest,
         "reflect": ReflectRequest, "imagine": ImagineRequest}


def _after(env, action):
    """The numbers left after ``action`` from the env's current state (the env is put back)."""
    snap = snapshot(env)
    obs, *_ = env.step(action)
    from treegym.envs import restore
    restore(env, snap)
    return list(obs["left"])


def test_spec_name_and_errors():
    llm = make_llm("synthetic:p_correct=0.7,judge_acc=0.8,position_bias=0.2,value_noise=0.1,seed=4", env_id=ENV)
    assert llm.name == "synthetic(p_correct=0.7,judge_acc=0.8,position_bias=0.2,value_noise=0.1,seed=4)"
    assert parse_spec("") == {"p_correct": 0.8, "judge_acc": 0.9, "position_bias": 0.1, "value_noise": 0.2, "seed": 0}
    with pytest.raises(ValueError, match="bad part 'accuracy=1'"):
        make_llm("synthetic:accuracy=1", env_id=ENV)
    with pytest.raises(ValueError, match="not a number"):
        make_llm("synthetic:p_correct=high", env_id=ENV)
    with pytest.raises(ValueError, match="probability"):
        make_llm("synthetic:p_correct=1.5", env_id=ENV)
    with pytest.raises(ValueError, match="env id"):
        make_llm("synthetic:p_correct=0.5")


def test_perfect_and_hopeless_react_actions():
    perfect = SyntheticLLM(ENV, p_correct=1.0, seed=0)
    hopeless = SyntheticLLM(ENV, p_correct=0.0, seed=0)
    for tid in range(900, 920):
        env, obs = _env(tid)
        messages = PROMPTS.react_messages(obs, [])
        good = PROMPTS.parse_action(_ask(perfect, "react", env, messages=messages)[0], obs)
        bad = PROMPTS.parse_action(_ask(hopeless, "react", env, messages=messages)[0], obs)
        assert good in obs["valid_actions"] and is_solvable(_after(env, good))
        assert bad not in obs["valid_actions"] or not is_solvable(_after(env, bad))


def test_p_correct_is_the_rate_of_correct_proposals():
    llm = SyntheticLLM(ENV, p_correct=0.7, seed=1)
    correct = total = 0
    for tid in range(900, 960):
        env, obs = _env(tid)
        for line in _ask(llm, "propose", env, k=5, messages=PROMPTS.propose_messages(obs, [], 5))[0].splitlines():
            total += 1
            correct += line in obs["valid_actions"] and is_solvable(_after(env, line))
    assert total == 300
    assert 0.6 <= correct / total <= 0.8


def _good_and_dead(task_id=900):
    env, obs = _env(task_id)
    root = snapshot(env)
    env.step("10 - 4 = 6 (left: 5 6 6)")
    good = snapshot(env)
    env.reset(options={"task_id": task_id})
    env.step("10 * 6 = 60 (left: 4 5 60)")
    dead = snapshot(env)
    return env, obs, root, good, dead


def test_judge_accuracy_and_position_bias():
    env, obs, _root, good, dead = _good_and_dead()
    msgs = PROMPTS.compare_messages(obs, [Step("10 - 4 = 6 (left: 5 6 6)", "")], [Step("10 * 6 = 60 (left: 4 5 60)", "")])
    pick = lambda llm, a, b: PROMPTS.parse_comparison(_ask(llm, "compare", env, a, b, messages=msgs)[0])  # noqa: E731
    fair = SyntheticLLM(ENV, judge_acc=1.0, position_bias=0.0)
    assert pick(fair, good, dead) == 1.0 and pick(fair, dead, good) == 0.0
    biased = SyntheticLLM(ENV, judge_acc=1.0, position_bias=1.0)
    assert pick(biased, dead, good) == 1.0
    wrong = SyntheticLLM(ENV, judge_acc=0.0, position_bias=0.0)
    assert pick(wrong, good, dead) == 0.0


def test_value_noise():
    env, obs, _root, good, dead = _good_and_dead()
    msgs = PROMPTS.value_messages(obs, [])  # the prompt does not decide: the state does
    exact = SyntheticLLM(ENV, value_noise=0.0)
    assert _ask(exact, "value", env, good, messages=msgs)[0] == "sure"
    assert _ask(exact, "value", env, dead, messages=msgs)[0] == "impossible"
    noisy = SyntheticLLM(ENV, value_noise=1.0, seed=2)
    answers = _ask(noisy, "value", env, good, messages=msgs, n=40)
    assert {"sure", "likely", "impossible"} <= set(answers)


def test_the_truth_comes_from_the_env_not_from_the_prompt():
    env, obs, root, good, dead = _good_and_dead()
    llm = SyntheticLLM(ENV, p_correct=1.0, value_noise=0.0)
    misleading = [{"role": "user", "content": "Numbers left: 24. Steps: none. This is surely solved."}]
    assert _ask(llm, "value", env, dead, messages=misleading)[0] == "impossible"
    plan = _ask(llm, "imagine", env, good, messages=misleading)[0].splitlines()
    assert len(plan) == 2 and all(" = " in line for line in plan)  # two steps finish 5 6 6
    assert _ask(llm, "imagine", env, dead, messages=misleading)[0] == "impossible"
    assert "A plan that works from the start" in _ask(llm, "reflect", env, root, messages=misleading)[0]


def test_deterministic_per_request_and_independent_of_thread_order():
    envs = [_env(t) for t in range(900, 912)]
    requests = [(env, PROMPTS.propose_messages(obs, [], 4)) for env, obs in envs]
    a = SyntheticLLM(ENV, p_correct=0.5, seed=7)
    b = SyntheticLLM(ENV, p_correct=0.5, seed=7)
    ask = lambda llm, r: _ask(llm, "propose", r[0], k=4, messages=r[1])[0]  # noqa: E731
    serial = [ask(a, r) for r in requests]
    with ThreadPoolExecutor(4) as pool:
        threaded = list(pool.map(lambda r: ask(b, r), reversed(requests)))[::-1]
    assert serial == threaded
    assert [ask(a, r) for r in requests] == serial  # asking again gives the same answer
    other = SyntheticLLM(ENV, p_correct=0.5, seed=8)
    assert [ask(other, r) for r in requests] != serial
    # the call's own seed and n give different samples of one prompt
    assert len(set(_ask(a, "propose", requests[0][0], k=4, messages=requests[0][1], n=8))) > 1


def test_usage_counts_one_call_per_complete():
    llm = SyntheticLLM(ENV)
    env, obs = _env(900)
    _ask(llm, "react", env, messages=PROMPTS.react_messages(obs, []), n=3)
    assert llm.usage.calls == 1 and llm.usage.prompt_tokens > 0 and llm.usage.completion_tokens > 0


def test_synthetic_llm_answers_an_unreadable_prompt_with_garbage_not_a_crash():
    from treegym.agents.simulated.synthetic import UNREADABLE_PROMPT_REPLY
    from treegym.agents.llm_specs import make_llm

    llm = make_llm("synthetic:p_correct=1", env_id="treegym/Game24-v0")
    reply = llm.complete(Request([{"role": "user", "content": "no puzzle here"}], n=2))
    assert reply == [UNREADABLE_PROMPT_REPLY] * 2 and llm.usage.calls == 1
