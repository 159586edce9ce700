"""treegym/TextWorld-v0: the shipped tw-make fixtures on Jericho, native snapshots, the expert, tw-make via the CLI.

Skipped when textworld (the optional extra treegym[textworld]) is not installed.
"""
from __future__ import annotations

import pickle

import pytest

textworld = pytest.importorskip("textworld", reason="treegym/TextWorld-v0 needs textworld: pip install 'treegym[textworld]'")

import gymnasium as gym  # noqa: E402

import treegym.envs  # noqa: E402,F401
from treegym.envs import check_rollback  # noqa: E402
from treegym.envs.textworld.env import TextWorldEnv, fixture_games  # noqa: E402


def test_fixtures_are_shipped():
    assert set(fixture_games()) == {"simple", "coin", "treasure", "cooking"}
    assert TextWorldEnv.split_task_ids("fixtures") == sorted(fixture_games())


@pytest.mark.parametrize("task_id", ["simple", "coin", "treasure", "cooking"])
def test_expert_wins_every_fixture(task_id):
    env = TextWorldEnv(task_ids=[task_id])
    obs, info = env.reset()
    assert obs["instruction"] and obs["valid_actions"] and not info["won"]
    total = 0.0
    for _ in range(60):
        obs, r, term, trunc, info = env.step(env.expert_action())
        total += r
        if term:
            break
    assert info["won"] and info["success"] and total == info["score"] == info["max_score"]
    env.close()


def test_snapshot_restores_branches_exactly_and_survives_pickling():
    env = TextWorldEnv(task_ids=["simple"])
    env.reset()
    env.step(env.expert_action())
    snap = env.snapshot()
    plan = env.expert().plan
    branch_a = [env.step(c)[:3] for c in plan[:3]]
    env.step("look")
    env.restore(snap)
    assert env.expert().plan == plan
    branch_b = [env.step(c)[:3] for c in plan[:3]]
    assert branch_a == branch_b
    fresh = TextWorldEnv(task_ids=["simple"])
    obs, info = fresh.restore(pickle.loads(pickle.dumps(snap)))
    assert [fresh.step(c)[:3] for c in plan[:3]] == branch_a
    env.close()
    fresh.close()


def test_unknown_commands_get_the_games_answer_and_count():
    env = TextWorldEnv(task_ids=["coin"])
    obs, info = env.reset()
    obs, r, term, trunc, info = env.step("dance wildly")
    assert r == 0.0 and not term and obs["text"].strip() and info["steps"] == 1
    env.close()


def test_bad_game_paths_raise_clear_errors(tmp_path):
    with pytest.raises(ValueError, match="not an existing .z8"):
        TextWorldEnv(games=[str(tmp_path / "missing.z8")])
    lone = tmp_path / "lone.z8"
    lone.write_bytes(b"\0" * 64)
    with pytest.raises(ValueError, match="has no lone.json"):
        TextWorldEnv(games=[str(lone)])


@pytest.mark.slow
def test_check_rollback_passes():
    env = gym.make("treegym/TextWorld-v0", task_ids=["coin"])
    check_rollback(env, seed=1)
    env.close()


@pytest.mark.slow
def test_textworld_make_cli_writes_a_playable_game(tmp_path):
    from treegym.scripts.cli import main

    out = tmp_path / "made.z8"
    assert main(["textworld", "make", "tw-coin_collector", "--seed", "7", "--output", str(out), "--extra", "--level 1"]) == 0
    env = TextWorldEnv(games=[str(out)])
    obs, info = env.reset()
    for _ in range(20):
        obs, r, term, trunc, info = env.step(env.expert_action())
        if term:
            break
    assert info["won"]
    env.close()
