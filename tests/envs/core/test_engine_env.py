"""EngineEnv runs a pure engine with native snapshots and the env-agent contract."""
from __future__ import annotations

from dataclasses import dataclass, replace

import pytest

from treegym.envs.core import EngineEnv, ExpertAdvice, StepResult, check_rollback, restore, snapshot


@dataclass(frozen=True)
class CountState:
    target: int
    at: int = 0
    message: str = ""


class CountEngine:
    """Reach ``target`` from 0 with ``inc``/``dec``; ``win`` ends the episode when at the target."""

    def splits(self):
        return ("train", "test")

    def task_ids(self, split):
        return (1, 2) if split == "train" else (3,)

    def task(self, task_id):
        if task_id not in (1, 2, 3):
            raise ValueError(f"unknown task {task_id!r}")
        return task_id

    def initial_state(self, task, seed):
        return CountState(target=task)

    def step(self, state, action):
        if action == "inc":
            return StepResult(replace(state, at=state.at + 1, message="up"))
        if action == "dec":
            return StepResult(replace(state, at=state.at - 1, message="down"))
        return StepResult(replace(state, message=f"Nothing happens: {action!r} is not inc or dec."))

    def is_terminal(self, state):
        return state.at == state.target

    def observe(self, state):
        obs = {"text": f"{state.message} at {state.at}".strip(), "instruction": f"reach {state.target}",
               "valid_actions": ("inc", "dec")}
        return obs, {"success": state.at == state.target}

    def expert(self, state):
        diff = state.target - state.at
        plan = ("inc",) * diff if diff > 0 else ("dec",) * (-diff)
        return ExpertAdvice(plan=plan, value=1.0)

    def state_to_json(self, state):
        return {"target": state.target, "at": state.at, "message": state.message}

    def state_from_json(self, data):
        return CountState(**data)


def test_engine_env_plays_tasks_and_counts_steps():
    env = EngineEnv(CountEngine(), split="train", max_steps=5)
    obs, info = env.reset(options={"task_id": 2})
    assert info == {"success": False, "task_id": 2, "steps": 0}
    assert env.expert().plan == ("inc", "inc")
    obs, r, term, trunc, info = env.step("jump")
    assert "Nothing happens" in obs["text"] and not term and info["steps"] == 1
    env.step("inc")
    obs, r, term, trunc, info = env.step("inc")
    # the engine's terminal flag ends the episode; success comes from the engine's info
    assert info["success"] and not trunc


def test_engine_env_pool_seed_and_split_validation():
    env = EngineEnv(CountEngine(), split="train")
    assert env.reset(seed=1)[1]["task_id"] == 2
    assert env.reset()[1]["task_id"] == 1  # the task after the current one, wrapping
    assert env.reset(options={"split": "test"})[1]["task_id"] == 3
    with pytest.raises(ValueError, match="unknown split 'dev'"):
        EngineEnv(CountEngine(), split="dev")
    with pytest.raises(ValueError, match=r"not in split 'test'"):
        EngineEnv(CountEngine(), split="test", task_ids=[1])


def test_engine_env_truncates_and_refuses_steps_after_the_limit():
    env = EngineEnv(CountEngine(), split="test", max_steps=2)
    env.reset()
    env.step("dec")
    obs, r, term, trunc, info = env.step("dec")
    assert trunc and not term and obs["valid_actions"] == ()
    obs, r, term, trunc, info = env.step("inc")
    assert info["invalid_action"] and "step limit (2)" in info["message"] and info["steps"] == 2


def test_engine_env_snapshot_is_a_reference_and_rolls_back():
    env = EngineEnv(CountEngine(), split="test", max_steps=10)
    env.reset()
    env.step("inc")
    snap = snapshot(env)
    assert snap.payload is env.state
    env.step("inc")
    obs, info = restore(env, snap)
    assert obs["text"] == "up at 1" and info["steps"] == 1
    report = check_rollback(EngineEnv(CountEngine(), split="test", max_steps=10), n_trajectories=3, max_depth=6)
    assert report.steps_checked > 0
