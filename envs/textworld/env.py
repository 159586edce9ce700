"""``treegym/TextWorld-v0``: TextWorld games (``.z8``, made by ``tw-make``) as a forkable env.

Played by TextWorld's own stack (``textworld.start``: Jericho's Z-machine plus
TextWorld's Python-side ``GameProgression``), needs ``pip install 'treegym[textworld]'``.

* **Action** (a ``str``): any text command (``go north``, ``take coin``). Commands
  the game does not understand are answered by the game ("That's not a verb I
  recognise.") and count as a step; nothing raises. Characters outside ASCII,
  line breaks and backslashes (Frotz's meta-command prefix) are replaced by spaces, and commands cut
  to 190 characters, before the command reaches the game. The interpreter's file commands (``save``,
  ``restore``, ``script``, ...) never reach it: they answer that they are turned off (and count a step).
* **Observation** (dict): ``text`` (the game's feedback, the status line
  removed), ``instruction`` (the game's objective), ``valid_actions``
  (TextWorld's admissible commands, sorted).
* **info**: ``success`` (= ``won``), ``won``, ``lost``, ``score``,
  ``max_score``, ``moves`` (TextWorld's count of state-changing actions),
  ``game`` (the task id).
* **Reward**: the score gained by the step. ``terminated`` when the game is won
  or lost; ``truncated`` at ``max_steps`` (default 100, in the env's state).
* **Tasks**: the shipped games (``split=`` ``train``/``test``/``all``; task id =
  the file stem, e.g. ``coin_1``), or the user's games with ``game_files=`` /
  ``game_dir=`` (split ``all``).
* **Snapshot** (native): a :class:`TextWorldState` value: Jericho's machine
  state (RAM, stack, registers, RNG; ``FrotzEnv.get_state``), a copy of
  TextWorld's ``GameProgression`` (facts and quest progress) and the wrapper
  fields a step reads, plus what the agent saw. Never ``env.copy()`` or deepcopy.
  It restores into any env on the same game file (also after pickling); 1-9 ms per snapshot+restore.
* **Contract**: ``expert()`` is TextWorld's winning policy from the current state
  (``policy_commands``); ``action_templates()`` the game's command templates
  (``take <o>``); ``task_fields()`` the objective and max score.
"""
from __future__ import annotations

import functools
import io
import numbers
import pickle
import re
from dataclasses import dataclass, replace
from typing import Any, Sequence

from treegym.envs.core import ForkableEnv, TaskPool, action_space, text_observation_space
from treegym.envs.core.contract import ExpertAdvice

from .gamefiles import GameFileError, TextWorldGame, load_games, shipped_splits

try:
    import textworld
    from textworld import EnvInfos
    from textworld.core import GameState
    from textworld.generator.game import Game
except ImportError as exc:  # pragma: no cover - exercised without the extra
    raise ImportError(
        "treegym/TextWorld-v0 needs textworld: pip install 'treegym[textworld]'"
    ) from exc

DEFAULT_MAX_STEPS = 100
_REQUEST = EnvInfos(admissible_commands=True, policy_commands=True, won=True, lost=True, score=True,
                    max_score=True, moves=True, objective=True, command_templates=True, feedback=True)
_STATUS_LINE = re.compile(r"\n>\s*-=.*?=-\s*-?\d+/\d+\s*$", re.S)
_SLOT = re.compile(r"\{(\w+)\}")
# Inform's file verbs: the interpreter saves, restores or logs to a file in the working directory.
FILE_COMMANDS = frozenset({"save", "restore", "load", "script", "transcript", "unscript", "noscript",
                           "recording", "replay", "playback"})


def clean_feedback(text: str) -> str:
    """The game's text without the trailing prompt and status line (``>   -= Room =-0/3``)."""
    text = _STATUS_LINE.sub("", text or "")
    return re.sub(r"\n{3,}", "\n\n", text).strip()


def clean_command(action: Any) -> str:
    """One line of ASCII the Z-machine accepts: other characters become spaces, at most 190 characters
    (the Z-machine's input buffer; Jericho would truncate longer commands with a warning).

    A backslash also becomes a space: Frotz reads a line starting with ``\\`` as one of its own
    meta-commands (``\\c``, ``\\q``) and would wait forever for more input."""
    text = "".join(ch if 32 <= ord(ch) < 127 and ch != "\\" else " " for ch in str(action))
    return " ".join(text.split())[:190].strip()


@dataclass(frozen=True, eq=False)
class TextWorldState:
    """One moment of a game (a snapshot holds it as is; restore copies out of it).

    ``jericho`` is ``FrotzEnv.get_state()`` (numpy arrays, never mutated),
    ``progression`` a private ``GameProgression`` copy, ``last_action``,
    ``previous_policy``/``current_policy`` and ``tw_moves`` TextWorld's
    state-tracking fields; the rest is what the agent saw.
    """

    game_path: str
    jericho: Any
    progression: Any
    last_action: Any
    previous_policy: tuple | None
    current_policy: tuple | None
    tw_moves: int
    text: str
    admissible: tuple[str, ...]
    policy: tuple[str, ...]
    won: bool
    lost: bool
    score: int
    moves: int

    def __reduce__(self):
        # The progression references the game's rules (Game, KnowledgeBase, GameLogic): large, read-only,
        # and holding lazily filled caches. They are pickled as references to the game file, never copied.
        buf = io.BytesIO()
        pickler = _GamePickler(buf, self.progression.game)
        pickler.dump(tuple(getattr(self, f) for f in self.__dataclass_fields__))
        return _unpickle_state, (self.game_path, buf.getvalue())


