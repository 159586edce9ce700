"""Every env (B-MoCA has its own file) stepped with random, garbage, huge, unicode and wrong-type actions.

Asserts: no exception escapes ``step()`` (the env answers an invalid action with
an observation), no step hangs (:func:`fuzzing.no_hang`), observations keep their
shape, and forks hold under garbage: restoring a snapshot and replaying the same
actions gives the same observations, rewards and ends.
"""
from __future__ import annotations

import importlib.util
import json

import gymnasium as gym
import pytest

import treegym.envs as te
from fuzzing import count, garbage_actions, no_hang, rng_for, tally

# env id -> (make kwargs, actions at scale 1); ALFWorld and TextWorld steps cost more
ENVS = {
    "treegym/Game24-v0": ({}, 800),
    "treegym/WebShop-v0": ({}, 500),
    "treegym/ToolBench-v0": ({}, 800),
    "treegym/RestBench-v0": ({}, 800),
    "treegym/ToolTasks-v0": ({}, 800),
    "treegym/ALFWorld-v0": ({}, 500),
    "treegym/TextWorld-v0": ({}, 300),
    "treegym/NumberWalk-v0": ({}, 300),
}
FORK_EVERY = 25  # a fork check (snapshot, steps, restore, the same steps again) this often
FORK_DEPTH = 4


def _needs(env_id: str) -> None:
    if env_id == "treegym/TextWorld-v0" and importlib.util.find_spec("textworld") is None:
        pytest.skip("textworld is not installed (pip install 'treegym[textworld]')")
    if env_id == "treegym/WebShop-v0" and importlib.util.find_spec("flask") is None:
        pytest.skip("the webshop extra is not installed")


def _names(obs: dict) -> list[str]:
    """Function names of a tool env's listed calls (for JSON calls with real names)."""
    out = []
    for a in obs.get("valid_actions") or ():
        try:
            out.append(json.loads(a)["name"])
        except (ValueError, TypeError, KeyError):
            pass
    return out


def _step(env, action):
    try:
        return no_hang(env.step, action, what=f"step({action!r}) on {env.spec.id}")
    except Exception:
        tally("exceptions out of step()")
        raise


def _key(result) -> str:
    obs, reward, terminated, truncated, _info = result
    return json.dumps([obs.get("text"), list(obs.get("valid_actions") or ()), reward, terminated, truncated],
                      default=str)


@pytest.mark.parametrize("env_id", list(ENVS))
def test_garbage_actions_never_raise_hang_or_break_forks(env_id):
    _needs(env_id)
    kwargs, base = ENVS[env_id]
    rng = rng_for(f"envs:{env_id}")
    env = gym.make(env_id, **kwargs)
    obs, info = env.reset(seed=0)
    n, episodes, forks = count(base), 1, 0
    for i in range(n):
        action = next(garbage_actions(rng, obs.get("valid_actions") or (), 1, _names(obs)))
        result = _step(env, action)
        obs, reward, terminated, truncated, info = result
        assert isinstance(obs["text"], str) and isinstance(info["success"], bool), (env_id, action)
        assert isinstance(reward, float) or isinstance(reward, (int,)), (env_id, action, reward)
        if i % FORK_EVERY == FORK_EVERY - 1 and not (terminated or truncated):
            snap = te.snapshot(env)
            branch = list(garbage_actions(rng, obs.get("valid_actions") or (), FORK_DEPTH, _names(obs)))
            first = []
            for a in branch:
                r = _step(env, a)
                first.append(_key(r))
                if r[2] or r[3]:
                    break
            te.restore(env, snap)
            again = [_key(_step(env, a)) for a in branch[:len(first)]]
            assert again == first, (env_id, "a restored branch diverged", branch)
            forks += 1
            te.restore(env, snap)
        if terminated or truncated or rng.random() < 0.03:
            obs, info = env.reset(seed=i)
            episodes += 1
    env.close()
    tally("env actions", n)
    tally("env fork checks", forks)
    tally("env episodes", episodes)
