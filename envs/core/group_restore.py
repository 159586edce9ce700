"""Restoring one snapshot into many twin envs (one class, one wrapper stack): a group start.

* :func:`restore_twins` - restore a snapshot into envs whose twin (``peer``) has just been restored
  to it, without observing it again where the env allows (``ForkableEnv.twin_restorer``);
* :class:`GroupRestorer` - restore a snapshot into every env of a list and observe it once, with
  what can be worked out once kept (``ForkableEnv.group_restorer``): ``ForkVectorEnv``'s group start.

Both fall back to :func:`~.api.restore` per env wherever the shortcut does not hold (wrapper states
to set, an env whose observing has side effects, another class).
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

import gymnasium as gym

from .api import restorer, stack_plan
from .snapshot import Snapshot


def stack_plans(envs: Sequence[gym.Env]) -> list[Any]:
    """The cached snapshot plan of each of ``envs`` (what :func:`restore_twins` reads per env); a caller
    restoring into the same envs again and again (``ForkVectorEnv``) keeps the list and passes it back."""
    return [stack_plan(env) for env in envs]


def restore_twins(envs: Sequence[gym.Env], snap: Snapshot, peer: gym.Env,
                  plans: Sequence[Any] | None = None) -> list[int]:
    """Restore ``snap`` into each of ``envs`` without observing it, where ``peer`` (their twin: same
    class, same wrapper stack) has just been restored to ``snap`` by :func:`~.api.restore`, whose
    ``(observation, info)`` then holds for them too. Returns the positions in ``envs`` where that
    shortcut does not apply (wrapper states to set, an env whose observing has side effects, see
    ``ForkableEnv.restore_as``), left untouched: restore those with :func:`~.api.restore`. ``plans``: the
    :func:`stack_plans` of ``envs``, when the caller keeps them."""
    left: list[int] = []
    wrappers = snap.wrappers
    source = stack_plan(peer).core
    ready: list[Any] = []  # cores whose stacks allow the shortcut, and their positions
    where: list[int] = []
    for i, stack in enumerate(stack_plans(envs) if plans is None else plans):
        constant = stack.constant
        # constant: settled wrappers only (no state to set); a snapshot of a twin has an equal tuple
        if not stack.settled or constant is None or (wrappers is not constant and wrappers != constant):
            left.append(i)
        else:
            ready.append(stack.core)
            where.append(i)
    left.extend(where[j] for j in _core_twin_restorer(source, ready)(snap))
    left.sort()
    return left


def _core_twin_restorer(source: Any, cores: list[Any]) -> Callable[[Snapshot], Sequence[int]]:
    """``source.twin_restorer(cores)`` (one pass, ``ForkableEnv``), else each core's ``restore_as``."""
    maker = getattr(source, "twin_restorer", None)
    if maker is not None:
        return maker(cores)

    def restore_each(snap: Snapshot) -> list[int]:
        return [i for i, core in enumerate(cores)
                if getattr(core, "restore_as", None) is None or not core.restore_as(snap, source)]
    return restore_each


class GroupRestorer:
    """Restores a snapshot into every env of ``envs`` (twins: one class, one wrapper stack) and
    observes it once, again and again (``ForkVectorEnv``'s group start). Called with a snapshot, it
    returns ``envs[0]``'s ``(observation, info)``, which holds for all of them, and the positions in
    ``envs[1:]`` it left untouched (restore those with :func:`~.api.restore`).

    Once every stack is settled (restore settles them) with the same settled wrappers, ``fast`` is
    the cores' own :meth:`~ForkableEnv.group_restorer` and ``wrappers`` those wrappers' (constant)
    states: a snapshot whose type is ``Snapshot`` and whose ``wrappers`` is ``wrappers`` may be
    given to ``fast`` directly (a caller on a short path does); any other goes through
    :func:`~.api.restore` and :func:`restore_twins`."""

    __slots__ = ("envs", "plans", "first", "fast", "wrappers")

    def __init__(self, envs: Sequence[gym.Env]):
        self.envs = list(envs)
        self.plans = stack_plans(self.envs)
        self.first = restorer(self.envs[0])
        self.fast: Callable[[Snapshot], tuple[Any, dict, Sequence[int]]] | None = None
        self.wrappers: Any = None

    def __call__(self, snap: Snapshot) -> tuple[Any, dict, Sequence[int]]:
        if self.fast is None:
            self._prepare()
        fast = self.fast
        if fast is not None and type(snap) is Snapshot and (snap.wrappers is self.wrappers
                                                             or snap.wrappers == self.wrappers):
            return fast(snap)
        obs, info = self.first(snap)  # says what is wrong, or sets the snapshot's wrapper states
        return obs, info, restore_twins(self.envs[1:], snap, self.envs[0], self.plans[1:])

    def _prepare(self) -> None:
        plans = self.plans
        constant = plans[0].constant
        if constant is not None and all(p.settled and p.constant == constant for p in plans):
            self.wrappers = constant
            self.fast = _core_group_restorer(plans[0].core, [p.core for p in plans[1:]])


def _core_group_restorer(core: Any, cores: list[Any]) -> Callable[[Snapshot], tuple[Any, dict, Sequence[int]]]:
    """``core.group_restorer(cores)`` (``ForkableEnv``), else a restore of ``core`` and its twins'."""
    maker = getattr(core, "group_restorer", None)
    if maker is not None:
        return maker(cores)
    twins = _core_twin_restorer(core, cores)

    def restore_group(snap: Snapshot) -> tuple[Any, dict, Sequence[int]]:
        obs, info = core.restore(snap)
        return obs, info, twins(snap)
    return restore_group
