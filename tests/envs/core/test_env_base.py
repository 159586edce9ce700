"""The small env base (envs/core/forkable.py): construction arguments recorded for clone and deepcopy,
check_rollback on a directly constructed env, hand-built snapshots checked once and refused with one
message naming the field, and one reset(options=...) behaviour for every family."""
from __future__ import annotations

import copy
import dataclasses

import gymnasium as gym
import pytest

import treegym.envs as te
from treegym.envs import ExpertAdvice, ForkableEnv, Snapshot, SnapshotError, action_space, text_observation_space


class WalkEnv(ForkableEnv):
    """Reach ``target`` from 0 by ``add 1``; written as a user would, with no ``_init_kwargs``."""

    def __init__(self, target: int = 3, max_steps: int = 10, render_mode=None):
        super().__init__(max_steps=max_steps, render_mode=render_mode)
        self.observation_space = text_observation_space()
        self.action_space = action_space()
        self.target, self.position = target, 0

    def _get_state(self):
        return self.position

    def _set_state(self, state):
        self.position = state

    def _observe(self):
        return ({"text": f"at {self.position}", "instruction": f"Reach {self.target}.", "valid_actions": ("add 1",)},
                {"success": self.position == self.target})

    def expert(self):
        gap = self.target - self.position
        return ExpertAdvice(("add 1",) * gap, 1.0, True)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed, options=options)
        self.steps, self.position = 0, 0
        return self._observe()

    def step(self, action):
        self.position += 1
        truncated = self._count_step()
        obs, info = self._observe()
        return obs, float(info["success"]), info["success"], truncated, info


@pytest.mark.parametrize("copier", [te.clone, copy.deepcopy], ids=["clone", "deepcopy"])
@pytest.mark.parametrize("how", ["keyword", "positional"])
def test_a_directly_constructed_env_copies_into_its_own_state(copier, how):
    env = WalkEnv(target=2, max_steps=5) if how == "keyword" else WalkEnv(2, 5)
    env.reset(seed=0)
    env.step("add 1")
    twin = copier(env)
    assert (twin.target, twin.position, twin.steps, twin.max_steps) == (2, 1, 1, 5)
    assert twin.construction_kwargs() == {"target": 2, "max_steps": 5}
    _obs, _r, terminated, _t, info = twin.step("add 1")
    assert terminated and info["success"]  # the clone plays target 2, not the default 3


def test_check_rollback_checks_a_directly_constructed_clone():
    class Forgetful(WalkEnv):
        def make_fresh(self):  # what a clone from a hand-kept, incomplete kwargs dict gave
            return type(self)()

    env = WalkEnv(target=2)
    env.reset(seed=0)
    assert te.check_rollback(env, n_trajectories=2, max_depth=3).trajectories == 2
    bad = Forgetful(target=2)
    bad.reset(seed=0)
    with pytest.raises(te.RollbackCheckError, match="clone"):
        te.check_rollback(bad, n_trajectories=2, max_depth=3)


def test_every_family_clones_a_directly_constructed_env_with_its_arguments():
    env = te.env_class("treegym/Game24-v0")(split="test", max_steps=7)
    env.reset(seed=1)
    twin = te.clone(env)
    assert twin.construction_kwargs() == {"split": "test", "max_steps": 7}
    assert twin.max_steps == 7 and twin.task_pool.ids("test") == env.task_pool.ids("test")
    assert twin._pool == env._pool and twin.task == env.task


def _walk_snapshot():
    env = WalkEnv(target=2)
    env.reset(seed=0)
    env.step("add 1")
    return env, te.snapshot(env)


@pytest.mark.parametrize("field, value, says", [
    ("steps", -1, "'steps'"), ("steps", "2", "'steps'"), ("steps", True, "'steps'"),
    ("max_steps", 0, "'max_steps'"), ("max_steps", 1.5, "'max_steps'"),
    ("rng_state", {"bit_generator": "PCG64", "state": "x"}, "'rng_state'"), ("rng_state", [1], "'rng_state'"),
    ("kind", "external", "'kind'"), ("wrappers", [("x", 1)], "'wrappers'"),
])
def test_a_hand_built_snapshot_is_checked_field_by_field(field, value, says):
    env, snap = _walk_snapshot()
    bad = dataclasses.replace(snap, **{field: value})
    with pytest.raises(SnapshotError, match=says):
        env.restore(bad)
    assert env.position == 1 and env.steps == 1  # nothing was changed by the refused restore


def test_a_hand_built_engine_snapshot_with_a_foreign_payload_or_task_is_refused():
    env = gym.make("treegym/Game24-v0").unwrapped
    env.reset(seed=0)
    snap = te.snapshot(env)
    with pytest.raises(SnapshotError, match="payload or task"):
        env.restore(dataclasses.replace(snap, payload=("not", "a", "state")))
    with pytest.raises(SnapshotError, match="'task'"):
        env.restore(dataclasses.replace(snap, task="24"))
    good = Snapshot(snap.kind, snap.env_class, snap.payload, snap.steps, snap.max_steps, snap.rng_state, snap.task)
    assert env.restore(good)[0]["text"] == env._observe()[0]["text"]  # a sound hand-built one restores


@pytest.mark.parametrize("env_id", sorted(te.ENVS))
def test_every_family_refuses_unknown_reset_options_naming_them(env_id):
    env = gym.make(env_id)
    with pytest.raises(ValueError, match=r"unknown option\(s\) 'taskid'.*task_id"):
        env.reset(seed=0, options={"taskid": 1})
    with pytest.raises(ValueError, match="takes a dict"):
        env.reset(seed=0, options=["task_id"])
    obs, info = env.reset(seed=0, options={"task_id": None})  # accepted keys, empty, pick as without options
    assert "task_id" in info
    env.close()


def test_a_user_env_that_passes_options_up_gets_the_same_check():
    env = WalkEnv()
    with pytest.raises(ValueError, match=r"WalkEnv.reset\(\) got unknown option\(s\) 'level'"):
        env.reset(options={"level": 2})