@functools.lru_cache(maxsize=32)
def _shared_game(game_path: str) -> Any:
    """The read-only TextWorld ``Game`` of a ``.z8`` (from its ``.json``), loaded once per process."""
    return Game.load(str(game_path).rsplit(".", 1)[0] + ".json")


def _shared_parts(game: Any) -> dict[str, Any]:
    return {"game": game, "kb": game.kb, "logic": game.kb.logic}


class _GamePickler(pickle.Pickler):
    def __init__(self, file, game: Any):
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self._ids = {id(v): k for k, v in _shared_parts(game).items()}

    def persistent_id(self, obj: Any) -> str | None:
        return self._ids.get(id(obj))


def _unpickle_state(game_path: str, data: bytes) -> "TextWorldState":
    parts = _shared_parts(_shared_game(game_path))

    class _Unpickler(pickle.Unpickler):
        def persistent_load(self, pid: str) -> Any:
            return parts[pid]

    return TextWorldState(*_Unpickler(io.BytesIO(data)).load())


class TextWorldEnv(ForkableEnv):
    """TextWorld games through Jericho (see the module docstring)."""

    metadata = {"render_modes": ["ansi"]}
    snapshot_kind = "native"
    pure_observe = True  # _observe reads the state only (restore_as)
    snapshot_cost_seconds = 5e-3  # measured 1-9 ms (scripts/bench_textworld.py); mostly GameProgression.copy()

    def __init__(self, split: str | None = None, task_ids: Sequence[str] | None = None,
                 game_files: Sequence[str] | str | None = None, game_dir: str | None = None,
                 max_steps: int = DEFAULT_MAX_STEPS, render_mode: str | None = None):
        if isinstance(max_steps, bool) or not isinstance(max_steps, numbers.Integral) or max_steps < 1:
            raise ValueError(f"max_steps must be a positive integer, got {max_steps!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        super().__init__(max_steps=int(max_steps), render_mode=render_mode)
        self._init_kwargs = {"split": split, "task_ids": None if task_ids is None else tuple(task_ids),
                             "game_files": game_files, "game_dir": game_dir, "max_steps": int(max_steps),
                             "render_mode": render_mode}
        own = game_files is not None or game_dir is not None
        self._games = load_games(game_files, game_dir) if own else load_games()
        self._task_pool = self.default_task_pool(game_files, game_dir)
        self._pool = self._task_pool.select(split, [task_ids] if isinstance(task_ids, str) else task_ids)
        self.observation_space = text_observation_space()
        self.action_space = action_space()
        self._tw = None          # the live textworld env (TWInform7 stack) of self._tw_path
        self._tw_path: str | None = None
        self.state: TextWorldState | None = None
        self.task: str | None = None

    # ------------------------------------------------------------------ tasks (envs/core/task_pool.py)
    @classmethod
    def default_task_pool(cls, game_files: Sequence[str] | str | None = None,
                          game_dir: str | None = None) -> TaskPool:
        """The shipped games by split, or your own ``game_files`` / ``game_dir`` (one split, ``all``)."""
        own = game_files is not None or game_dir is not None
        games = load_games(game_files, game_dir) if own else load_games()
        splits = {"all": sorted(games)} if own else shipped_splits()

        def check(task_id: Any) -> str:
            if task_id not in games:
                raise ValueError(f"unknown TextWorld game {task_id!r}; known: {sorted(games)}")
            return task_id

        return TaskPool(splits, check=check, default="test" if "test" in splits else "all", source="these games")

    @classmethod
    def split_task_ids(cls, split: str, game_files: Sequence[str] | str | None = None,
                       game_dir: str | None = None) -> list[str]:
        return list(cls.default_task_pool(game_files, game_dir).ids(split))

    def _choose(self, seed: int | None, options: dict) -> str:
        return self._task_pool.choose(self._pool, self.task, seed, options)

    # ------------------------------------------------------------------ the TextWorld stack
    def _load(self, path: str) -> None:
        """Make ``path`` the live game (loading costs ~0.5 s, so the same game is kept)."""
        if self._tw is not None and self._tw_path == path:
            return
        self.close()
        self._tw = textworld.start(path, request_infos=_REQUEST)
        self._tw_path = path
        self._tw.reset()  # turns on TextWorld's action tracing inside the Z-machine

    def _layers(self):
        layers, e = {}, self._tw
        while e is not None:
            layers[type(e).__name__] = e
            e = getattr(e, "_wrapped_env", None)
        return layers

    def _capture(self, gs: Any) -> TextWorldState:
        """Freeze the live game plus the agent-visible fields of ``gs`` (a TextWorld GameState)."""
        layers = self._layers()
        tracking, jericho = layers["StateTracking"], layers["JerichoEnv"]._jericho
        prev, cur = tracking._previous_winning_policy, tracking._current_winning_policy
        return TextWorldState(
            game_path=self._tw_path, jericho=jericho.get_state(),
            progression=tracking._game_progression.copy(), last_action=tracking._last_action,
            previous_policy=None if prev is None else tuple(prev),
            current_policy=None if cur is None else tuple(cur), tw_moves=tracking._moves,
            text=clean_feedback(gs["feedback"]), admissible=tuple(gs["admissible_commands"] or ()),
            policy=tuple(gs["policy_commands"] or ()), won=bool(gs["won"]), lost=bool(gs["lost"]),
            score=int(gs["score"] or 0), moves=int(gs["moves"] or 0),
        )

    # ------------------------------------------------------------------ snapshot hooks
    def _get_state(self) -> TextWorldState:
        return self.state

    def _set_state(self, state: TextWorldState) -> None:
        self._load(state.game_path)
        layers = self._layers()
        layers["JerichoEnv"]._jericho.set_state(state.jericho)
        tracking = layers["StateTracking"]
        tracking._game_progression = state.progression.copy()   # the snapshot's copy stays untouched
        tracking._last_action = state.last_action
        tracking._previous_winning_policy = None if state.previous_policy is None else list(state.previous_policy)
        tracking._current_winning_policy = None if state.current_policy is None else list(state.current_policy)
        tracking._moves = state.tw_moves
        # Inform7Data carries score/moves over from its previous state when a step's text lacks them.
        layers["Inform7Data"].state = GameState(score=state.score, moves=state.moves)
        self.state = state

    def _observe(self) -> tuple[dict, dict]:
        st, game = self.state, self._game_json
        self._last_text = st.text
        over = st.won or st.lost or (self.max_steps is not None and self.steps >= self.max_steps)
        obs = {"text": st.text, "instruction": game["objective"],
               "valid_actions": () if over else st.admissible}
        info = {"success": st.won, "won": st.won, "lost": st.lost, "score": st.score,
                "max_score": game["max_score"], "moves": st.moves, "game": self.task}
        return obs, info

    @property
    def _game_json(self) -> dict:
        game = self._layers()["GameData"]._game
        return {"objective": game.objective, "max_score": int(game.max_score),
                "templates": tuple(game.command_templates)}

    # ------------------------------------------------------------------ the env-agent contract
    def task_fields(self) -> dict[str, Any]:
        g = self._game_json
        return {"objective": g["objective"], "max_score": g["max_score"]}

    def action_templates(self) -> tuple[str, ...]:
        if self._tw is None:
            return ()
        return tuple(_SLOT.sub(r"<\1>", t) for t in self._game_json["templates"])

    def canonical_action(self, action: str) -> str | None:
        text = clean_command(action).lower()
        return text or None

    def expert(self) -> ExpertAdvice | None:
        st = self.state
        if st is None:
            return None
        if st.won:
            return ExpertAdvice((), 1.0, True)
        left = None if self.max_steps is None else self.max_steps - self.steps
        if st.lost or not st.policy or (left is not None and len(st.policy) > left):
            return ExpertAdvice((), 0.0, False)
        return ExpertAdvice(st.policy, 1.0, True)

    # ------------------------------------------------------------------ Gymnasium API
    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        super().reset(seed=seed)
        game_id = self._choose(seed, dict(options or {}))
        self._load(self._games[game_id].path)
        self.task = game_id
        self.steps = 0
        self.state = self._capture(self._tw.reset())
        return self._observe()

    def step(self, action: Any) -> tuple[dict, float, bool, bool, dict]:
        st = self.state
        if st is None:
            raise RuntimeError("call reset() before step()")
        if st.won or st.lost or (self.max_steps is not None and self.steps >= self.max_steps):
            why = "the game is over" if (st.won or st.lost) else f"the step limit ({self.max_steps}) is reached"
            obs, info = self._observe()
            obs["text"] = f"Invalid action: {why}; call reset() to play again."
            return obs, 0.0, st.won or st.lost, not (st.won or st.lost), info
        command = clean_command(action)
        if command.split(" ", 1)[0].lower() in FILE_COMMANDS:
            # the interpreter would write (or read) a file in the working directory; the game never sees it
            self.state = replace(st, text=f"{command.split(' ', 1)[0]!r} is turned off here: the interpreter's "
                                          "file commands (save, restore, script) are not part of the game.")
        else:
            gs, _score, _done = self._tw.step(command)
            self.state = self._capture(gs)
        truncated = self._count_step()
        obs, info = self._observe()
        reward = float(self.state.score - st.score)
        terminated = self.state.won or self.state.lost
        return obs, reward, terminated, truncated and not terminated, info

    def close(self) -> None:
        if self._tw is not None:
            self._tw.close()
        self._tw, self._tw_path = None, None


__all__ = ["TextWorldEnv", "TextWorldState", "TextWorldGame", "GameFileError", "clean_feedback", "clean_command"]
