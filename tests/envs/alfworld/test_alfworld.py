"""treegym/ALFWorld-v0 on the shipped valid_unseen games: text, commands, limits, snapshots, expert, data loader."""
from __future__ import annotations

import json
import pickle
from collections import Counter

import gymnasium as gym
import pytest

import treegym.envs  # noqa: F401  (registers the ids)
from treegym.envs import check_rollback, restore, snapshot
from treegym.envs.alfworld.env import ALFWorldEnv
from treegym.envs.alfworld.game import Game, GameFileError, demangle_names
from treegym.envs.alfworld.tasks import scan_data_tree, shipped_games

HEAT_APPLE = "pick_heat_then_place_in_recep-Apple-None-Fridge-10/trial_T20190906_182259_116320"


def test_shipped_split_has_the_134_games_with_alfworlds_type_counts():
    ids = ALFWorldEnv.split_task_ids("valid_unseen")
    assert len(ids) == 134
    counts = Counter(i.split("-", 1)[0] for i in ids)
    assert counts == {"pick_and_place_simple": 24, "look_at_obj_in_light": 18, "pick_clean_then_place_in_recep": 31,
                      "pick_heat_then_place_in_recep": 23, "pick_cool_then_place_in_recep": 21,
                      "pick_two_obj_and_place": 17}


def test_reset_shows_the_intro_the_task_and_sorted_admissible_commands():
    env = gym.make("treegym/ALFWorld-v0")
    obs, info = env.reset(options={"task_id": HEAT_APPLE})
    assert obs["text"].startswith("-= Welcome to TextWorld, ALFRED! =-\n\nYou are in the middle of a room. "
                                  "Looking quickly around you, you see a cabinet 6, a cabinet 5,")
    assert obs["text"].endswith("\n\nYour task is to: heat some apple and put it in fridge.")
    assert obs["instruction"] == "Your task is to: heat some apple and put it in fridge."
    assert list(obs["valid_actions"]) == sorted(obs["valid_actions"]) == info["admissible_commands"]
    assert "go to fridge 1" in obs["valid_actions"] and "look" in obs["valid_actions"]
    assert info["won"] is False and info["success"] is False
    assert info["task_type"] == "pick_heat_then_place_in_recep"
    assert env.unwrapped.task_fields() == {"task": "heat some apple and put it in fridge.",
                                           "task_type": "pick_heat_then_place_in_recep", "style": "2.1.1"}


def test_paper_wording_goto_open_take_and_invalid_commands():
    env = ALFWorldEnv()
    env.reset(options={"task_id": HEAT_APPLE})
    obs, r, term, trunc, info = env.step("go to fridge 1")
    assert obs["text"].startswith("You arrive at loc ") and "The fridge 1 is closed." in obs["text"]
    assert "open fridge 1" in obs["valid_actions"] and "go to fridge 1" not in obs["valid_actions"]
    obs, *_ = env.step("open fridge 1")
    assert obs["text"].startswith("You open the fridge 1. The fridge 1 is open. In it, you see ")
    before = list(obs["valid_actions"])
    for bad in ("fly to the moon", "", "take unicorn 1 from fridge 1", "GO TO fridge 1"):
        obs, r, term, trunc, info = env.step(bad)
        assert obs["text"] == "Nothing happens." and r == 0.0 and not term
        assert list(obs["valid_actions"]) == before and info["invalid_action"] is True
    assert env.unwrapped.steps == 6 and info["moves"] == 2  # invalid commands count as steps, not moves


def test_expert_plan_wins_with_reward_one_and_terminates():
    env = ALFWorldEnv(task_ids=[HEAT_APPLE])
    env.reset()
    plan = env.expert().plan
    assert plan and env.expert().value == 1.0
    for i, cmd in enumerate(plan):
        obs, r, term, trunc, info = env.step(cmd)
        assert term == (i == len(plan) - 1)
    # as in the official engine, the winning step still lists the admissible commands
    assert r == 1.0 and info["won"] and info["success"] and obs["valid_actions"]
    assert list(obs["valid_actions"]) == info["admissible_commands"] == sorted(env.admissible())
    assert any(c.startswith("heat apple") for c in plan) and plan[-1].startswith("put apple")


@pytest.mark.parametrize("task_type", ["pick_and_place_simple", "look_at_obj_in_light", "pick_clean_then_place_in_recep",
                                       "pick_heat_then_place_in_recep", "pick_cool_then_place_in_recep",
                                       "pick_two_obj_and_place"])
def test_expert_solves_the_first_game_of_each_task_type_and_no_game_starts_won(task_type):
    ids = [i for i in ALFWorldEnv.split_task_ids("valid_unseen") if i.startswith(task_type)][:2]
    env = ALFWorldEnv(task_ids=ids)
    for tid in ids:
        obs, info = env.reset(options={"task_id": tid})
        assert not info["won"]
        for _ in range(50):
            obs, r, term, trunc, info = env.step(env.expert_action())
            if term:
                break
        assert info["won"], tid


