"""``ForkableEnv``: the base class of every treegym environment.

A subclass implements the usual ``reset``/``step`` plus three small hooks:

* ``_get_state() -> Any`` - the simulator state as an *immutable* value
  (frozen dataclass, tuple, bytes); never the live mutable object.
* ``_set_state(state)`` - make that state live again.
* ``_observe() -> (obs, info)`` - what an agent sees in the current state.

The base class owns the step counter (``self.steps``) and the step limit
(``self.max_steps``), puts them, the RNG state and the task in every snapshot,
and implements ``snapshot()``, ``restore()``, ``clone()``. Envs enforce their
step limit themselves (``self._count_step()`` returns ``truncated``), so they
are registered without a TimeLimit and a restored branch is never cut early.

* **Construction arguments are recorded**: whatever an env of any subclass was
  constructed with (``WalkEnv(target=2)``, or ``gym.make`` with its kwargs) is what
  ``clone()``, ``copy.deepcopy`` and ``make_fresh()`` build the copy with; nothing to
  restate by hand (:meth:`ForkableEnv.construction_kwargs` shows them).
* **Restores are checked**: a snapshot that did not come from ``snapshot()`` (built with
  ``Snapshot(...)``, or edited with ``dataclasses.replace``) is checked field by field on its
  first restore (:mod:`.snapshot_check`) and refused with one ``SnapshotError`` naming the field.
* **Settings travel**: the constructor parameters a class lists in ``restore_settings`` (Game of
  24's ``protocol``, a reward mode) are recorded in every snapshot, and a restore into an env built
  with other values is refused in one line naming the setting (:mod:`.snapshot_check`); a data setting
  (``data_settings``: a catalog, a transport) is recorded as an identity of the data the env loaded.
* **Reset options**: ``reset(options=...)`` takes the keys the class lists in
  ``reset_options`` (``task_id`` and ``split`` by default); any other key is refused
  with a ``ValueError`` naming it (:meth:`ForkableEnv.reset_option_values`).

Remote play (``treegym.envs.remote``, ``envs/core/remote.py``) and group starts
(``envs/core/group_restore.py``, through the one hook :meth:`ForkableEnv.group_state_holder`)
live in modules of their own.
"""
from __future__ import annotations

import copy
import inspect
from typing import Any, Callable, ClassVar

import gymnasium as gym
import numpy as np

from . import api
from .contract import ExpertAdvice
from .snapshot import Snapshot, SnapshotError, settings_key
from .snapshot_check import CHECKED, check_fields, check_payload, check_settings, key_with, setting_defaults, settings_of
from .task_pool import TaskPool



