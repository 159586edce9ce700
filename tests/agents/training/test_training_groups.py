"""Group rollouts from one snapshot, and the fork-aware vector env every treegym id gets from gym.make_vec."""
from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import treegym.envs as te
from treegym.agents.training.groups import AgentFactory, group_rollouts
from treegym.envs.core.vector import ForkVectorEnv

GAME24 = "treegym/Game24-v0"


random_policy = AgentFactory("random", GAME24)  # fork i: the random agent with seed i


def env_at_depth(env_id: str = GAME24, task: int = 900, steps: int = 1) -> gym.Env:
    env = gym.make(env_id)
    obs, _ = env.reset(seed=0, options={"task_id": task})
    for _ in range(steps):
        obs = env.step(obs["valid_actions"][0])[0]
    return env


def replay_alone(env_id: str, snap, actions) -> tuple[float, bool]:
    """What playing ``actions`` from ``snap`` in a fresh env earns: the truth a rollout must match."""
    env = gym.make(env_id)
    te.restore(env, snap)
    total, info = 0.0, {}
    for a in actions:
        _o, r, _t, _tr, info = env.step(a)
        total += r
    env.close()
    return total, bool(info.get("success"))


@pytest.mark.parametrize("backend", ["sequential", "thread"])
def test_group_of_k_continuations_from_one_state(backend):
    env = env_at_depth()
    snap = te.snapshot(env)
    before = env.unwrapped.snapshot().payload
    rollouts = group_rollouts(env, snap, random_policy, 6, backend=backend, workers=3)
    assert [r.index for r in rollouts] == list(range(6))
    assert len({tuple(r.actions) for r in rollouts}) > 1  # the policies differ, the start does not
    for r in rollouts:
        assert r.error is None and r.steps == len(r.actions) == len(r.rewards) == len(r.observations)
        assert (r.total_reward, r.success) == replay_alone(GAME24, snap, r.actions)
    assert env.unwrapped.snapshot().payload == before  # the source env is not moved
    # the same seeds give the same group whatever the backend
    again = group_rollouts(env, snap, random_policy, 6, backend="sequential")
    assert [r.actions for r in again] == [r.actions for r in rollouts]


@pytest.mark.slow
def test_group_rollouts_on_ray_match_sequential():
    pytest.importorskip("ray", reason="the ray extra is not installed")
    env = env_at_depth()
    snap = te.snapshot(env)
    policy = AgentFactory("random", GAME24)  # importable by the Ray workers, unlike this test module
    on_ray = group_rollouts(env, snap, policy, 4, backend="ray", workers=2)
    local = group_rollouts(env, snap, policy, 4, backend="sequential")
    assert [r.as_dict() for r in on_ray] == [r.as_dict() for r in local]


def test_group_rollouts_refuse_bad_arguments():
    env = env_at_depth()
    with pytest.raises(ValueError, match="k >= 1"):
        group_rollouts(env, None, random_policy, 0)
    with pytest.raises(ValueError, match="unknown backend"):
        group_rollouts(env, None, random_policy, 2, backend="gpu")


@pytest.mark.parametrize("env_id", sorted(te.ENVS))
def test_every_env_works_through_make_vec_and_copies_state(env_id):
    try:
        vec = gym.make_vec(env_id, 3)
    except (gym.error.DependencyNotInstalled, ImportError) as exc:
        pytest.skip(f"{env_id}: extra not installed ({exc})")
    try:
        assert isinstance(vec, ForkVectorEnv)
        obs, _ = vec.reset(seed=[0, 1, 2])
        actions = []
        for i in range(3):
            valid = obs["valid_actions"][i] if "valid_actions" in obs else ()
            actions.append(valid[-1] if valid else vec.single_action_space.sample())
        vec.step(actions)
        source = te.snapshot(vec.envs[0])
        source_obs = vec.envs[0].unwrapped._observe()[0]
        obs, infos = vec.copy_state(0)
        for i in (1, 2):  # every copy sees what the source sees, and steps as it does
            assert te.first_difference({k: v[i] for k, v in obs.items()}, {k: v[0] for k, v in obs.items()}) is None
        assert te.first_difference({k: v[0] for k, v in obs.items()}, source_obs) is None
        nxt = obs["valid_actions"][0][0] if "valid_actions" in obs and obs["valid_actions"][0] else "look"
        o2, r2, t2, tr2, _ = vec.step([nxt] * 3)
        assert r2[0] == r2[1] == r2[2] and t2[0] == t2[1] == t2[2]
        assert o2["text"][0] == o2["text"][1] == o2["text"][2]
        te.restore(vec.envs[0], source)
    finally:
        vec.close()


