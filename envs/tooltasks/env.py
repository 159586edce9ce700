"""``treegym/ToolTasks-v0``: ToolChain*-style tool tasks (Zhuang et al. 2024; SambaNova ToolBench's task kinds).

* **Domains** (``domain=`` selects one): ``home_search`` (25 tasks: fill a
  home-search form through ordered setter APIs, then ``search()``),
  ``trip_booking`` (25: flights, hotels, rental cars), ``sheets`` (20: edit a
  small spreadsheet: append/update/delete/sort/bold, then ``done()``),
  ``virtual_home`` (20: VirtualHome-style household chores). ``split``:
  ``test`` 72, ``dev`` 18, ``all`` 90.
* **Action**: one call, Python-style (``set_location("Boston")``), JSON
  ``{"name", "arguments"}`` or ToolBench ReAct text; literals only, never
  executed. A non-executable call answers ``Error: ...`` and changes nothing.
* **Success** is judged on the **final state** only, as SambaNova ToolBench
  does: the search form equals the gold form (F1 = 1; ``info["evaluation"]["f1"]``),
  the sheet and its bold cells equal gold, every household goal predicate
  holds (plus SambaNova's LCS score against the gold plan as a diagnostic).
* ``info["functions"]`` (after reset) lists the domain's functions;
  ``expert()`` follows the gold plan; snapshots are native. HTTP mode:
  ``server_url="http://HOST:PORT/tooltasks"`` on ``treegym serve tools``.
"""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any, Sequence

from treegym.envs.core import EngineEnv, TaskPool
from treegym.envs.core.task_pool import splits_of_records

from .engine import ToolTasksEngine, parse_call

DATA_DIR = Path(__file__).with_name("data")
DOMAINS = ("home_search", "trip_booking", "sheets", "virtual_home")
CANONICAL_MAX = 4096  # canonical forms an env remembers (``ToolTasksEnv.canonical_action``)


@lru_cache(maxsize=1)
def shipped_tasks() -> tuple[dict, ...]:
    path = DATA_DIR / "tasks.json"
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing; run python -m treegym.envs.tooltasks.tasks")
    return tuple(json.loads(path.read_text(encoding="utf-8")))


def _splits() -> dict[str, tuple]:
    return splits_of_records(shipped_tasks(), "task_id", order=("test", "dev", "all"))


def _canonical_call(action: Any, functions: Any) -> str | None:
    """``action`` as one call of ``functions`` in sorted JSON, or None when it is not one."""
    parsed = parse_call(action, functions)
    return None if isinstance(parsed, str) else json.dumps({"name": parsed[0], "arguments": parsed[1]}, sort_keys=True)


@lru_cache(maxsize=2)
def shipped_engine(reward_mode: str = "terminal") -> ToolTasksEngine:
    return ToolTasksEngine(shipped_tasks(), _splits(), reward_mode)


class ToolTasksEnv(EngineEnv):
    """ToolChain*-style tool tasks judged on the final state (see the module docstring)."""

    # The reward mode decides rewards; split, task_ids and domain only pick the next reset's task.
    restore_settings = ("reward_mode",)

    session_variants = ("reward_mode", ("terminal", "hidden"))  # a served env picks its reward mode

    def __init__(self, split: str | None = None, task_ids: Sequence[Any] | None = None, domain: str | None = None,
                 reward_mode: str = "terminal", max_steps: int = 20, server_url: str | None = None,
                 render_mode: str | None = None):
        engine = shipped_engine(reward_mode)
        if domain is not None:
            if domain not in DOMAINS:
                raise ValueError(f"domain must be one of {DOMAINS}, got {domain!r}")
            pool = task_ids if task_ids is not None else engine.task_ids(split or "test")
            task_ids = [t for t in pool if engine.tasks[engine.task(t)]["domain"] == domain]
        super().__init__(engine, split=split, task_ids=task_ids, max_steps=max_steps, render_mode=render_mode,
                         server_url=server_url, variant=reward_mode if server_url is not None else None)
        self._canonical_memo: dict[tuple[str, str], str | None] = {}  # (domain, action) -> canonical form

    @classmethod
    def default_task_pool(cls) -> TaskPool:
        return TaskPool(_splits(), source="the shipped ToolTasks tasks")

    def task_fields(self) -> dict[str, Any]:
        if self.task is None:
            return {}
        t = self.engine.tasks[self.task.task_id]
        return {"query": t["query"], "domain": t["domain"],
                "functions": [{"name": k, **v} for k, v in self.engine.functions(t["task_id"]).items()]}

    def action_templates(self) -> tuple[str, ...]:
        if self.task is None:
            return ()
        return tuple(f"{k}(" + ", ".join(f"<{p}>" for p in v["parameters"]) + ")"
                     for k, v in self.engine.functions(self.task.task_id).items())

    def canonical_action(self, action: str) -> str | None:
        """The call as sorted JSON, or None when it is not a call of the task's domain. Remembered per domain and
        text (a search and the tasks after it meet the same calls again): at most ``CANONICAL_MAX`` texts per env,
        then the memo starts over."""
        if self.task is None:
            return None
        task_id = self.task.task_id
        if type(action) is not str:
            return _canonical_call(action, self.engine.functions(task_id))
        key = (self.engine.tasks[task_id]["domain"], action)
        memo = self._canonical_memo
        try:
            return memo[key]
        except KeyError:
            if len(memo) >= CANONICAL_MAX:
                memo.clear()
            found = memo[key] = _canonical_call(action, self.engine.functions(task_id))
            return found

