"""The snapshot value and the errors of the snapshot protocol.

A :class:`Snapshot` is everything needed to continue an episode exactly:

* ``payload`` - the simulator state, as the env's own immutable value (native),
  the recorded seed/options/actions (replay), or a device handle (external);
* ``steps`` / ``max_steps`` - the env's own step counter and step limit;
* ``rng_state`` - the env's ``np_random`` bit-generator state;
* ``task`` - the task the episode is on (an immutable description);
* ``wrappers`` - states of known stateful wrappers, filled in by the suite
  helper :func:`treegym.envs.snapshot` (empty when taken on the raw env).

``env_class`` names the env's class and, after it, the settings the env was built with that change what
the state does next (``ForkableEnv.restore_settings``, those not at their default):
``treegym.envs.game24.env:Game24Env[protocol='tot']``. A restore compares it with its env's own key (as it
did the class alone), so a snapshot restores only into an env of the same class and settings, at no
extra cost; :attr:`Snapshot.settings` reads them back as ``(name, value)`` pairs (:func:`settings_key`).

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
FORMAT_VERSION = 3  # 2: env_class carries the env's settings, and pickles their values; 3: and its data settings

SNAPSHOT_KINDS: tuple[str, ...] = ("native", "replay", "external")

#: The instance-dict key marking a snapshot as made by ``snapshot()`` or already checked (not a field:
#: equality, hashing and ``repr`` ignore it; pickling keeps it). See ``snapshot_check.py``.
CHECKED = "_checked"

# Rough cost of one snapshot+restore, which search code reads to plan.
SNAPSHOT_COST_SECONDS: dict[str, float] = {"native": 1e-5, "replay": 1e-2, "external": 2.0}


# Every key with settings this process has made or read -> (that key, the one object of it; its class's
# key; the settings).
_KEYS: dict[str, tuple[str, str, tuple[tuple[str, Any], ...]]] = {}
_MAX_KEYS = 4096  # bounded: keys arrive in bytes from other processes too


def settings_key(class_key: str, settings: tuple[tuple[str, Any], ...]) -> str:
    """The ``env_class`` of an env of class ``class_key`` built with ``settings`` (``(name, value)``
    pairs; none: ``class_key`` itself), registered so :func:`key_settings` reads them back. Equal
    settings give the same string object, so a restore's comparison stops at identity."""
    if not settings:
        return class_key
    key = f"{class_key}[{', '.join(f'{name}={value!r}' for name, value in settings)}]"
    known = _KEYS.get(key)
    if known is None and len(_KEYS) < _MAX_KEYS:
        known = _KEYS[key] = (key, class_key, tuple(settings))
    return key if known is None else known[0]


def key_settings(env_class: str) -> tuple[str, tuple[tuple[str, Any], ...]] | None:
    """(class key, settings) of an ``env_class`` made by :func:`settings_key`; None for a plain class key
    or one this process never saw."""
    known = _KEYS.get(env_class)
    return None if known is None else known[1:]


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

    # A hand-written __init__: the frozen dataclass one sets each field through
    # object.__setattr__, which made building the snapshot most of a small env's
    # snapshot time. Fields are written straight into the instance dict once.
    def __init__(self, kind: str, env_class: str, payload: Any, steps: int, max_steps: int | None,
                 rng_state: Any, task: Any = None, wrappers: tuple[tuple[str, Any], ...] = ()):
        d = self.__dict__
        d["kind"] = kind
        d["env_class"] = env_class
        d["payload"] = payload
        d["steps"] = steps
        d["max_steps"] = max_steps
        d["rng_state"] = rng_state
        d["task"] = task
        d["wrappers"] = wrappers

    @property
    def settings(self) -> tuple[tuple[str, Any], ...]:
        """The settings the env was built with that its ``env_class`` names (``(name, value)`` pairs)."""
        known = _KEYS.get(self.env_class)
        return () if known is None else known[2]

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
                                    d["rng_state"], d["task"], d["wrappers"], d.get(CHECKED, False),
                                    _KEYS.get(d["env_class"], (None, None, None))[1:])

    def __deepcopy__(self, memo: dict) -> "Snapshot":
        # Immutable: sharing is safe and keeps large referenced data un-copied.
        return self

    def __copy__(self) -> "Snapshot":
        return self


def _unpickle_snapshot(version: Any, kind: str, env_class: str, payload: Any, steps: int, max_steps: int | None,
                       rng_state: Any, task: Any, wrappers: tuple, checked: bool = False,
                       settings_of_key: tuple = (None, None)) -> Snapshot:
    if version != FORMAT_VERSION:
        raise SnapshotError(f"this pickled snapshot is in snapshot format {version!r}; this treegym reads format "
                            f"{FORMAT_VERSION}: restore it with the treegym that took it")
    class_key, settings = settings_of_key
    if class_key is not None:  # a key with settings: known here from now on, as one object
        env_class = settings_key(class_key, settings)
    new = Snapshot(kind, env_class, payload, steps, max_steps, rng_state, task, wrappers)
    if checked:
        new.__dict__[CHECKED] = True
    return new
