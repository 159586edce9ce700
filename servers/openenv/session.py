"""The OpenEnv protocol over treegym envs, without the web layer: sessions, fork tokens, answers, schemas.

:class:`OpenEnvService` holds the envs of one id (WebSocket sessions capped at
``max_sessions``, a pool for HTTP requests) and the :class:`ForkStore`;
:class:`Session` plays one env through OpenEnv's ``reset`` / ``step`` /
``state`` and the ``metadata.treegym`` fork extension (see ``__init__``).
Refusals raise :class:`OpenEnvError` before anything changes.
"""
from __future__ import annotations

import secrets
import threading
import uuid
from collections import OrderedDict
from typing import Any, Mapping

import gymnasium as gym

import treegym.envs as te

DEFAULT_MAX_SESSIONS = 64
DEFAULT_MAX_FORKS = 10_000
RESET_KEYS = {"seed", "episode_id", "task_id", "split", "restore", "fork"}


class OpenEnvError(Exception):
    """A refused request: ``status`` (HTTP), OpenEnv's WebSocket ``code`` and a message saying what to do."""

    def __init__(self, message: str, status: int = 400, code: str = "VALIDATION_ERROR"):
        super().__init__(message)
        self.message, self.status, self.code = message, status, code


def plain(x: Any) -> Any:
    """``x`` as JSON values: tuples to lists, numpy scalars to numbers, anything else unknown to ``str``."""
    if x is None or isinstance(x, (bool, int, float, str)):
        return x
    if isinstance(x, Mapping):
        return {str(k): plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [plain(v) for v in x]
    item = getattr(x, "item", None)
    if callable(item) and getattr(x, "shape", None) == ():
        return item()
    return str(x)


class ForkStore:
    """Snapshots by token, at most ``capacity`` (least recently used dropped first); thread-safe."""

    def __init__(self, capacity: int = DEFAULT_MAX_FORKS):
        self.capacity = max(1, int(capacity))
        self._snaps: OrderedDict[str, Any] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        with self._lock:
            return len(self._snaps)

    def put(self, snap: Any) -> str:
        token = secrets.token_urlsafe(12)
        with self._lock:
            self._snaps[token] = snap
            while len(self._snaps) > self.capacity:
                self._snaps.popitem(last=False)
        return token

    def get(self, token: Any) -> Any:
        with self._lock:
            if not isinstance(token, str) or token not in self._snaps:
                raise OpenEnvError(f"unknown fork token {str(token)[:40]!r} (never made, or dropped: the server keeps "
                                   f"the {self.capacity} most recently used); fork again", 404)
            self._snaps.move_to_end(token)
            return self._snaps[token]


class Session:
    """One env played through the OpenEnv protocol (a WebSocket session, or one HTTP request)."""

    def __init__(self, service: "OpenEnvService", env: gym.Env):
        self.service, self.env = service, env
        self.episode_id: str | None = None
        self.step_count = 0
        self.task_id: Any = None
        self.done = False
        self.ready = False

    # ------------------------------------------------------------------ protocol
    def reset(self, data: Mapping[str, Any], always_fork: bool = False) -> dict[str, Any]:
        if not isinstance(data, Mapping):
            raise OpenEnvError("reset takes a JSON object, e.g. {\"task_id\": 3, \"seed\": 0}")
        unknown = sorted(set(data) - RESET_KEYS - {"metadata"})
        if unknown:
            raise OpenEnvError(f"unknown reset argument(s) {', '.join(map(repr, unknown))}; "
                               f"known: {', '.join(sorted(RESET_KEYS))}")
        ext = _treegym_meta(data.get("metadata"))
        restore, fork = data.get("restore", ext.get("restore")), data.get("fork", ext.get("fork", False))
        if not isinstance(fork, bool):
            raise OpenEnvError(f"fork must be true or false, got {fork!r}")
        if restore is not None and any(data.get(k) is not None for k in ("task_id", "split", "seed")):
            raise OpenEnvError("give either restore (a fork token: its state has a task) or task_id / split / seed")
        seed = data.get("seed")
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or seed < 0):
            raise OpenEnvError(f"seed must be a whole number >= 0 or null, got {seed!r}")
        if restore is not None:
            obs, info = self._restore(restore)
        else:
            options = {k: data[k] for k in ("task_id", "split") if data.get(k) is not None}
            try:
                obs, info = self.env.reset(seed=seed, options=options or None)
            except (ValueError, KeyError, TypeError, IndexError) as exc:
                raise OpenEnvError(f"cannot reset with {options or 'no options'}: {exc}") from None
            self.step_count = 0
        self.episode_id = data.get("episode_id") or str(uuid.uuid4())
        self.task_id = info.get("task_id", data.get("task_id"))
        self.done, self.ready = False, True
        return self._answer(obs, None, False, False, info, fork or always_fork)

    def step(self, action: Any, always_fork: bool = False) -> dict[str, Any]:
        if not isinstance(action, Mapping) or not isinstance(action.get("action"), str):
            raise OpenEnvError("step takes an action object {\"action\": \"<command in the env's syntax>\", "
                               "\"metadata\": {...}}" + (f"; got {str(action)[:80]!r}" if action is not None else ""))
        unknown = sorted(set(action) - {"action", "metadata"})
        if unknown:
            raise OpenEnvError(f"unknown action field(s) {', '.join(map(repr, unknown))}; an action has "
                               "'action' (a string) and optional 'metadata'")
        ext = _treegym_meta(action.get("metadata"))
        if ext.get("restore") is not None:
            self._restore(ext["restore"])
            self.ready = True
        if not self.ready:
            raise OpenEnvError("reset the env first (or give action.metadata.treegym.restore = a fork token)")
        obs, reward, terminated, truncated, info = self.env.step(action["action"])
        self.step_count += 1
        self.done = bool(terminated or truncated)
        return self._answer(obs, float(reward), terminated, truncated, info, ext.get("fork", False) or always_fork)

    def state(self) -> dict[str, Any]:
        return {"episode_id": self.episode_id, "step_count": self.step_count, "env_id": self.service.env_id,
                "task_id": plain(self.task_id), "done": self.done}

    # ------------------------------------------------------------------ helpers
    def _restore(self, token: Any) -> tuple[Any, dict]:
        snap = self.service.forks.get(token)
        obs, info = te.restore(self.env, snap)
        self.step_count = int(snap.steps)
        self.task_id = info.get("task_id", self.task_id)
        self.done = False
        return obs, info

    def _answer(self, obs: Any, reward: float | None, terminated: bool, truncated: bool, info: dict,
                fork: bool) -> dict[str, Any]:
        fields, omitted = {}, []
        for key, value in (obs.items() if isinstance(obs, Mapping) else [("text", obs)]):
            if hasattr(value, "shape") and getattr(value, "ndim", 0) > 0:
                omitted.append(key)  # images and other arrays do not travel as JSON
            else:
                fields[key] = plain(value)
        ext: dict[str, Any] = {"env_id": self.service.env_id, "task_id": plain(self.task_id),
                               "step": self.step_count, "truncated": bool(truncated)}
        if omitted:
            ext["omitted"] = omitted
        if fork:
            ext["fork"] = self.service.forks.put(te.snapshot(self.env))
        fields["info"] = plain(info)
        fields["metadata"] = {"treegym": ext}
        return {"observation": fields, "reward": reward, "done": bool(terminated or truncated)}


