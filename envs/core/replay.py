"""The replay fallback: snapshots for any deterministic env, in a few lines.

Mix :class:`ReplayForkable` into an env whose state lives where it cannot be
copied (native code, a subprocess) but which is deterministic given the reset
seed, the reset options and the actions::

    class MyEnv(ReplayForkable, gym.Env):
        def reset(self, *, seed=None, options=None): ...   # as usual
        def step(self, action): ...                         # as usual

``snapshot()`` records ``(seed, options, actions, observation hash)``;
``restore()`` resets with the same seed and options, replays the actions, and
raises :class:`SnapshotDivergence` if the observation hash differs. Cost is
O(depth) per restore; ``snapshot_kind`` is ``"replay"``.

:class:`WithReplaySnapshots` gives the same to an env you cannot edit, as a wrapper.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

import gymnasium as gym
import numpy as np

from .snapshot import Snapshot, SnapshotDivergence, SnapshotError
from .snapshot_check import check_settings


def observation_digest(obs: Any) -> str:
    """A stable hash of an observation (dicts, tuples, strings, numbers, arrays)."""
    h = hashlib.sha256()
    _feed(h, obs)
    return h.hexdigest()


def _feed(h: "hashlib._Hash", x: Any) -> None:
    if isinstance(x, dict):
        h.update(b"{")
        for k in sorted(x, key=str):
            h.update(str(k).encode())
            _feed(h, x[k])
        h.update(b"}")
    elif isinstance(x, (list, tuple)):
        h.update(b"[")
        for v in x:
            _feed(h, v)
        h.update(b"]")
    elif isinstance(x, np.ndarray):
        h.update(str(x.dtype).encode() + str(x.shape).encode() + x.tobytes())
    else:
        h.update(json.dumps(x, default=str).encode() if not isinstance(x, str) else x.encode())


@dataclass(frozen=True)
class ReplayRecord:
    """Payload of a replay snapshot."""

    seed: int | None
    options: Any
    actions: tuple[Any, ...]
    obs_digest: str


class _Recorder:
    """Seed, options and actions since the last reset; shared by the mixin and wrapper."""

    def __init__(self) -> None:
        self.seed: int | None = None
        self.options: Any = None
        self.actions: list[Any] = []
        self.last_obs: Any = None
        self.reset_called = False

    def on_reset(self, seed: int | None, options: Any, obs: Any) -> None:
        self.seed, self.options, self.actions, self.last_obs = seed, _freeze(options), [], obs
        self.reset_called = True

    def on_step(self, action: Any, obs: Any) -> None:
        self.actions.append(action)
        self.last_obs = obs

    def record(self) -> ReplayRecord:
        if not self.reset_called:
            raise SnapshotError("call reset() before snapshot(): a replay snapshot starts from a reset")
        if self.seed is None:
            raise SnapshotError(
                "replay snapshots need a seeded episode: call reset(seed=...) so the replay is deterministic"
            )
        return ReplayRecord(self.seed, self.options, tuple(self.actions), observation_digest(self.last_obs))


def _freeze(x: Any) -> Any:
    if isinstance(x, dict):
        return tuple(sorted((k, _freeze(v)) for k, v in x.items()))
    if isinstance(x, list):
        return tuple(_freeze(v) for v in x)
    return x


def _thaw(x: Any) -> Any:
    if isinstance(x, tuple) and all(isinstance(p, tuple) and len(p) == 2 and isinstance(p[0], str) for p in x):
        return {k: _thaw(v) for k, v in x}
    return x


def replay_into(env: gym.Env, record: ReplayRecord, reset_fn: Any, step_fn: Any) -> tuple[Any, dict]:
    """Reset with the recorded seed/options, replay the actions, verify the hash."""
    obs, info = reset_fn(seed=record.seed, options=_thaw(record.options))
    for i, action in enumerate(record.actions):
        obs, _r, _term, _trunc, info = step_fn(action)
    got = observation_digest(obs)
    if got != record.obs_digest:
        raise SnapshotDivergence(
            f"{type(env).__name__}: replaying {len(record.actions)} actions from seed {record.seed} "
            f"gave a different observation (hash {got[:12]} != {record.obs_digest[:12]}); "
            "the env is not deterministic, so it needs a native snapshot"
        )
    return obs, info


class ReplayForkable:
    """Mixin adding replay snapshots to a deterministic ``gym.Env`` subclass."""

    snapshot_kind = "replay"

    def _recorder(self) -> _Recorder:
        rec = self.__dict__.get("_replay_recorder")
        if rec is None:
            rec = self.__dict__["_replay_recorder"] = _Recorder()
        return rec

    def reset(self, *, seed: int | None = None, options: dict | None = None):  # type: ignore[override]
        obs, info = super().reset(seed=seed, options=options)  # type: ignore[misc]
        self._recorder().on_reset(seed, options, obs)
        return obs, info

    def step(self, action: Any):  # type: ignore[override]
        out = super().step(action)  # type: ignore[misc]
        self._recorder().on_step(action, out[0])
        return out

    def _replay_key(self) -> str:
        """The env's snapshot key (a ``ForkableEnv``'s names its settings), else ``module:qualname``."""
        return getattr(self, "snapshot_class_key", None) or f"{type(self).__module__}:{type(self).__qualname__}"

    def snapshot(self) -> Snapshot:
        rec = self._recorder().record()
        return Snapshot(
            kind="replay",
            env_class=self._replay_key(),
            payload=rec,
            steps=len(rec.actions),
            max_steps=getattr(self, "max_steps", None),
            rng_state=None,
        )

    def restore(self, snapshot: Snapshot) -> tuple[Any, dict]:
        if not isinstance(snapshot, Snapshot) or not isinstance(snapshot.payload, ReplayRecord):
            raise SnapshotError("restore() needs a replay Snapshot taken by this env's snapshot()")
        if snapshot.env_class != self._replay_key():  # replayed under other settings: refused
            check_settings(snapshot.env_class, self._replay_key(), type(self))
        return replay_into(self, snapshot.payload, self.reset, self.step)  # type: ignore[attr-defined]


class WithReplaySnapshots(gym.Wrapper):
    """Wrapper form of the replay fallback, for an env class you cannot edit."""

    snapshot_kind = "replay"

    def __init__(self, env: gym.Env):
        super().__init__(env)
        self._rec = _Recorder()

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        obs, info = self.env.reset(seed=seed, options=options)
        self._rec.on_reset(seed, options, obs)
        return obs, info

    def step(self, action: Any):
        out = self.env.step(action)
        self._rec.on_step(action, out[0])
        return out

    def snapshot(self) -> Snapshot:
        rec = self._rec.record()
        return Snapshot("replay", f"wrapped:{type(self.env.unwrapped).__qualname__}", rec, len(rec.actions), None, None)

    def restore(self, snapshot: Snapshot) -> tuple[Any, dict]:
        if not isinstance(snapshot, Snapshot) or not isinstance(snapshot.payload, ReplayRecord):
            raise SnapshotError("restore() needs a replay Snapshot taken by this wrapper's snapshot()")
        return replay_into(self, snapshot.payload, self.reset, self.step)
