"""Parity with ALFWorld's official engine at the Gym API, from committed golden transcripts.

``tests/fixtures/alfworld_golden.jsonl.xz`` holds, for each of the 134 shipped
games, the official engine's (textworld PddlEnv + AlfredDemangler) transcript
of its planner's plan and of a seeded random walk with invalid commands
(recorded by ``python -m treegym.scripts.dev.make_alfworld_transcripts``). Here
every transcript is replayed through ``gym.make("treegym/ALFWorld-v0")`` and
the observation text, ``valid_actions`` and ``info["won"]`` must equal the
official frame after reset and after every step, the winning step included.
No official engine is needed (the whole file replays in a few seconds).
"""
from __future__ import annotations

import dataclasses
from functools import lru_cache

import gymnasium as gym
import pytest

from support.paths import FIXTURES
import treegym.envs  # noqa: F401
from treegym.envs.alfworld.tasks import shipped_games
from treegym.envs.alfworld.transcripts import load, replay

GOLDEN = FIXTURES / "alfworld_golden.jsonl.xz"


@lru_cache(maxsize=1)
def golden() -> dict:
    out: dict = {}
    for t in load(GOLDEN):
        out.setdefault(t.task_id, {})[t.kind] = t
    return out


@pytest.fixture(scope="module")
def env():
    e = gym.make("treegym/ALFWorld-v0")
    yield e
    e.close()


def test_the_golden_file_covers_every_shipped_game_with_a_winning_plan_and_a_walk():
    g = golden()
    assert sorted(g) == sorted(shipped_games())
    assert all(set(kinds) == {"plan", "walk"} for kinds in g.values())
    assert all(kinds["plan"].won for kinds in g.values())  # the official planner wins every game
    walks = [kinds["walk"] for kinds in g.values()]
    assert any(t.frames[i + 1][0] == "Nothing happens." for t in walks for i in range(len(t.commands)))
    assert sum(len(t.frames) for kinds in g.values() for t in kinds.values()) > 4000


_IDS = list(shipped_games())


@pytest.mark.parametrize("task_id", _IDS)
def test_gym_api_matches_the_official_engine_at_every_step(env, task_id):
    for kind in ("plan", "walk"):
        transcript = golden()[task_id][kind]
        compared, mismatches = replay(env, transcript)
        assert mismatches == [], mismatches[0]
        assert compared == len(transcript.frames)
    assert env.unwrapped.state.won is golden()[task_id]["walk"].won


def test_a_changed_frame_is_reported_as_a_mismatch(env):
    """The comparison can fail: an official frame altered on the winning step is caught."""
    plan = golden()[_IDS[0]]["plan"]
    text, admissible, won = plan.frames[-1]
    assert won and admissible  # the official engine lists commands on the winning step
    altered = dataclasses.replace(plan, frames=plan.frames[:-1] + ((text, (), won),))
    _, mismatches = replay(env, altered)
    assert [m["field"] for m in mismatches] == ["admissible"] and mismatches[0]["where"].startswith("step[")