def _treegym_meta(metadata: Any) -> dict[str, Any]:
    if metadata is None:
        return {}
    if not isinstance(metadata, Mapping):
        raise OpenEnvError(f"metadata must be a JSON object, got {str(metadata)[:60]!r}")
    ext = metadata.get("treegym", {})
    if not isinstance(ext, Mapping):
        raise OpenEnvError("metadata.treegym must be an object such as {\"fork\": true} or {\"restore\": TOKEN}")
    unknown = sorted(set(ext) - {"fork", "restore"})
    if unknown:
        raise OpenEnvError(f"unknown metadata.treegym key(s) {', '.join(map(repr, unknown))}; known: fork, restore")
    if not isinstance(ext.get("fork", False), bool):
        raise OpenEnvError(f"metadata.treegym.fork must be true or false, got {ext['fork']!r}")
    return dict(ext)


class OpenEnvService:
    """Envs of one id for OpenEnv sessions: WebSocket sessions (at most ``max_sessions``) and a pool for HTTP."""

    def __init__(self, env_id: str, env_kwargs: Mapping[str, Any] | None = None, *,
                 max_sessions: int = DEFAULT_MAX_SESSIONS, max_forks: int = DEFAULT_MAX_FORKS):
        self.env_id, self.env_kwargs = env_id, dict(env_kwargs or {})
        self.max_sessions = int(max_sessions)
        self.forks = ForkStore(max_forks)
        self.sessions = 0
        self._idle: list[gym.Env] = []
        self._lock = threading.Lock()
        self.release(self._make())  # fail now (unknown id, missing extra, bad kwargs), not at the first client

    def _make(self) -> gym.Env:
        return gym.make(self.env_id, **self.env_kwargs)

    def acquire(self, counted: bool) -> Session:
        """A session on a pooled env; ``counted`` ones (WebSocket) are capped at ``max_sessions``."""
        with self._lock:
            if counted and self.sessions >= self.max_sessions:
                raise OpenEnvError(f"the server holds {self.sessions} sessions (its limit, --max-sessions); close "
                                   "a session or start the server with a higher limit", 503, "CAPACITY_REACHED")
            self.sessions += int(counted)
            env = self._idle.pop() if self._idle else None
        try:
            return Session(self, env if env is not None else self._make())
        except Exception:
            with self._lock:
                self.sessions -= int(counted)
            raise

    def release(self, env_or_session: Any, counted: bool = False) -> None:
        env = env_or_session.env if isinstance(env_or_session, Session) else env_or_session
        with self._lock:
            self.sessions -= int(counted)
            if len(self._idle) < self.max_sessions:
                self._idle.append(env)
                return
        env.close()

    def metadata(self) -> dict[str, Any]:
        from importlib.metadata import PackageNotFoundError, version
        try:
            v = version("treegym")
        except PackageNotFoundError:
            v = None
        return {"name": self.env_id, "version": v, "author": "treegym", "readme_content": None,
                "documentation_url": None,
                "description": f"treegym {self.env_id} (forkable: fork/restore tokens in metadata.treegym)"}

    @staticmethod
    def schema() -> dict[str, Any]:
        meta = {"type": "object", "description": "treegym extension: {\"treegym\": {\"fork\": bool, \"restore\": token}}"}
        return {
            "action": {"title": "TreegymAction", "type": "object", "additionalProperties": False,
                       "properties": {"action": {"type": "string", "description": "a command in the env's syntax"},
                                      "metadata": meta},
                       "required": ["action"]},
            "observation": {"title": "TreegymObservation", "type": "object", "additionalProperties": True,
                            "properties": {"text": {"type": "string"}, "instruction": {"type": "string"},
                                           "valid_actions": {"type": "array", "items": {"type": "string"}},
                                           "info": {"type": "object"}, "metadata": meta,
                                           "done": {"type": "boolean"}, "reward": {"type": ["number", "null"]}}},
            "state": {"title": "TreegymState", "type": "object", "additionalProperties": True,
                      "properties": {"episode_id": {"type": ["string", "null"]},
                                     "step_count": {"type": "integer", "minimum": 0},
                                     "env_id": {"type": "string"}, "task_id": {}, "done": {"type": "boolean"}}},
        }
