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

from copy import copy
from typing import Any, Iterable, Sequence

import gymnasium as gym
import numpy as np
from gymnasium.vector import AsyncVectorEnv, SyncVectorEnv
from gymnasium.vector.utils import concatenate

from .api import restore as restore_env
from .api import restore_twins, stack_plans
from .api import snapshot as snapshot_env
from .snapshot import Snapshot


class ForkVectorEnv(SyncVectorEnv):
    """``SyncVectorEnv`` with ``snapshot``/``restore``/``copy_state`` per sub-env (see module docstring)."""

    def _check_index(self, i: int) -> int:
        if not isinstance(i, (int, np.integer)) or not 0 <= int(i) < self.num_envs:
            raise IndexError(f"sub-env index {i!r} is out of range: this vector env has {self.num_envs} (0..{self.num_envs - 1})")
        return int(i)

    def snapshot(self, i: int) -> Snapshot:
        """The state of sub-env ``i`` (wrapper states included)."""
        return snapshot_env(self.envs[self._check_index(i)])

    def restore(self, snap: Snapshot, indices: Iterable[int] | None = None) -> tuple[Any, dict[str, Any]]:
        """Restore ``snap`` into the sub-envs ``indices`` (default: all); returns every sub-env's
        batched ``(observations, infos)`` (the others' as they were, with empty infos). Every
        sub-env gets containers of its own: changing one's observation or info changes no other's."""
        targets = list(range(self.num_envs)) if indices is None else [self._check_index(i) for i in indices]
        env_obs, envs = self._env_obs, self.envs
        info: dict[str, Any] = {}
        every = indices is None or len(set(targets)) == self.num_envs
        shared = every  # every sub-env holds the one observation (a group start)
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
                env_obs[rest[j]], shared = restore_env(envs[rest[j]], snap)[0], False
        if every:
            for flags in (self._autoreset_envs, self._rewards, self._terminations, self._truncations):
                flags.fill(0)
        else:
            self._autoreset_envs[targets] = False
            self._rewards[targets] = 0.0
            self._terminations[targets] = False
            self._truncations[targets] = False
        # one snapshot gives one info: batched once, with a copy of each mutable value per sub-env
        infos = _batch_info(info, targets, self.num_envs) if targets else {}
        batch = self.__dict__.get("_batch_obs")
        if batch is None:
            batch = self._batch_obs = _Batcher(self.single_observation_space)
        return batch(self, self.copy, obs if shared else None), infos

    def _plans(self) -> list[Any]:
        """The sub-envs' snapshot plans (``api.stack_plans``), worked out once per list of sub-envs."""
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


def _batch_info(info: dict[str, Any], targets: list[int], n: int) -> dict[str, Any]:
    """``info`` of every sub-env in ``targets`` batched as Gymnasium's ``_add_info`` would batch the
    same info added once per target (same arrays, dtypes and ``_key`` masks), built in one go.
    The first target gets ``info``'s own values; each other gets a copy of every mutable value
    (lists, dicts, sets, other objects), so no two sub-envs share one."""
    if len(targets) == n and len(set(targets)) == n:
        return _batch_info_all(info, n)
    out: dict[str, Any] = {}
    for key, value in info.items():
        kind = type(value)
        if kind is dict:
            array: Any = _batch_info(value, targets, n)
        elif kind is bool or kind is int or kind is float or issubclass(kind, np.number):
            array = np.zeros(n, dtype=kind)
            array[targets] = value
        elif kind is np.ndarray:
            array = np.zeros((n, *value.shape), dtype=value.dtype)
            array[targets] = value
        else:  # an object array, as Gymnasium's (final_obs included)
            array = np.full(n, None, dtype=object)
            array[targets[0]] = value
            rest = targets[1:]
            if kind in _SHARED or key == "final_obs":  # immutable (final_obs: Gymnasium does not copy it)
                for i in rest:
                    array[i] = value
            else:
                make = _maker(kind)
                for i in rest:
                    array[i] = make(value)
        out[key] = array
        mask = out["_" + key] = np.zeros(n, dtype=np.bool_)
        mask[targets] = True
    return out


def _batch_info_all(info: dict[str, Any], n: int) -> dict[str, Any]:
    """:func:`_batch_info` for every sub-env (a group start): the same arrays, built by filling."""
    ones = _ONES.get(n)
    if ones is None:
        ones = _ONES[n] = np.ones(n, dtype=np.bool_)
    out: dict[str, Any] = {}
    for key, value in info.items():
        kind = type(value)
        if kind is dict:
            array: Any = _batch_info_all(value, n)
        elif kind is bool or kind is int or kind is float or issubclass(kind, np.number):
            array = np.empty(n, dtype=kind)
            array.fill(value)
        elif kind is np.ndarray:
            array = np.empty((n, *value.shape), dtype=value.dtype)
            array[:] = value
        else:  # an object array, as Gymnasium's (final_obs included)
            array = np.empty(n, dtype=object)
            if kind in _SHARED or key == "final_obs":  # immutable (final_obs: Gymnasium does not copy it)
                array.fill(value)
            else:
                make = _maker(kind)
                array[0] = value
                for i in range(1, n):  # item by item: numpy would read a list of lists as rows
                    array[i] = make(value)
        out[key] = array
        out["_" + key] = ones.copy()
    return out


