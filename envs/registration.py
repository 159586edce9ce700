"""Registration of every treegym id, with string entry points.

Imported by ``treegym.envs``; string entry points keep registration cheap (an
env module is imported only at ``gym.make``) and make ids resolvable in spawned
worker processes (``import treegym.envs`` registers them there too).
Envs own their step limit, so none is registered with a TimeLimit. Every id's
``vector_entry_point`` is the fork-aware vector env (``envs/core/vector.py``), so
``gym.make_vec(id, n)`` works for each of them, asynchronous ones included.

An env family adds one line to ``ENVS``: id, ``module:Class``, default kwargs.
"""
from __future__ import annotations

import importlib
from functools import partial
from typing import Any

import gymnasium as gym

NAMESPACE = "treegym"

# id -> (entry point, default kwargs, extra needed to import it)
ENVS: dict[str, tuple[str, dict[str, Any], str | None]] = {
    "treegym/Game24-v0": ("treegym.envs.game24.env:Game24Env", {}, None),
    "treegym/WebShop-v0": ("treegym.envs.webshop.env:WebShopEnv", {}, "webshop"),
    "treegym/ToolBench-v0": ("treegym.envs.toolbench.env:ToolBenchEnv", {}, None),
    "treegym/RestBench-v0": ("treegym.envs.restbench.env:RestBenchEnv", {}, None),
    "treegym/ToolTasks-v0": ("treegym.envs.tooltasks.env:ToolTasksEnv", {}, None),
    "treegym/BMoCA-v0": ("treegym.envs.android.env:BMoCAEnv", {}, None),
    "treegym/ALFWorld-v0": ("treegym.envs.alfworld.env:ALFWorldEnv", {}, None),
    "treegym/TextWorld-v0": ("treegym.envs.textworld.env:TextWorldEnv", {}, "textworld"),
}


def register_all() -> None:
    from .core.vector import make_vector_env

    for env_id, (entry_point, kwargs, _extra) in ENVS.items():
        if env_id in gym.registry:
            continue
        gym.register(
            id=env_id,
            entry_point=entry_point,
            kwargs=dict(kwargs),
            max_episode_steps=None,
            disable_env_checker=False,
            vector_entry_point=partial(make_vector_env, env_id),
        )


def env_class(env_id: str) -> type:
    """Import and return the env class behind ``env_id`` (may need the id's extra)."""
    if env_id not in ENVS:
        known = ", ".join(sorted(ENVS))
        raise gym.error.NameNotFound(f"unknown treegym env {env_id!r}; known ids: {known}")
    entry_point, _kwargs, extra = ENVS[env_id]
    module_name, _, attr = entry_point.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        if extra:
            raise gym.error.DependencyNotInstalled(
                f"{env_id} needs extra packages: pip install 'treegym[{extra}]' ({exc})"
            ) from exc
        raise
    return getattr(module, attr)


def env_ids() -> list[str]:
    return list(ENVS)
