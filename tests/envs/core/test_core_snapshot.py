"""The snapshot protocol: helpers on wrapped envs, replay fallback, check_rollback catching broken envs."""
from __future__ import annotations

import pickle

import gymnasium as gym
import numpy as np
import pytest

import treegym.envs as tenvs
from treegym.envs import ForkableEnv, ReplayForkable, Snapshot, SnapshotDivergence, SnapshotError, WithReplaySnapshots
from treegym.envs.core import UnicodeText, action_space, text_observation_space
from treegym.envs.examples.number_walk import NumberWalkEnv


def test_example_env_passes_check_rollback_raw_and_made(walk_env):
    assert "rollback OK" in tenvs.check_rollback(NumberWalkEnv()).summary()
    report = tenvs.check_rollback(walk_env, n_trajectories=4)
    assert report.check_env == "passed" and report.trajectories == 4 and report.steps_checked > 0


def test_snapshot_is_immutable_and_picklable(walk_env):
    walk_env.reset(seed=1)
    walk_env.step("add 3")
    snap = tenvs.snapshot(walk_env)
    assert isinstance(snap, Snapshot) and snap.kind == "native" and snap.steps == 1
    with pytest.raises(AttributeError):
        snap.steps = 5  # type: ignore[misc]
    walk_env.step("add 2")
    obs, info = tenvs.restore(walk_env, pickle.loads(pickle.dumps(snap)))
    assert info["position"] == 3 and "add 3" in obs["text"]
    assert walk_env.unwrapped.steps == 1


def test_step_limit_lives_in_the_snapshot(walk_env):
    walk_env.reset(seed=0)
    for _ in range(9):
        walk_env.step("add 1")
    snap = tenvs.snapshot(walk_env)
    *_, trunc, _ = walk_env.step("sub 1")
    assert trunc
    tenvs.restore(walk_env, snap)
    *_, trunc2, _ = walk_env.step("sub 1")
    assert trunc2  # the restored branch keeps its own counter: 10th step truncates again


def test_timelimit_wrapper_state_rolls_back():
    env = gym.make("treegym/NumberWalk-v0", max_episode_steps=3, max_steps=100)
    env.reset(seed=0)
    env.step("add 1")
    snap = tenvs.snapshot(env)
    env.step("add 1")
    env.step("add 1")  # TimeLimit truncates here
    tenvs.restore(env, snap)
    _, _, _, trunc, _ = env.step("add 1")
    assert not trunc, "TimeLimit's counter must be restored with the env"


def test_restore_under_another_wrapper_stack_is_refused():
    made = gym.make("treegym/NumberWalk-v0")  # PassiveEnvChecker -> OrderEnforcing -> env
    limited = gym.make("treegym/NumberWalk-v0", max_episode_steps=5)  # TimeLimit on top
    for env in (made, limited):
        env.reset(seed=0)
        env.step("add 1")
    with pytest.raises(SnapshotError, match="taken under wrappers"):
        tenvs.restore(limited, tenvs.snapshot(made))
    with pytest.raises(SnapshotError, match="taken under wrappers"):
        tenvs.restore(made, tenvs.snapshot(limited))
    # a copy of the snapshot (pickled across processes, say) is checked the same way
    with pytest.raises(SnapshotError, match="taken under wrappers"):
        tenvs.restore(limited, pickle.loads(pickle.dumps(tenvs.snapshot(made))))
    obs, info = tenvs.restore(made, pickle.loads(pickle.dumps(tenvs.snapshot(made))))
    assert info["position"] == 1


def test_restoring_on_a_never_reset_env_allows_steps_and_the_checker_really_checks():
    src = gym.make("treegym/NumberWalk-v0")
    src.reset(seed=0)
    src.step("add 2")
    snap = tenvs.snapshot(src)
    fresh = gym.make("treegym/NumberWalk-v0")
    tenvs.restore(fresh, snap)
    _, _, _, _, info = fresh.step("add 1")  # OrderEnforcing would raise if it were not settled
    assert info["position"] == 3
    checker = fresh
    while type(checker).__name__ != "PassiveEnvChecker":
        checker = checker.env
    # settled through OrderEnforcing's public reset(): the checker ran its reset and step checks
    # for real (nothing writes Gymnasium's private flags), and the restored state won over the reset
    assert checker.checked_reset and checker.checked_step and fresh.has_reset
    fresh.step("add 1")
    assert checker.checked_data_reuse
    raw_snap = src.unwrapped.snapshot()  # taken on the raw env: no wrapper states at all
    other = gym.make("treegym/NumberWalk-v0")
    tenvs.restore(other, raw_snap)
    assert other.step("add 1")[4]["position"] == 3


