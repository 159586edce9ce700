"""Restoring one snapshot into many twin envs (one class, one wrapper stack): a group start.

* :func:`restore_twins` - restore a snapshot into envs whose twin (``peer``) has just been restored
  to it, without observing it again where the env allows;
* :class:`GroupRestorer` - restore a snapshot into every env of a list and observe it once, with
  what can be worked out once kept: ``ForkVectorEnv``'s group start.

The shortcut is this module's alone. An env opts in through one hook,
``ForkableEnv.group_state_holder()``: the object whose ``set_state(payload)`` takes a snapshot's
payload without observing (``EngineEnv``: its runner). Then the snapshot's state is put into every
twin in one pass, :func:`_put_everywhere` writing the base class's per-episode fields (step counter,
limit, task, pending RNG state, last text) straight into each env's slots, exactly as
``ForkableEnv._put_state`` and ``_observe`` would leave them, and the state is observed once.
Everything else falls back to :func:`~.api.restore` per env (wrapper states to set, an env whose
observing has side effects, another class, a snapshot not made by ``snapshot()``).
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

import gymnasium as gym

from .api import restorer, stack_plan
from .runners import InProcessRunner, RemoteState
from .snapshot import Snapshot
from .snapshot_check import CHECKED


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


def _put_everywhere(snapshot: Snapshot, holders: Sequence[tuple[Any, Any]], text: str) -> None:
    """Put ``snapshot``'s state into each (state holder, env) of ``holders`` as
    ``ForkableEnv._put_state`` would (the RNG state applied on the next use of ``np_random``), and
    ``text`` as the env's last text: the env's per-episode slots, its one object (``ForkableEnv``).
    In-process runners take the (immutable) payload itself."""
    payload = snapshot.payload
    steps, max_steps, task, rng = snapshot.steps, snapshot.max_steps, snapshot.task, snapshot.rng_state
    local = not isinstance(payload, RemoteState)
    for holder, env in holders:
        if local and type(holder) is InProcessRunner:
            holder.state = payload  # InProcessRunner.set_state of a local payload
        else:
            holder.set_state(payload)
        env.steps = steps
        env.max_steps = max_steps
        env.task = task
        env._pending_rng = rng
        env._last_text = text


def _holders(source: Any, envs: Sequence[Any]) -> tuple[list[tuple[Any, Any]], tuple[int, ...]]:
    """The (state holder, env) of each of ``envs`` of ``source``'s exact class that has a holder
    (``group_state_holder``, asked once: holders live as long as their env), and the positions of
    the others."""
    cls = type(source)
    holders: list[tuple[Any, Any]] = []
    others: list[int] = []
    key = source.snapshot_class_key
    for i, env in enumerate(envs):
        # a twin built with other settings (another key) is restored, and so refused, one by one
        holder = env.group_state_holder() if type(env) is cls and env.snapshot_class_key == key else None
        if holder is None:
            others.append(i)
        else:
            holders.append((holder, env))
    return holders, tuple(others)


def _fits(source: Any, snap: Any, key: str) -> bool:
    """Whether ``snap`` may be put into ``source``'s twins in one pass (read per call: ``pure_observe``
    may be turned off, and a snapshot not made by ``snapshot()`` is checked by a full restore first)."""
    return (source.pure_observe and type(snap) is Snapshot and snap.env_class == key
            and CHECKED in snap.__dict__)


def _core_twin_restorer(source: Any, cores: list[Any]) -> Callable[[Snapshot], Sequence[int]]:
    """Restores a snapshot that ``source`` was just restored to and observed into ``cores`` (twins of
    ``source``) in one pass; returns the positions it left untouched (restore those with ``restore``)."""
    everyone = tuple(range(len(cores)))
    if getattr(source, "group_state_holder", lambda: None)() is None:
        return lambda snap: everyone
    holders, others = _holders(source, cores)
    key = source.snapshot_class_key

    def restore_twins_of(snap: Snapshot) -> Sequence[int]:
        if not _fits(source, snap, key):
            return everyone
        _put_everywhere(snap, holders, source._last_text)
        return others
    return restore_twins_of


class GroupRestorer:
    """Restores a snapshot into every env of ``envs`` (twins: one class, one wrapper stack) and
    observes it once, again and again (``ForkVectorEnv``'s group start). Called with a snapshot, it
    returns ``envs[0]``'s ``(observation, info)``, which holds for all of them, and the positions in
    ``envs[1:]`` it left untouched (restore those with :func:`~.api.restore`).

    Once every stack is settled (restore settles them) with the same settled wrappers, ``fast`` is
    :func:`_core_group_restorer` of the cores and ``wrappers`` those wrappers' (constant)
    states: a snapshot whose type is ``Snapshot`` and whose ``wrappers`` is (or equals) ``wrappers`` may be
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
    """Restores a snapshot into ``core`` and its twins ``cores``: in one pass and observed once where
    ``core`` has a state holder (see the module docstring), else ``core.restore`` then the twins'."""
    everyone = tuple(range(len(cores)))
    if getattr(core, "group_state_holder", lambda: None)() is None:
        twins = _core_twin_restorer(core, cores)

        def restore_then_twins(snap: Snapshot) -> tuple[Any, dict, Sequence[int]]:
            obs, info = core.restore(snap)
            return obs, info, twins(snap)
        return restore_then_twins
    holders, others = _holders(core, [core, *cores])
    others = tuple(i - 1 for i in others)  # core is always one of its own class
    first, twins = holders[:1], holders[1:]
    key = core.snapshot_class_key

    def restore_group(snap: Snapshot) -> tuple[Any, dict, Sequence[int]]:
        # _fits inlined: a group start is a few dozen microseconds, and every call layer counts there
        if not (core.pure_observe and type(snap) is Snapshot and snap.env_class == key and CHECKED in snap.__dict__):
            obs, info = core.restore(snap)  # checks the snapshot (then it is marked and fits next time)
            return obs, info, everyone
        # the core first, observed; then its twins, each written once with the text it observed
        _put_everywhere(snap, first, "")
        obs, info = core._observe()
        _put_everywhere(snap, twins, core._last_text)
        return obs, info, others
    return restore_group
