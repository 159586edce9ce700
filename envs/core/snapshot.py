"""The snapshot value and the errors of the snapshot protocol.

A :class:`Snapshot` is everything needed to continue an episode exactly:

* ``payload`` - the simulator state, as the env's own immutable value (native),
  the recorded seed/options/actions (replay), or a device handle (external);
* ``steps`` / ``max_steps`` - the env's own step counter and step limit;
* ``rng_state`` - the env's ``np_random`` bit-generator state;
* ``task`` - the task the episode is on (an immutable description);
* ``wrappers`` - states of known stateful wrappers, filled in by the suite
  helper :func:`treegym.envs.snapshot` (empty when taken on the raw env);
* ``settings`` - the env's construction arguments that change what the state does next
  (``ForkableEnv.restore_settings``), as ``(name, value)`` pairs of those not at their default:
  a restore into an env built with other values is refused (``snapshot_check.check_settings``).

Snapshots are frozen dataclasses and picklable (a pickle carries :data:`FORMAT_VERSION` and is refused
by a treegym of another format); later steps never mutate them. ``snapshot_bytes.py`` turns one into
sealed bytes that restore in another process or on another machine.
Large read-only things (catalogs, indices) are referenced by the payload, not copied.

Lifecycle: an ``external`` snapshot holds a resource (an emulator image, a
device handle) until ``treegym.envs.release(env, snap)`` frees it; releasing a
native or replay snapshot is a no-op. ``SNAPSHOT_COST_SECONDS`` is the declared
cost of a snapshot by kind (an env may declare its own with
``snapshot_cost_seconds``); search reads it to choose between snapshotting a
state and replaying to it (``agents/search/snapshot_store.py``).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

SnapshotKind = Literal["native", "replay", "external"]

#: The snapshot format: a pickled snapshot and a ``snapshot_bytes`` record carry it, and another one is refused.
#: Bump it when a snapshot's fields or the record's layout change.
FORMAT_VERSION = 2  # 2: the settings field

SNAPSHOT_KINDS: tuple[str, ...] = ("native", "replay", "external")

#: The instance-dict key marking a snapshot as made by ``snapshot()`` or already checked (not a field:
#: equality, hashing and ``repr`` ignore it; pickling keeps it). See ``snapshot_check.py``.
CHECKED = "_checked"

# Rough cost of one snapshot+restore, which search code reads to plan.
SNAPSHOT_COST_SECONDS: dict[str, float] = {"native": 1e-5, "replay": 1e-2, "external": 2.0}


# One object per distinct settings value, so a restore compares an env's settings with a snapshot's by
# identity (the hot path); values that cannot be hashed are compared by equality instead.
_SETTINGS: dict[Any, Any] = {}


def interned(settings: Any) -> Any:
    """The one shared object equal to ``settings`` (itself when it cannot be hashed)."""
    try:
        known = _SETTINGS.get(settings)
    except TypeError:
        return settings
    if known is None and len(_SETTINGS) < 4096:  # bounded: settings come from bytes too
        known = _SETTINGS[settings] = settings
    return settings if known is None else known


class SnapshotError(RuntimeError):
    """A snapshot cannot be taken or restored (wrong env, released handle, ...)."""


class SnapshotDivergence(SnapshotError):
    """Replaying the recorded actions did not reproduce the recorded observation.

    The env is not deterministic under (seed, options, actions); it needs a
    native snapshot instead of the replay fallback.
    """


@dataclass(frozen=True, init=False)
class Snapshot:
    """An immutable, picklable state of one env (see the module docstring)."""

    kind: str
    env_class: str
    payload: Any
    steps: int
    max_steps: int | None
    rng_state: Any
    task: Any = None
    wrappers: tuple[tuple[str, Any], ...] = field(default=())
    settings: tuple[tuple[str, Any], ...] = field(default=())

    # A hand-written __init__: the frozen dataclass one sets each field through
    # object.__setattr__, which made building the snapshot most of a small env's
    # snapshot time. Fields are written straight into the instance dict once.
    def __init__(self, kind: str, env_class: str, payload: Any, steps: int, max_steps: int | None,
                 rng_state: Any, task: Any = None, wrappers: tuple[tuple[str, Any], ...] = (),
                 settings: tuple[tuple[str, Any], ...] = ()):
        d = self.__dict__
        d["kind"] = kind
        d["env_class"] = env_class
        d["payload"] = payload
        d["steps"] = steps
        d["max_steps"] = max_steps
        d["rng_state"] = rng_state
        d["task"] = task
        d["wrappers"] = wrappers
        d["settings"] = settings

    def with_wrappers(self, wrappers: tuple[tuple[str, Any], ...]) -> "Snapshot":
        """This snapshot with ``wrappers`` as its wrapper states (a new value; ``self`` is unchanged)."""
        if not wrappers and not self.wrappers:
            return self
        new = object.__new__(Snapshot)
        d = new.__dict__
        d.update(self.__dict__)
        d["wrappers"] = wrappers
        return new

    @property
    def cost_seconds(self) -> float:
        return SNAPSHOT_COST_SECONDS.get(self.kind, 1.0)

    def __reduce__(self):
        # The format version travels with every pickle, so another version's snapshot is refused on load.
        d = self.__dict__
        return _unpickle_snapshot, (FORMAT_VERSION, d["kind"], d["env_class"], d["payload"], d["steps"], d["max_steps"],
                                    d["rng_state"], d["task"], d["wrappers"], d.get(CHECKED, False), d["settings"])

    def __deepcopy__(self, memo: dict) -> "Snapshot":
        # Immutable: sharing is safe and keeps large referenced data un-copied.
        return self

    def __copy__(self) -> "Snapshot":
        return self


def _unpickle_snapshot(version: Any, kind: str, env_class: str, payload: Any, steps: int, max_steps: int | None,
                       rng_state: Any, task: Any, wrappers: tuple, checked: bool = False,
                       settings: Any = ()) -> Snapshot:
    if version != FORMAT_VERSION:
        raise SnapshotError(f"this pickled snapshot is in snapshot format {version!r}; this treegym reads format "
                            f"{FORMAT_VERSION}: restore it with the treegym that took it")
    # interned: an env's restore compares its own settings with these by identity
    new = Snapshot(kind, env_class, payload, steps, max_steps, rng_state, task, wrappers, interned(settings))
    if checked:
        new.__dict__[CHECKED] = True
    return new
