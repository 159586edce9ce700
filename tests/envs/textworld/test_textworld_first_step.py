"""TextWorld's first step after a restore (issue 37): the forked game progression, the Z-machine
loader, and play through forks equal to textworld's own env step by step.

Needs the ``textworld`` extra (``pip install 'treegym[textworld]'``; scripts/test.sh installs it).
"""
from __future__ import annotations

import pickle

import gymnasium as gym
import numpy as np
import pytest

pytest.importorskip("textworld", reason="treegym/TextWorld-v0 needs the textworld extra: pip install 'treegym[textworld]'")

import textworld  # noqa: E402

import treegym.envs as te  # noqa: E402
from treegym.envs.textworld.engine import REQUEST, _Stack  # noqa: E402
from treegym.envs.textworld.gamefiles import load_games, shipped_splits  # noqa: E402
from treegym.envs.textworld.progression import ForkedProgression, fork  # noqa: E402
from treegym.envs.textworld.state import clean_feedback  # noqa: E402

ENV_ID = "treegym/TextWorld-v0"
GAMES = shipped_splits()["all"]
EXTRA = ("look", "inventory", "examine north", "xyzzy", "wait")  # commands beside the admissible ones


@pytest.fixture(scope="module")
def env():
    e = gym.make(ENV_ID, split="all", max_steps=1000)
    yield e
    e.close()


def _dump(progression, ident=id) -> tuple:
    """Everything textworld's GameProgression holds, as comparable values; the parts it shares read-only
    (the game, its quests and events, the knowledge base) by ``ident``: their identity by default."""
    def tree(t) -> tuple:
        def node(n) -> tuple:
            return (str(n.element.value), tuple(node(c) for c in n.children))
        return (tuple(node(r) for r in t.roots), tuple(map(str, t._leaves_values)),
                tuple(str(e.value) for e in t._leaves_elements), t.element_type, ident(t._kb))

    def event(e):
        assert set(vars(e)) == {"_kb", "_policy", "_tree", "_triggered", "_untriggerable", "event"}
        return (ident(e.event), ident(e._kb), e._triggered, e._untriggerable, tuple(map(str, e._policy)), tree(e._tree))

    def quest(q):
        assert set(vars(q)) == {"fail_events", "kb", "nb_completions", "quest", "win_events"}
        return (ident(q.quest), ident(q.kb), q.nb_completions, tuple(map(event, q.win_events)),
                tuple(map(event, q.fail_events)))

    assert set(vars(progression)) - {"_shared_state", "_shared_quests"} == {"game", "state", "_valid_actions",
                                                                               "quest_progressions"}
    facts = tuple(sorted((str(sig), tuple(sorted(map(str, props)))) for sig, props in progression.state._facts.items()
                         if props))
    policy = progression.winning_policy
    return (ident(progression.game), facts, tuple(map(str, progression.valid_actions)),
            tuple(map(quest, progression.quest_progressions)), policy and tuple(map(str, policy)))


def _mutable_parts(progression) -> list:
    parts = [progression.state, progression.state._facts, progression.quest_progressions]
    for q in progression.quest_progressions:
        parts += [q, q.win_events, q.fail_events]
        for e in q.win_events + q.fail_events:
            parts += [e, e._tree, e._tree.roots, *e._tree]
    return parts


def _states(env, game: str, seed: int, steps: int):
    """The progression of ``game`` at its start and after each of ``steps`` seeded admissible commands."""
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(options={"task_id": game})
    yield te.snapshot(env).payload.progression
    for _ in range(steps):
        if not obs["valid_actions"]:
            return
        obs, _r, term, _t, _i = env.step(str(rng.choice(obs["valid_actions"])))
        yield te.snapshot(env).payload.progression
        if term:
            return


