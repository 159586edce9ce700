"""Where the searches of the overhead benchmarks start, and the check that they did: ``reset(seed)`` then
``depth`` seeded random valid actions that leave the episode open (``bench_rollback``'s walks), on an env
with ``depth`` more steps on its step limit so a search from there has the room below its root that one
from reset has. Every start is reached by reset + replay (never by a restore: the search starts from a
played state) and a search's tree is checked to have grown from it (:func:`check_search_start`)."""
from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, Sequence

import gymnasium as gym
import numpy as np

import treegym.envs as te
from treegym.scripts.bench.bench_rollback import RollbackRefused, open_walk, replay


def make_with_room(env_id: str, extra_steps: int, seed: int = 0) -> gym.Env:
    """``gym.make(env_id)`` with ``extra_steps`` more on its step limit (the env's ``max_steps``), so a
    search started ``extra_steps`` deep has as much room below its root as one started at reset. An env
    whose limit is the task's (B-MoCA: known after a reset) gets that of ``reset(seed)`` + ``extra_steps``
    for every task. The plain env when ``extra_steps`` is 0 or the env has no such limit or option."""
    env = gym.make(env_id)
    if not extra_steps:
        return env
    limit = getattr(env.unwrapped, "max_steps", None)
    if type(limit) is not int:
        env.reset(seed=seed)
        limit = getattr(env.unwrapped, "max_steps", None)
        if type(limit) is not int:
            return env
    env.close()
    try:
        return gym.make(env_id, max_steps=limit + extra_steps)
    except TypeError:  # a user's env with a max_steps attribute but no such option
        return gym.make(env_id)


@dataclass(frozen=True)
class StartState:
    """Where the searches of one episode start: ``reset(seed)`` then ``actions``; ``obs`` and ``info``
    are what that reset + replay returned (the reference every search and baseline is checked against)."""

    seed: int
    actions: tuple[Any, ...]
    obs: Any
    info: dict


def start_states(env: gym.Env, seeds: Sequence[int], depth: int) -> dict[int, StartState]:
    """Per seed, the state after ``depth`` seeded random valid actions from ``reset(seed)`` that leave the
    episode open (``bench_rollback.open_walk`` with the seed of its first branch, so these are
    ``bench_rollback``'s and ``bench_all``'s depth-``depth`` states; fewer actions where the episode
    cannot stay open that long); depth 0 is the state ``reset(seed)`` returns."""
    out = {}
    for seed in seeds:
        actions = open_walk(env, seed, depth, np.random.default_rng(0))
        obs, info, _reward = replay(env, seed, actions)
        out[seed] = StartState(seed, tuple(actions), copy.deepcopy(obs), copy.deepcopy(info))
    return out


def go_to(env: gym.Env, state: StartState) -> tuple[Any, dict]:
    """Put ``env`` in ``state`` by reset + replay (not by a restore: the search starts from a played state)."""
    obs, info, _reward = replay(env, state.seed, list(state.actions))
    return obs, info


def check_search_start(env: gym.Env, state: StartState, root: Any) -> None:
    """Raise :class:`RollbackRefused` unless the search tree under ``root`` grew from ``state``: the root's
    observation is the state's, and its first child's is what reset + replay + that child's action gives.
    Moves ``env``."""
    where = f"the search from reset(seed={state.seed}) + {len(state.actions)} actions"
    d = te.first_difference(root.observation, state.obs)
    if d is not None:
        raise RollbackRefused(f"{where} has another root observation: {d}")
    if root.children:
        child = root.children[0]
        obs = replay(env, state.seed, [*state.actions, child.action])[0]
        d = te.first_difference(child.observation, obs)
        if d is not None:
            raise RollbackRefused(f"{where}: its first child ({child.action!r}) differs from reset + replay: {d}")
