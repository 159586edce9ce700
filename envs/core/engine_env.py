"""``EngineEnv``: the one Gym class that runs any :class:`~treegym.envs.core.contract.Engine`,
in-process or against a session server.

An env family writes a pure engine (see ``contract.py``) and a small subclass
that builds it::

    class MyEnv(EngineEnv):
        def __init__(self, split=None, task_ids=None, max_steps=30, render_mode=None, server_url=None):
            super().__init__(MyEngine(), split=split, task_ids=task_ids, max_steps=max_steps,
                             render_mode=render_mode, server_url=server_url)

and, once its id is declared (``ENV_SPECS``, ``envs/core/env_entry.py``), serves it with
``treegym serve <env id>`` (``treegym.servers.env_server.create_env_app``; or
``treegym.servers.sessions.create_session_app(MyEngine())`` directly).

* **Two modes, one class, same observations.** Without ``server_url`` the env
  holds the engine state itself (:class:`InProcessRunner`; for a
  :class:`~treegym.envs.core.contract.LiveEngine`, :class:`LiveRunner`: one mutable live
  value stepped in place, copied only by snapshot and restore). With
  ``server_url="http://127.0.0.1:PORT"`` it owns one session on a running
  session server and every reset/step/snapshot/restore is one HTTP request
  (:class:`RemoteRunner`); the server runs the same engine, so observations,
  rewards and infos are identical (observation sequences come back as tuples).
  ``variant=`` picks one of the server's engines. The engine passed in is still
  used for the task list and the optional contract methods; ``engine=None``
  with ``server_url`` asks the server for the task list instead (task specs
  are then the task ids).
* **Tasks** (the rules of ``task_pool.TaskPool``): ``split=`` (the engine's ``default_split``,
  else its first split) or ``task_ids=``.
  ``reset(options={"task_id": t})`` plays task ``t``; ``options={"split": s}``
  draws from another split; ``reset(seed=s)`` plays the pool's task
  ``s % len(pool)``; ``reset()`` the task after the current one (wrapping).
* **Steps**: the env counts steps and enforces ``max_steps`` itself
  (``truncated``); the engine only says ``terminated``. A step after the end
  leaves the state as it is and says so in ``info["message"]``.
* **Snapshot** (native): in-process, the payload is the engine's immutable
  state, a reference; remote, a :class:`RemoteState` holding the server's state
  JSON (one request; restoring it on another env of the same server, or a clone,
  creates a session there). The base class adds the step counter, limit, RNG
  state and the task (an :class:`EngineTask`: id and the engine's task description).
* **Contract**: ``expert()`` asks the engine (a plan longer than the steps left
  is marked unsolvable with value 0); ``task_expert(task_id)`` is the expert
  from the start of any task (demonstrations); ``task_fields()``, ``action_templates()``
  and ``canonical_action()`` use the engine's optional methods of those names;
  ``info`` always has ``success``, ``task_id`` and ``steps``.
"""
from __future__ import annotations

import json
import numbers
from dataclasses import dataclass
from typing import Any, Sequence

from .contract import Engine, ExpertAdvice, is_live_engine
from .forkable import ForkableEnv
from .runners import InProcessRunner, LiveRunner, RemoteRunner, RemoteState, RemoteTasks
from .session_client import SessionClient, SessionServerError
from .snapshot import Snapshot, SnapshotError
from .spaces import action_space, text_observation_space
from .task_pool import TaskPool, engine_pool


@dataclass(frozen=True)
class EngineTask:
    """The task an episode is on: its id and the engine's immutable task description."""

    task_id: Any
    spec: Any


_TASK_MEMO_SIZE = 1024  # tasks remembered per env (EngineEnv._engine_task)


