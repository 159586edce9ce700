"""``treegym/WebShop-v0``: WebShop (Yao et al. 2022) as a forkable Gymnasium env.

* **Action** (``str``): upstream's ``search[free text]`` (on the search page) or
  ``click[label]`` (a button, a product ASIN or an option value on the page;
  case-insensitive). Anything else leaves the page as it was, with a notice
  saying what was wrong, and counts as a step.
* **Observation** (dict): ``text`` - the page in ``observation_mode`` ``"text"``
  (upstream's ``[SEP]`` rendering, default), ``"text_rich"`` or ``"html"``;
  ``instruction``; ``valid_actions`` - one suggested ``search[...]`` where there is a
  search bar, then ``click[x]`` for every clickable (empty once the step limit is reached).
* **Reward**: upstream's purchase reward (``treegym.envs.webshop.get_reward``) at
  Buy Now, which ends the episode (``terminated``); 0 before. ``info`` carries the
  page kind, upstream's ``available_actions``, ``goal_index``, ``task_id``,
  ``steps`` and, at Buy Now, ``reward_parts``, ``purchased_asin``,
  ``selected_options``; ``success`` (reward exactly 1) always.
  ``truncated`` after ``max_steps`` steps (default 15).
* **Tasks**: the catalog's goals. ``split=`` (``test`` by default: goals 0-499;
  ``dev``, ``train``, ``all``) or ``task_ids=`` (goal indices). ``reset(options=
  {"task_id": i})`` plays goal ``i``; ``{"split": s}`` draws from another split.
  Without a task id, ``reset(seed=s)`` plays the pool's goal ``s % len(pool)`` and
  ``reset()`` the goal after the current one, so seeds ``0..n-1`` walk the pool.
* **Catalog**: ``catalog=`` a catalog directory (``treegym webshop build``) or None
  for the shipped default; loaded once per process and shared. Snapshots record its identity
  (``catalog_identity.py``: a content digest, none for the shipped one) and restore only into an env
  over the same catalog.
* **Two modes, same observations**: an :class:`~treegym.envs.core.engine_env.EngineEnv`
  over :class:`WebShopEngine`. In-process (default) runs the engine directly; with
  ``server_url=`` the env owns a session on a running site (``treegym serve
  webshop``, the generic session server plus pages) and each call is one request.
* **Snapshot** (native): the payload is the engine's frozen session record
  (in HTTP mode a ``RemoteState`` with the site's JSON record; the site copies
  the record, so snapshots cost one small request). The base class adds the
  step counter, the step limit, the RNG state and the task.
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
from typing import Any, Sequence

from treegym.envs.core.engine_env import EngineEnv
from treegym.envs.core.task_pool import TaskPool, engine_pool

from .catalog import Catalog, load_catalog, load_default_catalog
from .engine import Session, WebShopEngine, WebShopTask, bounded_action
from .render import OBSERVATION_MODES

DEFAULT_MAX_STEPS = 15

__all__ = ["WebShopEnv", "WebShopTask", "DEFAULT_MAX_STEPS"]


def _catalog(catalog: str | os.PathLike | Catalog | None) -> Catalog:
    if catalog is None:
        return load_default_catalog()
    if isinstance(catalog, Catalog):
        return catalog
    return load_catalog(catalog)


class WebShopEnv(EngineEnv):
    """WebShop shopping episodes (see the module docstring)."""

    server_hint = "start the WebShop site with `treegym serve webshop --port PORT`"
    session_variants = ("observation_mode", OBSERVATION_MODES)  # a served env picks its observation mode
    # The observation mode decides what a restored state shows and the catalog what it steps against (recorded
    # as the catalog's identity: catalog_identity.py). split/task_ids pick the next reset's goal (the snapshot
    # carries its own).
    restore_settings = ("observation_mode",)
    data_settings = {"catalog": "build the env on the catalog the snapshot was taken on (catalog= that catalog's "
                                "directory, or None for the shipped one)"}

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
        if observation_mode not in OBSERVATION_MODES:
            raise ValueError(f"observation_mode must be one of {', '.join(OBSERVATION_MODES)}, got {observation_mode!r}")
        self.catalog = _catalog(catalog)
        self.record_data_setting("catalog", self.catalog.identity)
        super().__init__(WebShopEngine(self.catalog, observation_mode), split=split, task_ids=task_ids,
                         max_steps=max_steps, render_mode=render_mode, server_url=server_url,
                         variant=observation_mode)
        self.observation_mode = observation_mode

    @classmethod
    def default_task_pool(cls, catalog: str | os.PathLike | Catalog | None = None) -> TaskPool:
        """The goals of ``catalog`` (default: the packaged one) by split (test, dev, train, all)."""
        engine = WebShopEngine(_catalog(catalog))
        return engine_pool(engine, source="the WebShop catalog")

    @classmethod
    def split_task_ids(cls, split: str, catalog: str | os.PathLike | Catalog | None = None) -> list[int]:
        """Goal indices of ``split`` (test, dev, train, all) in ``catalog`` (default: the packaged one)."""
        return list(cls.default_task_pool(catalog).ids(split))

    @property
    def session(self) -> Session:
        """The current session record (in HTTP mode fetched from the site: one request)."""
        state = self.runner.get_state()
        if isinstance(state, Session) or state is None:
            return state
        return self.engine.session_from_json(json.loads(state.json))

    def _encode_action(self, action: Any) -> str:
        return bounded_action(action)  # the same page either way, and always under the site's body limit

    # ------------------------------------------------------------------ the env-agent contract
    def action_templates(self) -> tuple[str, ...]:
        """``("search[<query>]",)`` where the page has a search bar (and before ``reset``), else ()."""
        if self.task is None or self.runner.observe()[1]["available_actions"]["has_search_bar"]:
            return super().action_templates()
        return ()