def test_step_limit_is_fifty_and_lives_in_the_snapshot():
    env = ALFWorldEnv(task_ids=[HEAT_APPLE])
    env.reset()
    for i in range(49):
        *_, trunc, _info = env.step("look")
        assert not trunc
    snap = snapshot(env)
    *_, trunc, info = env.step("inventory")
    assert trunc and info["steps"] == 50
    restore(env, pickle.loads(pickle.dumps(snap)))
    assert env.unwrapped.steps == 49
    *_, trunc, _info = env.step("look")
    assert trunc


def test_snapshot_is_a_reference_and_restores_exactly():
    env = ALFWorldEnv(task_ids=[HEAT_APPLE])
    env.reset()
    env.step("go to fridge 1")
    snap = env.snapshot()
    assert snap.payload is env.state
    obs_a, *_ = env.step("open fridge 1")
    env.step("look")
    obs, info = env.restore(snap)
    obs_b, *_ = env.step("open fridge 1")
    assert obs_a == obs_b
    assert pickle.loads(pickle.dumps(snap)).payload.facts == snap.payload.facts
    # the commands memoised on the state are computed once, pickled along (so another process need not
    # work them out again), and handed out as copies
    assert snap.payload._sorted is env.restore(snap)[0]["valid_actions"]
    assert pickle.loads(pickle.dumps(snap)).payload._sorted == snap.payload._sorted
    info["admissible_commands"].append("mine")
    assert "mine" not in env.restore(snap)[1]["admissible_commands"] and "mine" not in env.admissible()


def test_check_rollback_passes():
    env = gym.make("treegym/ALFWorld-v0")
    check_rollback(env, seed=3)


def test_0_4_style_uses_move_receptacle_names_and_help():
    env = ALFWorldEnv(task_ids=[HEAT_APPLE], style="0.4")
    obs, info = env.reset()
    assert "help" in obs["valid_actions"]
    obs, *_ = env.step("go to countertop 1")
    assert obs["text"].startswith("You arrive at countertop 1. On the countertop 1, you see ")
    obs, *_ = env.step("help")
    assert "move (object) to (receptacle)" in obs["text"]
    plan = env.expert().plan
    assert any(c.startswith("move ") for c in plan) and not any(c.startswith("put ") for c in plan)
    assert env.canonical_action("  move apple 1 to fridge 1 ") == "move apple 1 to fridge 1"
    assert env.canonical_action("put apple 1 in/on fridge 1") is None


def test_canonical_action_and_templates():
    env = ALFWorldEnv()
    env.reset(seed=0)
    assert env.canonical_action(" take apple 1 from countertop 2 ") == "take apple 1 from countertop 2"
    assert env.canonical_action("put apple 1 in/on fridge 1") == "put apple 1 in/on fridge 1"
    assert env.canonical_action("eat the apple") is None
    assert "put <object> in/on <receptacle>" in env.action_templates()


def test_demangler_numbers_the_first_sorted_id_highest():
    # ids are lowercased on load, as fast-downward's translator does
    names = demangle_names(["cabinet_bar__minus_01_dot_00", "cabinet_bar__plus_00_dot_50", "loc_bar_3_bar_1",
                            "sink_bar_00_bar_sinkbasin", "sink_bar_00", "agent1"])
    assert names["cabinet_bar__minus_01_dot_00"] == "cabinet 2" and names["cabinet_bar__plus_00_dot_50"] == "cabinet 1"
    assert names["loc_bar_3_bar_1"] == "loc 1" and names["sink_bar_00_bar_sinkbasin"] == "sinkbasin 1"
    assert names["sink_bar_00"] == "sink 1" and names["agent1"] == "agent1 "


def test_broken_game_files_raise_clear_errors(tmp_path):
    with pytest.raises(GameFileError, match="missing 'pddl_problem'"):
        Game.from_data({"grammar": "x"}, source="g.json")
    data = dict(shipped_games()[HEAT_APPLE])
    data["pddl_problem"] = data["pddl_problem"].replace("(:goal", "(:gaol")
    with pytest.raises(GameFileError, match="no \\(:goal"):
        Game.from_data(data, source="broken")
    bad = tmp_path / "game.tw-pddl"
    bad.write_text("{not json")
    with pytest.raises(GameFileError, match="cannot read"):
        Game.from_file(str(bad))


def _write_trial(root, split, task_dir, trial, game, traj=None, solvable=True):
    d = root / split / task_dir / trial
    d.mkdir(parents=True)
    (d / "game.tw-pddl").write_text(json.dumps(dict(game, solvable=solvable)))
    if traj is not None:
        (d / "traj_data.json").write_text(json.dumps(traj))


