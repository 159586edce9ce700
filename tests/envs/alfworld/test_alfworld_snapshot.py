"""ALFWorld snapshots hold no static data (the game pickles by its loader key, the facts as a diff from
the initial state) and survive pickling into a fresh process; the compiled goal agrees with the generic
PDDL evaluator."""
from __future__ import annotations

import json
import pickle
import random
import subprocess
import sys

import pytest

from treegym.envs.alfworld.env import ALFWorldEnv, _generated_game, _shipped_game
from treegym.envs.alfworld.expert import plan_from
from treegym.envs.alfworld.generate import split_task_ids
from treegym.envs.alfworld.goal import GoalChecker
from treegym.envs.alfworld.pddl import holds, index_facts
from treegym.envs.alfworld.state import admissible_commands, initial_state, step_state
from treegym.envs.alfworld.tasks import shipped_games

SHIPPED = list(shipped_games())


def _walk(env: ALFWorldEnv, depth: int, seed: int = 0) -> dict:
    obs, _ = env.reset(options={"task_id": env.task.task_id} if env.task else None)
    rng = random.Random(seed)
    for _ in range(depth):
        obs, *_ = env.step(rng.choice(list(obs["valid_actions"])))
    return obs


def test_a_pickled_state_holds_the_game_by_key_and_the_facts_as_a_diff():
    env = ALFWorldEnv(task_ids=[SHIPPED[5]])
    env.reset()
    _walk(env, 8)
    state = env.state
    data = pickle.dumps(env.snapshot())
    game_by_value = len(pickle.dumps(state.game.__dict__))
    assert game_by_value > 20_000  # what a snapshot used to carry
    assert len(data) < 4_500, len(data)  # (with the admissible commands and their actions, which travel along)
    assert b"pddl" not in data and b"cancontain" not in data
    back = pickle.loads(pickle.dumps(state))
    assert back.game is state.game  # the process's cached game, not a copy
    assert back == state and back.facts == state.facts and back.history == state.history


def test_a_state_of_a_game_without_a_loader_still_pickles_by_value():
    env = ALFWorldEnv(task_ids=[SHIPPED[0]])
    env.reset()
    from dataclasses import replace
    game = replace(env.state.game, loader=None, key=())
    state = step_state(initial_state(game), admissible_commands(initial_state(game))[0])
    back = pickle.loads(pickle.dumps(state))
    assert back.game is not game and back.facts == state.facts and back.text == state.text


_CHILD = r"""
import json, pickle, sys
from treegym.envs.alfworld.env import ALFWorldEnv
snap = pickle.load(open(sys.argv[1], "rb"))
env = ALFWorldEnv(split=sys.argv[4] or None, task_ids=[sys.argv[2]])
obs, info = env.restore(snap)
steps = env.unwrapped.steps
obs2, reward, term, trunc, info2 = env.step(sys.argv[3])
print(json.dumps([obs["text"], list(obs["valid_actions"]), info["moves"], steps,
                  obs2["text"], list(obs2["valid_actions"]), reward, term, trunc]))
"""


@pytest.mark.parametrize("task_id", [SHIPPED[3], "gen/pick_heat_then_place_in_recep/1000005"])
def test_a_snapshot_restores_in_a_fresh_process(tmp_path, task_id):
    split = "generated_valid" if task_id.startswith("gen/") else None
    env = ALFWorldEnv(split=split, task_ids=[task_id])
    env.reset()
    _walk(env, 8, seed=1)
    snap = env.snapshot()
    path = tmp_path / "snap.pkl"
    path.write_bytes(pickle.dumps(snap))
    nxt = list(env._observe()[0]["valid_actions"])[-1]
    env.reset()  # the restore below lands on another state
    obs, info = env.restore(snap)
    obs2, reward, term, trunc, _ = env.step(nxt)
    want = [obs["text"], list(obs["valid_actions"]), info["moves"], 8, obs2["text"], list(obs2["valid_actions"]),
            reward, term, trunc]
    out = subprocess.run([sys.executable, "-c", _CHILD, str(path), task_id, nxt, split or ""], capture_output=True, text=True,
                         check=True)
    assert json.loads(out.stdout) == want


def _generic(game, facts) -> bool:
    index = {**game.static_index, **index_facts(facts)}
    return holds(game.problem.goal, {}, index, game.objects_by_type)


def test_the_compiled_goal_agrees_with_the_generic_evaluator_on_walks_and_winning_plans():
    ids = [(t, _shipped_game) for t in SHIPPED] + [(t, _generated_game) for t in split_task_ids("generated_valid")[:12]]
    won = checked = 0
    for task_id, load in ids:
        game = load(task_id)
        checker = GoalChecker(game)
        assert checker.fallback is None, (task_id, checker.fallback)
        start = initial_state(game)
        rng = random.Random(task_id)
        plan = plan_from(start) or []
        states = [start]
        for cmd in plan:
            states.append(step_state(states[-1], cmd))
        # the plan's last state is won, incrementally (step_state) and by the generic evaluator
        assert plan and states[-1].won and _generic(game, states[-1].facts), task_id
        won += 1
        s = start
        for _ in range(6):
            s = step_state(s, rng.choice(admissible_commands(s)))
            states.append(s)
        for s in states:
            expect = _generic(game, s.facts)
            assert checker.holds(s.facts) == expect, task_id
            checked += 1
    assert won == len(ids) and checked > 1_500


def test_the_goal_checker_falls_back_to_the_generic_evaluator_on_an_unsupported_goal():
    game = _shipped_game(SHIPPED[0])
    from dataclasses import replace
    goal = ("not", game.problem.goal)  # a negated quantified formula: not grounded
    other = replace(game, problem=replace(game.problem, goal=goal), loader=None)
    checker = GoalChecker(other)
    assert checker.fallback is not None
    facts = game.init_facts
    assert checker.holds(facts) == (not _generic(game, facts))
    assert checker.after(False, facts, ()) == checker.holds(facts)  # no shortcut in fallback mode


def test_a_snapshotted_env_is_freed_once_dropped():
    """The snapshot plan cache (envs/core/api.py) must not keep envs alive (RSS over many searches)."""
    import gc
    import weakref

    import gymnasium as gym

    import treegym.envs as te

    env = gym.make("treegym/ALFWorld-v0")
    env.reset(seed=0)
    snap = te.snapshot(env)
    env.step("look")
    te.restore(env, snap)
    refs = (weakref.ref(env), weakref.ref(env.unwrapped))
    env.close()
    del env, snap
    gc.collect()
    assert all(r() is None for r in refs)


def test_a_pickled_state_carries_its_commands_and_they_match_a_fresh_reckoning():
    from treegym.envs.alfworld.state import ALFWorldState, commands

    env = ALFWorldEnv(task_ids=[SHIPPED[5]])
    env.reset()
    _walk(env, 8)
    state = env.state
    expected = commands(state)  # (memoises them on the state, so the pickle carries them)
    back = pickle.loads(pickle.dumps(state))
    assert back._sorted == state._sorted and commands(back) == expected
    fresh = ALFWorldState(state.game, facts=state.facts, text=state.text, won=state.won, moves=state.moves,
                          last_command=state.last_command, valid=state.valid, history=state.history)
    assert commands(fresh) == expected  # worked out again from the facts: the same actions