class ForkableEnv(gym.Env):
    """A Gymnasium env with native snapshot/restore (see module docstring)."""

    # The per-episode fields a restore writes live in the env object itself (slots beside its
    # ``__dict__``): a group start writes them into 16 envs, and one object per env is fewer cold
    # cache lines than an object, its dict and the dict's values (group_restore.py).
    __slots__ = ("steps", "max_steps", "task", "_pending_rng", "_last_text")

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"]}
    snapshot_kind: ClassVar[str] = "native"
    # True when _observe reads the state and sets nothing but _last_text (see restore_as)
    pure_observe: ClassVar[bool] = False
    #: Declared seconds one snapshot + restore costs on this env; None = ``SNAPSHOT_COST_SECONDS[kind]``.
    #: Search reads it (``treegym.envs.snapshot_cost``) to choose between snapshotting and replaying.
    snapshot_cost_seconds: ClassVar[float | None] = None
    #: ``module:qualname`` of the class: the ``env_class`` its snapshots record (set per subclass,
    #: once, because snapshot and restore read it thousands of times a second). An env built with
    #: settings (``restore_settings``) has its own, naming them after the class (``snapshot.settings_key``).
    snapshot_class_key: ClassVar[str] = f"{__module__}:ForkableEnv"

    #: True when the class's constructor takes ``server_url=`` itself (``EngineEnv``). Any other
    #: family is played remotely through the generic session server: ``treegym.envs.remote(id, url)``
    #: or ``gym.make(id, server_url=url)`` of a treegym id give a ``ForkClientEnv`` (``envs/core/remote.py``).
    takes_server_url: ClassVar[bool] = False
    #: The constructor parameters whose value changes what a restored state does next (a judging protocol,
    #: a reward or observation mode); each must have a default (a subclass passing ``**kwargs`` on inherits
    #: them). A snapshot records those not at their default and restores only into an env built with the
    #: same values (``snapshot_check.check_settings``).
    restore_settings: ClassVar[tuple[str, ...]] = ()
    #: Settings beside ``restore_settings`` that name data the env loads (a catalog, a transport and its data),
    #: each with what a refused user should do. The env records an identity of the loaded data (a content
    #: digest, a server URL; None for the shipped data, the default) with :meth:`record_data_setting` in its
    #: ``__init__``, instead of the constructor's argument; a subclass fixing the argument still records it.
    data_settings: ClassVar[dict[str, str]] = {}
    #: The settings and their defaults (read from the constructor when the class is defined,
    #: ``snapshot_check.setting_defaults``).
    restore_setting_defaults: ClassVar[dict[str, Any]] = {}
    #: The keys ``reset(options=...)`` takes (:meth:`reset_option_values`); others are refused.
    reset_options: ClassVar[tuple[str, ...]] = ("task_id", "split")

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        if kwargs.get("server_url") is not None and not cls.takes_server_url:
            raise TypeError(f"{cls.__name__} has no remote mode of its own: play it on a session server with "
                            "treegym.envs.remote(env_id, server_url) or gym.make(env_id, server_url=...)")
        env = super().__new__(cls)
        # The arguments of the outermost constructor call (the concrete class's): clone() rebuilds
        # from them. A copy of the dict: the caller may reuse its own; pickling restores the field.
        env.__dict__["_construction"] = (args, dict(kwargs))
        settings = settings_of(cls, args, kwargs)
        if settings:  # its snapshots name them after the class (clones: built alike, the same key)
            env.__dict__["snapshot_class_key"] = settings_key(cls.snapshot_class_key, settings)
        return env

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.snapshot_class_key = f"{cls.__module__}:{cls.__qualname__}"
        defaults = setting_defaults(cls, cls.restore_settings)
        # a data setting's default is the shipped data (None), also in a subclass that fixes the argument
        cls.restore_setting_defaults = {**defaults, **{name: None for name in cls.data_settings}}

    def __init__(self, max_steps: int | None = None, render_mode: str | None = None):
        self.max_steps = max_steps
        self.steps = 0
        self.task: Any = None
        self.render_mode = render_mode
        self._last_text = ""
        # an RNG state restored and not yet applied (see np_random); set to None when applied
        self._pending_rng: Any = None

    def record_data_setting(self, name: str, identity: str | None) -> None:
        """Record ``identity`` (of the data the env loaded for data setting ``name``; None: the shipped data)
        in every snapshot this env takes, so a restore into an env whose data differ is refused. Called once,
        in ``__init__``: the key is compared, never recomputed, on restore."""
        if name not in type(self).data_settings:
            raise TypeError(f"{type(self).__qualname__}.data_settings does not list {name!r}")
        self.__dict__["snapshot_class_key"] = key_with(self.snapshot_class_key, type(self), name, identity)

    # ----------------------------------------------------------- RNG (restored lazily)
    @property
    def np_random(self) -> np.random.Generator:
        pending = getattr(self, "_pending_rng", None)  # unset before __init__ (a subclass seeding early)
        if pending is not None:
            self._pending_rng = None
            if self._np_random is None:
                self._np_random = np.random.Generator(np.random.PCG64())
            self._np_random.bit_generator.state = pending  # the setter copies; the snapshot stays intact
        return gym.Env.np_random.fget(self)

    @np_random.setter
    def np_random(self, value: np.random.Generator) -> None:
        self._pending_rng = None
        gym.Env.np_random.fset(self, value)

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> Any:
        """Gymnasium's reset (seeds ``np_random``); ``options`` are checked against ``reset_options``
        (:meth:`reset_option_values`): a subclass passes them up, then reads the checked dict."""
        if seed is not None:
            self._pending_rng = None  # a new seed wins over a restored state
        self.reset_option_values(options)
        return super().reset(seed=seed, options=options)

    def reset_option_values(self, options: Any) -> dict[str, Any]:
        """``options`` of ``reset(options=...)`` as a new dict, refused (``ValueError`` naming them) when
        it is not a dict whose keys are in ``reset_options``, or its ``task_id`` is not hashable. One behaviour
        for every env."""
        if options is None:
            return {}
        if not isinstance(options, dict):
            raise ValueError(f"reset(options=...) takes a dict, got {type(options).__name__}")
        accepted = self.reset_options
        unknown = [k for k in options if k not in accepted]
        if unknown:
            shown = ", ".join(repr(k) for k in unknown)
            raise ValueError(f"{type(self).__name__}.reset() got unknown option(s) {shown}; it takes "
                             f"{', '.join(accepted) if accepted else 'no options'}")
        task_id = options.get("task_id")
        try:
            hash(task_id)
        except TypeError:
            raise ValueError(f"reset(options={{'task_id': ...}}) takes a task id (a string or an integer), got "
                             f"{type(task_id).__name__}") from None
        return dict(options)

    # ----------------------------------------------------------- hooks to implement
    def _get_state(self) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    def _set_state(self, state: Any) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def _observe(self) -> tuple[dict, dict]:  # pragma: no cover - abstract
        raise NotImplementedError

    # ----------------------------------------------------------- helpers for subclasses
    def _count_step(self) -> bool:
        """Count one step; return True when the env's own step limit is reached."""
        self.steps += 1
        return self.max_steps is not None and self.steps >= self.max_steps

    @classmethod
    def default_task_pool(cls) -> TaskPool | None:
        """The tasks an env made without data options plays (its shipped tasks), as a
        :class:`~treegym.envs.core.task_pool.TaskPool`; None when the env does not list them.
        Override per env: :meth:`task_counts` and :meth:`split_task_ids` are read from it."""
        return None

    @classmethod
    def task_counts(cls) -> dict[str, int]:
        """Number of tasks per split, for ``treegym list`` (from :meth:`default_task_pool`)."""
        pool = cls.default_task_pool()
        return {} if pool is None else pool.counts()

    @classmethod
    def split_task_ids(cls, split: str) -> list:
        """The task ids of ``split`` (what ``reset(options={"task_id": ...})`` takes), in order, from
        :meth:`default_task_pool`; ``treegym run --split S`` uses it."""
        pool = cls.default_task_pool()
        if pool is None:
            raise NotImplementedError(f"{cls.__name__} does not list its task ids; pass --tasks explicitly")
        return list(pool.ids(split))

    # ----------------------------------------------------------- the env-agent contract
    # (envs/core/contract.py). Defaults say "not available"; envs override what they can.
    def task_fields(self) -> dict[str, Any]:
        """A JSON-able, structured description of the current task for prompt builders (never the answer)."""
        return {}

    def action_templates(self) -> tuple[str, ...]:
        """Templates of free-text actions in ``<slot>`` style (``"search[<query>]"``); empty when all are listed."""
        return ()

    def canonical_action(self, action: str) -> str | None:
        """The canonical form of ``action`` by the env's own parser, or None when malformed.

        The default strips whitespace and accepts anything; envs with a parser override it.
        """
        action = str(action).strip()
        return action or None

    def expert(self) -> ExpertAdvice | None:
        """The env expert's plan and value from the current state, or None when the env has no expert."""
        return None

    def expert_action(self) -> str | None:
        """The expert's next action from the current state (what the ``oracle`` agent plays), or None
        when there is no expert or nothing is left to do. Envs whose expert can give the next step
        more cheaply than the whole plan override it."""
        advice = self.expert()
        return None if advice is None else advice.next_action

    def render(self) -> str | None:
        if self.render_mode == "ansi":
            return self._last_text
        return None

    # ----------------------------------------------------------- the protocol
    def snapshot(self) -> Snapshot:
        """An immutable, picklable value holding everything to continue exactly."""
        return self._snapshot_with(())

    def wrapped_snapshot_taker(self) -> Callable[[tuple[tuple[str, Any], ...]], Snapshot]:
        """How the suite helper (``api.snapshot``) takes a snapshot carrying wrapper states: in one go,
        unless a subclass takes its snapshots some other way (then its ``snapshot()`` is honoured)."""
        if type(self).snapshot is ForkableEnv.snapshot:
            return self._snapshot_with
        return lambda wrappers: self.snapshot().with_wrappers(wrappers)

    def _snapshot_with(self, wrappers: tuple[tuple[str, Any], ...]) -> Snapshot:
        """:meth:`snapshot` carrying ``wrappers`` (the suite helper's wrapper states)."""
        rng = self._pending_rng
        if rng is None and self._np_random is not None:
            rng = self._np_random.bit_generator.state  # a fresh dict on every read
        snap = Snapshot(self.snapshot_kind, self.snapshot_class_key, self._get_state(), self.steps,
                        self.max_steps, rng, self.task, wrappers)
        snap.__dict__[CHECKED] = True  # made here: nothing to check on restore
        return snap

    def restore(self, snapshot: Snapshot) -> tuple[dict, dict]:
        """Put the env back in ``snapshot``'s state; return what an agent sees there."""
        self._put_state(snapshot)
        return self._observe()

    def group_state_holder(self) -> Any | None:
        """The one hook of group starts (``group_restore.py``: one snapshot into many twin envs, set in
        one pass and observed once): the object whose ``set_state(payload)`` makes a snapshot's payload
        this env's state without observing, or None (the default) when every twin must be restored
        through :meth:`restore`. Return one only when restoring goes through the base class
        (:meth:`restore` and ``_put_state`` not overridden) and ``_observe`` reads the state and sets
        nothing but ``_last_text`` (``pure_observe``); ``EngineEnv`` returns its runner."""
        return None

    def _put_state(self, snapshot: Snapshot) -> None:
        if (type(snapshot) is not Snapshot or snapshot.env_class != self.snapshot_class_key
                or CHECKED not in snapshot.__dict__):
            self._check_snapshot(snapshot)  # the slow path says what is wrong
            check_payload(snapshot, self.check_snapshot_payload)
            snapshot.__dict__[CHECKED] = True
        self._set_state(snapshot.payload)
        self.steps = snapshot.steps
        self.max_steps = snapshot.max_steps
        self.task = snapshot.task
        # The RNG state is applied lazily, on the next use of np_random: search
        # restores far more often than it samples, and setting a bit-generator
        # state costs more than the rest of a small env's restore.
        self._pending_rng = snapshot.rng_state

    def release(self, snapshot: Snapshot) -> None:
        """Free what ``snapshot`` holds (see ``treegym.envs.release``). A no-op here: native
        snapshots are values. Envs with ``external`` snapshots (device handles) override it."""
        return None

    def _check_snapshot(self, snapshot: Any) -> None:
        if not isinstance(snapshot, Snapshot):
            raise SnapshotError(
                f"restore() needs a treegym Snapshot, got {type(snapshot).__name__}; "
                "take one with env.snapshot() or treegym.envs.snapshot(env)"
            )
        mine = self.snapshot_class_key
        if snapshot.env_class != mine:
            check_settings(snapshot.env_class, mine, type(self))  # the same class under other settings
            raise SnapshotError(f"snapshot was taken on {snapshot.env_class}, cannot restore it on {mine}")
        check_fields(snapshot, self.snapshot_kind)

    def check_snapshot_payload(self, snapshot: Snapshot) -> None:
        """Refuse (``SnapshotError`` naming what is wrong) a hand-built snapshot whose ``payload`` or
        ``task`` this env cannot continue from; called once per snapshot not made by :meth:`snapshot`,
        where the base class puts the payload live (``_put_state``: an env with a ``restore`` of its
        own, whose payload is a handle, is not asked).
        The default accepts any; ``EngineEnv`` checks them through its engine."""
        return None

    def clone(self) -> "ForkableEnv":
        """An independent copy of this env in the same state (built on snapshot/restore)."""
        return api.clone(self)

    def __deepcopy__(self, memo: dict) -> "ForkableEnv":
        # deepcopy of an env goes through the protocol so shared read-only data
        # (catalogs, indices) is referenced, never duplicated.
        return self.clone()

    def construction_kwargs(self) -> dict[str, Any]:
        """The arguments this env was constructed with (recorded by the base class), by parameter
        name: positional ones are named through the constructor's signature."""
        args, kwargs = self.__dict__.get("_construction", ((), {}))
        if not args:
            return dict(kwargs)
        signature = inspect.signature(type(self).__init__)
        named: dict[str, Any] = {}
        for name, value in list(signature.bind_partial(None, *args, **kwargs).arguments.items())[1:]:
            if signature.parameters[name].kind is inspect.Parameter.VAR_KEYWORD:
                named.update(value)
            else:
                named[name] = value
        return named

    def make_fresh(self) -> "ForkableEnv":
        """A new env of the same class built with the same construction arguments, not reset.

        Used by ``clone`` (and ``copy.deepcopy``) when the env has no ``spec``."""
        args, kwargs = self.__dict__.get("_construction", ((), {}))
        return type(self)(*args, **copy.copy(kwargs))
