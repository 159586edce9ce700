"""ALFWorld states hold their facts as a difference from the game's initial facts; a group start
restores twins in one pass. The full facts, equality, pickling and stepping must not change."""
from __future__ import annotations

import pickle
import random
from dataclasses import replace

import gymnasium as gym

import treegym.envs as te
from treegym.envs.alfworld.rules import applicable
from treegym.envs.alfworld.state import ALFWorldState, sorted_commands, step_state


def _walk(seed: int, steps: int = 12):
    env = gym.make("treegym/ALFWorld-v0")
    obs, _ = env.reset(seed=seed)
    rng = random.Random(seed)
    states = [env.unwrapped.state]
    for i in range(steps):
        action = "jump around" if i % 5 == 4 else rng.choice(obs["valid_actions"])  # some invalid commands
        obs, _r, term, trunc, _ = env.step(action)
        states.append(env.unwrapped.state)
        if term or trunc:
            break
    return env, states


def test_the_difference_rebuilds_the_facts_a_full_set_would_hold():
    for seed in (0, 3, 7):
        _env, states = _walk(seed)
        facts = states[0].game.init_facts
        assert states[0].facts is facts and not states[0].removed and not states[0].added
        for before, after in zip(states, states[1:]):
            # the same step on a state built from the full facts gives the same facts
            rebuilt = ALFWorldState(game=before.game, facts=frozenset(before.facts), text=before.text,
                                    won=before.won, moves=before.moves, last_command=before.last_command,
                                    valid=before.valid, history=before.history)
            assert rebuilt == before and hash(rebuilt) == hash(before)
            again = step_state(rebuilt, after.last_command)
            assert again.facts == after.facts and again == after
            init = after.game.init_facts
            assert frozenset(after.removed) == init - after.facts and frozenset(after.added) == after.facts - init
            # canonical: sorted tuples of the game's own fact tuples (equal sets, equal states)
            assert list(after.removed) == sorted(after.removed) and list(after.added) == sorted(after.added)
            assert all(f in init for f in after.removed) and not any(f in init for f in after.added)


def test_commands_memoised_by_the_step_are_the_commands_of_the_facts():
    _env, states = _walk(1)
    for s in states[1:]:
        listed = sorted({cmd for cmd, _a in applicable(s.game, s.facts)})
        assert list(sorted_commands(s)) == listed


def test_pickle_and_replace_keep_the_facts():
    _env, states = _walk(2)
    s = states[-1]
    back = pickle.loads(pickle.dumps(s))
    assert back == s and back.facts == s.facts
    assert replace(s, facts=s.game.init_facts).facts == s.game.init_facts
    assert replace(s, text="x").facts == s.facts


def test_a_group_start_restores_each_twin_to_the_snapshot_state():
    env, _states = _walk(4, steps=6)
    snap = te.snapshot(env)
    vec = gym.make_vec("treegym/ALFWorld-v0", 4)
    vec.reset(seed=[10, 11, 12, 13])
    obs, _infos = vec.restore(snap)
    for i, sub in enumerate(vec.envs):
        core = sub.unwrapped
        assert core.state is snap.payload and core.steps == snap.steps and core.task is snap.task
        assert obs["text"][i] == env.unwrapped._last_text == core._last_text
    action = obs["valid_actions"][0][0]
    want = env.step(action)
    got = vec.step([action] * 4)
    assert all(got[0]["text"][i] == want[0]["text"] for i in range(4))
    assert list(got[1]) == [want[1]] * 4
