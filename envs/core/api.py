"""Suite-level ``snapshot`` / ``restore`` / ``clone`` that work on wrapped envs.

``gym.make`` returns ``PassiveEnvChecker -> OrderEnforcing -> Env`` (plus any
wrappers a user adds). ``env.unwrapped.snapshot()`` alone would miss wrapper
state (``TimeLimit._elapsed_steps``, ``OrderEnforcing._has_reset``, episode
statistics), so these helpers walk the wrapper stack from the outside in,
record each stateful wrapper's state, and ask the innermost layer that speaks
the protocol (the env, or a ``WithReplaySnapshots`` wrapper) for its snapshot.

A wrapper of your own joins by defining ``snapshot_state() -> Any`` and
``restore_state(state)``.
"""
from __future__ import annotations

import copy
from typing import Any

import gymnasium as gym

from .snapshot import SNAPSHOT_COST_SECONDS, Snapshot, SnapshotError

# Attributes of Gymnasium's stateful wrappers that must roll back with the env.
_KNOWN_WRAPPER_STATE: dict[str, tuple[str, ...]] = {
    "TimeLimit": ("_elapsed_steps",),
    "OrderEnforcing": ("_has_reset",),
    # The checker's flags are bookkeeping of one-time checks, not env state;
    # see _settle_checker.
    "PassiveEnvChecker": (),
    "RecordEpisodeStatistics": (
        "episode_count", "episode_start_time", "episode_returns", "episode_lengths",
    ),
}

_SKIP_ATTRS = {"env", "_action_space", "_observation_space", "_metadata", "_cached_spec", "_reward_range"}


def _speaks_protocol(layer: Any) -> bool:
    return callable(getattr(type(layer), "snapshot", None)) and callable(getattr(type(layer), "restore", None))


def _layers(env: gym.Env) -> tuple[list[gym.Wrapper], Any]:
    """Wrappers outside the protocol layer, and the protocol layer itself.

    Cached on the outermost object: a wrapper stack does not change after
    construction, and search code calls this on every snapshot and restore.
    """
    cached = env.__dict__.get("_treegym_layers")
    if cached is not None:
        return cached
    found = _walk_layers(env)
    env.__dict__["_treegym_layers"] = found
    return found


def _walk_layers(env: gym.Env) -> tuple[list[gym.Wrapper], Any]:
    outer: list[gym.Wrapper] = []
    layer: Any = env
    while True:
        if _speaks_protocol(layer):
            return outer, layer
        if isinstance(layer, gym.Wrapper):
            outer.append(layer)
            layer = layer.env
            continue
        raise SnapshotError(
            f"{type(layer).__name__} does not support snapshots: subclass treegym.envs.ForkableEnv, "
            "mix in treegym.envs.ReplayForkable, or wrap it in treegym.envs.WithReplaySnapshots"
        )


_IMMUTABLE = (bool, int, float, str, bytes, type(None))


def _private(value: Any) -> Any:
    """A copy of ``value`` no later step can mutate (immutable scalars are shared)."""
    return value if isinstance(value, _IMMUTABLE) else copy.deepcopy(value)


def _wrapper_state(w: gym.Wrapper) -> Any:
    if callable(getattr(type(w), "snapshot_state", None)):  # class lookup: cheap, no __getattr__
        return ("custom", w.snapshot_state())
    names = _KNOWN_WRAPPER_STATE.get(type(w).__name__)
    if names is None:
        names = tuple(k for k in vars(w) if k not in _SKIP_ATTRS and k != "_treegym_layers")
    d = w.__dict__
    return ("attrs", tuple((n, _private(d[n])) for n in names if n in d))


def _settle_checker(w: gym.Wrapper) -> None:
    """Mark PassiveEnvChecker's one-time checks as done: they ran on the original env,
    and its data-reuse check would otherwise compare against data from another branch."""
    if type(w).__name__ == "PassiveEnvChecker":
        w.checked_reset = w.checked_step = True
        w.checked_data_reuse = True
        w._previous_data = None


