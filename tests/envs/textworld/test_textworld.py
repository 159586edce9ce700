"""treegym/TextWorld-v0: shipped tw-make games on Jericho, native snapshots, the contract, agents.

Needs the ``textworld`` extra (``pip install 'treegym[textworld]'``; scripts/test.sh installs it).
"""
from __future__ import annotations

import json
import pickle
import shutil

import gymnasium as gym
import pytest

from fuzzing import no_hang
from support.jsonl import read_jsonl
from support.paths import REPO

pytest.importorskip("textworld", reason="treegym/TextWorld-v0 needs the textworld extra: pip install 'treegym[textworld]'")

import treegym.envs as te  # noqa: E402
from treegym.envs.textworld.env import TextWorldEnv  # noqa: E402
from treegym.envs.textworld.gamefiles import GAMES_DIR, GameFileError, load_games, shipped_splits  # noqa: E402

ENV_ID = "treegym/TextWorld-v0"


@pytest.fixture(scope="module")
def env():
    e = gym.make(ENV_ID, split="all")
    yield e
    e.close()


def play(env, actions):
    out = None
    for a in actions:
        out = env.step(a)
    return out


def test_shipped_games_and_splits():
    games = load_games()
    splits = shipped_splits()
    assert set(splits["train"]) | set(splits["test"]) == set(games) == set(splits["all"])
    assert not set(splits["train"]) & set(splits["test"])
    kinds = {g.rsplit("_", 1)[0] for g in games}
    assert kinds == {"simple", "cooking", "coin", "treasure"}
    assert TextWorldEnv.task_counts() == {"train": 4, "test": 4, "all": 8}


def test_oracle_wins_every_shipped_game(env):
    for game in shipped_splits()["all"]:
        obs, info = env.reset(options={"task_id": game})
        assert info["success"] is False and obs["instruction"] and obs["valid_actions"]
        plan = env.unwrapped.expert().plan
        assert plan, game
        obs, reward, term, trunc, info = play(env, plan)
        assert term and not trunc and info["won"] and info["success"], (game, obs["text"])
        assert info["score"] == info["max_score"]


def test_check_rollback_passes(env):
    report = te.check_rollback(env, n_trajectories=4, max_depth=8)
    assert report.kind == "native"


@pytest.mark.slow
def test_check_rollback_default_settings(env):
    # Deeper trajectories reach TextWorld's lazily filled rule caches: snapshots must not alias them.
    assert te.check_rollback(env).kind == "native"


def test_snapshot_is_a_value_restored_in_another_env(env):
    env.reset(options={"task_id": "cooking_1"})
    plan = env.unwrapped.expert().plan
    play(env, plan[:2])
    snap = te.snapshot(env)
    obs_here, info_here = env.unwrapped._observe()
    blob = pickle.dumps(snap)
    play(env, ["go west", "look", "inventory"])  # branch away; the snapshot must not change
    assert pickle.dumps(snap) == blob

    other = gym.make(ENV_ID, split="all")
    try:
        obs2, info2 = te.restore(other, pickle.loads(blob))
        assert obs2 == obs_here and info2 == info_here
        assert other.unwrapped.steps == 2
        obs3, _r, term, _t, info3 = play(other, plan[2:])
        assert term and info3["won"]
    finally:
        other.close()
    obs4, info4 = te.restore(env, snap)
    assert obs4 == obs_here and info4 == info_here


def test_bad_commands_never_raise_and_count(env):
    obs, info = env.reset(options={"task_id": "coin_1"})
    for i, bad in enumerate(["", "   ", "xyzzy plugh", "caf\u00e9 \u2603\n go", "take " * 200, None, 42], 1):
        obs, reward, term, trunc, info = env.step(bad)
        assert isinstance(obs["text"], str) and obs["text"]
        assert not term and reward == 0.0
        assert env.unwrapped.steps == i
    assert "recognise" in env.step("xyzzy")[0]["text"]


def test_after_the_end_and_step_limit():
    e = gym.make(ENV_ID, split="all", max_steps=3)
    try:
        e.reset(options={"task_id": "coin_1"})
        snap = te.snapshot(e)
        out = play(e, ["look", "look", "look"])
        assert out[3] is True and out[2] is False and out[0]["valid_actions"] == ()
        obs, _r, _term, trunc, info = e.step("look")
        assert trunc and "step limit" in info["message"] and info["invalid_action"]  # EngineEnv's convention
        assert obs["text"] == out[0]["text"]                                       # nothing changed
        te.restore(e, snap)                    # the counter is part of the state
        assert e.unwrapped.steps == 0 and not e.step("look")[3]
        assert e.unwrapped.expert().solvable is False   # the 5-step walkthrough no longer fits in 2 steps
    finally:
        e.close()


