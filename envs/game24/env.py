"""``treegym/Game24-v0``: the Game of 24 as a forkable Gymnasium env.

Task: combine the four input numbers with ``+ - * /`` into exactly 24.

* **Action** (a ``str``): one operation on two of the numbers left, in the Tree
  of Thoughts line format ``13 - 9 = 4 (left: 4 4 10)`` or bare ``13 - 9``
  (a claimed result or left list must be exactly right); or a final
  ``answer: (13 - 9) * (10 - 4)`` using each input number exactly once.
  Arithmetic is exact (fractions, shown as ``3/4``).
* **Observation** (dict): ``text`` (last result or error, then the numbers
  left), ``instruction``, ``valid_actions`` (every legal operation line),
  ``left`` (the numbers left as strings, ascending).
* **Reward**: 1.0 and ``terminated`` when the last number left is 24 or an
  answer equals 24; 0.0 and ``terminated`` when one number other than 24 is
  left or an answer is wrong. Invalid actions leave the state unchanged, say
  what was wrong and count as a step. ``truncated`` when ``max_steps`` steps
  (default 8) have been taken.
* **Tasks**: ``split=`` (``test`` by default: rows 900-999; ``train``, ``all``)
  or ``task_ids=`` (row indices). ``reset(options={"task_id": i})`` plays row
  ``i``; ``options={"split": s}`` draws from another split. Without a task id,
  ``reset(seed=s)`` plays the pool's task ``s % len(pool)`` and ``reset()``
  the task after the current one (wrapping), so seeds ``0..n-1`` walk the pool.
* **Snapshot** (native): the state is a frozen :class:`Game24State` (numbers
  left as Fractions, history of lines, done/won flags, last message); the base
  class adds the step counter, limit, RNG state and task.
* **Contract** (``envs/core/contract.py``): ``task_fields()`` is
  ``{"numbers": [...]}`` (the puzzle as written); ``canonical_action`` is the
  rules' parser (:func:`~treegym.envs.game24.rules.canonical_line`: what an
  action does, any board); ``expert()`` follows the exact solver: the plan of
  the first solution, value 1 while 24 can still be made (or was made), else 0.
  :meth:`Game24Env.expert_action` / :meth:`Game24Env.expert_plan` are its parts.
"""
from __future__ import annotations

import numbers
import os
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any, Sequence

from gymnasium import spaces

from treegym.envs.core import ForkableEnv, UnicodeText, action_space, text_observation_space
from treegym.envs.core.contract import ExpertAdvice

from . import solver
from .arithmetic import format_number
from .rules import (
    TARGET,
    ActionError,
    AnswerAction,
    Board,
    check_answer,
    canonical_line,
    check_operation,
    legal_lines,
    parse_action,
)
from .tasks import SPLITS, Game24Task, check_task_id, load_tasks, split_ids

DEFAULT_MAX_STEPS = 8


