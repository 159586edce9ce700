"""The one session server for every registered env id: ``treegym serve <env-id>``.

:func:`create_env_app` serves an id over the generic session API of
``servers/sessions.py`` (reset/step/snapshot/restore/fork/expert over JSON).
It is built against the fork protocol, not against one family:

* an :class:`~treegym.envs.core.engine_env.EngineEnv` family is served by its own
  engine, one per variant the env class declares (``session_variants``: e.g. the
  reward modes of the tool families, WebShop's observation modes), so
  ``gym.make(id, server_url=URL)`` sees what it sees in-process;
* any other :class:`~treegym.envs.core.forkable.ForkableEnv` is served through
  :class:`ForkEngine`, which turns its snapshot/restore into an engine: a session
  state is a snapshot plus what the env showed there; a client plays it with
  ``EngineEnv(None, server_url=URL)`` (tasks listed by the server).

Family-specific sites stay on top of this (``treegym serve webshop`` adds the
shop's pages, ``treegym serve tools`` StableToolBench's routes).
"""
from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np
import gymnasium as gym
from flask import Flask

from treegym.envs import registration
from treegym.envs.core.contract import Engine, ExpertAdvice, StepResult
from treegym.envs.core.engine_env import EngineEnv
from treegym.envs.core.forkable import ForkableEnv
from treegym.envs.core.signed import StateSigner
from treegym.envs.core.snapshot import Snapshot

from .sessions import create_session_app


FORK_STATE_LIMIT = 8 * 1024 * 1024  # bytes of a request body on a ForkEngine server (a restore carries a snapshot)


@dataclass(frozen=True)
class ForkState:
    """A session state of a :class:`ForkEngine`: the env's snapshot, what it showed there, whether it ended."""

    snapshot: Snapshot
    observation: dict
    info: dict
    terminated: bool


