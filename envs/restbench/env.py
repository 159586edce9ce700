"""``treegym/RestBench-v0``: RestBench (Song et al. 2023, RestGPT) on offline mock TMDB and Spotify APIs.

* **Tasks**: ``split="restbench"``: RestBench's own 157 queries (RestGPT's
  100 TMDB + 57 Spotify, ids ``"tmdb-<n>"`` / ``"spotify-<n>"``, scored on
  RestGPT's correct path: ``restbench.py``); ``"test"`` (119), ``"dev"``
  (31), ``"all"``: 150 generated instructions with gold answers (92 TMDB, 58
  Spotify). ``api="tmdb"`` or ``"spotify"`` selects one service. Spotify
  tasks change the user's playlists, library, follows and player.
* **Action** (``str``): one HTTP request, ``GET /search/person?query=Sofia Coppola``
  or ``POST /playlists/{id}/tracks {"uris": [...]}`` or JSON
  ``{"method", "url", "params", "data"}``; ``Final Answer: ...`` ends the episode.
* **Observation**: ``text`` = ``{"status_code": N, "response": body}`` (JSON,
  cut to 8192 characters: the bodies carry every field the specs declare);
  ``info["endpoints"]`` after reset lists ``METHOD /path: summary``; :meth:`openapi` is the spec RestGPT reads
  (upstream's TMDB and Spotify specs, shipped in ``data/``, MIT, RestGPT).
* **Evaluation** at the end (``info["evaluation"]``): pass (answer checks,
  state checks, no mutation outside the gold plan's) and ``correct_path``
  (RestGPT's CPR: the gold path contained in order, matched structurally with
  path parameters, alternatives allowed); on the ``restbench`` split, which
  has no gold answers, pass = answered + correct path + no mutation outside
  the reference plan's. ``reward_mode`` as ToolBench-v0.
* **Snapshot** (native): the immutable engine state; **expert**: the reference plan.
* **HTTP mode**: ``server_url="http://HOST:PORT/restbench"`` on ``treegym serve tools``.
"""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any, Sequence

from treegym.envs.core import EngineEnv, TaskPool
from treegym.envs.core.task_pool import splits_of_records
from treegym.envs.tools_common.fixtures import shipped_fixtures
from treegym.envs.tools_common.world import static_world

from .actions import parse_action
from .catalog import INITIAL_WORLD, RestData
from .engine import DEFAULT_MAX_OBSERVATION, RestBenchEngine
from .restbench import SPLIT
from .spec import published

DATA_DIR = Path(__file__).with_name("data")


@lru_cache(maxsize=1)
def shipped_tasks() -> tuple[dict, ...]:
    """The generated tasks (splits ``test``, ``dev``) then RestBench's own queries (split ``restbench``)."""
    out: list = []
    for name in ("tasks.json", "restbench_tasks.json"):
        path = DATA_DIR / name
        if not path.is_file():
            raise FileNotFoundError(f"{path} is missing; run python -m treegym.envs.restbench.build")
        out += json.loads(path.read_text(encoding="utf-8"))
    return tuple(out)


def _splits(tasks: tuple[dict, ...]) -> dict[str, tuple]:
    # "all" is the generated tasks (test + dev); RestBench's own 157 queries are their own split
    return splits_of_records(tasks, "query_id", order=("test", "dev", "all", SPLIT), all_of=("test", "dev"))


@lru_cache(maxsize=1)
def shipped_data() -> RestData:
    """The TMDB and Spotify entities with their indexes, built once per process and shared by every engine."""
    return RestData(shipped_fixtures())


@lru_cache(maxsize=4)
def shipped_engine(reward_mode: str = "terminal",
                   max_observation_length: int = DEFAULT_MAX_OBSERVATION) -> RestBenchEngine:
    tasks = shipped_tasks()
    return RestBenchEngine(shipped_data(), tasks, _splits(tasks), static_world(INITIAL_WORLD),
                           reward_mode, max_observation_length)


class RestBenchEnv(EngineEnv):
    """RestBench-style REST tasks on mock TMDB and Spotify (see the module docstring)."""

    # The reward mode decides rewards and the observation length cut what a restored state shows; split,
    # task_ids and api only pick the next reset's task (a snapshot carries its own).
    restore_settings = ("reward_mode", "max_observation_length")

    session_variants = ("reward_mode", ("terminal", "hidden"))  # a served env picks its reward mode

    def __init__(self, split: str | None = None, task_ids: Sequence[Any] | None = None, api: str | None = None,
                 reward_mode: str = "terminal", max_steps: int = 10, max_observation_length: int = DEFAULT_MAX_OBSERVATION,
                 server_url: str | None = None, render_mode: str | None = None):
        if server_url is not None and max_observation_length != DEFAULT_MAX_OBSERVATION:
            raise ValueError("server_url= uses the server's max_observation_length; drop max_observation_length=")
        engine = shipped_engine(reward_mode, max_observation_length)
        if api is not None:
            if api not in ("tmdb", "spotify"):
                raise ValueError(f"api must be 'tmdb' or 'spotify', got {api!r}")
            pool = task_ids if task_ids is not None else engine.task_ids(split or "test")
            task_ids = [t for t in pool if engine.tasks[engine.task(t)]["api"] == api]
        elif task_ids is not None:
            task_ids = [engine.task(t) for t in task_ids]
        super().__init__(engine, split=split, task_ids=task_ids, max_steps=max_steps, render_mode=render_mode,
                         server_url=server_url, variant=reward_mode if server_url is not None else None)

    @classmethod
    def default_task_pool(cls) -> TaskPool:
        return TaskPool(_splits(shipped_tasks()), source="the shipped RestBench tasks")

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        options = self.reset_option_values(options)
        if options.get("task_id") is not None:
            options["task_id"] = self.engine.task(options["task_id"])
        return super().reset(seed=seed, options=options)

    def step(self, action: Any) -> tuple[dict, float, bool, bool, dict]:
        if isinstance(action, dict):
            action = json.dumps(action, ensure_ascii=False)
        return super().step(action)

    def openapi(self, api: str | None = None, server_url: str | None = None) -> dict:
        """The OpenAPI 3 spec of ``api`` (default: the current task's) as RestGPT reads it (``spec.published``)."""
        return published(api or self.engine.tasks[self.task.task_id]["api"], server_url)

    def task_fields(self) -> dict[str, Any]:
        if self.task is None:
            return {}
        t = self.engine.tasks[self.task.task_id]
        return {"query": t["query"], "query_id": t["query_id"], "api": t["api"], "endpoints": self.engine.endpoints(t["api"])}

    def action_templates(self) -> tuple[str, ...]:
        if self.task is not None and self.engine.tasks[self.task.task_id]["api"] == "tmdb":
            return ("GET <path and query>", "Final Answer: <answer>")  # TMDB's endpoints are all GET
        return ("GET <path and query>", "POST <path> <JSON body>", "PUT <path> <JSON body>",
                "DELETE <path> <JSON body>", "Final Answer: <answer>")

    def canonical_action(self, action: str) -> str | None:
        parsed = parse_action(action)
        return None if isinstance(parsed, str) else parsed.canonical()

