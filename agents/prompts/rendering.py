"""How a prompt spec renders the context every state prompt shows (task, history, state lines) once and shares it.

:class:`ContextRendering` is the part of :class:`~.spec.PromptSpec` that turns a state into prompt lines
and remembers them per task: the task lines per instruction, a path's history per sequence of steps (a
child's extends its parent's by one step), a state's whole context per observation object and path (a
node's value, propose, react and imagine prompts share it). It uses the spec's ``task_lines``,
``step_lines``, ``state_lines``, ``per_task``, ``env`` and per-task memo (``memo.py``).
"""
from __future__ import annotations

from typing import Any, Sequence

from .memo import MAX_CONTEXTS

MAX_REMEMBERED_LINES = 4096  # history lines remembered per task before the memo starts over


class ContextRendering:
    """Context lines and blocks of :class:`~.spec.PromptSpec` (module docstring); a base of it."""

    env: Any
    per_task: frozenset[str]
    _memo: Any  # () -> TaskMemo; task_lines, step_lines and state_lines are the spec's too

    def history_lines(self, history: Sequence[Any]) -> list[str]:
        lines = self._memo().lines  # a step's lines are a function of (i, step): remembered per task
        if len(lines) > MAX_REMEMBERED_LINES:
            lines.clear()
        out: list[str] = []
        for i, step in enumerate(history, 1):
            out += self._step_lines(lines, i, step)
        return out

    def _step_lines(self, lines: dict, i: int, step: Any) -> list[str]:
        key = (i, step.action, step.observation, step.reward, step.thought)
        got = lines.get(key)
        if got is None:
            got = lines[key] = list(self.step_lines(i, step))
        return got

    def cached_task_lines(self, obs: dict) -> list[str]:
        """:meth:`task_lines`, remembered per task and instruction when the env's task fields depend on
        its task only (``"task_fields"`` in :attr:`per_task`; a spec declaring so must build its task
        lines from the task fields and the instruction only)."""
        return list(self._task_block(obs, lines=True))

    # ------------------------------------------------------------ blocks: rendered once, shared by every prompt
    # A block is a list of strings, each one line or several joined by "\n" ([] for no lines): prompts add blocks
    # and lines as lists and join them once, to the same text as joining every line. A block is remembered
    # and never changed: prompts add it to others, which makes a new list.
    def _task_block(self, obs: dict, lines: bool = False) -> list[str]:
        """The task lines as a block of one string (as lines with ``lines``), remembered per task and
        instruction when :meth:`cached_task_lines` may remember them."""
        if "task_fields" not in self.per_task or self.env is None or not isinstance(obs, dict):
            return self.task_lines(obs)
        key = ("task_lines", str(obs.get("instruction", "")))
        memo = self._memo().lines
        got = memo.get(key)
        if got is None:
            rendered = list(self.task_lines(obs))
            got = memo[key] = (rendered, ["\n".join(rendered)] if rendered else [])
        return got[0] if lines else got[1]

    def _history_block(self, history: Sequence[Any]) -> list[str]:
        """:meth:`history_lines` as a block of one string per step, remembered per path: a path of the same
        steps (the same objects, or equal ones: the lines are a function of the steps) is answered from
        memory, and a path one step longer than a remembered one is that block plus its last step's string."""
        if not history:
            return []
        if type(self).history_lines is not ContextRendering.history_lines:  # a spec's own history: as it renders it
            return self.history_lines(history)
        blocks = self._memo().histories
        steps = tuple(history)
        got = blocks.get(id(steps[-1]))  # the entry holds its steps, so this id is not reused
        if got is not None and got[0] == steps:
            return got[1]
        n = len(steps)
        parent = blocks.get(id(steps[-2])) if n > 1 else None
        if parent is not None and parent[0] == steps[:-1]:
            block = parent[1] + self._step_block(n, steps[-1])
        elif n == 1:
            block = self._step_block(1, steps[0])
        else:
            block = [text for i, step in enumerate(steps, 1) for text in self._step_block(i, step)]
        if len(blocks) >= MAX_CONTEXTS:
            blocks.clear()
        blocks[id(steps[-1])] = (steps, block)
        return block

    def _step_block(self, i: int, step: Any) -> list[str]:
        got = self.step_lines(i, step)
        return ["\n".join(got)] if got else []

    def context(self, obs: dict, history: Sequence[Any]) -> list[str]:
        """The task, history and state lines every state prompt shows (the prompts use them as one block,
        remembered: :meth:`_context_block`)."""
        return self._context(obs, history)

    def _context(self, obs: dict, history: Sequence[Any]) -> list[str]:
        return self.cached_task_lines(obs) + self.history_lines(history) + self.state_lines(obs)

    def _context_block(self, obs: dict, history: Sequence[Any]) -> list[str]:
        """The context lines as a block (task, steps, state lines). Rendered once per state and task when the task fields depend on the
        task only (``"task_fields"`` in :attr:`per_task`): the same observation object after the same step
        objects (a search node's, asked for a value, then for proposals) is answered from memory
        (observations and steps are never changed once shown), and a new node's history block extends its
        parent's (:meth:`_history_block`)."""
        own = type(self)
        if own.context is not ContextRendering.context or own._context is not ContextRendering._context:
            return self.context(obs, history)  # a spec's own context: as it renders it
        if "task_fields" not in self.per_task or self.env is None:
            return self._context(obs, history)
        contexts = self._memo().contexts
        steps = tuple(history)
        got = contexts.get(id(obs))  # the entry holds obs, so this id is not reused
        if got is None or got[1] != steps:  # another path to the same observation object: rendered for it
            if len(contexts) >= MAX_CONTEXTS:
                contexts.clear()
            block = self._task_block(obs) + self._history_block(steps) + self.state_lines(obs)
            got = contexts[id(obs)] = (obs, steps, block)
        return got[2]
