"""``treegym/ALFWorld-v0``: ALFWorld's text household tasks as a forkable Gymnasium env.

* **Tasks**: ``split="valid_unseen"`` (default): the 134 games of ALFWorld's
  ``eval_out_of_distribution`` set, shipped in the package.
  ``split="generated_train"`` / ``"generated_valid"``: games made offline by
  :mod:`.generate` from fixed seed sets (made on first use, deterministic).
  ``split="user"``
  with ``data_dir=`` (or the ``ALFWORLD_DATA`` environment variable): every game
  under that tree kept by ALFWorld's own filtering rules (see :mod:`.tasks`).
  Task ids are ``"<task dir>/<trial>"``.
* **Action** (``str``): an ALFWorld command (``go to countertop 1``,
  ``take apple 1 from countertop 1``, ``put apple 1 in/on fridge 1``, ...).
  Anything not admissible answers "Nothing happens." and counts as a step.
* **Observation** (dict): ``text`` (the game's own text: the intro at reset,
  then each command's feedback), ``instruction`` (the "Your task is to: ..."
  sentence), ``valid_actions`` (the admissible commands, sorted).
* **Info**: ``won``, ``success`` (= won), ``task_type``, ``admissible_commands``,
  ``moves`` (valid commands so far), ``invalid_action``, ``task_id``, ``steps``;
  with ``expert_plan=True`` also ``expert_plan`` (the expert's plan from here,
  as ALFWorld's ``extra.expert_plan``).
* **Reward**: 1.0 on the winning step, else 0.0; ``terminated`` when won;
  ``truncated`` after ``max_steps`` (50, ALFWorld's limit) steps, counted in
  the env's own state (snapshots carry it).
* **Wording**: ``style="2.1.1"`` (default; the paper-era data: ``put X in/on Y``,
  "You arrive at loc N.") or ``style="0.4"`` (``move X to Y``, "You arrive at
  <receptacle>.", ``help``).
* **Snapshot** (native): the immutable :class:`~.state.ALFWorldState`, a reference;
  pickled, the game by its loader key and the facts as a diff (1-2 KB).
* **Expert**: ``expert="planner"`` (default): :meth:`expert` plans over the
  env's own states (:mod:`.expert`); ``expert="handcoded"``: ALFWorld's
  handcoded expert's behaviour from agent knowledge only, one command at a
  time (:mod:`.handcoded`).
* **History**: the state keeps the episode's (command, feedback) pairs.
"""
from __future__ import annotations

import os
import re
from dataclasses import replace
from functools import lru_cache
from typing import Any, Sequence

from ..core.contract import ExpertAdvice
from ..core.engine_env import EngineEnv
from ..core.task_pool import TaskPool
from .engine import ALFWorldEngine, commands
from .game import STYLES, Game
from .generate import GENERATED_SPLITS, generate_game
from .generate import parse_task_id as parse_generated_id
from .generate import split_task_ids as generated_split_ids
from .tasks import SHIPPED_SPLIT, scan_data_tree, shipped_games, task_type_of
from .handcoded import handcoded_action

DEFAULT_MAX_STEPS = 50
EXPERTS = ("planner", "handcoded")


def _handcoded_advice(state) -> ExpertAdvice:
    """The handcoded expert's next command (it has no plan beyond it and no value)."""
    if state.won:
        return ExpertAdvice(plan=(), value=1.0, solvable=True)
    return ExpertAdvice(plan=(handcoded_action(state),), value=None, solvable=True)

_TEMPLATES_211 = ("go to <receptacle>", "open <receptacle>", "close <receptacle>",
                  "take <object> from <receptacle>", "put <object> in/on <receptacle>",
                  "clean <object> with <receptacle>", "heat <object> with <receptacle>",
                  "cool <object> with <receptacle>", "use <object>", "slice <object> with <object>",
                  "examine <something>", "inventory", "look")
_TEMPLATES_04 = tuple(t.replace("put <object> in/on", "move <object> to") for t in _TEMPLATES_211) + ("help",)

