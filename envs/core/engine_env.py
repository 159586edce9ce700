"""``EngineEnv``: the one Gym class that runs any :class:`~treegym.envs.core.contract.Engine`.

An env family writes a pure engine (see ``contract.py``) and a small subclass
that builds it::

    class MyEnv(EngineEnv):
        def __init__(self, split=None, task_ids=None, max_steps=30, render_mode=None):
            super().__init__(MyEngine(), split=split, task_ids=task_ids,
                             max_steps=max_steps, render_mode=render_mode)

* **Tasks**: ``split=`` (the engine's first split by default) or ``task_ids=``.
  ``reset(options={"task_id": t})`` plays task ``t``; ``options={"split": s}``
  draws from another split; ``reset(seed=s)`` plays the pool's task
  ``s % len(pool)``; ``reset()`` the task after the current one (wrapping).
* **Steps**: the env counts steps and enforces ``max_steps`` itself
  (``truncated``); the engine only says ``terminated``. A step after the end
  leaves the state as it is and says so in ``info["message"]``.
* **Snapshot** (native): the payload is the engine's immutable state, a
  reference; the base class adds the step counter, limit, RNG state and the
  task (an :class:`EngineTask`: id and the engine's task description).
* **Contract**: ``expert()`` asks the engine; ``info`` always has ``success``,
  ``task_id`` and ``steps``.
"""
from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any, Sequence

from .contract import Engine, ExpertAdvice
from .forkable import ForkableEnv
from .spaces import action_space, text_observation_space


@dataclass(frozen=True)
class EngineTask:
    """The task an episode is on: its id and the engine's immutable task description."""

    task_id: Any
    spec: Any


class EngineEnv(ForkableEnv):
    """Runs an :class:`Engine` in-process (see the module docstring)."""

    metadata = {"render_modes": ["ansi"]}
    snapshot_kind = "native"

    def __init__(
        self,
        engine: Engine,
        split: str | None = None,
        task_ids: Sequence[Any] | None = None,
        max_steps: int | None = 30,
        render_mode: str | None = None,
        observation_space: Any = None,
    ):
        if max_steps is not None and (isinstance(max_steps, bool) or not isinstance(max_steps, numbers.Integral)
                                      or max_steps < 1):
            raise ValueError(f"max_steps must be a positive integer or None, got {max_steps!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        super().__init__(max_steps=None if max_steps is None else int(max_steps), render_mode=render_mode)
        self.engine = engine
        # clone() rebuilds the env from these; a subclass that takes other arguments
        # sets its own _init_kwargs after calling this constructor.
        self._init_kwargs = {"engine": engine, "split": split, "task_ids": task_ids, "max_steps": max_steps,
                             "render_mode": render_mode, "observation_space": observation_space}
        self._pool = self._make_pool(split, task_ids)
        self.observation_space = observation_space if observation_space is not None else text_observation_space()
        self.action_space = action_space()
        self.task: EngineTask | None = None  # set by reset() / restore()
        self.state: Any = None

    # ------------------------------------------------------------------ tasks
    def _split_ids(self, split: str) -> tuple:
        splits = list(self.engine.splits())
        if split not in splits:
            raise ValueError(f"unknown split {split!r}; choose one of {', '.join(map(repr, splits))}")
        return tuple(self.engine.task_ids(split))

    def _make_pool(self, split: str | None, task_ids: Sequence[Any] | None) -> tuple:
        if task_ids is None:
            name = split or next(iter(self.engine.splits()))
            pool = self._split_ids(name)
            if not pool:
                raise ValueError(f"split {name!r} has no tasks; choose another split or pass task_ids=")
            return pool
        if isinstance(task_ids, (str, bytes)):
            raise ValueError(f"task_ids must be a sequence of task ids, got {task_ids!r}")
        pool = tuple(task_ids)
        if not pool:
            raise ValueError("task_ids is empty; give at least one task id or leave it out to use a split")
        for t in pool:
            self.engine.task(t)  # raises a clear error for an unknown id
        if split is not None:
            allowed = set(self._split_ids(split))
            outside = [t for t in pool if t not in allowed]
            if outside:
                raise ValueError(f"task_ids {outside[:10]} are not in split {split!r}; drop split= or fix task_ids")
        return pool

    def _choose_task_id(self, seed: int | None, options: dict) -> Any:
        if options.get("task_id") is not None:
            return options["task_id"]
        pool = self._split_ids(options["split"]) if options.get("split") else self._pool
        if not pool:
            raise ValueError(f"split {options['split']!r} has no tasks; choose another split")
        if seed is not None:
            return pool[seed % len(pool)]
        current = self.task.task_id if self.task is not None else None
        if current in pool:
            return pool[(pool.index(current) + 1) % len(pool)]
        return pool[0]

    # ------------------------------------------------------------------ snapshot hooks
    def _get_state(self) -> Any:
        return self.state

    def _set_state(self, state: Any) -> None:
        self.state = state

    def _observe(self) -> tuple[dict, dict]:
        obs, info = self.engine.observe(self.state)
        if self.max_steps is not None and self.steps >= self.max_steps:
            obs["valid_actions"] = ()
        info.setdefault("success", False)
        info["task_id"] = self.task.task_id
        info["steps"] = self.steps
        self._last_text = obs.get("text", "")
        return obs, info

    # ------------------------------------------------------------------ Gymnasium API
    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        super().reset(seed=seed)
        task_id = self._choose_task_id(seed, dict(options or {}))
        self.task = EngineTask(task_id, self.engine.task(task_id))
        self.steps = 0
        self.state = self.engine.initial_state(self.task.spec, seed)
        return self._observe()

    def step(self, action: Any) -> tuple[dict, float, bool, bool, dict]:
        if self.state is None:
            raise RuntimeError("call reset() before step()")
        over = self.max_steps is not None and self.steps >= self.max_steps
        done = self.engine.is_terminal(self.state)
        if over or done:
            obs, info = self._observe()
            why = f"the step limit ({self.max_steps}) is reached" if over else "the episode is over"
            info["message"] = f"Invalid action: {why}; call reset() to play again."
            info["invalid_action"] = True
            return obs, 0.0, done, over and not done, info
        result = self.engine.step(self.state, str(action))
        self.state = result.state
        truncated = self._count_step()
        obs, info = self._observe()
        terminated = bool(result.terminated)
        return obs, float(result.reward), terminated, truncated and not terminated, info

    # ------------------------------------------------------------------ contract
    def expert(self) -> ExpertAdvice | None:
        if self.state is None:
            return None
        return self.engine.expert(self.state)
