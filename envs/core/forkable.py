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
"""
from __future__ import annotations

import copy
import inspect
from typing import Any, Callable, ClassVar, Sequence

import gymnasium as gym
import numpy as np

from . import api
from .contract import ExpertAdvice
from .snapshot import Snapshot, SnapshotError
from .task_pool import TaskPool


#: The client class of families without a server mode of their own (set by ``fork_client.py``).
_REMOTE_CLIENT: list[Any] = []


def set_remote_client(factory: Any) -> None:
    """Install the class :meth:`ForkableEnv.__new__` builds for ``server_url=`` (``fork_client.py`` does)."""
    _REMOTE_CLIENT[:] = [factory]


class ForkableEnv(gym.Env):
    """A Gymnasium env with native snapshot/restore (see module docstring)."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"]}
    snapshot_kind: ClassVar[str] = "native"
    # True when _observe reads the state and sets nothing but _last_text (see restore_as)
    pure_observe: ClassVar[bool] = False
    #: Declared seconds one snapshot + restore costs on this env; None = ``SNAPSHOT_COST_SECONDS[kind]``.
    #: Search reads it (``treegym.envs.snapshot_cost``) to choose between snapshotting and replaying.
    snapshot_cost_seconds: ClassVar[float | None] = None
    #: ``module:qualname`` of the class: the ``env_class`` its snapshots record (set per subclass,
    #: once, because snapshot and restore read it thousands of times a second).
    snapshot_class_key: ClassVar[str] = f"{__module__}:ForkableEnv"

    #: True when the class's constructor takes ``server_url=`` itself (``EngineEnv``). Any other
    #: family made with ``server_url=URL`` (``gym.make(id, server_url=URL)``) is played through the
    #: generic session server instead: the constructor returns a ``ForkClientEnv``
    #: (``envs/core/fork_client.py``) on ``treegym serve <id>``, whose ``ForkEngine`` runs the family.
    takes_server_url: ClassVar[bool] = False

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        if kwargs.get("server_url") is not None and not cls.takes_server_url:
            if not _REMOTE_CLIENT:
                raise RuntimeError("treegym.envs.core.fork_client is not imported; import treegym.envs")
            if args:  # the served class's positional make-kwargs, by name
                named = list(inspect.signature(cls.__init__).bind_partial(None, *args).arguments.items())[1:]
                kwargs = {**dict(named), **kwargs}
            return _REMOTE_CLIENT[0](cls, **kwargs)
        return super().__new__(cls)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.snapshot_class_key = f"{cls.__module__}:{cls.__qualname__}"

    def __init__(self, max_steps: int | None = None, render_mode: str | None = None):
        self.max_steps = max_steps
        self.steps = 0
        self.task: Any = None
        self.render_mode = render_mode
        self._last_text = ""
        # an RNG state restored and not yet applied (see np_random); kept beside the other per-episode
        # fields (set to None when applied, never deleted), so a restore writes one stretch of the dict
        self._pending_rng: Any = None

    # ----------------------------------------------------------- RNG (restored lazily)
    @property
    def np_random(self) -> np.random.Generator:
        d = self.__dict__
        pending = d.get("_pending_rng")
        if pending is not None:
            d["_pending_rng"] = None
            if self._np_random is None:
                self._np_random = np.random.Generator(np.random.PCG64())
            self._np_random.bit_generator.state = pending  # the setter copies; the snapshot stays intact
        return gym.Env.np_random.fget(self)

    @np_random.setter
    def np_random(self, value: np.random.Generator) -> None:
        self.__dict__["_pending_rng"] = None
        gym.Env.np_random.fset(self, value)

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> Any:
        if seed is not None:
            self.__dict__["_pending_rng"] = None  # a new seed wins over a restored state
        return super().reset(seed=seed, options=options)

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
        rng = self.__dict__.get("_pending_rng")
        if rng is None and self._np_random is not None:
            rng = self._np_random.bit_generator.state  # a fresh dict on every read
        return Snapshot(self.snapshot_kind, self.snapshot_class_key, self._get_state(), self.steps,
                        self.max_steps, rng, self.task, wrappers)

    def restore(self, snapshot: Snapshot) -> tuple[dict, dict]:
        """Put the env back in ``snapshot``'s state; return what an agent sees there."""
        self._put_state(snapshot)
        return self._observe()

    def restore_as(self, snapshot: Snapshot, peer: "ForkableEnv") -> bool:
        """Restore ``snapshot`` without observing, where ``peer`` (an env of this class) was just
        restored to the same ``snapshot`` and observed: this env takes the peer's observation-side
        state (the text ``render`` shows) instead of computing it again. Only for envs whose
        ``_observe`` is a pure function of the restored state apart from that text
        (``pure_observe``); returns False, doing nothing, when that does not hold, so the caller
        falls back to :meth:`restore`. Used by ``ForkVectorEnv.restore`` to start a group."""
        if not self.pure_observe or type(peer) is not type(self) or type(self).restore is not ForkableEnv.restore:
            return False
        self._put_state(snapshot)
        self._last_text = peer._last_text
        return True

    def twin_restorer(self, twins: Sequence["ForkableEnv"]) -> Callable[[Snapshot], Sequence[int]]:
        """How to :meth:`restore_as` a snapshot into each of ``twins`` with this env as their peer, again
        and again (a vector env starting group after group in the same sub-envs): a function of the
        snapshot, called right after this env was restored to it and observed, that returns the
        positions in ``twins`` it left untouched (restore those with ``restore``). This one asks each
        twin's ``restore_as``; classes that can do it in one pass override it (``EngineEnv``)."""
        def restore_each(snapshot: Snapshot) -> list[int]:
            return [i for i, env in enumerate(twins) if not env.restore_as(snapshot, self)]
        return restore_each

    def group_restorer(self, twins: Sequence["ForkableEnv"]) -> Callable[[Snapshot], tuple[dict, dict, Sequence[int]]]:
        """How to restore a snapshot into this env and each of ``twins`` (a group start), again and
        again: a function of the snapshot returning this env's ``(observation, info)`` there, which
        holds for the twins too, and the positions in ``twins`` it left untouched (restore those with
        ``restore``). This one restores this env, then uses :meth:`twin_restorer`; ``EngineEnv``
        sets every state first and observes once."""
        twin = self.twin_restorer(twins)

        def restore_group(snapshot: Snapshot) -> tuple[dict, dict, Sequence[int]]:
            obs, info = self.restore(snapshot)
            return obs, info, twin(snapshot)
        return restore_group

    def _put_state(self, snapshot: Snapshot) -> None:
        if type(snapshot) is not Snapshot or snapshot.env_class != self.snapshot_class_key:
            self._check_snapshot(snapshot)  # the slow path says what is wrong
        self._set_state(snapshot.payload)
        self.steps = snapshot.steps
        self.max_steps = snapshot.max_steps
        self.task = snapshot.task
        # The RNG state is applied lazily, on the next use of np_random: search
        # restores far more often than it samples, and setting a bit-generator
        # state costs more than the rest of a small env's restore.
        self.__dict__["_pending_rng"] = snapshot.rng_state

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
            raise SnapshotError(f"snapshot was taken on {snapshot.env_class}, cannot restore it on {mine}")

    def clone(self) -> "ForkableEnv":
        """An independent copy of this env in the same state (built on snapshot/restore)."""
        return api.clone(self)

    def __deepcopy__(self, memo: dict) -> "ForkableEnv":
        # deepcopy of an env goes through the protocol so shared read-only data
        # (catalogs, indices) is referenced, never duplicated.
        return self.clone()

    def make_fresh(self) -> "ForkableEnv":
        """A new env of the same class and construction kwargs, not reset.

        Used by ``clone`` when the env has no ``spec``. Subclasses that take
        non-keyword constructor arguments override it.
        """
        kwargs = copy.copy(getattr(self, "_init_kwargs", {}))
        return type(self)(**kwargs)
