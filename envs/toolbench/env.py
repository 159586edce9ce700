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
* **Upstream data**: ``queries=PATH`` loads a ToolBench query file unchanged
  (``G1_instruction.json``, StableToolBench ``solvable_queries/...``; our own
  ``data/queries/G*_query.json`` too, with gold), ``tools_dir=`` ToolBench's
  ``data/toolenv/tools``, ``transport=`` ``"mock"`` (the shipped services,
  when they know every API), ``"schema"`` (deterministic simulated answers
  from ``template_response``), ``"stabletoolbench"`` (``cache_dir=``) or
  ``"http"`` (``service_url=``, ``toolbench_key=``; ``exact_restore`` is then
  False); snapshots record the transport and its data's identity (``transports.py``) and
  restore only into an env answering from the same. Queries without gold are evaluated for Finish, hallucinated and
  invalid calls only (``evaluation["pass"]`` is None); ``test_ids=`` a
  ``test_query_ids`` file makes a ``test`` split.
* **HTTP mode**: ``server_url="http://127.0.0.1:PORT"`` plays the same tasks on
  a running ``treegym serve tools`` (the generic session server: one session
  per env, ``reward_mode`` picks the server's variant; snapshots are the
  server's lossless state JSON, so they stay exact).
"""
from __future__ import annotations

import json
from functools import lru_cache
from typing import Any, Sequence

from treegym.envs.core import EngineEnv, TaskPool
from treegym.envs.tools_common.calls import parse_action

from .data import shipped_splits, shipped_tasks
from .engine import DEFAULT_MAX_OBSERVATION, ToolBenchEngine
from .service import default_service
from .tasks import load_query_file
from .transports import make_transport

DEFAULT_MAX_STEPS = 12


@lru_cache(maxsize=8)
def shipped_engine(reward_mode: str = "terminal", max_observation_length: int = DEFAULT_MAX_OBSERVATION) -> ToolBenchEngine:
    """The engine over the shipped catalog and tasks (shared per process and settings)."""
    return ToolBenchEngine(default_service(), shipped_tasks(), shipped_splits(), reward_mode, max_observation_length)


class ToolBenchEnv(EngineEnv):
    """ToolBench-style tool use on offline stateful mock APIs (see the module docstring)."""

    # The reward mode decides rewards and the observation length cut what a restored state shows; split,
    # task_ids, group and queries pick the next reset's task (a snapshot carries its own). The transport
    # answers the state's next calls: recorded as its identity (transports.py; None for the shipped mock).
    restore_settings = ("reward_mode", "max_observation_length")
    data_settings = {"transport": "build the env with the transport and data the snapshot was taken with "
                                  "(transport=, queries=, tools_dir=, cache_dir= or service_url=; none for the "
                                  "shipped mock services)"}

    session_variants = ("reward_mode", ("terminal", "hidden"))  # a served env picks its reward mode

    def __init__(self, split: str | None = None, task_ids: Sequence[Any] | None = None, group: str | None = None,
                 reward_mode: str = "terminal", max_steps: int | None = DEFAULT_MAX_STEPS,
                 max_observation_length: int = DEFAULT_MAX_OBSERVATION, server_url: str | None = None,
                 queries: str | None = None, tools_dir: str | None = None, transport: str | None = None,
                 cache_dir: str | None = None, service_url: str | None = None, toolbench_key: str = "",
                 test_ids: str | None = None, render_mode: str | None = None):
        self.exact_restore = True
        self.transport = "mock"
        if server_url is not None and (queries is not None or max_observation_length != DEFAULT_MAX_OBSERVATION):
            raise ValueError("server_url= plays the shipped tasks with the server's settings; drop queries= and "
                             "max_observation_length= (or run in-process)")
        if queries is not None:
            engine = self._upstream_engine(queries, tools_dir, transport, cache_dir, service_url, toolbench_key,
                                           test_ids, reward_mode, max_observation_length)
            if split is None and task_ids is None:
                split = "test" if "test" in engine.splits() else "all"
        else:
            if transport not in (None, "mock"):
                raise ValueError(f"transport={transport!r} applies to upstream data: pass queries=PATH too")
            engine = shipped_engine(reward_mode, max_observation_length)
        if group is not None:
            if group not in ("G1", "G2", "G3"):
                raise ValueError(f"group must be G1, G2 or G3, got {group!r}")
            pool = task_ids if task_ids is not None else engine.task_ids(split or "test")
            task_ids = [t for t in pool if engine.group_of(engine.task(t)) == group]
        elif task_ids is not None:
            task_ids = [engine.task(t) for t in task_ids]
        self.record_data_setting("transport", None if self.transport == "mock" else engine.service.identity)
        super().__init__(engine, split=split, task_ids=task_ids, max_steps=max_steps, render_mode=render_mode,
                         server_url=server_url, variant=reward_mode if server_url is not None else None)

    def _upstream_engine(self, queries, tools_dir, transport, cache_dir, service_url, toolbench_key, test_ids,
                         reward_mode, max_observation_length) -> ToolBenchEngine:
        """An engine over a ToolBench query file (see ``transports.py``); the shipped mock answers when it knows every API."""
        import warnings

        tasks = load_query_file(queries)
        ids = [t["query_id"] for t in tasks]
        if len(set(ids)) != len(ids):
            raise ValueError(f"query file {queries} repeats query ids; ToolBench ids must be unique")
        splits: dict[str, Any] = {"all": ids}
        if test_ids is not None:
            wanted = json.loads(open(test_ids, encoding="utf-8").read())
            keep = {str(k) for k in (wanted if isinstance(wanted, (list, dict)) else [])}
            splits = {"test": [i for i in ids if str(i) in keep], "all": ids}
        mock = default_service()
        knows_all = all(mock.find(a.get("category_name", ""), a.get("tool_name", ""), a.get("api_name", "")) is not None
                        for t in tasks for a in t.get("api_list", []) or [])
        if transport is None:
            transport = "mock" if knows_all and tools_dir is None else "schema"
        if transport == "mock":
            if not knows_all:
                raise ValueError(f"transport='mock' answers only the shipped catalog's APIs, and {queries} names others; "
                                 "use transport='schema', 'stabletoolbench' (cache_dir=) or 'http' (service_url=)")
            service = mock
        else:
            service = make_transport(transport, tasks, tools_dir, cache_dir, service_url, toolbench_key)
            self.exact_restore = service.exact_restore
            if not self.exact_restore:
                warnings.warn(f"transport={transport!r} calls a live server: snapshots restore the episode's call log, "
                              "not the remote service's state", stacklevel=3)
        self.transport = transport
        return ToolBenchEngine(service, tasks, splits, reward_mode, max_observation_length)

    @classmethod
    def default_task_pool(cls) -> TaskPool:
        return TaskPool(shipped_splits(), source="the shipped ToolBench tasks")

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        options = self.reset_option_values(options)
        if options.get("task_id") is not None:
            options["task_id"] = self.engine.task(options["task_id"])
        return super().reset(seed=seed, options=options)

    def step(self, action: Any) -> tuple[dict, float, bool, bool, dict]:
        if isinstance(action, (dict, list)):
            action = json.dumps(action, ensure_ascii=False)
        return super().step(action)

    # ------------------------------------------------------------ contract
    server_hint = "start the tool server with `treegym serve tools --port PORT` or fix server_url"

    def action_templates(self) -> tuple[str, ...]:
        return ('{"name": "<function name>", "arguments": <JSON object>}',
                "Thought: <thought>\nAction: <function name>\nAction Input: <JSON object>")

    def canonical_action(self, action: str) -> str | None:
        parsed = parse_action(action)
        return None if isinstance(parsed, str) else parsed.canonical()

    def evaluate(self) -> dict[str, Any] | None:
        """The gold evaluation of the current state as if the agent gave up now (None before reset)."""
        if self.task is None:
            return None
        return self.engine.evaluate_state(self.engine_state())
