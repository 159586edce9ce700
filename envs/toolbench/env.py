"""``treegym/ToolBench-v0``: ToolBench-style tool use on offline, stateful, forkable mock services.

* **Tasks**: 288 shipped queries in ToolBench's query format with gold
  (``split="test"`` default, ``"dev"``, ``"all"``; ``group="G1"|"G2"|"G3"``
  narrows the pool; ``task_ids=`` query ids). ``reset(options={"task_id": id})``.
* **Action** (``str``): one tool call, as JSON ``{"name": ..., "arguments": {...}}``
  or ToolBench's ReAct text (``Thought / Action / Action Input``); a dict is
  accepted too. ``Finish`` ends the episode (see ``engine.py`` for every rule).
* **Observation** (dict): ``text`` (the query after reset, then the function
  message content ``{"error": ..., "response": ...}`` as JSON text, cut to
  ``max_observation_length`` = 1024 characters), ``instruction`` (the query),
  ``valid_actions`` (one example call per function with its example values,
  and Finish give-up; any call that fits the functions is legal).
* **info**: ``success``, ``status_code`` (ToolBench's 0-12), ``functions``
  (after reset: OpenAI function schemas, ToolBench's conversion, Finish last;
  also in ``task_fields()``),
  ``tool_calls``, ``finished``, ``give_up``, ``group``, and ``evaluation``
  at the end (pass, answer/state/forbidden checks, correct path,
  hallucinated and invalid calls).
* **Reward**: ``reward_mode="terminal"`` (1.0 on a passing Finish) or
  ``"hidden"`` (always 0; read ``info["evaluation"]``).
* **Steps**: ``max_steps`` (default 12, ToolBench's ``single_chain_max_step``)
  counts every action; the episode is truncated after it.
* **Snapshot** (native): the engine's immutable :class:`ToolState` (world
  collections + call log); fixtures and tool files are shared.
* **Expert**: the gold reference plan from the current state (``expert()``).
* **HTTP mode**: ``server_url="http://127.0.0.1:PORT"`` plays the same tasks on
  a running ``treegym serve tools`` (one session per env; the state travels as
  its lossless JSON, so snapshots stay exact and native).
"""
from __future__ import annotations

import json
from functools import lru_cache
from typing import Any, Sequence

from treegym.envs.core import EngineEnv

from .actions import parse_action
from .data import shipped_splits, shipped_tasks
from .engine import DEFAULT_MAX_OBSERVATION, ToolBenchEngine
from .service import default_service

DEFAULT_MAX_STEPS = 12


@lru_cache(maxsize=8)
def shipped_engine(reward_mode: str = "terminal", max_observation_length: int = DEFAULT_MAX_OBSERVATION) -> ToolBenchEngine:
    """The engine over the shipped catalog and tasks (shared per process and settings)."""
    return ToolBenchEngine(default_service(), shipped_tasks(), shipped_splits(), reward_mode, max_observation_length)


class ToolBenchEnv(EngineEnv):
    """ToolBench-style tool use on offline stateful mock APIs (see the module docstring)."""

    def __init__(self, split: str | None = None, task_ids: Sequence[Any] | None = None, group: str | None = None,
                 reward_mode: str = "terminal", max_steps: int | None = DEFAULT_MAX_STEPS,
                 max_observation_length: int = DEFAULT_MAX_OBSERVATION, server_url: str | None = None,
                 render_mode: str | None = None):
        if server_url is not None:
            from .http_client import RemoteToolBenchEngine
            engine = RemoteToolBenchEngine(server_url, reward_mode, max_observation_length)
        else:
            engine = shipped_engine(reward_mode, max_observation_length)
        if group is not None:
            if group not in ("G1", "G2", "G3"):
                raise ValueError(f"group must be G1, G2 or G3, got {group!r}")
            pool = task_ids if task_ids is not None else engine.task_ids(split or "test")
            task_ids = [t for t in pool if engine.group_of(engine.task(t)) == group]
        elif task_ids is not None:
            task_ids = [engine.task(t) for t in task_ids]
        super().__init__(engine, split=split, task_ids=task_ids, max_steps=max_steps, render_mode=render_mode)
        self._init_kwargs = {"split": split, "task_ids": task_ids, "group": group, "reward_mode": reward_mode,
                             "max_steps": max_steps, "max_observation_length": max_observation_length,
                             "server_url": server_url, "render_mode": render_mode}

    @classmethod
    def task_counts(cls) -> dict[str, int]:
        return {k: len(v) for k, v in shipped_splits().items()}

    @classmethod
    def split_task_ids(cls, split: str) -> list:
        splits = shipped_splits()
        if split not in splits:
            raise ValueError(f"unknown split {split!r}; choose one of {', '.join(splits)}")
        return list(splits[split])

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        if options and options.get("task_id") is not None:
            options = dict(options, task_id=self.engine.task(options["task_id"]))
        return super().reset(seed=seed, options=options)

    def step(self, action: Any) -> tuple[dict, float, bool, bool, dict]:
        if isinstance(action, (dict, list)):
            action = json.dumps(action, ensure_ascii=False)
        return super().step(action)

    # ------------------------------------------------------------ contract
    def task_fields(self) -> dict[str, Any]:
        if self.state is None:
            return {}
        return self.engine.task_fields(self.state)

    def action_templates(self) -> tuple[str, ...]:
        return ('{"name": "<function name>", "arguments": <JSON object>}',
                "Thought: <thought>\nAction: <function name>\nAction Input: <JSON object>")

    def canonical_action(self, action: str) -> str | None:
        parsed = parse_action(action)
        return None if isinstance(parsed, str) else parsed.canonical()

    def expert_action(self) -> str | None:
        """The gold plan's next action from here (what the ``oracle`` agent plays), or None when over."""
        advice = self.expert()
        return advice.next_action if advice is not None else None

    def evaluate(self) -> dict[str, Any] | None:
        """The gold evaluation of the current state as if the agent gave up now (None before reset)."""
        if self.state is None:
            return None
        return self.engine.evaluate_state(self.state)
