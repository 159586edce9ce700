"""Shared fixtures. Registers the example env so tests can gym.make it."""
from __future__ import annotations

import gymnasium as gym
import pytest

import treegym.envs  # noqa: F401 - registers the treegym ids

if "treegym/NumberWalk-v0" not in gym.registry:
    gym.register("treegym/NumberWalk-v0", entry_point="treegym.envs.examples.number_walk:NumberWalkEnv")


@pytest.fixture
def walk_env():
    env = gym.make("treegym/NumberWalk-v0")
    yield env
    env.close()


@pytest.fixture(scope="module")
def catalog():
    """The shipped default WebShop catalog (loaded once per process and shared)."""
    from treegym.envs.webshop.catalog import load_default_catalog

    return load_default_catalog()
