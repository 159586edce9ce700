"""The synthetic LLM: oracle truth corrupted by known knobs, deterministic, named as a simulation."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction

import gymnasium as gym
import pytest

from treegym.agents.adapters import Step, get_adapter
from treegym.agents.adapters.game24 import Board
from treegym.agents.adapters.oracle import request_kind
from treegym.agents.llm.spec import make_llm
from treegym.agents.llm.synthetic import SyntheticLLM, parse_spec
from treegym.envs.game24.solver import is_solvable

ENV = "treegym/Game24-v0"
ADAPTER = get_adapter(ENV)


def _obs(task_id):
    env = gym.make(ENV)
    obs, _ = env.reset(options={"task_id": task_id})
    return obs


def _after(puzzle_obs, action):
    board = Board.start(ADAPTER.puzzle_numbers(puzzle_obs)).apply(action)
    return board.numbers


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


def test_prompts_carry_their_request_kind():
    obs = _obs(900)
    assert request_kind(ADAPTER.react_messages(obs, [])) == "react"
    assert request_kind(ADAPTER.propose_messages(obs, [], 3)) == "propose"
    assert request_kind(ADAPTER.value_messages(obs, [])) == "value"
    assert request_kind(ADAPTER.compare_messages(obs, [], [])) == "compare"
    assert request_kind(ADAPTER.reflect_messages(obs, [], "lost")) == "reflect"
    assert request_kind([{"role": "user", "content": "hi"}]) is None


def test_perfect_and_hopeless_react_actions():
    perfect = SyntheticLLM(ENV, p_correct=1.0, seed=0)
    hopeless = SyntheticLLM(ENV, p_correct=0.0, seed=0)
    for tid in range(900, 920):
        obs = _obs(tid)
        messages = ADAPTER.react_messages(obs, [])
        good = ADAPTER.parse_action(perfect.complete(messages)[0], obs)
        bad = ADAPTER.parse_action(hopeless.complete(messages)[0], obs)
        assert good in obs["valid_actions"] and is_solvable(_after(obs, good))
        assert bad not in obs["valid_actions"] or not is_solvable(_after(obs, bad))


def test_p_correct_is_the_rate_of_correct_proposals():
    llm = SyntheticLLM(ENV, p_correct=0.7, seed=1)
    correct = total = 0
    for tid in range(900, 960):
        obs = _obs(tid)
        for line in llm.complete(ADAPTER.propose_messages(obs, [], 5))[0].splitlines():
            total += 1
            correct += line in obs["valid_actions"] and is_solvable(_after(obs, line))
    assert total == 300
    assert 0.6 <= correct / total <= 0.8


def test_judge_accuracy_and_position_bias():
    obs = _obs(900)
    good = [Step("10 - 4 = 6 (left: 5 6 6)", "")]
    dead = [Step("10 * 6 = 60 (left: 4 5 60)", "")]
    fair = SyntheticLLM(ENV, judge_acc=1.0, position_bias=0.0)
    assert fair.complete(ADAPTER.compare_messages(obs, good, dead))[0] == "A"
    assert fair.complete(ADAPTER.compare_messages(obs, dead, good))[0] == "B"
    biased = SyntheticLLM(ENV, judge_acc=1.0, position_bias=1.0)
    assert biased.complete(ADAPTER.compare_messages(obs, dead, good))[0] == "A"
    wrong = SyntheticLLM(ENV, judge_acc=0.0, position_bias=0.0)
    assert wrong.complete(ADAPTER.compare_messages(obs, good, dead))[0] == "B"


def test_value_noise():
    obs = _obs(900)
    exact = SyntheticLLM(ENV, value_noise=0.0)
    assert exact.complete(ADAPTER.value_messages(obs, [Step("10 - 4 = 6 (left: 5 6 6)", "")]))[0] == "sure"
    assert exact.complete(ADAPTER.value_messages(obs, [Step("10 * 6 = 60 (left: 4 5 60)", "")]))[0] == "impossible"
    noisy = SyntheticLLM(ENV, value_noise=1.0, seed=2)
    msgs = ADAPTER.value_messages(obs, [Step("10 - 4 = 6 (left: 5 6 6)", "")])
    answers = noisy.complete(msgs, n=40, temperature=1.0)
    assert {"sure", "likely", "impossible"} <= set(answers)


def test_deterministic_per_request_and_independent_of_thread_order():
    requests = [ADAPTER.propose_messages(_obs(t), [], 4) for t in range(900, 912)]
    a = SyntheticLLM(ENV, p_correct=0.5, seed=7)
    b = SyntheticLLM(ENV, p_correct=0.5, seed=7)
    serial = [a.complete(m)[0] for m in requests]
    with ThreadPoolExecutor(4) as pool:
        threaded = list(pool.map(lambda m: b.complete(m)[0], reversed(requests)))[::-1]
    assert serial == threaded
    assert [a.complete(m)[0] for m in requests] == serial  # asking again gives the same answer
    other = SyntheticLLM(ENV, p_correct=0.5, seed=8)
    assert [other.complete(m)[0] for m in requests] != serial
    # the call's own seed and n give different samples of one prompt
    assert len(set(a.complete(requests[0], n=8, temperature=1.0))) > 1


def test_usage_counts_one_call_per_complete():
    llm = SyntheticLLM(ENV)
    llm.complete(ADAPTER.react_messages(_obs(900), []), n=3)
    assert llm.usage.calls == 1 and llm.usage.prompt_tokens > 0 and llm.usage.completion_tokens > 0


def test_scripted_oracle_board_tracking():
    board = Board.start([Fraction(x) for x in (4, 5, 6, 10)])
    after = board.apply("10 - 4 = 6 (left: 5 6 6)").apply("garbage").apply("6 * 5")
    assert sorted(after.numbers) == [6, 30]
    assert after.apply("30 - 6").final_expression() == "(6 * 5) - (10 - 4)"


def test_synthetic_llm_answers_an_unreadable_prompt_with_garbage_not_a_crash():
    from treegym.agents.llm.synthetic import UNREADABLE_PROMPT_REPLY
    from treegym.agents.llm.spec import make_llm

    llm = make_llm("synthetic:p_correct=1", env_id="treegym/Game24-v0")
    reply = llm.complete([{"role": "user", "content": "no puzzle here"}], n=2)
    assert reply == [UNREADABLE_PROMPT_REPLY] * 2 and llm.usage.calls == 1
