"""``treegym/TextWorld-v0``: TextWorld games (``.z8`` made by ``tw-make``) as a forkable Gymnasium env.

Needs the optional extra ``treegym[textworld]`` (``textworld`` 1.7, which
ships Inform7 and runs ``.z8`` games on Jericho's Z-machine).

* **Tasks**: ``split="fixtures"`` (default): the small games shipped in
  ``envs/textworld/data`` (simple, coin collector, treasure hunter, cooking),
  or ``games=[paths to .z8]`` for your own (each needs the ``.json`` that
  ``tw-make`` writes beside it). Task ids are the game file stems.
* **Action** (``str``): any text command; ``valid_actions`` lists TextWorld's
  admissible commands. Unknown commands get the game's own answer and count.
* **Observation**: ``text`` (the game's feedback), ``instruction`` (the
  game's objective), ``valid_actions``.
* **Info**: ``won``, ``lost``, ``success`` (= won), ``score``, ``max_score``,
  ``admissible_commands``, ``moves``, ``task_id``, ``steps``.
* **Reward**: the score gained by the step; ``terminated`` when won or lost;
  ``truncated`` after ``max_steps`` (default 100) steps.
* **Snapshot** (native): the Jericho machine state (``FrotzEnv.get_state()``:
  RAM, stack, PC, RNG) plus TextWorld's Python-side game progression, pickled
  to bytes with the game's read-only objects (the ``Game``, its knowledge base,
  quests and events) left out by name, the tracking wrapper's counters and a
  shallow copy of the last ``GameState`` (without its live references). So a
  snapshot is immutable and restores into another env on the same game file.
  Never ``env.copy()`` (reloads the story file and deep-copies the game) or
  deepcopy (fails on ctypes).
* **Expert**: TextWorld's ``policy_commands`` (the quest's winning policy from
  the current state).
"""
from __future__ import annotations

import io
import os
import pickle
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Sequence

from ..core.contract import ExpertAdvice
from ..core.forkable import ForkableEnv
from ..core.spaces import action_space, text_observation_space

DEFAULT_MAX_STEPS = 100
FIXTURE_SPLIT = "fixtures"


def fixture_games() -> dict[str, str]:
    """task id (file stem) -> path of the shipped ``.z8`` fixtures."""
    ref = resources.files("treegym.envs.textworld").joinpath("data")
    with resources.as_file(ref) as path:
        return {p.stem: str(p) for p in sorted(Path(path).glob("*.z8"))}


def _infos():
    import textworld

    return textworld.EnvInfos(admissible_commands=True, won=True, lost=True, score=True, max_score=True,
                              objective=True, policy_commands=True, moves=True)


_LIVE_KEYS = ("game", "_game_progression")


def _shared(game: Any) -> dict[int, tuple[str, Any]]:
    """The game's read-only objects a progression points to, by a name stable across processes."""
    named = {"game": game, "kb": game.kb, "logic": game.kb.logic}
    for i, quest in enumerate(game.quests):
        named[f"quest{i}"] = quest
        for kind in ("win_events", "fail_events"):
            for j, event in enumerate(getattr(quest, kind, ()) or ()):
                named[f"quest{i}.{kind}{j}"] = event
    return {id(obj): (name, obj) for name, obj in named.items()}


def _freeze_progression(progression: Any, game: Any) -> bytes:
    """Pickle a GameProgression with the game's shared objects left out (as names), so the bytes
    hold only the episode's own state (facts, quest trees): immutable, small, restorable anywhere."""
    shared = _shared(game)

    class _Pickler(pickle.Pickler):
        def persistent_id(self, obj: Any) -> str | None:
            hit = shared.get(id(obj))
            return hit[0] if hit is not None and hit[1] is obj else None

    buf = io.BytesIO()
    _Pickler(buf, protocol=pickle.HIGHEST_PROTOCOL).dump(progression)
    return buf.getvalue()


def _thaw_progression(blob: bytes, game: Any) -> Any:
    by_name = {name: obj for name, obj in _shared(game).values()}

    class _Unpickler(pickle.Unpickler):
        def persistent_load(self, pid: str) -> Any:
            return by_name[pid]

    return _Unpickler(io.BytesIO(blob)).load()


def _detached(game_state: Any) -> dict:
    """A shallow copy of a GameState without its references to live objects (the game, the progression)."""
    return {k: v for k, v in game_state.items() if k not in _LIVE_KEYS}