def _maker(kind: type) -> Any:
    """How to copy a mutable info value of type ``kind`` (shallow, as Gymnasium keeps each sub-env's own)."""
    return list if kind is list else dict if kind is dict else set if kind is set else copy


_ONES: dict[int, np.ndarray] = {}
_SHARED = {str, bytes, int, float, bool, tuple, type(None), frozenset}


class _Batcher:
    """Batches the sub-envs' observations into ``vec._observations`` as Gymnasium's ``concatenate``
    does, and returns them copied as ``deepcopy`` would (when ``copy``), except that immutable parts
    are shared. Spaces whose batches are tuples (Text, Sequence without stacking, nested in Dicts)
    take a direct path; any other space goes through Gymnasium's ``concatenate``."""

    def __init__(self, space: gym.Space):
        self.space = space
        self.tuple_keys = _tuple_batched(space)
        self.copier = _copier(space)

    def __call__(self, vec: SyncVectorEnv, copy: bool, same: Any = None) -> Any:
        """The batch of ``vec._env_obs``; ``same``: the one observation every sub-env holds, if so."""
        keys = self.tuple_keys
        if keys is None:
            vec._observations = concatenate(self.space, vec._env_obs, vec._observations)
            return self.copier(vec._observations) if copy else vec._observations
        if same is not None:
            batched = vec._observations = _repeated(keys, same, vec.num_envs)
        else:
            batched = vec._observations = _tuples_of(keys, vec._env_obs)
        return _fresh_dicts(keys, batched) if copy else batched


def _tuple_batched(space: gym.Space) -> Any:
    """For a space whose batches Gymnasium makes as tuples of immutable items (Text, a flat
    Sequence): True; for a Dict of such spaces the {key: sub-plan}. None otherwise (Box, Discrete,
    Graph, ... batch into arrays or need deep copies)."""
    if isinstance(space, gym.spaces.Dict):
        plans = {k: _tuple_batched(sub) for k, sub in space.spaces.items()}
        return None if any(p is None for p in plans.values()) else plans
    if isinstance(space, gym.spaces.Text) or _flat_sequence(space):
        return True
    return None


def _flat_sequence(space: gym.Space) -> bool:
    """A Sequence batched as a tuple of items that are themselves immutable (strings or numbers)."""
    return (isinstance(space, gym.spaces.Sequence) and not space.stack
            and isinstance(space.feature_space, (gym.spaces.Text, gym.spaces.Discrete, gym.spaces.Box))
            and (not isinstance(space.feature_space, gym.spaces.Box) or space.feature_space.shape == ()))


def _copier(space: gym.Space) -> Any:
    """A function copying batched values of ``space`` as ``deepcopy`` would, except that immutable parts
    (batched Text and flat Sequence values are tuples of strings or numbers) are shared, not walked."""
    from copy import deepcopy

    if isinstance(space, gym.spaces.Dict):
        parts = {k: _copier(sub) for k, sub in space.spaces.items()}
        return lambda x: {k: parts[k](v) if k in parts else deepcopy(v) for k, v in x.items()}
    if isinstance(space, gym.spaces.Text) or _flat_sequence(space):
        return lambda x: x if isinstance(x, tuple) else deepcopy(x)
    if isinstance(space, gym.spaces.Box):
        return lambda x: x.copy() if isinstance(x, np.ndarray) else deepcopy(x)
    return deepcopy


def _tuples_of(plan: Any, items: list[Any]) -> Any:
    """Gymnasium's ``concatenate`` for a :func:`_tuple_batched` space."""
    if plan is True:
        return tuple(items)
    return {k: _tuples_of(sub, [item[k] for item in items]) for k, sub in plan.items()}


def _repeated(plan: Any, item: Any, n: int) -> Any:
    """:func:`_tuples_of` for ``n`` items that are all ``item``."""
    if plan is True:
        return (item,) * n
    return {k: _repeated(sub, item[k], n) for k, sub in plan.items()}


def _fresh_dicts(plan: Any, batched: Any) -> Any:
    """A copy of a :func:`_tuple_batched` batch: new dicts, the (immutable) tuples shared."""
    if plan is True:
        return batched
    return {k: _fresh_dicts(sub, batched[k]) for k, sub in plan.items()}


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
