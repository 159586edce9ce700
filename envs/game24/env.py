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
  (default 8) have been taken. That is ``protocol="treegym"`` (the default);
  ``protocol="tot"`` judges as Tree of Thoughts does (``engine.py``, ``tot_judge.py``):
  steps never end the episode, the final answer line (or a bare whole expression)
  does, with ToT's ``test_output`` verdict. ``info["protocol"]`` names it.
* **Tasks**: ``split=`` (``test`` by default: rows 900-999; ``train``, ``all``)
  or ``task_ids=`` (row indices). ``reset(options={"task_id": i})`` plays row
  ``i``; ``options={"split": s}`` draws from another split. Without a task id,
  ``reset(seed=s)`` plays the pool's task ``s % len(pool)`` and ``reset()``
  the task after the current one (wrapping), so seeds ``0..n-1`` walk the pool.
* **Snapshot** (native): the state is a frozen :class:`Game24State` (numbers
  left as Fractions, history of lines, done/won flags, last message, its task);
  the base class adds the step counter, limit, RNG state and task.
* **Engine** (``engine.py``): the rules are a pure :class:`Game24Engine`, so the env
  is an :class:`~treegym.envs.core.engine_env.EngineEnv`: ``server_url=`` plays the
  same puzzles on ``treegym serve treegym/Game24-v0`` with the same observations.
  ``data_path=`` plays your own ToT-format CSV (in-process).
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
from fractions import Fraction
from typing import Any, Sequence

from gymnasium import spaces

from treegym.envs.core import EngineEnv, TaskPool, UnicodeText, text_observation_space
from treegym.envs.core.contract import ExpertAdvice
from treegym.envs.core.task_pool import engine_pool

from . import solver
from .engine import DEFAULT_PROTOCOL, PROTOCOLS, Game24Engine, Game24State, check_protocol
from .tasks import load_tasks

DEFAULT_MAX_STEPS = 8

__all__ = ["Game24Env", "Game24Engine", "Game24State", "DEFAULT_MAX_STEPS", "PROTOCOLS"]


class Game24Env(EngineEnv):
    """The Game of 24 (see the module docstring for actions, observations, rewards and tasks)."""

    server_hint = "start the server with `treegym serve treegym/Game24-v0 --port PORT` or fix server_url"
    # The judging protocol decides rewards, success and info["protocol"] of a restored state; split,
    # task_ids and data_path only pick the next reset's task (a snapshot carries its own puzzle), and
    # max_steps travels in every snapshot anyway.
    restore_settings = ("protocol",)

    def __init__(
        self,
        split: str | None = None,
        task_ids: Sequence[int] | None = None,
        max_steps: int = DEFAULT_MAX_STEPS,
        data_path: str | os.PathLike | None = None,
        render_mode: str | None = None,
        server_url: str | None = None,
        protocol: str = DEFAULT_PROTOCOL,
    ):
        if isinstance(max_steps, bool) or not isinstance(max_steps, numbers.Integral) or max_steps < 1:
            raise ValueError(f"max_steps must be a positive integer, got {max_steps!r}")
        if server_url is not None and data_path is not None:
            raise ValueError("server_url= plays the server's puzzles; drop data_path= (or run in-process)")
        check_protocol(protocol)
        if server_url is not None and protocol != DEFAULT_PROTOCOL:
            raise ValueError(f"protocol={protocol!r} is played in-process only (the server judges with "
                             f"{DEFAULT_PROTOCOL!r}); drop server_url= or protocol=")
        self._data_name = str(data_path) if data_path is not None else "the packaged 24.csv"
        engine = Game24Engine(load_tasks(data_path), self._data_name, protocol)
        super().__init__(engine, split=split, task_ids=task_ids, max_steps=int(max_steps), render_mode=render_mode,
                         observation_space=text_observation_space(
                             left=spaces.Sequence(UnicodeText(max_length=256), stack=False)),
                         server_url=server_url)
        self._tasks = engine.tasks

    # ------------------------------------------------------------------ tasks
    @classmethod
    def default_task_pool(cls) -> TaskPool:
        return engine_pool(Game24Engine(load_tasks()), source="the packaged 24.csv")

    def _make_pool(self, split: str | None, task_ids: Sequence[Any] | None) -> tuple:
        self.task_pool = engine_pool(self.engine, source=self._data_name)
        if task_ids is None and split in (None, "test") and not self.task_pool.ids("test"):
            n = len(self.engine.tasks)
            raise ValueError(f"split 'test' of {self._data_name} has no tasks (test = rows 900-999 of {n}); "
                             "pass split='all' or task_ids=")
        return self.task_pool.select(split, task_ids)

    def _encode_action(self, action: Any) -> Any:
        # In-process the rules' parser answers a non-string action itself ("... must be a string");
        # over HTTP an action is a string.
        return str(action) if self.server_url is not None and not isinstance(action, str) else action

    # ------------------------------------------------------------------ the env-agent contract
    def expert(self) -> ExpertAdvice | None:
        """The solver's plan from the current numbers; value 1 when 24 is (still) reachable in the steps
        left (or was made), else 0 with no plan."""
        if self.task is None:
            return None
        advice = self.runner.expert()
        if advice is None or not advice.plan:
            return advice
        fits = self.max_steps is None or self.max_steps - self.steps >= len(advice.plan)
        return advice if fits else ExpertAdvice((), 0.0, False)

    def expert_action(self) -> str | None:
        """One step of a solution from the current numbers, or None (unsolvable, done or out of steps)."""
        if self.max_steps is not None and self.steps >= self.max_steps:
            return None
        plan = self.expert_plan()
        return plan[0] if plan else None

    def expert_plan(self) -> list[str]:
        """The remaining steps of the first solution from the current numbers (empty if none); under
        ``protocol="tot"`` they end with the answer line."""
        return list(self.engine.expert(self.engine_state()).plan)  # the local rules, server_url= or not

    def solutions(self) -> list[solver.Solution]:
        """Every solution from the current numbers (see :func:`solver.solve`)."""
        st = self.engine_state()
        return [] if st.done else solver.solve(st.left)

    @property
    def numbers_left(self) -> tuple[Fraction, ...]:
        return self.engine_state().left