@dataclass(frozen=True)
class Game24State:
    """Everything that changes within an episode (immutable; a snapshot holds it as is).

    ``left`` are the numbers left (sorted Fractions), ``history`` the lines played,
    ``message`` the last result or error. ``left_text``, ``text`` and ``moves`` (the
    legal operation lines) are derived once at construction, so a restore only
    re-wraps them in fresh dicts.
    """

    left: Board
    history: tuple[str, ...] = ()
    done: bool = False
    won: bool = False
    message: str = ""
    invalid: bool = False
    left_text: tuple[str, ...] = field(init=False, repr=False, compare=False)
    text: str = field(init=False, repr=False, compare=False)
    moves: tuple[str, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        left_text = tuple(format_number(x) for x in self.left)
        numbers = "Numbers left: " + " ".join(left_text)
        object.__setattr__(self, "left_text", left_text)
        object.__setattr__(self, "text", f"{self.message}\n{numbers}" if self.message else numbers)
        object.__setattr__(self, "moves", () if self.done or len(self.left) < 2 else legal_lines(self.left))


class Game24Env(ForkableEnv):
    """The Game of 24 (see the module docstring for actions, observations, rewards and tasks)."""

    metadata = {"render_modes": ["ansi"]}
    snapshot_kind = "native"
    pure_observe = True  # _observe reads the state only (restore_as)

    def __init__(
        self,
        split: str | None = None,
        task_ids: Sequence[int] | None = None,
        max_steps: int = DEFAULT_MAX_STEPS,
        data_path: str | os.PathLike | None = None,
        render_mode: str | None = None,
    ):
        if isinstance(max_steps, bool) or not isinstance(max_steps, numbers.Integral) or max_steps < 1:
            raise ValueError(f"max_steps must be a positive integer, got {max_steps!r}")
        max_steps = int(max_steps)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        super().__init__(max_steps=max_steps, render_mode=render_mode)
        self._init_kwargs = {
            "split": split, "task_ids": None if task_ids is None else tuple(task_ids),
            "max_steps": max_steps, "data_path": data_path, "render_mode": render_mode,
        }
        self._tasks = load_tasks(data_path)
        self._data_name = str(data_path) if data_path is not None else "the packaged 24.csv"
        self._pool = self._make_pool(split, task_ids)
        self.observation_space = text_observation_space(
            left=spaces.Sequence(UnicodeText(max_length=256), stack=False)
        )
        self.action_space = action_space()
        self.task: Game24Task | None = None  # set by reset() / restore()
        self.state = Game24State(left=())

    # ------------------------------------------------------------------ tasks
    @classmethod
    def task_counts(cls) -> dict[str, int]:
        n = len(load_tasks())
        return {s: len(split_ids(s, n)) for s in SPLITS}

    @classmethod
    def split_task_ids(cls, split: str) -> list[int]:
        return list(split_ids(split, len(load_tasks())))

    def _make_pool(self, split: str | None, task_ids: Sequence[int] | None) -> tuple[int, ...]:
        n = len(self._tasks)
        if task_ids is None:
            pool = split_ids(split or "test", n)
            if not pool:
                raise ValueError(
                    f"split {split or 'test'!r} of {self._data_name} has no tasks (test = rows 900-999 of "
                    f"{n}); pass split='all' or task_ids="
                )
            return pool
        if isinstance(task_ids, (str, bytes)):
            raise ValueError(f"task_ids must be a sequence of integer row indices, got {task_ids!r}")
        pool = tuple(check_task_id(t, n) for t in task_ids)
        if not pool:
            raise ValueError("task_ids is empty; give at least one row index or leave it out to use a split")
        if split is not None:
            outside = sorted(set(pool) - set(split_ids(split, n)))
            if outside:
                raise ValueError(f"task_ids {outside[:10]} are not in split {split!r}; drop split= or fix task_ids")
        return pool

    def _choose_task(self, seed: int | None, options: dict) -> Game24Task:
        n = len(self._tasks)
        if options.get("task_id") is not None:
            return self._tasks[check_task_id(options["task_id"], n)]
        pool = split_ids(options["split"], n) if options.get("split") else self._pool
        if not pool:
            raise ValueError(f"split {options['split']!r} of {self._data_name} has no tasks; choose another split")
        if seed is not None:
            return self._tasks[pool[seed % len(pool)]]
        current = self.task.task_id if self.task is not None else None
        if current in pool:
            return self._tasks[pool[(pool.index(current) + 1) % len(pool)]]
        return self._tasks[pool[0]]

    # ------------------------------------------------------------------ snapshot hooks
    def _get_state(self) -> Game24State:
        return self.state

    def _set_state(self, state: Game24State) -> None:
        self.state = state

    def _observe(self) -> tuple[dict, dict]:
        st, task = self.state, self.task
        self._last_text = st.text
        out_of_steps = self.max_steps is not None and self.steps >= self.max_steps
        obs = {
            "text": st.text,
            "instruction": task.instruction,
            "valid_actions": () if out_of_steps else st.moves,
            "left": st.left_text,
        }
        info = {
            "success": st.won,
            "won": st.won,
            "task_id": task.task_id,
            "puzzle": task.puzzle,
            "left": st.left_text,
            "invalid_action": st.invalid,
            "message": st.message,
            "steps": self.steps,
        }
        return obs, info

    # ------------------------------------------------------------------ Gymnasium API
    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        super().reset(seed=seed)
        self.task = self._choose_task(seed, dict(options or {}))
        self.steps = 0
        self.state = Game24State(left=self.task.board)
        return self._observe()

    def step(self, action: Any) -> tuple[dict, float, bool, bool, dict]:
        st = self.state
        if st.done or (self.max_steps is not None and self.steps >= self.max_steps):
            why = "the episode is over" if st.done else f"the step limit ({self.max_steps}) is reached"
            self.state = replace(st, message=f"Invalid action: {why}; call reset() to play again.", invalid=True)
            obs, info = self._observe()
            return obs, 0.0, st.done, not st.done, info
        try:
            self.state = self._play(st, parse_action(action))
        except ActionError as exc:
            self.state = replace(st, message=f"Invalid action: {exc}", invalid=True)
        truncated = self._count_step()
        obs, info = self._observe()
        terminated = self.state.done
        reward = 1.0 if self.state.won else 0.0
        return obs, reward, terminated, truncated and not terminated, info

    def _play(self, st: Game24State, action: Any) -> Game24State:
        if isinstance(action, AnswerAction):
            value = check_answer(self.task.board, action)
            won = value == TARGET
            verdict = "Solved." if won else "That is not 24; the episode is over."
            msg = f"Answer: {action.text} = {format_number(value)}. {verdict}"
            return Game24State(st.left, st.history + (f"answer: {action.text}",), True, won, msg, False)
        op = check_operation(st.left, action)
        line = op.line()
        done = len(op.left) == 1
        won = done and op.left[0] == TARGET
        msg = line
        if done:
            msg += " Solved: the last number is 24." if won else f" The last number is {format_number(op.left[0])}, not 24."
        return Game24State(op.left, st.history + (line,), done, won, msg, False)

    # ------------------------------------------------------------------ the env-agent contract
    def task_fields(self) -> dict[str, Any]:
        """``{"numbers": ["4", "9", "10", "13"]}``: the puzzle as written (never a solution)."""
        return {"numbers": [str(n) for n in self.task.numbers]} if self.task is not None else {}

    def canonical_action(self, action: str) -> str | None:
        """The rules' canonical form of ``action`` (``"13 - 9"``, ``"answer: ..."``), None when malformed."""
        return canonical_line(str(action)) if isinstance(action, str) else None

    def expert(self) -> ExpertAdvice | None:
        """The solver's plan from the current numbers; value 1 when 24 is (still) reachable, else 0."""
        st = self.state
        if self.task is None:
            return None
        if st.done:
            return ExpertAdvice((), 1.0 if st.won else 0.0, st.won)
        plan = tuple(self.expert_plan())
        steps_left = None if self.max_steps is None else self.max_steps - self.steps
        solvable = bool(plan) and (steps_left is None or steps_left >= len(plan))
        return ExpertAdvice(plan if solvable else (), 1.0 if solvable else 0.0, solvable)

    # ------------------------------------------------------------------ expert
    def expert_action(self) -> str | None:
        """One step of a solution from the current numbers, or None (unsolvable, done or out of steps)."""
        if self.state.done or (self.max_steps is not None and self.steps >= self.max_steps):
            return None
        op = solver.first_step(self.state.left)
        return op.line() if op is not None else None

    def expert_plan(self) -> list[str]:
        """The remaining steps of the first solution from the current numbers (empty if none)."""
        if self.state.done:
            return []
        return [op.line() for op in solver.plan(self.state.left)]

    def solutions(self) -> list[solver.Solution]:
        """Every solution from the current numbers (see :func:`solver.solve`)."""
        return [] if self.state.done else solver.solve(self.state.left)

    @property
    def numbers_left(self) -> tuple[Fraction, ...]:
        return self.state.left
