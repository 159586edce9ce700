"""Suite-level ``snapshot`` / ``restore`` / ``clone`` that work on wrapped envs.

``gym.make`` returns ``PassiveEnvChecker -> OrderEnforcing -> Env`` (plus any
wrappers a user adds). ``env.unwrapped.snapshot()`` alone would miss wrapper
state (``TimeLimit._elapsed_steps``, episode statistics), so these helpers walk
the wrapper stack from the outside in, record each stateful wrapper's state,
and ask the innermost layer that speaks the protocol (the env, or a
``WithReplaySnapshots`` wrapper) for its snapshot.

Two of Gymnasium's wrappers hold nothing a branch can change: OrderEnforcing's
"has been reset" flag is true in every state a snapshot can be restored to,
and PassiveEnvChecker's flags record one-time checks. Their names are recorded
(restoring under a different wrapper stack is refused) but not their state.
Restoring into a stack whose OrderEnforcing was never reset *settles* it through
its public ``reset()`` once (the env is reset, then the snapshot restored over
it), so steps are allowed; the checker then runs its checks as it would after
any reset. Of the wrappers ``gym.make`` adds and the stateful ones listed here,
only one private Gymnasium attribute is written, the one Gymnasium offers no
public way to roll back: ``TimeLimit._elapsed_steps`` (only under
``max_episode_steps=``; treegym envs own their step limit and are registered
without a TimeLimit), through :func:`_time_limit_state`, which refuses clearly if
a Gymnasium release renames it.

A wrapper of your own joins by defining ``snapshot_state() -> Any`` and
``restore_state(state)``; a wrapper not listed here that does not (yours, or
another Gymnasium wrapper) has its instance attributes copied and set back as
they are, private ones included.

Search snapshots and restores thousands of times a second, so the plan for a
stack (which layer speaks the protocol, how to read and set each wrapper) is
worked out once and cached on the outermost object; a stack does not change
after construction.
"""
from __future__ import annotations

import copy
import functools
from typing import Any, Callable, Sequence

import gymnasium as gym

from .snapshot import SNAPSHOT_COST_SECONDS, Snapshot, SnapshotError

# Public attributes of Gymnasium's stateful wrappers that must roll back with the env
# (TimeLimit, whose only state is private, is handled by _time_limit_state).
_KNOWN_WRAPPER_STATE: dict[str, tuple[str, ...]] = {
    "RecordEpisodeStatistics": (
        "episode_count", "episode_start_time", "episode_returns", "episode_lengths",
    ),
}

# Wrappers whose state a restore implies (see the module docstring).
_SETTLED_ON_RESTORE = frozenset({"OrderEnforcing", "PassiveEnvChecker"})

_SKIP_ATTRS = {"env", "_action_space", "_observation_space", "_metadata", "_cached_spec", "_reward_range"}

_NO_STATE = ("settled", ())

# outermost object -> its _Stack; weak, so a cached plan never keeps an env alive
_STACK_ATTR = "_treegym_stack"


class _StackSlot:
    """Holds an env's cached :class:`_Stack` in the env's own ``__dict__``: a reference cycle the garbage
    collector frees with the env (a global weak-keyed cache would keep every env alive: its value refers
    to its key). A copy of the env gets no plan: deep copies and pickles an empty slot, and a shallow
    copy finds a slot owned by another object; both work theirs out again."""

    __slots__ = ("owner", "stack")

    def __init__(self, owner: Any = None, stack: Any = None):
        self.owner = owner
        self.stack = stack

    def __deepcopy__(self, memo: dict) -> "_StackSlot":
        return _StackSlot()

    def __reduce__(self) -> tuple:
        return _StackSlot, ()


def _speaks_protocol(layer: Any) -> bool:
    return callable(getattr(type(layer), "snapshot", None)) and callable(getattr(type(layer), "restore", None))


