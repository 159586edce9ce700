"""A fork-aware vector env: Gymnasium's vector API over treegym envs, plus snapshot, restore and copy.

Every treegym id registers :func:`make_vector_env` as its ``vector_entry_point``, so

    vec = gym.make_vec("treegym/WebShop-v0", num_envs=16)          # a ForkVectorEnv (sync)
    vec = gym.make_vec("treegym/WebShop-v0", 4, asynchronous=True)  # an AsyncVectorEnv in processes

work for every env with no further arguments (env kwargs such as ``split=`` pass through).
Gymnasium refuses ``wrappers=`` for an entry point; with wrappers, use
``vectorization_mode="sync"`` (a plain ``SyncVectorEnv``, not fork-aware).

:class:`ForkVectorEnv` is a ``SyncVectorEnv`` whose sub-envs can be forked:

* ``snapshot(i)`` - the state of sub-env ``i`` (a treegym ``Snapshot``);
* ``restore(snap, indices=None)`` - put the sub-envs ``indices`` (default: all) in that state;
* ``copy_state(src, dst=None)`` - copy sub-env ``src``'s state into ``dst`` (default: every other one),
  e.g. to start a GRPO group of ``num_envs`` continuations from one state.

``restore`` and ``copy_state`` return the batched ``(observations, infos)`` of *all* sub-envs, as
``reset`` does. ``restore`` clears the restored sub-envs' pending autoreset: the next ``step``
continues the restored state (a snapshot of an ended episode stays ended; stepping it is up to
the env, as after any terminal step). ``copy_state`` gives the copies the source's pending
autoreset: a copy of a sub-env whose episode just ended is reset by the next ``step``, as the
source is.

Asynchronous vector envs hold their sub-envs in other processes, where Gymnasium's shared
memory cannot carry the variable-length ``valid_actions`` Sequence spaces; the entry point's
``asynchronous=True`` builds them with ``shared_memory=False`` (observations travel pickled).
Calling ``gym.make_vec(id, n, vectorization_mode="async")`` yourself needs
``vector_kwargs={"shared_memory": False}`` for the same reason. The async env is not
fork-aware (its workers track autoreset privately); fork in the sync one.
"""
from __future__ import annotations

from typing import Any, Iterable, Sequence

import gymnasium as gym
import numpy as np
from gymnasium.vector import AsyncVectorEnv, SyncVectorEnv

from .api import restore as restore_env
from .group_restore import GroupRestorer, restore_twins, stack_plans
from .api import snapshot as snapshot_env
from .snapshot import Snapshot
from .vector_batch import Batcher, batch_info, group_info


