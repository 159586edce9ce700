"""Regressions for faults fuzzing found in treegym/BMoCA-v0 (issue 25): each used to raise out of step() or miscount."""
from __future__ import annotations

import ast

import pytest

from treegym.envs.android.env import BMoCAEnv
from treegym.scripts.cli import main
from treegym.scripts.run_checks import InputError, select_tasks


def tap_on(env: BMoCAEnv, obs: dict, description: str) -> tuple:
    tags = [i for i, e in enumerate(ast.literal_eval(obs["text"])) if e["description"] == description]
    assert tags, f"{description!r} is not on screen: {obs['text'][:300]}"
    return env.step(f"tap({tags[0]})")


def test_clear_all_in_recents_goes_home_and_survives_restore():
    env = BMoCAEnv(split="test", max_steps=50)
    obs, _ = env.reset(options={"task_id": "test_env_100/call_911"})
    snap_home = env.snapshot()
    for a in ('swipe("up")',):
        obs = env.step(a)[0]
    obs = tap_on(env, obs, "android.widget.TextView_Clock")[0]  # open an app, so recents has a task
    obs = env.step('press("OVERVIEW")')[0]
    obs, _r, _t, _u, info = tap_on(env, obs, "com.google.android.apps.nexuslauncher.id_clear_all_clear_all")
    assert not info["invalid_action"] and info["message"].startswith("Executed tap(")
    phone = env.backend.state
    assert (phone.tasks, phone.foreground, phone.overlay, phone.launcher.name) == ((), "", None, "home")
    after = env.snapshot()
    env.restore(snap_home)
    obs2, _ = env.restore(after)  # the state after "Clear all" restores and renders
    assert obs2["text"] == obs["text"] and "id_clock" in obs2["text"]
    for a in ('press("OVERVIEW")', 'swipe("up")', 'press("BACK")'):
        assert not env.step(a)[4]["invalid_action"]


def test_tap_with_a_huge_number_is_an_invalid_action():
    env = BMoCAEnv(split="test")
    env.reset(options={"task_id": "test_env_100/call_911"})
    obs, reward, term, trunc, info = env.step("tap(" + "7" * 5000 + ")")
    assert info["invalid_action"] and "5000-digit" in info["message"] and env.steps == 1
    assert (reward, term) == (0.0, False) and obs["valid_actions"]


def test_task_id_zero_is_refused_not_replaced_by_a_seeded_task():
    env = BMoCAEnv(split="test")
    with pytest.raises(ValueError, match="not a B-MoCA episode id.*test_env_100/call_911"):
        env.reset(seed=3, options={"task_id": 0})
    with pytest.raises(InputError, match="not task.*of treegym/BMoCA-v0: 0, 1; it has 2700 ids"):
        select_tasks("treegym/BMoCA-v0", BMoCAEnv, "0:2", None)
    ids, _split = select_tasks("treegym/BMoCA-v0", BMoCAEnv, "test_env_100/call_911", None)
    assert ids == ["test_env_100/call_911"]
    assert len(BMoCAEnv(split="all").pool) == 2700 == len(BMoCAEnv.split_task_ids("all"))


def test_cli_refuses_numeric_tasks_with_exit_2(tmp_path, capsys):
    assert main(["run", "treegym/BMoCA-v0", "--tasks", "0:2", "--agent", "oracle", "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert "not task(s) of treegym/BMoCA-v0: 0, 1" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "r").exists() or not any((tmp_path / "r").iterdir())


def test_a_front_app_without_a_task_renders_the_launcher():
    """A state saved by the old "Clear all" (tasks gone, app still in front) restores and renders."""
    from dataclasses import replace

    env = BMoCAEnv(split="test")
    env.reset(options={"task_id": "test_env_100/call_911"})
    snap = env.snapshot()
    broken = replace(snap.payload.device, foreground="com.google.android.deskclock", tasks=())
    obs, _ = env.restore(replace(snap, payload=replace(snap.payload, device=broken)))
    assert "id_clock" in obs["text"] and not env.step('press("OVERVIEW")')[4]["invalid_action"]