# ---------------------------------------------------------------------------- the env
class EngineEnv(ForkableEnv):
    """Runs an :class:`Engine` in-process or against a session server (see the module docstring)."""

    metadata = {"render_modes": ["ansi"]}
    snapshot_kind = "native"
    pure_observe = True  # _observe reads the state only (restore_as)
    takes_server_url = True  # server_url= is this class's own remote mode
    #: What the remote-mode error says to do when the server cannot be reached.
    server_hint = "start a session server (treegym serve <env id> --port PORT)"
    #: The make-kwarg whose value picks the server's engine variant (``variant=``), and the values a
    #: server for this class runs (``treegym serve <env id>``, ``servers/env_server.py``); (None, ()) = one.
    session_variants: tuple[str | None, tuple[str, ...]] = (None, ())

    def __init__(
        self,
        engine: Engine | None,
        split: str | None = None,
        task_ids: Sequence[Any] | None = None,
        max_steps: int | None = 30,
        render_mode: str | None = None,
        observation_space: Any = None,
        server_url: str | None = None,
        variant: str | None = None,
    ):
        if max_steps is not None and (isinstance(max_steps, bool) or not isinstance(max_steps, numbers.Integral)
                                      or max_steps < 1):
            raise ValueError(f"max_steps must be a positive integer or None, got {max_steps!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        super().__init__(max_steps=None if max_steps is None else int(max_steps), render_mode=render_mode)
        if server_url is None:
            if engine is None:
                raise ValueError("EngineEnv needs an engine, or server_url= of a session server that runs one")
            live = is_live_engine(engine)
            self.runner: InProcessRunner | LiveRunner | RemoteRunner = (LiveRunner if live else InProcessRunner)(engine)
        else:
            client = SessionClient(server_url, variant=variant, start_hint=self.server_hint)
            self.runner = RemoteRunner(client)
            if engine is None:
                engine = RemoteTasks(client)
        self.engine = engine
        self.server_url = server_url
        self.task_pool: TaskPool
        self._pool = self._make_pool(split, task_ids)
        self.observation_space = observation_space if observation_space is not None else text_observation_space()
        self.action_space = action_space()
        self.task: EngineTask | None = None  # set by reset() / restore()

    @property
    def state(self) -> Any:
        """The current engine state (in-process), or a :class:`RemoteState` (remote: one request)."""
        return self.runner.get_state()

    def engine_state(self) -> Any:
        """The current engine state in either mode (remote: fetched, one request, and decoded by the
        local engine's ``state_from_json``)."""
        state = self.runner.get_state()
        if not isinstance(state, RemoteState):
            return state
        if isinstance(self.engine, RemoteTasks):
            raise SnapshotError("this remote env has no local engine to read the server's state with")
        return self.engine.state_from_json(json.loads(state.json))

    # ------------------------------------------------------------------ tasks (envs/core/task_pool.py)
    @classmethod
    def default_task_pool(cls) -> TaskPool | None:
        """The tasks of an env made with its default make-kwargs (one is made to ask; families
        that can list their shipped tasks more cheaply override it)."""
        env = cls()
        try:
            return env.task_pool
        finally:
            env.close()

    def _make_pool(self, split: str | None, task_ids: Sequence[Any] | None) -> tuple:
        self.task_pool = engine_pool(self.engine)
        return self.task_pool.select(split, task_ids)

    def _choose_task_id(self, seed: int | None, options: dict) -> Any:
        current = self.task.task_id if self.task is not None else None
        return self.task_pool.choose(self._pool, current, seed, options)

    # ------------------------------------------------------------------ snapshot hooks
    def _get_state(self) -> Any:
        return self.runner.get_state()

    def _set_state(self, state: Any) -> None:
        self.runner.set_state(state)

    def group_state_holder(self) -> Any | None:
        """This env's runner (its ``set_state`` takes a snapshot's payload), when the class restores
        through the base hooks only and observes purely; else None (see ``ForkableEnv``)."""
        cls = type(self)
        if (cls.pure_observe and cls.restore is ForkableEnv.restore and cls._put_state is ForkableEnv._put_state
                and cls._set_state is EngineEnv._set_state):
            return self.__dict__.get("runner")
        return None

    def check_snapshot_payload(self, snapshot: Snapshot) -> None:
        """A hand-built snapshot's task must be an :class:`EngineTask` and its payload a state the
        engine can write and read back as JSON (in-process) or a :class:`RemoteState` (remote)."""
        task = snapshot.task
        if not isinstance(task, EngineTask):
            raise SnapshotError(f"snapshot field 'task' holds {type(task).__name__}, not an EngineTask; "
                                "take snapshots with env.snapshot()")
        payload = snapshot.payload
        if isinstance(self.runner, RemoteRunner):
            if not isinstance(payload, RemoteState):
                raise SnapshotError(f"snapshot field 'payload' holds {type(payload).__name__}; a remote env "
                                    "restores the RemoteState of a snapshot taken on its server")
            return
        if isinstance(payload, RemoteState):
            return  # the runner refuses it with its own message
        engine = self.engine
        engine.task(task.task_id)
        engine.state_from_json(json.loads(json.dumps(engine.state_to_json(payload))))

    def _observe(self) -> tuple[dict, dict]:
        obs, info = self.runner.observe()
        if self.max_steps is not None and self.steps >= self.max_steps:
            obs["valid_actions"] = ()
        info.setdefault("success", False)
        info["task_id"] = self.task.task_id
        info["steps"] = self.steps
        self._last_text = obs.get("text", "")
        return obs, info

    def _encode_action(self, action: Any) -> str:
        """The action string sent to the engine (both modes). Override to bound huge actions for HTTP."""
        return action if isinstance(action, str) else str(action)

    # ------------------------------------------------------------------ Gymnasium API
    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        super().reset(seed=seed, options=options)
        task_id = self._choose_task_id(seed, self.reset_option_values(options))
        self.task = self._engine_task(task_id)
        self.steps = 0
        self.runner.start(self.task, seed)
        return self._observe()

    def _engine_task(self, task_id: Any) -> EngineTask:
        """The :class:`EngineTask` of ``task_id``, made once per env and task (a bounded memo): episodes
        of one task share it, so ending an episode (a reset, a fork replacing it) frees no task."""
        memo = self.__dict__.setdefault("_task_memo", {})
        try:
            task = memo.get(task_id)
        except TypeError:  # an unhashable id: no memo
            return EngineTask(task_id, self.engine.task(task_id))
        if task is None:
            if len(memo) >= _TASK_MEMO_SIZE:
                memo.clear()
            task = memo[task_id] = EngineTask(task_id, self.engine.task(task_id))
        return task

    def step(self, action: Any) -> tuple[dict, float, bool, bool, dict]:
        if self.task is None:
            raise RuntimeError("call reset() before step()")
        over = self.max_steps is not None and self.steps >= self.max_steps
        done = self.runner.is_terminal()
        if over or done:
            obs, info = self._observe()
            why = f"the step limit ({self.max_steps}) is reached" if over else "the episode is over"
            info["message"] = f"Invalid action: {why}; call reset() to play again."
            info["invalid_action"] = True
            return obs, 0.0, done, over and not done, info
        reward, terminated, limit_hit = self.runner.step(self._encode_action(action))
        truncated = self._count_step() or limit_hit  # limit_hit: an engine wrapping an env with its own limit
        obs, info = self._observe()
        return obs, reward, terminated, truncated and not terminated, info

    def close(self) -> None:
        self.runner.close()
        super().close()

    # ------------------------------------------------------------------ contract
    def expert(self) -> ExpertAdvice | None:
        if self.task is None:
            return None
        advice = self.runner.expert()
        if advice is None or self.max_steps is None or not advice.plan:
            return advice
        if len(advice.plan) > self.max_steps - self.steps:
            return ExpertAdvice(plan=advice.plan, value=0.0, solvable=False)
        return advice

    def task_expert(self, task_id: Any, seed: int | None = None) -> ExpertAdvice | None:
        """The expert's advice from the start of task ``task_id``, without moving the env
        (demonstrations for few-shot prompts). Asks the local engine; None without one."""
        if isinstance(self.engine, RemoteTasks):
            return None
        engine = self.engine
        return engine.expert(engine.initial_state(engine.task(task_id), seed))

    def task_fields(self) -> dict[str, Any]:
        """The engine's ``task_fields(task)`` of the current task (its description, ``EngineTask.spec``);
        {} before reset, without one, or in remote mode without a local engine."""
        fields = getattr(self.engine, "task_fields", None)
        if fields is None or self.task is None:
            return {}
        return dict(fields(self.task.spec))

    def action_templates(self) -> tuple[str, ...]:
        templates = getattr(self.engine, "action_templates", None)
        return tuple(templates()) if templates is not None else ()

    def canonical_action(self, action: str) -> str | None:
        canonical = getattr(self.engine, "canonical_action", None)
        return canonical(action) if canonical is not None else super().canonical_action(action)


__all__ = ["EngineEnv", "EngineTask", "RemoteState", "InProcessRunner", "LiveRunner", "RemoteRunner", "RemoteTasks",
           "SessionServerError"]