class ForkVectorEnv(SyncVectorEnv):
    """``SyncVectorEnv`` with ``snapshot``/``restore``/``copy_state`` per sub-env (see module docstring)."""

    def _check_index(self, i: int) -> int:
        if not isinstance(i, (int, np.integer)) or not 0 <= int(i) < self.num_envs:
            raise IndexError(f"sub-env index {i!r} is out of range: this vector env has {self.num_envs} (0..{self.num_envs - 1})")
        return int(i)

    def snapshot(self, i: int) -> Snapshot:
        """The state of sub-env ``i`` (wrapper states included)."""
        return snapshot_env(self.envs[self._check_index(i)])

    def reset(self, *, seed: int | list[int | None] | None = None,
              options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        """Gymnasium's reset; a full reset (no ``reset_mask``) then puts back this env's flag views,
        zeroed, in place of the zero arrays Gymnasium made (see :meth:`_zero_flags`)."""
        partial = options is not None and "reset_mask" in options
        out = super().reset(seed=seed, options=options)
        if not partial:
            self._zero_flags()
        return out

    def restore(self, snap: Snapshot, indices: Iterable[int] | None = None) -> tuple[Any, dict[str, Any]]:
        """Restore ``snap`` into the sub-envs ``indices`` (default: all); returns every sub-env's
        batched ``(observations, infos)`` (the others' as they were, with empty infos). Every
        sub-env gets containers of its own: changing one's observation or info changes no other's.
        Restoring into every sub-env (a group start) shares the info arrays that hold one immutable
        value n times, read-only (``vector_batch.group_info``)."""
        n = self.num_envs
        if indices is not None:
            targets = [self._check_index(i) for i in indices]
            if len(targets) != n or len(set(targets)) != n:
                return self._restore_some(snap, targets)
        # a group start: every sub-env (the first observes the snapshot, the others are its twins)
        group = self.__dict__.get("_group")
        if group is None or group.restore.envs != self.envs:  # the same env objects (gym.Env compares by identity)
            group = self._group = _GroupStart(self.envs, self.single_observation_space)
        restore = group.restore
        fast = restore.fast
        wrappers = snap.wrappers
        if fast is not None and type(snap) is Snapshot and (wrappers is restore.wrappers or wrappers == restore.wrappers):
            obs, info, left = fast(snap)  # the short path (GroupRestorer): every call layer counts here
        else:
            obs, info, left = restore(snap)
        env_obs = [obs] * n  # read only by the batching below, which copies or shares immutables
        for j in left:
            env_obs[j + 1] = restore_env(self.envs[j + 1], snap)[0]
        self._env_obs = env_obs
        self._zero_flags()
        return group.batch(self, self.copy, None if left else obs), group_info(info, n)

    def _restore_some(self, snap: Snapshot, targets: list[int]) -> tuple[Any, dict[str, Any]]:
        """:meth:`restore` into ``targets``, not every sub-env."""
        env_obs, envs = self._env_obs, self.envs
        info: dict[str, Any] = {}
        if targets:
            # one snapshot, one observation: the first target observes it, the others (twins made
            # by one maker) take the state without observing again where the env allows it
            first = envs[targets[0]]
            obs, info = restore_env(first, snap)
            env_obs[targets[0]] = obs
            rest = targets[1:]
            for i in rest:
                env_obs[i] = obs  # read only by the batching below, which copies or shares immutables
            plans = self._plans()
            for j in restore_twins([envs[i] for i in rest], snap, first, [plans[i] for i in rest]):
                env_obs[rest[j]] = restore_env(envs[rest[j]], snap)[0]
            self._autoreset_envs[targets] = False
            self._rewards[targets] = 0.0
            self._terminations[targets] = False
            self._truncations[targets] = False
        # one snapshot gives one info: batched once, with a copy of each mutable value per sub-env
        infos = batch_info(info, targets, self.num_envs) if targets else {}
        return self._batcher()(self, self.copy), infos

    def _zero_flags(self) -> None:
        """Zero Gymnasium's per-sub-env rewards, terminations, truncations and pending autoresets.
        The four arrays are views of one buffer of this env's, zeroed in one copy (a group start
        is short: four numpy fills were a tenth of it); Gymnasium's full reset makes arrays of its
        own, so the views are put back then and here."""
        views = self.__dict__.get("_flag_views")
        if views is None:
            n = self.num_envs
            buf = np.zeros(11 * n, dtype=np.uint8)  # n float64 rewards, then 3 x n bools
            views = self._flag_views = (memoryview(buf), bytes(buf.nbytes), buf[:8 * n].view(np.float64),
                                        buf[8 * n:9 * n].view(np.bool_), buf[9 * n:10 * n].view(np.bool_),
                                        buf[10 * n:].view(np.bool_))
        memory, zeros, rewards, terminations, truncations, autoresets = views
        memory[:] = zeros
        self._rewards, self._terminations, self._truncations = rewards, terminations, truncations
        self._autoreset_envs = autoresets

    def _batcher(self) -> Batcher:
        batch = self.__dict__.get("_batch_obs")
        if batch is None:
            batch = self._batch_obs = Batcher(self.single_observation_space)
        return batch

    def _plans(self) -> list[Any]:
        """The sub-envs' snapshot plans (``group_restore.stack_plans``), worked out once per list of sub-envs."""
        envs = self.envs if type(self.envs) is list else list(self.envs)
        kept = self.__dict__.get("_fork_plans")
        if kept is None or kept[0] != envs:  # the same env objects (gym.Env compares by identity)
            kept = self._fork_plans = (list(envs), stack_plans(envs))
        return kept[1]

    def copy_state(self, src: int, dst: Sequence[int] | None = None) -> tuple[Any, dict[str, Any]]:
        """Copy sub-env ``src``'s state into ``dst`` (default: every other sub-env); see :meth:`restore`."""
        src = self._check_index(src)
        targets = [i for i in range(self.num_envs) if i != src] if dst is None else [self._check_index(i) for i in dst]
        out = self.restore(self.snapshot(src), targets)
        # a copy of a sub-env whose episode just ended is reset by the next step, as the source is
        self._autoreset_envs[targets] = self._autoreset_envs[src]
        self._terminations[targets] = self._terminations[src]
        self._truncations[targets] = self._truncations[src]
        return out


class _GroupStart:
    """What a group start into one list of sub-envs works out once: their
    ``group_restore.GroupRestorer`` and the observation batcher."""

    __slots__ = ("restore", "batch")

    def __init__(self, envs: Sequence[gym.Env], space: gym.Space):
        self.restore = GroupRestorer(envs)
        # the bound method, not the Batcher: calling an instance goes through type slot lookups, cold code on a group start
        self.batch = Batcher(space).__call__


def make_vector_env(id: str | None = None, num_envs: int = 1, *, asynchronous: bool = False,
                    autoreset_mode: str | None = None, env_id: str | None = None, **env_kwargs: Any) -> gym.vector.VectorEnv:
    """The ``vector_entry_point`` of every treegym id: ``num_envs`` sub-envs made with ``gym.make``.

    Gymnasium calls it as ``entry(num_envs=n, **kwargs)`` without the id, so each registration
    binds its id (``functools.partial``); ``env_id`` is accepted as a synonym. ``asynchronous``:
    sub-envs in worker processes (``AsyncVectorEnv`` with ``shared_memory=False``), else a
    :class:`ForkVectorEnv`.
    """
    env_id = id or env_id
    if not env_id:
        raise ValueError("make_vector_env needs the env id, e.g. make_vector_env('treegym/Game24-v0', 4)")
    if int(num_envs) < 1:
        raise ValueError(f"num_envs must be at least 1, got {num_envs}")
    env_kwargs.pop("max_episode_steps", None)  # treegym envs own their step limit (none is registered)
    fns = [_Maker(env_id, env_kwargs) for _ in range(int(num_envs))]
    extra = {} if autoreset_mode is None else {"autoreset_mode": autoreset_mode}
    if asynchronous:
        return AsyncVectorEnv(fns, shared_memory=False, **extra)
    return ForkVectorEnv(fns, **extra)


class _Maker:
    """A picklable ``gym.make`` (async workers are spawned processes): it carries a registered id's
    ``EnvSpec``, so a worker needs no registry of its own (``module:EnvId`` is made by name: gym.make
    imports the module there)."""

    def __init__(self, env_id: str, kwargs: dict[str, Any]):
        self.env_id, self.kwargs = env_id, dict(kwargs)
        self.spec = gym.registry.get(env_id)

    def __call__(self) -> gym.Env:
        return gym.make(self.spec if self.spec is not None else self.env_id, **self.kwargs)