class Counted(gym.Wrapper):
    """A user wrapper with its own state, joining the protocol through snapshot_state/restore_state."""

    def __init__(self, env):
        super().__init__(env)
        self.seen = []

    def step(self, action):
        self.seen.append(action)
        return self.env.step(action)

    def snapshot_state(self):
        return tuple(self.seen)

    def restore_state(self, state):
        self.seen = list(state)


class SnapshotCountingWalk(NumberWalkEnv):
    """Overrides snapshot(): the suite helper must still call it, not the base class's internals."""

    calls = 0

    def snapshot(self):
        type(self).calls += 1
        return super().snapshot()


def test_wrapper_states_and_overridden_snapshots_are_honoured():
    from gymnasium.wrappers import OrderEnforcing, PassiveEnvChecker

    env = Counted(OrderEnforcing(PassiveEnvChecker(SnapshotCountingWalk())))
    env.reset(seed=0)
    env.step("add 1")
    before = SnapshotCountingWalk.calls
    snap = tenvs.snapshot(env)
    assert SnapshotCountingWalk.calls == before + 1
    env.step("add 2")
    env.step("add 3")
    tenvs.restore(env, snap)
    assert env.seen == ["add 1"] and env.unwrapped.position == 1


def test_clone_is_independent(walk_env):
    walk_env.reset(seed=0)
    walk_env.step("add 2")
    twin = tenvs.clone(walk_env)
    twin.step("add 3")
    assert walk_env.unwrapped.position == 2 and twin.unwrapped.position == 5
    twin.close()


def test_restore_rejects_foreign_snapshot(walk_env):
    walk_env.reset(seed=0)
    with pytest.raises(SnapshotError, match="needs a treegym Snapshot"):
        tenvs.restore(walk_env, {"position": 3})


class AliasingEnv(NumberWalkEnv):
    """Deliberately broken: its snapshot payload is the live (mutable) state list."""

    def __init__(self, **kw):
        self.state = [0, ""]
        super().__init__(**kw)

    def _get_state(self):
        return self.state  # BUG: aliases live state

    def _set_state(self, state):
        self.state = state

    @property
    def position(self):
        return self.state[0]

    @position.setter
    def position(self, v):
        self.state[0] = v

    @property
    def message(self):
        return self.state[1]

    @message.setter
    def message(self, v):
        self.state[1] = v


def test_check_rollback_catches_aliasing_env():
    with pytest.raises(tenvs.RollbackCheckError, match="trajectory 0"):
        tenvs.check_rollback(AliasingEnv(), run_check_env=False)


class SharedObsEnv(NumberWalkEnv):
    """Broken differently: returns the same observation dict object every step."""

    def _observe(self):
        obs, info = super()._observe()
        cached = self.__dict__.setdefault("_obs", {})
        cached.clear()
        cached.update(obs)
        return cached, info


def test_check_rollback_catches_reused_observation_objects():
    with pytest.raises(tenvs.RollbackCheckError, match="fresh objects"):
        tenvs.check_rollback(SharedObsEnv(), run_check_env=False)


class CounterGym(gym.Env):
    """A deterministic plain gym.Env with no snapshot support (for the replay fallback)."""

    def __init__(self, noisy: bool = False):
        self.observation_space = text_observation_space()
        self.action_space = action_space()
        self.noisy = noisy
        self.total = 0

    def _obs(self):
        return {"text": f"total {self.total}", "instruction": "count", "valid_actions": ("1", "2")}

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.total = int(self.np_random.integers(0, 5))
        return self._obs(), {"success": False}

    def step(self, action):
        self.total += int(action) if str(action) in ("1", "2") else 0
        if self.noisy:
            self.total += int(np.random.default_rng().integers(0, 1000))
        return self._obs(), 0.0, False, False, {"success": False}


