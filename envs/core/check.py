"""``check_rollback``: the public conformance check of the snapshot protocol.

Users adding an env run it to prove, on random branching trajectories, that

1. restore-then-same-actions reproduces observations, rewards, terminations,
   truncations and infos exactly;
2. a restore returns the observation that was current at snapshot time;
3. snapshots survive a pickle round trip (the unpickled one restores the same);
4. stepping after a snapshot never changes the snapshot;
5. observations and infos are fresh objects on every call;
6. ``clone()`` continues identically;
7. ``info["success"]`` is a bool after ``reset`` and after every ``step``
   (the env-agent contract, ``contract.py``);

and it runs Gymnasium's ``check_env``. The first mismatch is named precisely
(which trajectory, which step, which key) in a :class:`RollbackCheckError`.
"""
from __future__ import annotations

import pickle
import warnings
from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym
import numpy as np

from . import api
from .snapshot import Snapshot


class RollbackCheckError(AssertionError):
    """The env broke the snapshot protocol; the message names the first mismatch."""


@dataclass
class RollbackReport:
    """What ``check_rollback`` exercised."""

    env: str
    kind: str
    trajectories: int = 0
    steps_checked: int = 0
    restores: int = 0
    check_env: str = "skipped"
    notes: list[str] = field(default_factory=list)

    def summary(self) -> str:
        return (
            f"{self.env}: rollback OK ({self.kind} snapshots; {self.trajectories} trajectories, "
            f"{self.steps_checked} steps compared, {self.restores} restores; check_env {self.check_env})"
        )


