"""``ForkClientEnv``: a family that is not an Engine, played through the generic session server.

The one env pattern has two kinds of families (docs/DESIGN.md, "One env pattern"):
``Engine`` families (pure functions over immutable states, run by ``EngineEnv``) and
``ForkableEnv`` families whose simulator cannot honestly be a pure function (B-MoCA:
a phone that may be a real device over ADB). ``treegym serve <id>`` serves the second
kind through ``ForkEngine`` (``servers/env_server.py``: the env's snapshot/restore as an
engine), and ``gym.make(id, server_url=URL)`` or ``treegym.envs.remote(id, URL)`` returns
this client instead of the class itself, so every registered id is played remotely the same way.

* Tasks, observations, rewards and step limits are the served env's: the client lists
  the server's tasks (``split=``/``task_ids=`` select among them) and leaves the step limit
  to the server (``StepResult.truncated``), so ``max_steps`` is None here.
* Made by ``treegym.envs.remote(id, url)`` or ``gym.make(id, server_url=url)`` of a treegym
  id (``envs/core/remote.py``); ``ForkClientEnv(TheEnvClass, url)`` directly works too.
* Make-kwargs that configure the simulator (``backend=``, ``screenshot=``, ``max_steps=``,
  ...) belong to the server: ``treegym serve <id> --env-opt KEY=VALUE``. Giving them to the
  client is refused, naming them. Array fields of an observation (a screenshot) do not
  cross HTTP: ``info["omitted_observation_fields"]`` names them.
"""
from __future__ import annotations

from typing import Any, Sequence

from .engine_env import EngineEnv

CLIENT_KWARGS = ("split", "task_ids", "render_mode", "variant")


class ForkClientEnv(EngineEnv):
    """``served_class`` (a non-Engine ForkableEnv family) played on the session server at ``server_url``."""

    def __init__(self, served_class: type, server_url: str, split: str | None = None,
                 task_ids: Sequence[Any] | None = None, render_mode: str | None = None,
                 variant: str | None = None, **server_kwargs: Any):
        if server_kwargs:
            names = ", ".join(f"{k}={v!r}" for k, v in server_kwargs.items())
            raise ValueError(f"{served_class.__name__} with server_url= is played on the server's env: {names} "
                             f"configure that env; start the server with them (treegym serve <id> --env-opt "
                             f"KEY=VALUE). The client takes {', '.join(CLIENT_KWARGS)}")
        self.served_class = served_class
        self.server_hint = f"start a session server (treegym serve <id of {served_class.__name__}> --port PORT)"
        super().__init__(None, split=split, task_ids=task_ids, max_steps=None, render_mode=render_mode,
                         server_url=server_url, variant=variant)
