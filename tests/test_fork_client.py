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
    env = BMoCAEnv(server_url=server.url, split="test")  # the class itself answers the same way
    assert isinstance(env, ForkClientEnv)
    env.close()


def test_check_rollback_passes_remotely(server):
    env = gym.make(ENV_ID, server_url=server.url)
    env.reset(options={"task_id": TASK})
    assert te.check_rollback(env, n_trajectories=2, max_depth=4).kind == "native"
    env.close()


def test_positional_make_kwargs_reach_the_client_by_name(server):
    env = BMoCAEnv("test", server_url=server.url)  # split given positionally
    assert isinstance(env, ForkClientEnv) and env.reset(seed=0)[1]["task_id"] == BMoCAEnv.split_task_ids("test")[0]
    env.close()