class _Stack:
    """A wrapper stack's snapshot plan (see the module docstring).

    ``names``: the wrappers' class names, outside in; ``getters`` / ``setters``: one per wrapper;
    ``constant``: the wrapper states of every snapshot when all wrappers are settled ones (then a
    snapshot records this one tuple and a restore that finds it needs no name check).
    """

    __slots__ = ("outer", "core", "names", "getters", "setters", "settlers", "settled", "constant", "take")

    def __init__(self, outer: list[gym.Wrapper], core: Any):
        self.outer = outer
        self.core = core
        self.names = tuple(type(w).__name__ for w in outer)
        self.getters = tuple(_state_getter(w) for w in outer)
        self.setters = tuple(_state_setter(w) for w in outer)
        self.settlers = tuple(_settler(w) for w in outer)
        self.settled = False
        all_settled = all(n in _SETTLED_ON_RESTORE for n in self.names)
        self.constant = tuple((n, _NO_STATE) for n in self.names) if all_settled and outer else None
        # A ForkableEnv builds its snapshot with the wrapper states in one go (no second copy);
        # any other protocol layer snapshots, then the wrapper states are added.
        taker = getattr(core, "wrapped_snapshot_taker", None)
        self.take = taker() if callable(taker) else (lambda wrappers: core.snapshot().with_wrappers(wrappers))

    def settle(self) -> None:
        """Settle the settled wrappers (before the core is restored: settling may reset the env).
        Once is enough: Gymnasium never unsets OrderEnforcing's reset flag, so later restores skip it."""
        for settle in self.settlers:
            settle()
        self.settled = True


def _layers(env: gym.Env) -> tuple[list[gym.Wrapper], Any]:
    """Wrappers outside the protocol layer, and the protocol layer itself."""
    stack = _stack(env)
    return stack.outer, stack.core


def _stack(env: gym.Env) -> _Stack:
    """The cached :class:`_Stack` of ``env`` (keyed by the outermost object)."""
    attrs = getattr(env, "__dict__", None)
    if type(attrs) is not dict:  # no instance dict: work the plan out each time
        return _Stack(*_walk_layers(env))
    slot = attrs.get(_STACK_ATTR)
    if slot is not None and slot.owner is env:
        return slot.stack
    found = _Stack(*_walk_layers(env))
    attrs[_STACK_ATTR] = _StackSlot(env, found)
    return found


def stack_plan(env: gym.Env) -> _Stack:
    """The cached snapshot plan of ``env``: its wrappers outside the protocol layer, that layer
    (``.core``), whether its settled wrappers are settled and their constant states (what
    :func:`restore` reads; ``group_restore`` keeps them for envs restored again and again)."""
    return _stack(env)


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


def _state_getter(w: gym.Wrapper) -> Callable[[], Any]:
    """How to read ``w``'s state: its own ``snapshot_state``, nothing for a settled wrapper, the
    known attributes of a Gymnasium wrapper, or (an unknown wrapper) every instance attribute but
    the wrapped env and spaces."""
    if callable(getattr(type(w), "snapshot_state", None)):  # class lookup: cheap, no __getattr__
        return lambda: ("custom", w.snapshot_state())  # type: ignore[attr-defined]
    name = type(w).__name__
    if name in _SETTLED_ON_RESTORE:
        return lambda: _NO_STATE
    if name == "TimeLimit":
        return lambda: ("time_limit", _time_limit_state(w))
    d = w.__dict__
    known = _KNOWN_WRAPPER_STATE.get(name)
    if known is not None:
        return lambda: ("attrs", tuple([(n, _private(d[n])) for n in known if n in d]))
    # Unknown wrapper: its attributes are read at every snapshot (they may appear after reset).
    return lambda: ("attrs", tuple([(n, _private(v)) for n, v in d.items() if n not in _SKIP_ATTRS]))


_TIME_LIMIT_STEPS = "_elapsed_steps"  # Gymnasium's TimeLimit counter; it has no public setter