def _set_wrapper_state(w: gym.Wrapper, state: Any) -> None:
    _settle_checker(w)
    tag, value = state
    if tag == "custom":
        w.restore_state(value)  # type: ignore[attr-defined]
        return
    for name, v in value:
        setattr(w, name, _private(v))


def snapshot(env: gym.Env) -> Snapshot:
    """Snapshot a (possibly wrapped) env, including its stateful wrappers."""
    outer, core = _layers(env)
    snap = core.snapshot()
    states = tuple((type(w).__name__, _wrapper_state(w)) for w in outer)
    return snap.with_wrappers(states)


def restore(env: gym.Env, snap: Snapshot) -> tuple[Any, dict]:
    """Restore a (possibly wrapped) env to ``snap``; returns ``(observation, info)``."""
    if not isinstance(snap, Snapshot):
        raise SnapshotError(f"restore() needs a treegym Snapshot, got {type(snap).__name__}")
    outer, core = _layers(env)
    obs, info = core.restore(snap)
    if snap.wrappers:
        names = [type(w).__name__ for w in outer]
        recorded = [n for n, _ in snap.wrappers]
        if names != recorded:
            raise SnapshotError(f"snapshot was taken under wrappers {recorded}, this env has {names}")
        for w, (_name, state) in zip(outer, snap.wrappers):
            _set_wrapper_state(w, state)
    else:
        # Taken on the raw env: mark order-enforcing wrappers as reset so steps are allowed.
        for w in outer:
            _settle_checker(w)
            if hasattr(w, "_has_reset"):
                w._has_reset = True
    return obs, info


def release(env: gym.Env, snap: Snapshot) -> None:
    """Free what ``snap`` holds on ``env`` (an ``external`` snapshot's device handle, disk image...).

    A no-op for ``native`` and ``replay`` snapshots (plain values the garbage
    collector frees). After a release, restoring ``snap`` raises ``SnapshotError``
    on envs whose snapshots hold resources; releasing twice is harmless.
    """
    if not isinstance(snap, Snapshot):
        raise SnapshotError(f"release() needs a treegym Snapshot, got {type(snap).__name__}")
    if snap.kind != "external":
        return
    _outer, core = _layers(env)
    free = getattr(core, "release", None)
    if callable(free):
        free(snap)


def snapshot_cost(env: gym.Env) -> float:
    """Declared seconds per snapshot of a (possibly wrapped) env: its ``snapshot_cost_seconds``,
    else ``SNAPSHOT_COST_SECONDS`` of its kind."""
    _outer, core = _layers(env)
    declared = getattr(core, "snapshot_cost_seconds", None)
    if declared is not None:
        return float(declared)
    return float(SNAPSHOT_COST_SECONDS.get(snapshot_kind(env), 1.0))


def snapshot_kind(env: gym.Env) -> str:
    """``native``, ``replay`` or ``external`` for a (possibly wrapped) env."""
    _outer, core = _layers(env)
    return str(getattr(core, "snapshot_kind", "native"))


def clone(env: gym.Env) -> gym.Env:
    """An independent env in the same state: same spec and kwargs, then restore.

    Heavy read-only data (catalogs, indices) is shared through each env's own
    per-process cache, not copied.
    """
    snap = snapshot(env)
    spec = getattr(env, "spec", None)
    if spec is not None:
        fresh = gym.make(spec)
    elif isinstance(env, gym.Wrapper):
        raise SnapshotError("clone() of a wrapped env needs env.spec (create it with gym.make)")
    elif callable(getattr(env, "make_fresh", None)):
        fresh = env.make_fresh()
    else:
        raise SnapshotError(f"cannot clone {type(env).__name__}: it has no spec and no make_fresh()")
    try:
        restore(fresh, snap)
    except SnapshotError:
        fresh.close()
        raise
    finally:
        release(env, snap)  # the fresh env holds its own state now
    return fresh