@pytest.mark.parametrize("game", GAMES)
def test_an_owned_fork_equals_textworlds_copy_and_shares_nothing_it_writes(env, game):
    for progression in _states(env, game, seed=1, steps=12):
        theirs = progression.copy()
        borrowed = fork(progression)
        assert isinstance(borrowed, ForkedProgression)
        assert _dump(borrowed) == _dump(progression)          # a fork is the same progression...
        assert borrowed.state is progression.state             # ...borrowing its parts until a write
        ours = fork(progression)
        ours.own()
        assert _dump(ours) == _dump(theirs) == _dump(progression)
        theirs_ids = {id(p) for p in _mutable_parts(progression)}
        assert not theirs_ids & {id(p) for p in _mutable_parts(ours)}


@pytest.mark.parametrize("game", GAMES)
def test_play_through_forks_equals_textworlds_own_env_step_by_step(env, game):
    # Every step is a first step after a restore (into a sibling of the state the env holds), with
    # commands that change facts, that change none (look, inventory) and that are no action (xyzzy).
    tw = textworld.start(load_games()[game].path, request_infos=REQUEST)
    try:
        gs = tw.reset()
        obs, _ = env.reset(options={"task_id": game})
        rng = np.random.default_rng(7)
        snap = te.snapshot(env)
        for i in range(30):
            choices = list(obs["valid_actions"]) + list(EXTRA)
            command = str(choices[int(rng.integers(len(choices)))])
            if i % 3 == 0:
                env.step(str(rng.choice(choices)))              # move the env elsewhere: a sibling's branch
            blob = pickle.dumps(snap)
            te.restore(env, snap)
            obs, reward, term, _trunc, info = env.step(command)
            assert pickle.dumps(snap) == blob                   # the step changed nothing the snapshot holds
            before = gs["score"] or 0
            gs, _score, done = tw.step(command)
            where = f"{game}, step {i} ({command!r})"
            assert obs["text"] == clean_feedback(gs["feedback"]), where
            assert obs["valid_actions"] == (() if done else tuple(gs["admissible_commands"])), where
            assert env.unwrapped.expert().plan == tuple(gs["policy_commands"] or ()), where
            assert (info["score"], info["won"], info["lost"], info["moves"], term) == (
                gs["score"], gs["won"], gs["lost"], gs["moves"], done), where
            assert reward == gs["score"] - before, where
            assert _dump(env.unwrapped.runner.live.progression, ident=type) == _dump(gs["_game_progression"],
                                                                                      ident=type), where
            if done:
                break
            snap = te.snapshot(env)
    finally:
        tw.close()


def test_the_machine_saves_and_loads_what_jericho_saves_and_loads(env):
    env.reset(options={"task_id": "cooking_1"})
    saved = [te.snapshot(env).payload.jericho]
    for command in env.unwrapped.expert().plan[:3]:
        env.step(command)
        saved.append(te.snapshot(env).payload.jericho)
    assert len({s[0] for s in saved}) == len(saved)  # four different machine memories

    def same(ours, jerichos) -> bool:  # Jericho's layout, with bytes for its two arrays
        return (len(ours) == len(jerichos) == 9 and ours[0] == jerichos[0].tobytes()
                and ours[1] == jerichos[1].tobytes() and ours[2:] == jerichos[2:])

    stack = _Stack(load_games()["cooking_1"].path)  # a Z-machine of its own (the env's stays as it is)
    try:
        frotz, machine = stack.jericho, stack.machine
        for state in saved:
            machine.load(state)
            assert same(state, frotz.get_state()) and machine.save() == state
            frotz.set_state(frotz.get_state())  # (Jericho's own load of its own save changes nothing)
            assert machine.save() == state
        frotz.step("look")
        assert same(machine.save(), frotz.get_state()) and machine.save() not in saved
        before = machine.save()
        ram, stack_bytes, *rest = before
        for bad in [(ram[:-1], stack_bytes, *rest), (ram, stack_bytes + b"\0", *rest),
                    (bytearray(ram), stack_bytes, *rest), (np.frombuffer(ram, np.uint8), stack_bytes, *rest)]:
            with pytest.raises(ValueError, match="not a state of this game"):
                machine.load(bad)
            assert machine.save() == before  # refused before anything was loaded
    finally:
        stack.close()