def test_user_data_tree_applies_alfworlds_filters(tmp_path, monkeypatch):
    game = shipped_games()[HEAT_APPLE]
    task = HEAT_APPLE.split("/")[0]
    _write_trial(tmp_path, "valid_seen", task, "trial_a", game, {"task_type": "pick_heat_then_place_in_recep"})
    _write_trial(tmp_path, "valid_seen", task, "trial_b", game)
    _write_trial(tmp_path, "valid_seen", task, "trial_c", game, solvable=False)
    _write_trial(tmp_path, "valid_seen", task.replace("Apple", "AppleSliced"), "trial_d", game)
    _write_trial(tmp_path, "train", "pick_and_place_simple-movable-x", "trial_e", game)
    (tmp_path / "train" / "junk").mkdir()
    (tmp_path / "train" / "junk" / "traj_data.json").write_text("{}")
    kept, counts = scan_data_tree(tmp_path)
    assert sorted(kept) == [f"valid_seen/{task}/trial_a", f"valid_seen/{task}/trial_b"]
    assert counts["unsolvable"] == 1 and counts["movable_or_sliced"] == 2 and counts["no_game_file"] == 1
    monkeypatch.setenv("ALFWORLD_DATA", str(tmp_path))
    assert ALFWorldEnv.split_task_ids("valid_seen") == sorted(kept)
    env = ALFWorldEnv(split="valid_seen")
    obs, info = env.reset(seed=0)
    assert info["task_type"] == "pick_heat_then_place_in_recep" and "heat some apple" in obs["instruction"]
    with pytest.raises(ValueError, match="split 'train'"):
        ALFWorldEnv.split_task_ids("train")


def test_unknown_split_without_data_says_what_to_do(monkeypatch):
    monkeypatch.delenv("ALFWORLD_DATA", raising=False)
    with pytest.raises(ValueError, match="ALFWORLD_DATA"):
        ALFWorldEnv(split="train")
    with pytest.raises(ValueError, match="unknown ALFWorld task id"):
        ALFWorldEnv(task_ids=["nope/trial"])


@pytest.mark.slow
def test_oracle_wins_all_134_games():
    env = ALFWorldEnv()
    lost = []
    for tid in ALFWorldEnv.split_task_ids("valid_unseen"):
        obs, info = env.reset(options={"task_id": tid})
        term = trunc = False
        while not (term or trunc):
            obs, r, term, trunc, info = env.step(env.expert_action())
        if not info["won"]:
            lost.append(tid)
    assert lost == []


def test_generator_is_deterministic_solvable_and_never_won_at_reset():
    from treegym.envs.alfworld.engine import initial_state, step_state
    from treegym.envs.alfworld.expert import plan_from
    from treegym.envs.alfworld.game import TASK_TYPES
    from treegym.envs.alfworld.generate import generate_game

    for i, task_type in enumerate(TASK_TYPES):
        data = generate_game(task_type, 100 + i)
        assert data == generate_game(task_type, 100 + i)
        assert data != generate_game(task_type, 200 + i)
        state = initial_state(Game.from_data(data, source="gen", task_type=task_type))
        assert not state.won
        plan = plan_from(state)
        assert plan
        for cmd in plan:
            state = step_state(state, cmd)
        assert state.won, task_type


def test_generated_splits_play_through_the_env():
    ids = ALFWorldEnv.split_task_ids("generated_train")
    assert len(ids) == 6000 and ids[:2] == ["gen/pick_and_place_simple/0", "gen/look_at_obj_in_light/1"]
    assert len(ALFWorldEnv.split_task_ids("generated_valid")) == 300
    env = gym.make("treegym/ALFWorld-v0", split="generated_valid")
    obs, info = env.reset(seed=4)
    assert info["task_id"] == "gen/pick_clean_then_place_in_recep/1000004"  # seed 1,000,004: 1,000,004 % 6 == 2
    assert info["task_type"] == "pick_clean_then_place_in_recep" and not info["won"]
    term = False
    while not term:
        obs, r, term, trunc, info = env.step(env.unwrapped.expert_action())
    assert info["won"] and r == 1.0


def test_expert_plan_in_info_on_request():
    env = gym.make("treegym/ALFWorld-v0", expert_plan=True)
    obs, info = env.reset(options={"task_id": HEAT_APPLE})
    plan = info["expert_plan"]
    assert plan and plan == list(env.unwrapped.expert().plan)
    obs, r, term, trunc, info = env.step(plan[0])
    assert info["expert_plan"] == plan[1:]
    assert "expert_plan" not in ALFWorldEnv().reset(options={"task_id": HEAT_APPLE})[1]