def _json_value(x: Any, omitted: list[str], key: str = "") -> Any:
    """``x`` as JSON-able values with sequences as tuples (the Engine contract); arrays are left out
    (their keys collected in ``omitted``), other unknown values become ``str``."""
    if x is None or isinstance(x, (bool, int, float, str)):
        return x
    if isinstance(x, np.ndarray):
        omitted.append(key)
        return None
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, Mapping):
        return {str(k): _json_value(v, omitted, str(k)) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return tuple(_json_value(v, omitted, key) for v in x)
    return str(x)


def _shown(obs: Mapping, info: Mapping) -> tuple[dict, dict]:
    omitted: list[str] = []
    obs_json = {k: v for k, v in _json_value(obs, omitted).items() if k not in omitted}
    info_json = _json_value(info, [])
    if omitted:
        info_json["omitted_observation_fields"] = tuple(omitted)
    return obs_json, info_json


class ForkEngine:
    """Any :class:`ForkableEnv` as an :class:`Engine` (see the module docstring).

    One env does the work (a lock makes requests take turns on it): each request restores
    the session's snapshot, acts, and snapshots again. State JSON is the pickled snapshot
    signed with a key of this server process, or ``TREEGYM_SNAPSHOT_KEY`` when set (HMAC-SHA256,
    ``envs/core/signed.py``), so a client can hand back only states this server (or a server holding the
    same key) made: nothing a client sends is unpickled unchecked. Envs with
    ``external`` snapshots are refused (a server cannot know when to release them).
    """

    def __init__(self, env: ForkableEnv):
        if not isinstance(env, ForkableEnv):
            raise TypeError(f"ForkEngine serves a treegym ForkableEnv, got {type(env).__name__}")
        if env.snapshot_kind == "external":
            raise ValueError(f"{type(env).__name__} takes external snapshots (device handles that must be released); "
                             "a session server keeps every state a client may return to, so it serves only native "
                             "or replay snapshots: use the env in-process")
        pool = type(env).default_task_pool()
        if pool is None:
            raise ValueError(f"{type(env).__name__} does not list its tasks (default_task_pool); "
                             "it cannot be served by task id")
        self.env = env
        self.pool = pool
        self._lock = threading.Lock()
        self._signer = StateSigner("state")

    # ------------------------------------------------------------------ tasks
    @property
    def default_split(self) -> str:
        return self.pool.default

    def splits(self) -> tuple[str, ...]:
        return self.pool.splits()

    def task_ids(self, split: str) -> tuple:
        return self.pool.ids(split)

    def task(self, task_id: Any) -> Any:
        return self.pool.check(task_id)

    # ------------------------------------------------------------------ dynamics
    def _here(self, obs: Mapping, info: Mapping, terminated: bool) -> ForkState:
        shown = _shown(obs, info)
        return ForkState(self.env.snapshot(), shown[0], shown[1], bool(terminated))

    def initial_state(self, task: Any, seed: int | None) -> ForkState:
        with self._lock:
            obs, info = self.env.reset(seed=seed, options={"task_id": task})
            return self._here(obs, info, False)

    def step(self, state: ForkState, action: str) -> StepResult[ForkState]:
        with self._lock:
            self.env.restore(state.snapshot)
            obs, reward, terminated, truncated, info = self.env.step(action)
            return StepResult(self._here(obs, info, terminated), float(reward), bool(terminated), bool(truncated))

    def is_terminal(self, state: ForkState) -> bool:
        return state.terminated

    def observe(self, state: ForkState) -> tuple[dict, dict]:
        return _fresh(state.observation), _fresh(state.info)

    def expert(self, state: ForkState) -> ExpertAdvice | None:
        with self._lock:
            self.env.restore(state.snapshot)
            return self.env.expert()

    # ------------------------------------------------------------------ JSON (signed, envs/core/signed.py)
    def state_to_json(self, state: ForkState) -> dict[str, str]:
        return self._signer.dumps((state.snapshot, state.terminated))

    def state_from_json(self, data: Any) -> ForkState:
        snap, terminated = self._signer.loads(data)
        with self._lock:
            obs, info = self.env.restore(snap)
            return self._here(obs, info, terminated)


def _fresh(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _fresh(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return tuple(_fresh(v) for v in value)
    return value


def session_engines(env_id: str, **env_kwargs: Any) -> dict[str, Engine]:
    """The engines a session server runs for ``env_id`` (a treegym id or short name, or a user's id:
    registered, ``module:EnvId`` or from an entry-point plugin), by variant."""
    resolved = registration.resolve(env_id)
    if resolved is None:
        try:
            resolved = registration.ensure_registered(env_id)
        except gym.error.NameNotFound:
            known = ", ".join(f"{e.id} ({e.name})" if e.name else e.id for e in registration.entries())
            raise ValueError(f"unknown env {env_id!r}; registered: {known}") from None
    cls = registration.env_class(resolved)
    if issubclass(cls, EngineEnv):
        kwarg, variants = getattr(cls, "session_variants", (None, ()))
        if kwarg is None:
            return {"default": cls(**env_kwargs).engine}
        return {v: cls(**{**env_kwargs, kwarg: v}).engine for v in variants}
    if issubclass(cls, ForkableEnv):
        return {"default": ForkEngine(cls(**env_kwargs))}
    raise TypeError(f"{resolved} ({cls.__name__}) is not a treegym ForkableEnv; it cannot be served")


def create_env_app(env_id: str, env_kwargs: Mapping[str, Any] | None = None, **app_options: Any) -> Flask:
    """The session server of ``env_id`` (see the module docstring); ``app_options`` go to
    :func:`~treegym.servers.sessions.create_session_app` (ttl, max_sessions, serve_expert, ...)."""
    resolved = registration.resolve(env_id) or env_id
    env_kwargs = dict(env_kwargs or {})
    engines = session_engines(env_id, **env_kwargs)
    app_options.setdefault("default_split", env_kwargs.get("split"))  # what the served env was made to play
    limits = [FORK_STATE_LIMIT if isinstance(e, ForkEngine) else getattr(e, "state_json_limit", None)
              for e in engines.values()]
    if any(limits):
        # a state is a whole snapshot (a game's Z-machine memory): restores need room
        app_options.setdefault("max_content_length", max(x for x in limits if x))
    return create_session_app(engines, health=lambda: {"env_id": resolved}, **app_options)