def _attached(data: dict, game: Any, progression: Any) -> Any:
    from textworld.core import GameState

    gs = GameState(data)
    gs["game"] = game
    gs["_game_progression"] = progression
    return gs


@dataclass(frozen=True)
class TextWorldState:
    """One snapshot payload (see the module docstring); treat as immutable."""

    task_id: str
    jericho: Any
    progression: bytes
    last_action: Any
    moves: int
    previous_policy: Any
    current_policy: Any
    game_state: dict
    prev_game_state: Any
    last_score: float


class TextWorldEnv(ForkableEnv):
    """TextWorld ``.z8`` games on Jericho (see the module docstring)."""

    metadata = {"render_modes": ["ansi"]}
    snapshot_kind = "native"

    def __init__(self, split: str | None = None, task_ids: Sequence[str] | None = None,
                 games: Sequence[str | os.PathLike] | None = None, max_steps: int = DEFAULT_MAX_STEPS,
                 render_mode: str | None = None):
        try:
            import textworld  # noqa: F401
        except ImportError as exc:
            raise ImportError("treegym/TextWorld-v0 needs textworld: pip install 'treegym[textworld]'") from exc
        super().__init__(max_steps=max_steps, render_mode=render_mode)
        if games is not None:
            paths = {Path(g).stem: os.fspath(g) for g in games}
        else:
            if split not in (None, FIXTURE_SPLIT):
                raise ValueError(f"unknown split {split!r}: use split={FIXTURE_SPLIT!r} or games=[paths to .z8 files]")
            paths = fixture_games()
        for tid, p in paths.items():
            if not str(p).endswith(".z8") or not Path(p).is_file():
                raise ValueError(f"TextWorld game {p} is not an existing .z8 file")
            if not Path(p).with_suffix(".json").is_file():
                raise ValueError(f"{p} has no {Path(p).with_suffix('.json').name} beside it (tw-make writes one)")
        self._paths = paths
        pool = tuple(task_ids) if task_ids is not None else tuple(paths)
        unknown = [t for t in pool if t not in paths]
        if unknown or not pool:
            raise ValueError(f"unknown TextWorld task ids {unknown}; known: {', '.join(paths)}")
        self._pool = pool
        self._init_kwargs = {"split": split, "task_ids": task_ids, "games": games, "max_steps": max_steps,
                             "render_mode": render_mode}
        self.observation_space = text_observation_space()
        self.action_space = action_space()
        self._envs: dict[str, Any] = {}
        self.task: str | None = None
        self._tw = None
        self._last_score = 0.0

    # ------------------------------------------------------------------ tasks
    @classmethod
    def task_counts(cls) -> dict[str, int]:
        return {FIXTURE_SPLIT: len(fixture_games())}

    @classmethod
    def split_task_ids(cls, split: str) -> list[str]:
        if split != FIXTURE_SPLIT:
            raise ValueError(f"TextWorld has one shipped split, {FIXTURE_SPLIT!r}")
        return list(fixture_games())

    def _env_for(self, task_id: str):
        if task_id not in self._envs:
            import warnings

            import textworld

            with warnings.catch_warnings():
                # Jericho warns that TextWorld games are "not fully supported": score, moves and
                # admissible commands come from TextWorld's own tracking instead, as intended.
                warnings.filterwarnings("ignore", message=".*is not fully supported.*")
                self._envs[task_id] = textworld.start(self._paths[task_id], request_infos=_infos())
        return self._envs[task_id]

    # ------------------------------------------------------------------ internals
    def _layers(self):
        """(StateTracking, Inform7Data, JerichoEnv) of the current game's wrapper stack."""
        tracking = self._tw._wrapped_env
        i7data = tracking._wrapped_env
        node = i7data
        while not hasattr(node, "_jericho"):
            node = node._wrapped_env
        return tracking, i7data, node

    def _observe(self) -> tuple[dict, dict]:
        st = self._gs
        won, lost = bool(st.get("won")), bool(st.get("lost"))
        adm = tuple(st.get("admissible_commands") or ())
        over = won or lost or (self.max_steps is not None and self.steps >= self.max_steps)
        obs = {"text": str(st.get("feedback") or ""), "instruction": str(st.get("objective") or ""),
               "valid_actions": () if over else adm}
        info = {"won": won, "lost": lost, "success": won, "score": float(st.get("score") or 0),
                "max_score": float(st.get("max_score") or 0), "admissible_commands": list(adm),
                "moves": int(st.get("moves") or 0), "task_id": self.task, "steps": self.steps}
        self._last_text = obs["text"]
        return obs, info

    # ------------------------------------------------------------------ Gymnasium API
    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        super().reset(seed=seed)
        options = dict(options or {})
        if options.get("task_id") is not None:
            task_id = options["task_id"]
            if task_id not in self._paths:
                raise ValueError(f"unknown TextWorld task id {task_id!r}; known: {', '.join(self._paths)}")
        elif seed is not None:
            task_id = self._pool[seed % len(self._pool)]
        elif self.task in self._pool:
            task_id = self._pool[(self._pool.index(self.task) + 1) % len(self._pool)]
        else:
            task_id = self._pool[0]
        self.task = task_id
        self._tw = self._env_for(task_id)
        self._gs = self._tw.reset()
        self.steps = 0
        self._last_score = float(self._gs.get("score") or 0)
        return self._observe()

    def step(self, action: Any) -> tuple[dict, float, bool, bool, dict]:
        if self._tw is None:
            raise RuntimeError("call reset() before step()")
        done = bool(self._gs.get("won") or self._gs.get("lost"))
        over = self.max_steps is not None and self.steps >= self.max_steps
        if done or over:
            obs, info = self._observe()
            info["message"] = "Invalid action: the episode is over; call reset() to play again."
            return obs, 0.0, done, over and not done, info
        text = " ".join(str(action).split()) or "look"
        self._gs, _score, _done = self._tw.step(text)
        score = float(self._gs.get("score") or 0)
        reward, self._last_score = score - self._last_score, score
        truncated = self._count_step()
        obs, info = self._observe()
        terminated = bool(info["won"] or info["lost"])
        return obs, reward, terminated, truncated and not terminated, info

    # ------------------------------------------------------------------ snapshot hooks
    def _get_state(self) -> TextWorldState:
        tracking, i7data, jer = self._layers()
        # the Game is the env's read-only data: referenced on restore, never in a snapshot
        progression = _freeze_progression(tracking._game_progression, tracking._game)
        return TextWorldState(
            task_id=self.task, jericho=jer._jericho.get_state(), progression=progression,
            last_action=tracking._last_action, moves=tracking._moves,
            previous_policy=None if tracking._previous_winning_policy is None else tuple(tracking._previous_winning_policy),
            current_policy=None if tracking._current_winning_policy is None else tuple(tracking._current_winning_policy),
            game_state=_detached(self._gs), prev_game_state=None if i7data._prev_state is None else _detached(i7data._prev_state),
            last_score=self._last_score,
        )

    def _set_state(self, state: TextWorldState) -> None:
        fresh = state.task_id not in self._envs
        self._tw = self._env_for(state.task_id)
        if fresh:
            self._tw.reset()  # sets up the wrappers' per-episode fields once; everything is overwritten below
        tracking, i7data, jer = self._layers()
        jer._jericho.set_state(state.jericho)
        progression = _thaw_progression(state.progression, tracking._game)
        tracking._game_progression = progression
        tracking._last_action = state.last_action
        tracking._moves = state.moves
        tracking._previous_winning_policy = None if state.previous_policy is None else list(state.previous_policy)
        tracking._current_winning_policy = None if state.current_policy is None else list(state.current_policy)
        gs = _attached(state.game_state, tracking._game, progression)
        for layer in (self._tw, tracking, i7data, jer):
            layer.state = gs
        i7data._prev_state = (None if state.prev_game_state is None
                              else _attached(state.prev_game_state, tracking._game, progression))
        jer._reset = True
        self._gs = gs
        self._last_score = state.last_score

    # ------------------------------------------------------------------ contract
    def task_fields(self) -> dict[str, Any]:
        return {"objective": str(self._gs.get("objective") or "")} if self._tw is not None else {}

    def expert(self) -> ExpertAdvice | None:
        if self._tw is None:
            return None
        if self._gs.get("won"):
            return ExpertAdvice(plan=(), value=1.0)
        plan = tuple(self._gs.get("policy_commands") or ())
        if not plan:
            return ExpertAdvice(plan=(), value=0.0, solvable=False)
        return ExpertAdvice(plan=plan, value=1.0)

    def expert_action(self) -> str | None:
        advice = self.expert()
        return None if advice is None else advice.next_action

    def close(self) -> None:
        for env in self._envs.values():
            try:
                env.close()
            except Exception:  # noqa: BLE001 - closing a half-started game must not mask the caller's error
                pass
        self._envs.clear()
        self._tw = None