@pytest.mark.parametrize("env_id", ["treegym/WebShop-v0", "treegym/ALFWorld-v0"])
def test_a_group_start_gives_each_fork_its_own_observation_and_info(env_id):
    """One snapshot restored into many sub-envs: batched exactly as Gymnasium batches the same info
    added per sub-env, and no two sub-envs (nor the snapshot's memo) share anything a caller can change."""
    vec = gym.make_vec(env_id, 4)
    env = gym.make(env_id)
    try:
        obs, _ = env.reset(seed=3)
        env.step(obs["valid_actions"][-1])
        snap = te.snapshot(env)
        vec.reset(seed=[5, 6, 7, 8])
        obs, infos = vec.restore(snap, [0, 2, 3])
        one_obs, one_info = te.restore(gym.make(env_id), snap)
        expected: dict = {}
        for i in (0, 2, 3):
            expected = vec._add_info(expected, one_info, i)  # Gymnasium's own batching, sub-env by sub-env
        assert_same_batch(infos, expected)
        for i in (0, 2, 3):
            assert te.first_difference({k: v[i] for k, v in obs.items()}, one_obs) is None
        def listed(info: dict):  # the list each env's info carries (batched: one per sub-env)
            return info["admissible_commands"] if "admissible_commands" in info else info["available_actions"]["clickables"]

        listed(infos)[0].append("mine")  # one fork's info list...
        assert all("mine" not in listed(infos)[i] for i in (2, 3))
        again_obs, again = vec.restore(snap)  # ...is not in any later restore of the same snapshot
        assert all("mine" not in listed(again)[i] for i in range(4)) and listed(one_info) == list(listed(again)[1])
        expected = {}
        for i in range(4):  # the whole group (observed once, batched by filling) as Gymnasium batches it
            expected = vec._add_info(expected, one_info, i)
        assert_same_batch(again, expected)
        for i in range(4):
            assert te.first_difference({k: v[i] for k, v in again_obs.items()}, one_obs) is None
            assert vec.envs[i].unwrapped._last_text == one_obs["text"]  # what render("ansi") shows
        assert len({id(listed(again)[i]) for i in range(4)}) == 4
        obs["text"] = ("changed",) * 4  # the returned batch is the caller's: the vector env's next batch is intact
        vec.reset(seed=[5, 6, 7, 8])
        before = vec.restore(snap, [1])[0]["text"]
        obs, infos = vec.restore(snap, [2, 2, 3, 3])  # as many indices as sub-envs, not all of them
        assert obs["text"][0] == before[0] != one_obs["text"] and list(infos["_success"]) == [False, False, True, True]
        assert vec.restore(snap, [1])[0]["text"][1] == one_obs["text"]
    finally:
        vec.close()
        env.close()


def assert_same_batch(got: dict, want: dict) -> None:
    assert list(got) == list(want)
    for key, value in want.items():
        if isinstance(value, dict):
            assert_same_batch(got[key], value)
            continue
        assert got[key].dtype == value.dtype and got[key].shape == value.shape, key
        assert [x == y for x, y in zip(got[key].tolist(), value.tolist())] == [True] * len(value), key


def test_a_group_start_restores_each_sub_env_fully_when_observing_is_not_pure(monkeypatch):
    """Envs whose observing has side effects (pure_observe False) are not restored as twins."""
    env = env_at_depth(steps=1)
    snap = te.snapshot(env)
    want_obs, want_info = te.restore(env, snap)
    vec = gym.make_vec(GAME24, 3)
    vec.restore(snap)  # the sub-envs' wrappers are settled: a later group start could share one observation
    vec.reset(seed=[1, 2, 3])
    core = type(vec.envs[0].unwrapped)
    observed, original = [], core._observe
    monkeypatch.setattr(core, "pure_observe", False)
    monkeypatch.setattr(core, "_observe", lambda self: observed.append(self) or original(self))
    obs, infos = vec.restore(snap)
    assert len(observed) == 3  # each sub-env observed its own state
    for i in range(3):
        assert te.first_difference({k: v[i] for k, v in obs.items()}, want_obs) is None
        assert infos["success"][i] == want_info["success"] and infos["_success"][i]
    vec.close()