_NAME = r"[a-z]+ \d+"
_PATTERNS = {
    "2.1.1": re.compile(rf"^(go to {_NAME}|open {_NAME}|close {_NAME}|take {_NAME} from {_NAME}|"
                        rf"put {_NAME} in/on {_NAME}|(clean|heat|cool) {_NAME} with {_NAME}|use {_NAME}|"
                        rf"slice {_NAME} with {_NAME}|examine {_NAME}|inventory|look)$"),
    "0.4": re.compile(rf"^(go to {_NAME}|open {_NAME}|close {_NAME}|take {_NAME} from {_NAME}|"
                      rf"move {_NAME} to {_NAME}|(clean|heat|cool) {_NAME} with {_NAME}|use {_NAME}|"
                      rf"slice {_NAME} with {_NAME}|examine {_NAME}|inventory|look|help)$"),
}


# The game loaders below are module-level and cached: a Game pickles as (loader, key) and a snapshot
# loaded in this process (or a fresh one) gets the cached Game back (``Game.__reduce_ex__``).
@lru_cache(maxsize=512)
def _shipped_game(task_id: str) -> Game:
    return Game.from_data(shipped_games()[task_id], source=f"{SHIPPED_SPLIT}/{task_id}/game.tw-pddl",
                          task_type=task_type_of(task_id), task_id=task_id, loader=_shipped_game, key=(task_id,))


@lru_cache(maxsize=8)
def _shipped_engine(style: str) -> ALFWorldEngine:
    return ALFWorldEngine({SHIPPED_SPLIT: tuple(shipped_games())}, _shipped_game, style=style)


@lru_cache(maxsize=4096)
def _generated_game(task_id: str) -> Game:
    task_type, seed = parse_generated_id(task_id)
    return Game.from_data(generate_game(task_type, seed), source=task_id, task_type=task_type, task_id=task_id,
                          loader=_generated_game, key=(task_id,))


@lru_cache(maxsize=512)
def _file_game(path: str, task_type: str, task_id: str) -> Game:
    game = Game.from_file(path, task_type=task_type, task_id=task_id)
    return replace(game, loader=_file_game, key=(path, task_type, task_id))


@lru_cache(maxsize=8)
def _generated_engine(style: str) -> ALFWorldEngine:
    splits = {name: generated_split_ids(name) for name in GENERATED_SPLITS}
    return ALFWorldEngine(splits, _generated_game, style=style)


def _user_engine(data_dir: str, style: str) -> ALFWorldEngine:
    paths, counts = scan_data_tree(data_dir)
    if not paths:
        raise ValueError(f"no playable ALFWorld games under {data_dir} (filter counts: {counts}); "
                         "point data_dir/ALFWORLD_DATA at a tree of <task>/<trial>/game.tw-pddl files")

    def load(task_id: str) -> Game:
        return _file_game(paths[task_id], task_type_of(task_id.split("/")[-2]), task_id)

    splits: dict[str, list[str]] = {"user": sorted(paths)}
    for tid in sorted(paths):
        top = tid.split("/", 1)[0]
        if top != tid and len(tid.split("/")) >= 3:
            splits.setdefault(top, []).append(tid)
    engine = ALFWorldEngine(splits, load, style=style)
    engine.filter_counts = counts
    return engine