def _time_limit_state(w: gym.Wrapper, value: Any = None, write: bool = False) -> Any:
    """Read (or, ``write=True``, set) a TimeLimit's step counter, the one private Gymnasium attribute
    this module touches (see the module docstring); a clear error if a Gymnasium release renamed it."""
    if _TIME_LIMIT_STEPS not in w.__dict__:
        raise SnapshotError(f"this Gymnasium's TimeLimit has no {_TIME_LIMIT_STEPS!r} to roll back; make the env "
                            "without max_episode_steps= (treegym envs enforce their own max_steps)")
    if write:
        w.__dict__[_TIME_LIMIT_STEPS] = value
    return w.__dict__[_TIME_LIMIT_STEPS]


def _settler(w: gym.Wrapper) -> Callable[[], None]:
    """What puts a settled wrapper (see the module docstring) in a state that allows steps: an
    OrderEnforcing never reset is reset once through its public ``reset()`` (which also runs a
    PassiveEnvChecker's reset checks beneath it, for real). Other wrappers: nothing."""
    if type(w).__name__ == "OrderEnforcing":
        def allow_steps() -> None:
            if not w.has_reset:
                w.reset()
        return allow_steps
    return lambda: None


def _state_setter(w: gym.Wrapper) -> Callable[[Any], None]:
    """How to put a state from :func:`_state_getter` back on ``w``."""
    if type(w).__name__ in _SETTLED_ON_RESTORE:
        return lambda _state: None  # restore() settles the stack (_Stack.settle)

    def set_state(state: Any) -> None:
        tag, value = state
        if tag == "custom":
            w.restore_state(value)  # type: ignore[attr-defined]
            return
        if tag == "time_limit":
            _time_limit_state(w, value, write=True)
            return
        for name, v in value:
            setattr(w, name, _private(v))

    return set_state


def snapshot(env: gym.Env) -> Snapshot:
    """Snapshot a (possibly wrapped) env, including its stateful wrappers."""
    stack = _stack(env)
    if not stack.outer:
        return stack.core.snapshot()
    states = stack.constant
    if states is None:
        states = tuple(zip(stack.names, [get() for get in stack.getters]))
    return stack.take(states)


def restore(env: gym.Env, snap: Snapshot) -> tuple[Any, dict]:
    """Restore a (possibly wrapped) env to ``snap``; returns ``(observation, info)``."""
    return _restore_on(_stack(env), snap)


def restorer(env: gym.Env) -> Callable[[Snapshot], tuple[Any, dict]]:
    """:func:`restore` into ``env``, its snapshot plan looked up once: for a caller that restores
    into the same env again and again (``ForkVectorEnv``'s group start)."""
    return functools.partial(_restore_on, _stack(env))


def _restore_on(stack: _Stack, snap: Snapshot) -> tuple[Any, dict]:
    """:func:`restore` into the env whose snapshot plan (:func:`stack_plan`) is ``stack``."""
    if not isinstance(snap, Snapshot):
        raise SnapshotError(f"restore() needs a treegym Snapshot, got {type(snap).__name__}")
    wrappers = snap.wrappers
    if wrappers is stack.constant or (stack.constant is not None and wrappers == stack.constant):
        # taken on this stack of settled wrappers (here, or unpickled from another process): nothing to set
        if not stack.settled:
            stack.settle()
        return stack.core.restore(snap)
    if wrappers:
        names = stack.names
        mismatch = len(wrappers) != len(names)
        for i, (name, _state) in enumerate(wrappers):
            mismatch = mismatch or name != names[i]
        if mismatch:
            raise SnapshotError(f"snapshot was taken under wrappers {[n for n, _ in wrappers]}, "
                                f"this env has {list(names)}")
    if not stack.settled:
        stack.settle()
    obs, info = stack.core.restore(snap)
    # Taken on the raw env (no wrapper states), the wrappers that are not settled keep their state.
    for set_state, (_name, state) in zip(stack.setters, wrappers):
        set_state(state)
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
