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


@pytest.fixture(scope="module")
def tool_server():
    """``treegym serve tools``' app on 127.0.0.1 (a free port), one per test module."""
    pytest.importorskip("flask")
    from treegym.servers.run import BackgroundServer
    from treegym.servers.toolbench import create_app

    srv = BackgroundServer(create_app(), "127.0.0.1", 0).start()
    yield srv
    srv.stop()
