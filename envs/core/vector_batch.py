"""Batching for :class:`~treegym.envs.core.vector.ForkVectorEnv`: one observation and one info,
restored into many sub-envs, batched as Gymnasium batches them (``concatenate`` and ``_add_info``).

* :func:`batch_info` - one info added for the sub-envs ``targets`` (a restore into some of them);
* :func:`group_info` - one info for every sub-env (a group start): the same arrays, built by filling,
  in a copy of a dict kept per key layout (its masks in place).
  Arrays that hold one immutable value n times are shared and **read-only**: the ``_key`` masks
  (all True, one array per group size) and the arrays of bool, int and str values (made once per
  value, a bounded cache). Gymnasium never writes into an info it returned; copy an array to
  change it.
* :class:`Batcher` - the batched observations, with immutable parts (tuples of strings) shared.

Every mutable info value (a list, a dict, any other object) is copied per sub-env, so no two
sub-envs share one.
"""
from __future__ import annotations

from copy import copy
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import SyncVectorEnv
from gymnasium.vector.utils import concatenate


def batch_info(info: dict[str, Any], targets: list[int], n: int) -> dict[str, Any]:
    """``info`` of every sub-env in ``targets`` batched as Gymnasium's ``_add_info`` would batch the
    same info added once per target (same arrays, dtypes and ``_key`` masks), built in one go.
    The first target gets ``info``'s own values; each other gets a copy of every mutable value
    (lists, dicts, sets, other objects), so no two sub-envs share one."""
    if len(targets) == n and len(set(targets)) == n:
        return group_info(info, n)
    out: dict[str, Any] = {}
    for key, value in info.items():
        kind = type(value)
        if kind is dict:
            array: Any = batch_info(value, targets, n)
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


def group_info(info: dict[str, Any], n: int) -> dict[str, Any]:
    """:func:`batch_info` for every sub-env (a group start): the same arrays, built by filling; the
    masks and the arrays of bool, int and str values are shared read-only ones (module docstring).
    The dict is a copy of one kept per key layout (:func:`_layout`), so it is made at its full size
    with its masks in place, and only the values are written."""
    keys = tuple(info)
    out = _LAYOUTS.get((keys, n))
    out = (_layout(keys, n) if out is None else out).copy()
    templates = _TEMPLATES
    for key, value in info.items():
        kind = type(value)
        if kind is bool or kind is int or kind is str:
            array: Any = templates.get((kind, value, n))
            if array is None:
                array = _filled(kind, value, n)
        elif kind is list:  # each sub-env its own copy (the first gets the info's own list)
            array = np.empty(n, dtype=object)
            array[0] = value
            for i in range(1, n):  # item by item: numpy would read a list of lists as rows
                array[i] = value.copy()
        elif kind is dict:
            array = group_info(value, n)
        elif kind is float or issubclass(kind, np.number):
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
                for i in range(1, n):
                    array[i] = make(value)
        out[key] = array
    return out


def _layout(keys: tuple[str, ...], n: int) -> dict[str, Any]:
    """The batched info's dict for an info with ``keys``, as Gymnasium orders it (each key, then its
    ``_key`` mask): the masks set (the shared all-True one), the values None; kept per (keys, n)."""
    mask = _ALL_SET.get(n)
    if mask is None:
        mask = np.ones(n, dtype=np.bool_)
        mask.flags.writeable = False
        mask = _ALL_SET[n] = mask
    layout: dict[str, Any] = {}
    for key in keys:
        layout[key] = None
        layout["_" + key] = mask
    if len(_LAYOUTS) >= _TEMPLATE_LIMIT:
        _LAYOUTS.clear()
    _LAYOUTS[(keys, n)] = layout
    return layout


def _filled(kind: type, value: Any, n: int) -> np.ndarray:
    """A read-only array of ``n`` times ``value`` (a bool, int or str: object dtype), as Gymnasium would
    batch it, made once per (type, value, n) and shared: group starts of one task show the same
    flags, counters and names again and again. Floats are not kept (0.0 and -0.0 are equal keys)."""
    key = (kind, value, n)
    array = _TEMPLATES.get(key)
    if array is None:
        array = np.empty(n, dtype=object if kind is str else kind)
        array.fill(value)
        array.flags.writeable = False
        if len(_TEMPLATES) >= _TEMPLATE_LIMIT:
            _TEMPLATES.clear()
        _TEMPLATES[key] = array
    return array


def _maker(kind: type) -> Any:
    """How to copy a mutable info value of type ``kind`` (shallow, as Gymnasium keeps each sub-env's own)."""
    return list if kind is list else dict if kind is dict else set if kind is set else copy


_ALL_SET: dict[int, np.ndarray] = {}  # n -> read-only array of n True
_TEMPLATES: dict[tuple, np.ndarray] = {}  # (type, value, n) -> read-only array (_filled)
_TEMPLATE_LIMIT = 4096
_LAYOUTS: dict[tuple, dict[str, Any]] = {}  # (info keys, n) -> the batched dict to copy (_layout)
_SHARED = {str, bytes, int, float, bool, tuple, type(None), frozenset}


class Batcher:
    """Batches the sub-envs' observations into ``vec._observations`` as Gymnasium's ``concatenate``
    does, and returns them copied as ``deepcopy`` would (when ``copy``), except that immutable parts
    are shared. Spaces whose batches are tuples (Text, Sequence without stacking, nested in Dicts)
    take a direct path; any other space goes through Gymnasium's ``concatenate``."""

    def __init__(self, space: gym.Space):
        self.space = space
        self.tuple_keys = _tuple_batched(space)
        self.copier = _copier(space)
        keys = self.tuple_keys
        # a Dict of Text / flat Sequence spaces (every text env's): its keys, for the one-level path
        self.flat = tuple(keys) if isinstance(keys, dict) and all(p is True for p in keys.values()) else None

    def __call__(self, vec: SyncVectorEnv, copy: bool, same: Any = None) -> Any:
        """The batch of ``vec._env_obs``; ``same``: the one observation every sub-env holds, if so."""
        flat = self.flat
        if flat is not None and same is not None:
            n = vec.num_envs
            batched = {}
            for k in flat:  # a loop, not a comprehension: one frame fewer on a short, cold path
                batched[k] = (same[k],) * n
            vec._observations = batched
            return dict(batched) if copy else batched
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