def test_contract_methods(env):
    env.reset(options={"task_id": "simple_1"})
    u = env.unwrapped
    templates = u.action_templates()
    assert "take <o>" in templates and not any("{" in t for t in templates)
    fields = u.task_fields()
    assert fields["objective"] == env.unwrapped._observe()[0]["instruction"] and fields["max_score"] >= 1
    assert u.canonical_action("  Go   NORTH ") == "go north"
    assert u.canonical_action("\u2603") is None


def test_user_games_by_dir_and_files(tmp_path):
    for stem in ("coin_2", "treasure_1"):
        for ext in (".z8", ".json"):
            shutil.copy(GAMES_DIR / f"{stem}{ext}", tmp_path / f"{stem}{ext}")
    assert TextWorldEnv.split_task_ids("all", game_dir=str(tmp_path)) == ["coin_2", "treasure_1"]
    e = gym.make(ENV_ID, game_dir=str(tmp_path))
    try:
        _obs, info = e.reset(seed=1)
        assert info["game"] == "treasure_1"
        with pytest.raises(ValueError, match="unknown TextWorld game"):
            e.reset(options={"task_id": "coin_1"})
    finally:
        e.close()
    (tmp_path / "coin_2.json").unlink()
    with pytest.raises(GameFileError, match="coin_2.json is missing"):
        gym.make(ENV_ID, game_files=[str(tmp_path / "coin_2.z8")])
    with pytest.raises(GameFileError, match="Glulx"):
        load_games(game_files=[str(tmp_path / "x.ulx")])
    with pytest.raises(ValueError, match="unknown split"):
        gym.make(ENV_ID, split="valid")


@pytest.mark.slow
def test_cli_oracle_and_search_agent_end_to_end(tmp_path):
    from treegym.scripts.cli import main

    out = tmp_path / "oracle.jsonl"
    assert main(["run", ENV_ID, "--agent", "oracle", "--llm", "scripted", "--split", "all", "--out", str(out)]) == 0
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == 8 and all(r["success"] for r in records)

    out = tmp_path / "dfsdt.jsonl"
    assert main(["run", ENV_ID, "--agent", "dfsdt", "--llm", "synthetic:p_correct=0.8,seed=0",
                 "--tasks", "coin_1,simple_1", "--budget", "60", "--out", str(out)]) == 0
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == 2 and all(r["error"] is None and r["llm_calls"] > 0 for r in records)
    assert all(r["success"] for r in records)


