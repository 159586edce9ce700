"""gym.make(id, server_url=URL) for a family that is not an Engine (B-MoCA: a ForkableEnv served by
ForkEngine): a whole episode remotely equals the in-process one, remote snapshots restore, and
make-kwargs that configure the served env are refused on the client."""
from __future__ import annotations

import gymnasium as gym
import pytest

import treegym.envs as te
from treegym.envs.android.env import BMoCAEnv
from treegym.envs.core import ForkClientEnv
from treegym.servers.env_server import create_env_app
from treegym.servers.run import serve_in_thread

ENV_ID = "treegym/BMoCA-v0"
TASK = "test_env_100/turn_on_airplane_mode"


@pytest.fixture(scope="module")
def server():
    with serve_in_thread(create_env_app(ENV_ID, {"split": "test"})) as srv:
        yield srv


def test_a_bmoca_episode_is_the_same_remotely_and_in_process(server):
    local = gym.make(ENV_ID, split="test")
    remote = gym.make(ENV_ID, server_url=server.url)
    assert isinstance(remote.unwrapped, ForkClientEnv) and isinstance(local.unwrapped, BMoCAEnv)
    assert remote.unwrapped.task_pool.ids("test") == BMoCAEnv.default_task_pool().ids("test")
    obs_l, info_l = local.reset(options={"task_id": TASK})
    obs_r, info_r = remote.reset(options={"task_id": TASK})
    plan = local.unwrapped.expert().plan
    assert len(plan) >= 2
    assert (obs_r["text"], tuple(obs_r["valid_actions"])) == (obs_l["text"], tuple(obs_l["valid_actions"]))
    snaps = []
    for action in plan:
        snaps.append((te.snapshot(remote), obs_r["text"]))
        obs_l, r_l, term_l, trunc_l, info_l = local.step(action)
        obs_r, r_r, term_r, trunc_r, info_r = remote.step(action)
        assert (obs_r["text"], tuple(obs_r["valid_actions"]), r_r, term_r, trunc_r) == \
            (obs_l["text"], tuple(obs_l["valid_actions"]), r_l, term_l, trunc_l)
        assert info_r["success"] == info_l["success"] and info_r["message"] == info_l["message"]
    assert term_r and r_r == 1.0 and info_r["success"]
    # restore a remote snapshot from the middle and finish again: same ending
    snap, text = snaps[1]
    obs_back, _ = te.restore(remote, snap)
    assert obs_back["text"] == text
    for action in plan[1:]:
        *_rest, info = remote.step(action)
    assert info["success"]
    remote.close()
    local.close()


def test_the_served_step_limit_truncates_the_client(server):
    remote = gym.make(ENV_ID, server_url=server.url)
    remote.reset(options={"task_id": TASK})
    truncated, n = False, 0
    while not truncated:
        _obs, _r, term, truncated, _info = remote.step('swipe("left")')
        n += 1
        assert not term and n < 100
    local = gym.make(ENV_ID, split="test")
    local.reset(options={"task_id": TASK})
    assert n == local.unwrapped.max_steps  # the task's own limit, enforced by the served env
    local.close()
    remote.close()


def test_server_side_kwargs_are_refused_on_the_client(server):
    with pytest.raises(ValueError, match=r"screenshot=True configure that env.*--env-opt"):
        gym.make(ENV_ID, server_url=server.url, screenshot=True)
    with pytest.raises(ValueError, match=r"screenshot=True configure that env"):
        te.remote(ENV_ID, server.url, screenshot=True)  # the explicit choice answers the same way


def test_server_url_none_plays_in_process_for_every_id():
    env = gym.make(ENV_ID, server_url=None, split="test")
    assert isinstance(env.unwrapped, BMoCAEnv)
    env.close()


def test_the_class_itself_has_no_remote_mode_and_says_what_to_use(server):
    with pytest.raises(TypeError, match=r"BMoCAEnv has no remote mode.*treegym.envs.remote"):
        BMoCAEnv(server_url=server.url, split="test")


def test_check_rollback_passes_remotely(server):
    env = gym.make(ENV_ID, server_url=server.url)
    env.reset(options={"task_id": TASK})
    assert te.check_rollback(env, n_trajectories=2, max_depth=4).kind == "native"
    env.close()


def test_remote_is_the_explicit_choice_and_clones_through_its_spec(server):
    env = te.remote(ENV_ID, server.url, split="test")
    assert isinstance(env.unwrapped, ForkClientEnv)
    assert env.reset(seed=0)[1]["task_id"] == BMoCAEnv.split_task_ids("test")[0]
    env.step('swipe("up")')
    twin = te.clone(env)  # rebuilt from the spec: another session on the same server
    assert isinstance(twin.unwrapped, ForkClientEnv) and twin.unwrapped.server_url == server.url
    assert te.first_difference(twin.unwrapped._observe()[0], env.unwrapped._observe()[0]) is None
    twin.close()
    env.close()


def test_a_user_env_is_played_remotely_through_remote():
    """A ForkableEnv family of the user's own (registered with its class as entry point) is served by
    ForkEngine and played with treegym.envs.remote: the same episode as in-process."""
    from treegym.envs.examples.number_walk import NumberWalkEnv

    class ServedWalk(NumberWalkEnv):
        @classmethod
        def default_task_pool(cls):
            return te.TaskPool({"all": (0,)})

    walk = "usersuite/ServedWalk-v0"
    if walk not in gym.registry:
        gym.register(walk, entry_point=ServedWalk)
    with serve_in_thread(create_env_app(walk, {"target": 2})) as srv:
        env = te.remote(walk, srv.url)
        assert isinstance(env.unwrapped, ForkClientEnv)
        obs, _ = env.reset(seed=0)
        assert "Reach 2" in obs["instruction"]
        _obs, reward, term, _trunc, info = env.step("add 2")
        assert (reward, term, info["success"]) == (1.0, True, True)
        env.close()
