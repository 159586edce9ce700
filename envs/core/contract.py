"""The env side of the env-agent contract: what an env tells agents besides its observation.

docs/DESIGN.md: *the env supplies the truth and the action grammar*. Agents (prompt
builders, search, simulated LLMs) ask the env through these methods and never
re-derive them from text or private members.

Every treegym env
-----------------
* puts ``success: bool`` in **every** ``info`` (after ``reset`` and every
  ``step``): True exactly when the task is accomplished in the current state.
  ``check_rollback`` checks it.
* returns observations with ``text``, ``instruction`` and ``valid_actions``
  (empty when the env cannot list them).
* may put ``correct_path: bool`` in the final ``info`` when the benchmark grades
  the call path (RestBench's correct path rate); run records copy it and
  ``treegym report`` shows a CPR column for it.

Optional capabilities (methods of :class:`~treegym.envs.core.ForkableEnv`; the
defaults say "not available", so an env implements only what it can):

* ``task_fields() -> dict``: a JSON-able, structured description of the current
  task, for prompt builders (Game of 24: ``{"numbers": ["4", "9", "10", "13"]}``;
  WebShop: ``{"instruction": ...}``). Never the answer.
* ``action_templates() -> tuple[str, ...]``: templates of free-text actions, in
  TextWorld's ``<slot>`` style (``"search[<query>]"``). An action that fits a
  template is legal although ``valid_actions`` cannot list it.
* ``canonical_action(action) -> str | None``: the env's own parser applied to an
  action string: its canonical form (for deduplication and plan memory), or
  None when the env would reject it as malformed.
* ``expert() -> ExpertAdvice | None``: what the env's expert (solver, gold path,
  planner, demonstration) would do from the **current** state. None when the env
  has no expert. This is the truth that oracle policies, "additional opinions"
  and simulated LLMs read.

Engines
-------
A family whose simulator is a pure function of an immutable state implements
:class:`Engine` and gets its Gym class from
:class:`treegym.envs.core.engine_env.EngineEnv` (in-process, or with
``server_url=`` against the generic session server ``treegym.servers.sessions``
that exposes the same engine over HTTP, with the same observations).

Live engines (copy on snapshot, not on step)
--------------------------------------------
A simulator whose state is large and mutable (TextWorld: a Z-machine plus
TextWorld's ``GameProgression``) pays a copy on every pure ``step``. Such an
engine also implements :class:`LiveEngine` (``thaw``, ``step_live``, ``peek``,
``freeze``): ``EngineEnv`` in-process then keeps one mutable *live* value,
steps it in place, and copies only when a snapshot is taken (``freeze``) or
restored (``thaw``). Its pure ``step`` is :func:`live_step` (thaw, step, freeze),
which the session server and any other caller of ``Engine.step`` use.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic, Protocol, Sequence, TypeVar, runtime_checkable

State = TypeVar("State")


@dataclass(frozen=True)
class ExpertAdvice:
    """The env expert's view of the current state.

    * ``plan``: actions (in the env's own syntax) from the current state to
      success; empty when the episode is over or no plan exists.
    * ``value``: the probability-like worth of the current state in [0, 1]
      (1 = success is reachable/achieved, 0 = lost), or None when the env
      cannot compute one.
    * ``solvable``: False when the expert knows success is out of reach.
    """

    plan: tuple[str, ...] = ()
    value: float | None = None
    solvable: bool = True

    def __post_init__(self) -> None:
        if self.value is not None and not 0.0 <= float(self.value) <= 1.0:
            raise ValueError(f"ExpertAdvice.value must be in [0, 1], got {self.value!r}")
        object.__setattr__(self, "plan", tuple(self.plan))

    @property
    def next_action(self) -> str | None:
        return self.plan[0] if self.plan else None


@dataclass(frozen=True)
class StepResult(Generic[State]):
    """What :meth:`Engine.step` returns: the next state and the transition's reward.

    ``terminated`` is the benchmark's own end of episode (success or failure);
    the step limit is enforced by the env, not the engine. ``truncated`` is for
    engines that wrap an env with a step limit of its own (the generic server's
    ``ForkEngine``): that limit was reached on this step. Other engines leave it False.
    """

    state: State
    reward: float = 0.0
    terminated: bool = False
    truncated: bool = False

    def __iter__(self):
        """Unpacks as ``state, reward = engine.step(state, action)`` (the common two values)."""
        return iter((self.state, self.reward))


Live = TypeVar("Live")


@runtime_checkable
class Engine(Protocol[State]):
    """A pure simulator core (one per env family), shared by its Gym env and its server.

    States are immutable values (frozen dataclasses, tuples, frozensets), so a
    native snapshot is a reference. Large read-only data (catalogs, fixtures,
    game files) lives on the engine and is never part of a state.

    * ``task_ids(split)``: the task ids of a split, in order; ``task(task_id)``
      the immutable task description; ``splits()`` the split names.
    * ``initial_state(task, seed)``: the state at reset.
    * ``step(state, action)``: never raises on a malformed action; the returned
      state says what was wrong (``observe`` shows it).
    * ``is_terminal(state)``: True once the episode has ended (``terminated``).
    * ``observe(state)``: ``(obs, info)`` with fresh containers on every call;
      ``info["success"]`` required.
    * ``expert(state)``: :class:`ExpertAdvice` or None.
    * ``state_to_json(state)`` / ``state_from_json(data)``: a lossless JSON form,
      used by session servers for snapshot/restore over HTTP.
      ``state_from_json`` validates client data and raises ``ValueError`` naming
      the first bad field (the server answers 400 with that message).

    To be served (``treegym.servers.sessions``), task ids must be JSON values
    (int or str) and ``observe`` must return JSON-able values; sequences in an
    observation are tuples (they cross HTTP as lists and come back as tuples).

    Optional methods ``EngineEnv`` uses when present (the contract methods of
    the env, see the module docstring): ``task_fields(task) -> dict``,
    ``action_templates() -> tuple[str, ...]``, ``canonical_action(action) ->
    str | None``.
    """

    def splits(self) -> Sequence[str]: ...

    def task_ids(self, split: str) -> Sequence[Any]: ...

    def task(self, task_id: Any) -> Any: ...

    def initial_state(self, task: Any, seed: int | None) -> State: ...

    def step(self, state: State, action: str) -> StepResult[State]: ...

    def is_terminal(self, state: State) -> bool: ...

    def observe(self, state: State) -> tuple[dict, dict]: ...

    def expert(self, state: State) -> ExpertAdvice | None: ...

    def state_to_json(self, state: State) -> Any: ...

    def state_from_json(self, data: Any) -> State: ...


@runtime_checkable
class LiveEngine(Protocol[State, Live]):
    """Optional, beside :class:`Engine`: a mutable working copy for in-process play (module docstring).

    * ``thaw(state) -> live``: a mutable working copy of ``state``; ``state`` is never changed later.
    * ``step_live(live, action) -> StepResult``: steps ``live`` in place; ``result.state`` is ``live``.
      Must agree with ``step`` exactly (same next state, reward, terminated).
    * ``peek(live) -> state``: a state view of ``live`` for ``observe``, ``is_terminal`` and ``expert``;
      valid only until the next ``step_live`` of ``live`` (no copy: never keep it).
    * ``freeze(live) -> state``: an immutable copy (what a snapshot holds); later steps of ``live``
      never change it.

    ``EngineEnv`` uses these when all four exist; ``check_rollback`` proves they agree.
    """

    def thaw(self, state: State) -> Live: ...

    def step_live(self, live: Live, action: str) -> StepResult[Live]: ...

    def peek(self, live: Live) -> State: ...

    def freeze(self, live: Live) -> State: ...


def is_live_engine(engine: Any) -> bool:
    """True when ``engine`` has the four :class:`LiveEngine` methods."""
    return all(callable(getattr(engine, m, None)) for m in ("thaw", "step_live", "peek", "freeze"))


def live_step(engine: Any, state: Any, action: str) -> StepResult:
    """The pure ``Engine.step`` of a :class:`LiveEngine`: thaw a copy, step it, freeze the result."""
    live = engine.thaw(state)
    result = engine.step_live(live, action)
    return StepResult(engine.freeze(live), result.reward, result.terminated, result.truncated)