def first_difference(a: Any, b: Any, path: str = "") -> str | None:
    """Path and values of the first place where ``a`` and ``b`` differ, or None."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        if not (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)):
            return f"{path or '<value>'}: {type(a).__name__} != {type(b).__name__}"
        if a.shape != b.shape or a.dtype != b.dtype or not np.array_equal(a, b):
            return f"{path or '<value>'}: arrays differ"
        return None
    if isinstance(a, dict) and isinstance(b, dict):
        if set(a) != set(b):
            return f"{path or '<dict>'}: keys {sorted(map(str, set(a) ^ set(b)))} present on one side only"
        for k in a:
            d = first_difference(a[k], b[k], f"{path}[{k!r}]")
            if d:
                return d
        return None
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        if len(a) != len(b):
            return f"{path or '<seq>'}: length {len(a)} != {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_difference(x, y, f"{path}[{i}]")
            if d:
                return d
        return None
    if isinstance(a, float) and isinstance(b, float) and np.isnan(a) and np.isnan(b):
        return None
    try:
        equal = a == b
        equal = bool(equal)
    except Exception:  # noqa: BLE001 - exotic values: compare their reprs
        equal = repr(a) == repr(b)
    if not equal:
        return f"{path or '<value>'}: {_short(a)} != {_short(b)}"
    return None


def _short(x: Any, n: int = 120) -> str:
    r = repr(x)
    return r if len(r) <= n else r[: n - 3] + "..."


def _shares_mutable(a: Any, b: Any) -> str | None:
    """Name a mutable container shared between two returned values, if any."""
    if isinstance(a, (dict, list, np.ndarray)) and a is b:
        return "the same object"
    if isinstance(a, dict) and isinstance(b, dict):
        for k in a.keys() & b.keys():
            r = _shares_mutable(a[k], b[k])
            if r:
                return f"[{k!r}] is {r}"
    return None


def _pick_action(env: gym.Env, obs: Any, rng: np.random.Generator) -> Any:
    valid = obs.get("valid_actions") if isinstance(obs, dict) else None
    if valid and rng.random() < 0.85:
        return valid[int(rng.integers(len(valid)))]
    if rng.random() < 0.5 and valid:
        return "not a valid action ¿"
    space = env.action_space
    space.seed(int(rng.integers(2**31)))
    return space.sample()


def _check_success(info: Any, where: str) -> None:
    if not isinstance(info, dict) or "success" not in info:
        _fail(where, 'info has no "success" key; every env puts success: bool in every info '
                     "(True exactly when the task is accomplished), see treegym/envs/core/contract.py")
    if not isinstance(info["success"], (bool, np.bool_)):
        _fail(where, f'info["success"] must be a bool, got {type(info["success"]).__name__} {_short(info["success"])}')


def _reset(env: gym.Env, seed: int, options: dict | None, where: str) -> tuple:
    obs, info = env.reset(seed=seed, options=options)
    _check_success(info, f"{where}, after reset")
    return obs, info


def _transition(env: gym.Env, action: Any) -> tuple:
    obs, reward, terminated, truncated, info = env.step(action)
    _check_success(info, f"after step({_short(action, 60)})")
    return obs, float(reward), bool(terminated), bool(truncated), info


def _fail(where: str, what: str) -> None:
    raise RollbackCheckError(f"{where}: {what}")


def _compare_branch(env: gym.Env, actions: list, reference: list, where: str) -> int:
    for i, (action, ref) in enumerate(zip(actions, reference)):
        got = _transition(env, action)
        for name, x, y in zip(("observation", "reward", "terminated", "truncated", "info"), got, ref):
            d = first_difference(x, y)
            if d:
                _fail(f"{where}, step {i + 1} after restore (action {action!r})", f"{name} differs: {d}")
    return len(actions)


def check_rollback(
    env: gym.Env,
    n_trajectories: int = 5,
    seed: int = 0,
    max_depth: int = 12,
    branch_length: int = 4,
    run_check_env: bool = True,
    reset_options: dict | None = None,
) -> RollbackReport:
    """Check ``env`` (raw or as ``gym.make`` returns it) against the snapshot protocol.

    Raises :class:`RollbackCheckError` naming the first mismatch; returns a
    :class:`RollbackReport` when everything holds.
    """
    rng = np.random.default_rng(seed)
    name = getattr(getattr(env, "spec", None), "id", None) or type(env.unwrapped).__name__
    report = RollbackReport(env=name, kind=api.snapshot_kind(env))

    for t in range(n_trajectories):
        where_t = f"trajectory {t}"
        ep_seed = int(rng.integers(2**31))
        obs, info = _reset(env, ep_seed, reset_options, where_t)
        done = False
        depth = int(rng.integers(0, max_depth + 1))
        for _ in range(depth):
            obs, _r, term, trunc, info = _transition(env, _pick_action(env, obs, rng))
            if term or trunc:
                done = True
                break
        if done:
            obs, info = _reset(env, ep_seed, reset_options, where_t)
        obs_at_snap, info_at_snap = obs, info

        snap = api.snapshot(env)
        if not isinstance(snap, Snapshot):
            _fail(where_t, f"snapshot() returned {type(snap).__name__}, not a treegym Snapshot")
        try:
            frozen = pickle.dumps(snap)
        except Exception as exc:  # noqa: BLE001
            _fail(where_t, f"snapshot is not picklable: {exc!r}")
        unpickled = pickle.loads(frozen)

        # Reference branch: actions and their results straight after the snapshot.
        actions, reference = [], []
        cur = obs
        for _ in range(branch_length):
            a = _pick_action(env, cur, rng)
            tr = _transition(env, a)
            prev_obs = cur
            actions.append(a)
            reference.append(tr)
            cur = tr[0]
            shared = _shares_mutable(tr[0], prev_obs)
            if shared:
                _fail(f"{where_t}, step after snapshot", f"observation {shared} as the previous observation (return fresh objects)")
            if tr[2] or tr[3]:
                break
        shared = _shares_mutable(reference[-1][4], info_at_snap) if reference else None
        if shared:
            _fail(where_t, f"info {shared} as an earlier info (return fresh objects)")

        if pickle.dumps(snap) != frozen:
            _fail(where_t, "stepping after snapshot() changed the snapshot (it aliases live state)")

        for label, s in (("restore", snap), ("restore of the unpickled snapshot", unpickled), ("second restore", snap)):
            r_obs, r_info = api.restore(env, s)
            report.restores += 1
            d = first_difference(r_obs, obs_at_snap)
            if d:
                _fail(f"{where_t}, {label}", f"returned observation differs from the one at snapshot time: {d}")
            report.steps_checked += _compare_branch(env, actions, reference, f"{where_t}, {label}")

        twin = api.clone(env) if getattr(env, "spec", None) is not None or hasattr(env, "make_fresh") else None
        if twin is not None:
            try:
                api.restore(twin, snap)
                report.steps_checked += _compare_branch(twin, actions, reference, f"{where_t}, clone")
            finally:
                twin.close()
        report.trajectories += 1

    if run_check_env:
        from gymnasium.utils.env_checker import check_env

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                check_env(env.unwrapped, skip_render_check=True)
            except AssertionError as exc:
                raise RollbackCheckError(f"gymnasium check_env failed: {exc}") from exc
        report.check_env = "passed"
        report.notes.extend(sorted({str(w.message) for w in caught})[:5])
    return report