def test_restore_clears_a_pending_autoreset_and_checks_indices():
    vec = gym.make_vec(GAME24, 2)
    vec.reset(seed=0, options={"task_id": 900})
    env = env_at_depth(steps=0)
    start = te.snapshot(env)
    # end sub-env 1's episode: a finished sub-env would be reset by the next step
    plan = env.unwrapped.expert().plan
    for a in plan:
        _o, _r, term, _tr, _ = vec.step([a, a])
    assert term.all()
    obs, _ = vec.restore(start, [1])
    assert obs["text"][1] == env.unwrapped._observe()[0]["text"]
    o, r, term, _tr, _ = vec.step([plan[0], plan[0]])
    assert o["text"][1] == env.step(plan[0])[0]["text"]  # stepped from the restored state, not reset
    with pytest.raises(IndexError, match="out of range"):
        vec.restore(start, [2])
    vec.close()


def test_async_make_vec_works_out_of_the_box_through_the_entry_point():
    vec = gym.make_vec(GAME24, 2, asynchronous=True)
    try:
        obs, _ = vec.reset(seed=0, options={"task_id": 900})
        assert obs["text"][0] == obs["text"][1]
        o, r, *_ = vec.step([obs["valid_actions"][0][0], "not an action"])
        assert "Invalid action" in o["text"][1] and isinstance(r, np.ndarray)
    finally:
        vec.close()
    # Gymnasium's own async mode needs shared memory off, as the module docstring says
    vec = gym.make_vec(GAME24, 2, vectorization_mode="async", vector_kwargs={"shared_memory": False})
    try:
        assert vec.reset(seed=0)[0]["text"][0]
    finally:
        vec.close()


def test_flags_after_a_full_reset_a_partial_reset_and_a_group_start():
    """The vector env's per-sub-env flags (pending autoresets above all) behave as Gymnasium's after
    every way of starting: a partial reset keeps the other sub-envs' pending autoresets, a full reset
    and a group start clear them all."""
    env = env_at_depth(steps=0)
    start = te.snapshot(env)
    plan = env.unwrapped.expert().plan
    first_text = env.step(plan[0])[0]["text"]
    vec = gym.make_vec(GAME24, 2)

    def finish() -> None:
        vec.restore(start)
        for a in plan:
            _o, r, term, _tr, _ = vec.step([a, a])
        assert term.all() and (r > 0).all()  # both won: each now waits for an autoreset

    for begin in ("full reset", "group start"):
        finish()
        if begin == "full reset":
            vec.reset(seed=[0, 0], options={"task_id": 900})
        else:
            vec.restore(start)
        o, r, term, trunc, _ = vec.step([plan[0], plan[0]])
        assert list(o["text"]) == [first_text, first_text]  # stepped, not reset
        assert not term.any() and not trunc.any()

    finish()
    vec.reset(options={"task_id": 900, "reset_mask": np.array([True, False])})
    o, r, term, _tr, _ = vec.step([plan[0], plan[0]])
    assert o["text"][0] == first_text  # sub-env 0 was reset, then stepped
    assert o["text"][1] != first_text and r[1] == 0.0 and not term[1]  # sub-env 1: this step was its autoreset
    vec.close()


def test_a_group_start_shares_only_what_cannot_change():
    """Arrays holding one immutable value n times (the masks, bool/int/str values) are shared and
    read-only; every list is each sub-env's own."""
    source = gym.make("treegym/ALFWorld-v0")
    obs, _ = source.reset(seed=1)
    source.step(obs["valid_actions"][0])
    snap = te.snapshot(source)
    vec = gym.make_vec("treegym/ALFWorld-v0", 3)
    _obs, a = vec.restore(snap)
    _obs, b = vec.restore(snap)
    for key in ("won", "_won", "moves", "task_id", "_admissible_commands"):
        assert not a[key].flags.writeable and a[key] is b[key]
        with pytest.raises(ValueError, match="read-only"):
            a[key][0] = a[key][1]
    lists = list(a["admissible_commands"]) + list(b["admissible_commands"])
    assert len({id(x) for x in lists}) == 6 and all(x == lists[0] for x in lists)
    vec.close()
    source.close()
