"""``treegym/WebShop-v0``: WebShop (Yao et al. 2022) as a forkable Gymnasium env.

* **Action** (``str``): upstream's ``search[free text]`` (on the search page) or
  ``click[label]`` (a button, a product ASIN or an option value on the page;
  case-insensitive). Anything else leaves the page as it was, with a notice
  saying what was wrong, and counts as a step.
* **Observation** (dict): ``text`` - the page in ``observation_mode`` ``"text"``
  (upstream's ``[SEP]`` rendering, default), ``"text_rich"`` or ``"html"``;
  ``instruction``; ``valid_actions`` - one suggested ``search[...]`` where there is a
  search bar, then ``click[x]`` for every clickable.
* **Reward**: upstream's purchase reward (``treegym.envs.webshop.get_reward``) at
  Buy Now, which ends the episode (``terminated``); 0 before. ``info`` carries the
  page kind, upstream's ``available_actions`` and, at Buy Now, ``reward_parts``,
  ``purchased_asin``, ``selected_options`` and ``success`` (reward exactly 1).
  ``truncated`` after ``max_steps`` steps (default 15).
* **Tasks**: the catalog's goals. ``split=`` (``test`` by default: goals 0-499;
  ``dev``, ``train``, ``all``) or ``task_ids=`` (goal indices). ``reset(options=
  {"task_id": i})`` plays goal ``i``; ``{"split": s}`` draws from another split.
  Without a task id, ``reset(seed=s)`` plays the pool's goal ``s % len(pool)`` and
  ``reset()`` the goal after the current one, so seeds ``0..n-1`` walk the pool.
* **Catalog**: ``catalog=`` a catalog directory (``treegym webshop build``) or None
  for the shipped default; loaded once per process and shared.
* **Two backends, same observations**: in-process (default) runs the engine
  directly; with ``server_url=`` the env drives a running site
  (``treegym serve webshop``) over HTTP and reads pages by parsing its HTML.
* **Snapshot** (native): the payload is the engine's frozen session record
  (in HTTP mode, the same record as the site's JSON snapshot returns it; the site
  copies the record, so snapshots cost one small request). The base class adds
  the step counter, the step limit, the RNG state and the task.
* **Contract** (``envs/core/contract.py``): ``expert()`` is the gold path from the
  current page (search the target product, open it, select the goal options,
  Buy Now) with the reward it earns as ``value``; ``expert_action()`` is its
  first action. ``task_fields()`` is what the instruction asks for (instruction,
  attributes, options, price limit; never the target product).
  ``action_templates()`` is ``("search[<query>]",)`` on a page with a search
  bar, else empty; ``canonical_action(a)`` runs the engine's own parser.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any, Sequence

from treegym.envs.core import ForkableEnv, action_space, text_observation_space

from .catalog import Catalog, load_catalog, load_default_catalog
from treegym.envs.core.contract import ExpertAdvice

from .engine import (ACTION_TEMPLATES, PAGE_SEARCH, Node, Session, WebShopEngine, bounded_action,
                     canonical_action, valid_actions_from_nodes)
from .render import OBSERVATION_MODES, render

DEFAULT_MAX_STEPS = 15


@dataclass(frozen=True)
class WebShopTask:
    """The goal an episode is on: its index in the catalog and its instruction."""

    goal_index: int
    instruction: str


def _catalog(catalog: str | os.PathLike | Catalog | None) -> Catalog:
    if catalog is None:
        return load_default_catalog()
    if isinstance(catalog, Catalog):
        return catalog
    return load_catalog(catalog)


class WebShopEnv(ForkableEnv):
    """WebShop shopping episodes (see the module docstring)."""

    metadata = {"render_modes": ["ansi"]}
    snapshot_kind = "native"

    def __init__(
        self,
        split: str | None = None,
        task_ids: Sequence[int] | None = None,
        catalog: str | os.PathLike | Catalog | None = None,
        max_steps: int = DEFAULT_MAX_STEPS,
        observation_mode: str = "text",
        server_url: str | None = None,
        render_mode: str | None = None,
    ):
        if not isinstance(max_steps, int) or isinstance(max_steps, bool) or max_steps < 1:
            raise ValueError(f"max_steps must be a positive integer, got {max_steps!r}")
        if observation_mode not in OBSERVATION_MODES:
            raise ValueError(f"observation_mode must be one of {', '.join(OBSERVATION_MODES)}, got {observation_mode!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        super().__init__(max_steps=max_steps, render_mode=render_mode)
        self._init_kwargs = {
            "split": split, "task_ids": None if task_ids is None else tuple(task_ids), "catalog": catalog,
            "max_steps": max_steps, "observation_mode": observation_mode, "server_url": server_url,
            "render_mode": render_mode,
        }
        self.observation_mode = observation_mode
        self.catalog = _catalog(catalog)
        self.engine = WebShopEngine(self.catalog)
        self._split = split or "test"
        self._pool = self._make_pool(self._split, task_ids)
        self.observation_space = text_observation_space()
        self.action_space = action_space()
        self.task: WebShopTask | None = None
        self.session = Session(goal_index=self._pool[0])
        self._cursor = -1
        self.site = None
        if server_url is not None:
            from .http_client import WebShopSiteClient

            self.site = WebShopSiteClient(server_url)
        self._remote: dict[str, Any] = {}  # HTTP mode: last page html, info, instruction
        self._render_cache: dict[tuple, tuple[str, tuple[str, ...]]] = {}  # (nodes, page) -> (text, valid actions)

    # ------------------------------------------------------------------ tasks
    @classmethod
    def task_counts(cls) -> dict[str, int]:
        counts = load_default_catalog().task_counts()
        counts.pop("products", None)
        return counts

    @classmethod
    def split_task_ids(cls, split: str, catalog: str | os.PathLike | Catalog | None = None) -> list[int]:
        """Goal indices of ``split`` (test, dev, train, all) in ``catalog`` (default: the packaged one)."""
        return list(_catalog(catalog).split(split))

    def _make_pool(self, split: str, task_ids: Sequence[int] | None) -> tuple[int, ...]:
        n = len(self.catalog.goals)
        if task_ids is None:
            pool = tuple(self.catalog.split(split))
            if not pool:
                raise ValueError(f"split {split!r} of catalog {self.catalog.name!r} has no goals; "
                                 f"use one of {', '.join(k for k, v in self.catalog.splits.items() if len(v))}")
            return pool
        if isinstance(task_ids, (str, bytes)):
            raise ValueError(f"task_ids must be a sequence of goal indices, got {task_ids!r}")
        pool = tuple(self._check_goal(t, n) for t in task_ids)
        if not pool:
            raise ValueError("task_ids is empty; give at least one goal index")
        return pool

    @staticmethod
    def _check_goal(t: Any, n: int) -> int:
        if not isinstance(t, int) or isinstance(t, bool) or not 0 <= t < n:
            raise ValueError(f"task id {t!r} is not a goal index of this catalog (0..{n - 1})")
        return t

    def _choose_goal(self, seed: int | None, options: dict) -> int:
        if "task_id" in options:
            return self._check_goal(options["task_id"], len(self.catalog.goals))
        pool = self._pool if "split" not in options else tuple(self.catalog.split(options["split"]))
        if not pool:
            raise ValueError(f"split {options.get('split')!r} has no goals")
        if seed is not None:
            self._cursor = seed % len(pool)
        else:
            self._cursor = (self._cursor + 1) % len(pool)
        return pool[self._cursor]

    # ------------------------------------------------------------------ snapshot hooks
    def _get_state(self) -> Any:
        if self.site is not None:
            return json.dumps(self.site.snapshot(), sort_keys=True)
        return self.session

    def _set_state(self, state: Any) -> None:
        if self.site is not None:
            if not isinstance(state, str):
                raise TypeError("this WebShop env talks to a site; restore a snapshot taken in HTTP mode")
            self._remote = self.site.restore(json.loads(state))
            return
        if not isinstance(state, Session):
            raise TypeError("this WebShop env runs in-process; restore a snapshot taken in-process")
        self.session = state

    def _nodes_info(self) -> tuple[tuple[Node, ...], dict[str, Any], str]:
        if self.site is not None:
            from .render import parse_html

            return parse_html(self._remote["html"]), dict(self._remote["info"]), self._remote["instruction"]
        return self.engine.page_nodes(self.session), self.engine.info(self.session), self.engine.instruction(self.session)

    def _render(self, nodes: tuple[Node, ...], page: str) -> tuple[str, tuple[str, ...]]:
        if self.observation_mode == "html" and self.site is not None:
            return self._remote["html"], valid_actions_from_nodes(nodes)
        key = (nodes, page)
        hit = self._render_cache.get(key)
        if hit is None:
            if len(self._render_cache) >= 1024:
                self._render_cache.clear()
            hit = self._render_cache[key] = (render(nodes, self.observation_mode, base="/s/local", page=page),
                                             valid_actions_from_nodes(nodes))
        return hit

    def _observe(self) -> tuple[dict, dict]:
        nodes, info, instruction = self._nodes_info()
        text, valid = self._render(nodes, info.get("page", ""))
        self._last_text = text
        obs = {"text": text, "instruction": instruction, "valid_actions": valid}
        info["task_id"] = info.get("goal_index")
        return obs, info

    # ------------------------------------------------------------------ Gymnasium API
    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        super().reset(seed=seed)
        options = dict(options or {})
        goal_index = self._choose_goal(seed, options)
        self.steps = 0
        if self.site is not None:
            self._remote = self.site.reset(goal_index)
            instruction = self._remote["instruction"]
        else:
            self.session = self.engine.new_session(goal_index)
            instruction = self.engine.instruction(self.session)
        self.task = WebShopTask(goal_index, instruction)
        return self._observe()

    def step(self, action: Any) -> tuple[dict, float, bool, bool, dict]:
        if self.task is None:
            raise RuntimeError("call reset() before step()")
        if self.site is not None:
            self._remote = self.site.step(bounded_action(action))
            reward, done = float(self._remote["reward"]), bool(self._remote["done"])
        else:
            self.session, reward = self.engine.step(self.session, action)
            done = self.session.done
        truncated = self._count_step() and not done
        obs, info = self._observe()
        return obs, float(reward), done, truncated, info

    def expert_action(self) -> str | None:
        """The gold path's next action from the current page, or None when the episode is over."""
        if self.task is None:
            return None
        if self.site is not None:
            return self.site.expert_action()
        return self.engine.expert_action(self.session)

    # ------------------------------------------------------------------ the env-agent contract
    def _current_session(self) -> Session:
        if self.site is not None:
            return self.engine.session_from_json(self.site.snapshot())
        return self.session

    def expert(self) -> ExpertAdvice | None:
        """The gold path from the current page and the reward it earns (None before ``reset``)."""
        if self.task is None:
            return None
        return self.engine.expert(self._current_session(), steps_left=self.max_steps - self.steps)

    def task_fields(self) -> dict[str, Any]:
        """What the current goal asks for (see :meth:`WebShopEngine.task_fields`); {} before ``reset``."""
        if self.task is None:
            return {}
        return self.engine.task_fields(self.task.goal_index)

    def action_templates(self) -> tuple[str, ...]:
        """``("search[<query>]",)`` where the page has a search bar (and before ``reset``), else ()."""
        if self.task is None or self._current_session().page == PAGE_SEARCH:
            return ACTION_TEMPLATES
        return ()

    def canonical_action(self, action: str) -> str | None:
        return canonical_action(action)

    def close(self) -> None:
        if self.site is not None:
            self.site.close()
        super().close()