class ALFWorldEnv(EngineEnv):
    """ALFWorld text games (see the module docstring)."""

    # The wording style decides what a restored state says, expert_plan what its info carries and expert
    # which expert advises from it; split, task_ids and data_dir pick the next reset's game (a snapshot
    # carries its own).
    restore_settings = ("style", "expert_plan", "expert")

    def __init__(
        self,
        split: str | None = None,
        task_ids: Sequence[str] | None = None,
        max_steps: int = DEFAULT_MAX_STEPS,
        style: str = "2.1.1",
        data_dir: str | os.PathLike | None = None,
        expert_plan: bool = False,
        expert: str = "planner",
        render_mode: str | None = None,
        server_url: str | None = None,
    ):
        if expert not in EXPERTS:
            raise ValueError(f"expert must be one of {', '.join(EXPERTS)}, got {expert!r}")
        if style not in STYLES:
            raise ValueError(f"style must be one of {', '.join(STYLES)}, got {style!r}")
        if split not in (None, SHIPPED_SPLIT, *GENERATED_SPLITS) and data_dir is None:
            data_dir = os.environ.get("ALFWORLD_DATA") or None
            if data_dir is None:
                raise ValueError(f"split {split!r} needs your own ALFWorld data: pass data_dir= or set ALFWORLD_DATA "
                                 f"(the shipped split is {SHIPPED_SPLIT!r})")
        if data_dir is not None:
            engine = _user_engine(os.fspath(data_dir), style)
            split = split or "user"
        elif split in GENERATED_SPLITS:
            engine = _generated_engine(style)
        else:
            engine = _shipped_engine(style)
        if server_url is not None and (data_dir is not None or expert != "planner"):
            raise ValueError("server_url= plays the server's games with its planner expert; drop data_dir= and "
                             "expert= (or run in-process)")
        super().__init__(engine, split=split, task_ids=task_ids, max_steps=max_steps, render_mode=render_mode,
                         server_url=server_url)
        self.style = style
        self.expert_plan = bool(expert_plan)
        self.expert_kind = expert

    # ------------------------------------------------------------------ expert
    def expert(self) -> ExpertAdvice | None:
        if self.expert_kind == "planner":
            return super().expert()
        if self.task is None or self.state is None:
            return None
        return _handcoded_advice(self.state)

    def task_expert(self, task_id: Any, seed: int | None = None) -> ExpertAdvice | None:
        if self.expert_kind == "planner":
            return super().task_expert(task_id, seed)
        engine = self.engine
        return _handcoded_advice(engine.initial_state(engine.task(task_id), seed))

    def _observe(self) -> tuple[dict, dict]:
        obs, info = EngineEnv._observe(self)  # not super(): a group start observes through here, cold
        if self.expert_plan:
            advice = self.expert()
            info["expert_plan"] = list(advice.plan) if advice is not None else []
        return obs, info

    # ------------------------------------------------------------------ tasks
    @classmethod
    def default_task_pool(cls) -> TaskPool:
        """The shipped split and the generated ones (your own data, ``ALFWORLD_DATA``, is listed by
        :meth:`split_task_ids`)."""
        return TaskPool.lazy((SHIPPED_SPLIT, *GENERATED_SPLITS),
                             lambda s: shipped_games() if s == SHIPPED_SPLIT else generated_split_ids(s),
                             source="the shipped ALFWorld games")

    @classmethod
    def split_task_ids(cls, split: str) -> list[str]:
        if split == SHIPPED_SPLIT or split in GENERATED_SPLITS:
            return super().split_task_ids(split)
        data_dir = os.environ.get("ALFWORLD_DATA")
        if not data_dir:
            raise ValueError(f"ALFWorld split {split!r} is not shipped (the shipped split is {SHIPPED_SPLIT!r}); "
                             "set ALFWORLD_DATA to your own data tree to use other splits")
        engine = _user_engine(data_dir, "2.1.1")
        if split not in engine.splits():
            raise ValueError(f"split {split!r} not found under {data_dir}; found {', '.join(engine.splits())}")
        return list(engine.task_ids(split))

    # ------------------------------------------------------------------ contract
    def task_fields(self) -> dict[str, Any]:
        if self.task is None:
            return {}
        game = self.task.spec  # the task's Game (what the engine's task() returns), in either mode
        return {"task": game.task_text.removeprefix("Your task is to: "), "task_type": game.task_type,
                "style": game.style}

    def action_templates(self) -> tuple[str, ...]:
        return _TEMPLATES_211 if self.style == "2.1.1" else _TEMPLATES_04

    def canonical_action(self, action: str) -> str | None:
        text = str(action).strip()
        return text if _PATTERNS[self.style].match(text) else None

    def admissible(self) -> dict[str, tuple]:
        """Admissible command -> the engine action it runs (for tests and tools)."""
        return dict(commands(self.engine_state())) if self.task is not None else {}