class ReplayCounter(ReplayForkable, CounterGym):
    pass


def test_replay_mixin_restores_by_replaying():
    env = ReplayCounter()
    env.reset(seed=3)
    env.step("1")
    env.step("2")
    snap = env.snapshot()
    assert snap.kind == "replay" and len(snap.payload.actions) == 2
    before = env.total
    env.step("2")
    obs, _ = env.restore(snap)
    assert env.total == before and obs["text"] == f"total {before}"
    report = tenvs.check_rollback(ReplayCounter(), n_trajectories=3, run_check_env=False)
    assert report.kind == "replay"


def test_replay_detects_divergence():
    env = WithReplaySnapshots(CounterGym(noisy=True))
    env.reset(seed=1)
    env.step("1")
    snap = tenvs.snapshot(env)
    with pytest.raises(SnapshotDivergence, match="not deterministic"):
        tenvs.restore(env, snap)


def test_replay_needs_a_seed():
    env = ReplayCounter()
    env.reset()
    with pytest.raises(SnapshotError, match="seed"):
        env.snapshot()


def test_plain_env_gets_a_clear_error():
    with pytest.raises(SnapshotError, match="does not support snapshots"):
        tenvs.snapshot(CounterGym())


def test_unicode_text_space_holds_any_text():
    space = UnicodeText(max_length=100)
    assert space.contains("émoji 🎉 – ✓\nnew line")
    assert not space.contains(b"bytes")
    assert not space.contains("x" * 101)
    assert all(space.contains(space.sample()) for _ in range(20))


def test_registered_ids_resolve_in_a_spawned_process():
    import multiprocessing as mp

    ctx = mp.get_context("spawn")
    with ctx.Pool(1) as pool:
        ids = pool.apply(_registered_ids)
    assert "treegym/Game24-v0" in ids


def _registered_ids():
    import gymnasium as gym

    import treegym.envs  # noqa: F401

    return [k for k in gym.registry if k.startswith("treegym/")]


class DiceEnv(NumberWalkEnv):
    """Steps draw from np_random, so the RNG state must roll back with the env."""

    def step(self, action):
        obs, r, term, trunc, info = super().step(action)
        info["roll"] = int(self.np_random.integers(0, 1_000_000))
        return obs, r, term, trunc, info


def test_rng_state_rolls_back_and_a_new_seed_wins():
    env = DiceEnv()
    env.reset(seed=5)
    env.step("add 1")
    snap = env.snapshot()
    rolls = [env.step("add 1")[4]["roll"] for _ in range(3)]
    env.restore(snap)
    assert [env.step("add 1")[4]["roll"] for _ in range(3)] == rolls
    env.restore(snap)
    snap2 = env.snapshot()  # taken while the restored RNG state is still pending
    assert snap2.rng_state == snap.rng_state
    env.restore(snap)
    env.reset(seed=5)
    fresh = DiceEnv()
    fresh.reset(seed=5)
    assert env.step("add 1")[4]["roll"] == fresh.step("add 1")[4]["roll"]
    tenvs.check_rollback(DiceEnv(), n_trajectories=3)


class NoSuccessAfterStep(NumberWalkEnv):
    def step(self, action):
        obs, r, term, trunc, info = super().step(action)
        del info["success"]
        return obs, r, term, trunc, info


class NumericSuccess(NumberWalkEnv):
    def reset(self, *, seed=None, options=None):
        obs, info = super().reset(seed=seed, options=options)
        info["success"] = 0
        return obs, info


def test_check_rollback_requires_a_bool_success_in_every_info():
    with pytest.raises(tenvs.RollbackCheckError, match=r'after step\(.*info has no "success" key'):
        tenvs.check_rollback(NoSuccessAfterStep(), n_trajectories=2, run_check_env=False)
    with pytest.raises(tenvs.RollbackCheckError, match=r'after reset: info\["success"\] must be a bool, got int'):
        tenvs.check_rollback(NumericSuccess(), n_trajectories=2, run_check_env=False)