@pytest.mark.slow
def test_textworld_make_generates_a_playable_game(tmp_path):
    from treegym.scripts.cli import main

    assert main(["textworld", "make", "--challenge", "coin", "--seeds", "7", "--out", str(tmp_path)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["coin_7.json", "coin_7.z8"]
    assert main(["textworld", "make", "--challenge", "coin", "--seeds", "7", "--out", str(tmp_path)]) == 1  # exists
    e = gym.make(ENV_ID, game_dir=str(tmp_path))
    try:
        e.reset(options={"task_id": "coin_7"})
        *_rest, info = play(e, e.unwrapped.expert().plan)
        assert info["won"]
    finally:
        e.close()


def test_steps_copy_nothing_snapshots_copy_once(monkeypatch):
    # issue 26: "copy on snapshot, not on step"; issue 37: the first step after a restore copies only what
    # textworld writes, and never through textworld's GameProgression.copy (which rebuilds from the start)
    from textworld.generator.game import GameProgression
    from textworld.logic import State

    from treegym.envs.textworld import progression

    state_copies, quest_copies, tw_copies = [], [], []
    real_state_copy, real_quest_copy = State.copy, progression._copy_quest
    monkeypatch.setattr(State, "copy", lambda self: state_copies.append(1) or real_state_copy(self))
    monkeypatch.setattr(progression, "_copy_quest", lambda q: quest_copies.append(1) or real_quest_copy(q))
    e = gym.make(ENV_ID, split="all")
    try:
        e.reset(options={"task_id": "cooking_1"})
        monkeypatch.setattr(GameProgression, "copy", lambda self: tw_copies.append(1))
        plan = e.unwrapped.expert().plan
        play(e, plan[:1])                       # (the first step copies the game's start: copy on write)
        state_copies.clear()
        quest_copies.clear()
        play(e, plan[1:3])
        assert state_copies == quest_copies == []   # steps in a row copy nothing
        snap = te.snapshot(e)
        te.restore(e, snap)
        assert state_copies == quest_copies == []   # snapshot and restore share the progression...
        blob = pickle.dumps(snap)
        play(e, plan[3:4])                      # (opens or takes: changes the game's facts)
        assert len(state_copies) == 1           # ...until the next step copies it (copy on write)
        n_quests = len(quest_copies)
        assert n_quests == len(snap.payload.progression.quest_progressions) > 0
        assert pickle.dumps(snap) == blob       # so the snapshot is unchanged
        play(e, plan[4:5])
        assert len(state_copies) == 1 and len(quest_copies) == n_quests
        te.restore(e, snap)
        e.step("xyzzy")                         # no action of the game's rules: nothing is written
        assert len(state_copies) == 1 and len(quest_copies) == n_quests
        te.restore(e, snap)
        e.step("look")                          # an action that changes no fact: the quests see it, the state stays
        assert len(state_copies) == 1 and len(quest_copies) == 2 * n_quests
        assert pickle.dumps(snap) == blob
        assert tw_copies == []
    finally:
        e.close()


def test_engine_step_is_pure_and_agrees_with_the_live_env(env):
    from treegym.envs.core.contract import LiveEngine

    engine = env.unwrapped.engine
    assert isinstance(engine, LiveEngine)
    obs, _ = env.reset(options={"task_id": "coin_1"})
    plan = env.unwrapped.expert().plan
    state = engine.initial_state(engine.task("coin_1"), None)
    before = pickle.dumps(state)
    for action in plan:
        result = engine.step(state, action)
        obs_live, reward_live, term_live, _t, _i = env.step(action)
        assert engine.observe(result.state)[0]["text"] == obs_live["text"]
        assert (result.reward, result.terminated) == (reward_live, term_live)
        state = result.state
    assert pickle.dumps(engine.initial_state(engine.task("coin_1"), None)) == before
    assert state.won and engine.is_terminal(state)
    data = engine.state_to_json(state)
    assert engine.state_from_json(data).won
    with pytest.raises(ValueError, match="not made by this server"):
        engine.state_from_json(dict(data, mac="0" * 64))


def test_served_textworld_is_an_engine_and_rolls_back_remotely():
    from treegym.servers.env_server import create_env_app, session_engines
    from treegym.servers.run import serve_in_thread

    engine = session_engines(ENV_ID)["default"]
    assert type(engine).__name__ == "TextWorldEngine"  # not a ForkEngine
    engine.close()
    with serve_in_thread(create_env_app(ENV_ID, {"split": "all"})) as srv:
        remote = gym.make(ENV_ID, server_url=srv.url)
        local = gym.make(ENV_ID, split="all")
        try:
            assert remote.reset(options={"task_id": "coin_1"})[0] == local.reset(options={"task_id": "coin_1"})[0]
            for action in local.unwrapped.expert().plan:
                out_r, out_l = remote.step(action), local.step(action)
                assert out_r[:4] == out_l[:4] and out_r[4]["won"] == out_l[4]["won"]
            assert out_r[2] and out_r[4]["success"]
            assert te.check_rollback(remote, n_trajectories=2, max_depth=4).kind == "native"
        finally:
            remote.close()
            local.close()


# ----------------------------------------------------------------------------- faults the fuzzers found (issue 25)

def test_textworld_backslash_commands_are_answered_not_hung(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    env = gym.make("treegym/TextWorld-v0")
    env.reset(seed=0)
    for action in ["\\c", "\\boxed{look}", " \\q", "Action: \\boxed{go north}"]:
        obs, *_ = no_hang(env.step, action, what=f"TextWorld step({action!r})", bound=60)
        assert isinstance(obs["text"], str)
    obs, *_ = env.step("look")
    assert "-=" in obs["text"]  # the game still answers normally
    for action in ["save", "script", "restore"]:  # the interpreter's file commands never write files
        obs, *_ = env.step(action)
        assert "turned off" in obs["text"]
    assert list(tmp_path.iterdir()) == []
    env.close()


def test_textworld_game_dir_runs_on_its_own_split(tmp_path):
    from treegym.scripts.cli import main

    games = tmp_path / "mygames"
    games.mkdir()
    for f in (REPO / "envs" / "textworld" / "games").glob("coin_1.*"):
        (games / f.name).write_bytes(f.read_bytes())
    out = tmp_path / "tw.jsonl"
    assert main(["run", "treegym/TextWorld-v0", "--env-opt", f"game_dir={games}", "--agent", "oracle",
                 "--out", str(out), "--no-progress"]) == 0
    (rec,) = read_jsonl(out)
    assert rec["success"] and rec["config"]["split"] == "all"
