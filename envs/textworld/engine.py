"""``TextWorldEngine``: TextWorld games (Jericho's Z-machine + TextWorld's ``GameProgression``)
as a :class:`~treegym.envs.core.contract.Engine` and a
:class:`~treegym.envs.core.contract.LiveEngine`.

Pure ``step(state, action)`` (what the session server uses) thaws a copy of the state,
steps it and freezes the result: the input is never changed. In-process, ``EngineEnv``
steps a live value instead (``step_live``), so a step costs what textworld's own
``env.step`` costs plus building the observation. The ``GameProgression`` is copied on
write: ``thaw`` (a restore) and ``freeze`` (a snapshot) share it with the state they
take or make, and the first step after them steps a fork of it (``progression.py``), which
copies the shared parts only if the command changes the game's facts; steps in a row copy
nothing, a snapshot or restore copies nothing, and a search's restore-step-snapshot copies
at most once, without textworld's own ``copy`` (which rebuilds a progression from the
game's start first and costs up to a third of a step).

The engine keeps one textworld stack (``textworld.start``) per game file, loaded on first
use (~0.5 s; at most :data:`MAX_STACKS`, least recently used closed first) and time-shared
by live values: a stack remembers which live value it holds, and loads another one (its
Z-machine state and its own ``GameProgression``, no copy) only when that one steps.
A lock makes callers take turns (the session server's threads share one engine).
"""
from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from types import MappingProxyType
from typing import Any, Mapping, Sequence

import textworld
from textworld import EnvInfos
from textworld.core import GameState

from treegym.envs.core import TaskPool
from treegym.envs.core.contract import ExpertAdvice, StepResult, live_step
from treegym.envs.core.signed import StateSigner

from .gamefiles import TextWorldGame, load_games, shipped_splits
from .machine import Machine
from .progression import fork
from .state import FIELDS, FILE_COMMANDS, TextWorldLive, TextWorldState, clean_command, clean_feedback, shared_game

REQUEST = EnvInfos(admissible_commands=True, policy_commands=True, won=True, lost=True, score=True,
                   max_score=True, moves=True, objective=True, command_templates=True, feedback=True)
MAX_STACKS = 4
STATE_JSON_LIMIT = 8 * 1024 * 1024  # bytes of a restore request (a state carries Z-machine memory)


def game_pool(game_files: Sequence[str] | str | None = None, game_dir: str | None = None) -> TaskPool:
    """The shipped games by split, or your own ``game_files`` / ``game_dir`` (one split, ``all``)."""
    own = game_files is not None or game_dir is not None
    games = load_games(game_files, game_dir) if own else load_games()
    splits = {"all": sorted(games)} if own else shipped_splits()

    def check(task_id: Any) -> str:
        if task_id not in games:
            raise ValueError(f"unknown TextWorld game {task_id!r}; known: {sorted(games)}")
        return task_id

    return TaskPool(splits, check=check, default="test" if "test" in splits else "all", source="these games")


class _Stack:
    """One game file's live textworld env and the live value it currently holds."""

    def __init__(self, path: str):
        self.tw = textworld.start(path, request_infos=REQUEST)
        reset = self.tw.reset()  # turns on TextWorld's action tracing inside the Z-machine
        layers, e = {}, self.tw
        while e is not None:
            layers[type(e).__name__] = e
            e = getattr(e, "_wrapped_env", None)
        self.tracking = layers["StateTracking"]
        self.jericho = layers["JerichoEnv"]._jericho
        self.data = layers["Inform7Data"]
        self.machine = Machine(self.jericho)
        self.reset_state = reset
        self.owner: weakref.ref | None = None

    def holder(self) -> TextWorldLive | None:
        return None if self.owner is None else self.owner()

    def close(self) -> None:
        """Save the held value's machine state, then close textworld's env (Jericho's library with it)."""
        self.release()
        self.tw.close()
        self.jericho = self.tracking = self.data = self.reset_state = self.machine = None

    def release(self) -> None:
        """Save the machine state into the value the stack holds (so another one can be loaded)."""
        held = self.holder()
        if held is not None:
            held.jericho = self.machine.save()
        self.owner = None


class TextWorldEngine:
    """TextWorld games as an engine (see the module docstring); task specs are :class:`TextWorldGame`."""

    state_json_limit = STATE_JSON_LIMIT

    def __init__(self, game_files: Sequence[str] | str | None = None, game_dir: str | None = None):
        own = game_files is not None or game_dir is not None
        self.games: dict[str, TextWorldGame] = load_games(game_files, game_dir) if own else load_games()
        self.pool = game_pool(game_files, game_dir)
        self.default_split = self.pool.default
        self._paths = {g.path for g in self.games.values()}
        self._stacks: OrderedDict[str, _Stack] = OrderedDict()
        self._initial: dict[str, TextWorldState] = {}
        self._info: dict[str, Mapping[str, Any]] = {}
        self._lock = threading.RLock()
        self._signer = StateSigner("TextWorld state")
        # Close the stacks when the engine goes away unclosed (a server's engine, an env never closed): left to
        # the cycle collector, Jericho's FrotzEnv may be finalized (its library unloaded) before textworld's
        # JerichoEnv, whose __del__ then calls into the unloaded library (a segfault).
        self._finalizer = weakref.finalize(self, _close_stacks, self._stacks)

    # ------------------------------------------------------------------ tasks
    def splits(self) -> tuple[str, ...]:
        return self.pool.splits()

    def task_ids(self, split: str) -> tuple:
        return self.pool.ids(split)

    def canonical_task_id(self, task_id: Any) -> str:
        return self.pool.check(task_id)

    def task(self, task_id: Any) -> TextWorldGame:
        return self.games[self.pool.check(task_id)]

    def game_info(self, game_path: str) -> Mapping[str, Any]:
        """The game's objective, max score and command templates (read-only, from its ``.json``;
        read once per game: every observation asks)."""
        info = self._info.get(game_path)
        if info is None:
            game = shared_game(game_path)
            info = self._info[game_path] = MappingProxyType({
                "objective": game.objective, "max_score": int(game.max_score),
                "templates": tuple(game.command_templates)})
        return info

    def task_fields(self, task: TextWorldGame) -> dict[str, Any]:
        info = self.game_info(task.path)
        return {"objective": info["objective"], "max_score": info["max_score"]}

    def canonical_action(self, action: str) -> str | None:
        return clean_command(action).lower() or None

    # ------------------------------------------------------------------ the stacks
    def _stack(self, path: str) -> _Stack:
        stack = self._stacks.get(path)
        if stack is None:
            while len(self._stacks) >= MAX_STACKS:
                _path, old = self._stacks.popitem(last=False)
                old.close()
            stack = self._stacks[path] = _Stack(path)
        self._stacks.move_to_end(path)
        return stack

    def _hold(self, live: TextWorldLive) -> _Stack:
        """The stack of ``live``'s game, holding ``live`` (loaded into it unless it already holds it)."""
        stack = self._stack(live.game_path)
        if stack.holder() is live:
            stack.tracking._game_progression = live.progression  # (a copy on write replaced it)
            return stack
        stack.release()
        stack.machine.load(live.jericho)
        t = stack.tracking
        t._game_progression = live.progression          # owned by live: stepped in place from now on
        t._last_action = live.last_action
        t._previous_winning_policy = None if live.previous_policy is None else list(live.previous_policy)
        t._current_winning_policy = None if live.current_policy is None else list(live.current_policy)
        t._moves = live.tw_moves
        # Inform7Data carries score/moves over from its previous state when a step's text lacks them.
        stack.data.state = GameState(score=live.score, moves=live.moves)
        live.jericho = None
        stack.owner = weakref.ref(live)
        return stack

    # ------------------------------------------------------------------ Engine
    def initial_state(self, task: TextWorldGame, seed: int | None) -> TextWorldState:
        """The game's start (the same for every seed: the games are deterministic); reset once per game."""
        with self._lock:
            state = self._initial.get(task.path)
            if state is None:
                stack = self._stack(task.path)
                stack.release()
                gs = stack.tw.reset()
                t = stack.tracking
                state = TextWorldState(
                    game=task.game_id, game_path=task.path, jericho=stack.machine.save(),
                    progression=t._game_progression.copy(), last_action=t._last_action, previous_policy=None,
                    current_policy=_tuple(t._current_winning_policy), tw_moves=t._moves,
                    **_shown(gs))
                self._initial[task.path] = state
            if state.game != task.game_id:  # one file under two ids
                state = TextWorldState(**{**_fields(state), "game": task.game_id})
            return state

    def step(self, state: TextWorldState, action: str) -> StepResult[TextWorldState]:
        with self._lock:
            return live_step(self, state, action)

    def is_terminal(self, state: TextWorldState) -> bool:
        return bool(state.won or state.lost)

    def observe(self, state: TextWorldState) -> tuple[dict, dict]:
        info = self.game_info(state.game_path)
        over = state.won or state.lost
        obs = {"text": state.text, "instruction": info["objective"], "valid_actions": () if over else state.admissible}
        return obs, {"success": state.won, "won": state.won, "lost": state.lost, "score": state.score,
                     "max_score": info["max_score"], "moves": state.moves, "game": state.game}

    def expert(self, state: TextWorldState) -> ExpertAdvice:
        """TextWorld's winning policy from ``state`` (``EngineEnv`` marks it unsolvable when too long)."""
        if state.won:
            return ExpertAdvice((), 1.0, True)
        if state.lost or not state.policy:
            return ExpertAdvice((), 0.0, False)
        return ExpertAdvice(state.policy, 1.0, True)

    def state_to_json(self, state: TextWorldState) -> dict[str, str]:
        return self._signer.dumps(state)

    def state_from_json(self, data: Any) -> TextWorldState:
        state = self._signer.loads(data)
        if not isinstance(state, TextWorldState) or state.game_path not in self._paths:
            raise ValueError("this state is not a game of this server")
        return state

    # ------------------------------------------------------------------ LiveEngine
    def thaw(self, state: TextWorldState) -> TextWorldLive:
        return TextWorldLive(**_fields(state), base=state)  # shares state's progression until it steps

    def step_live(self, live: TextWorldLive, action: str) -> StepResult[TextWorldLive]:
        command = clean_command(action)
        verb = command.split(" ", 1)[0].lower()
        if verb in FILE_COMMANDS:
            # the interpreter would write (or read) a file in the working directory; the game never sees it
            live.text = (f"{verb!r} is turned off here: the interpreter's file commands (save, restore, script) "
                         "are not part of the game.")
            return StepResult(live, 0.0, bool(live.won or live.lost))
        if live.base is not None:  # the progression is a state's: step a fork (copied when textworld writes)
            live.progression, live.base = fork(live.progression), None
        with self._lock:
            stack = self._hold(live)
            gs, _score, _done = stack.tw.step(command)
            t = stack.tracking
            live.last_action, live.tw_moves = t._last_action, t._moves
            live.previous_policy, live.current_policy = t._previous_winning_policy, t._current_winning_policy
        before = live.score
        for name, value in _shown(gs).items():
            setattr(live, name, value)
        return StepResult(live, float(live.score - before), bool(live.won or live.lost))

    def peek(self, live: TextWorldLive) -> TextWorldLive:
        """``live`` itself: it has every field ``observe``, ``is_terminal`` and ``expert`` read (no copy)."""
        return live

    def freeze(self, live: TextWorldLive) -> TextWorldState:
        """The state ``live`` is in; shares its progression with ``live`` until ``live`` steps again."""
        if live.base is not None:
            return live.base
        with self._lock:
            jericho = live.jericho
            if jericho is None:
                jericho = self._stacks[live.game_path].machine.save()
            live.base = TextWorldState(**{**_fields(live), "jericho": jericho,
                                          "previous_policy": _tuple(live.previous_policy),
                                          "current_policy": _tuple(live.current_policy)})
            return live.base

    def close(self) -> None:
        """Close every game stack (a later step loads its game again)."""
        with self._lock:
            _close_stacks(self._stacks)


def _close_stacks(stacks: "OrderedDict[str, _Stack]") -> None:
    while stacks:
        _path, stack = stacks.popitem()
        stack.close()


def _fields(value: Any) -> dict[str, Any]:
    return {f: getattr(value, f) for f in FIELDS}


def _tuple(policy: Any) -> tuple | None:
    return None if policy is None else tuple(policy)


def _shown(gs: Any) -> dict[str, Any]:
    """The agent-visible fields of a TextWorld GameState."""
    return {"text": clean_feedback(gs["feedback"]), "admissible": tuple(gs["admissible_commands"] or ()),
            "policy": tuple(gs["policy_commands"] or ()), "won": bool(gs["won"]), "lost": bool(gs["lost"]),
            "score": int(gs["score"] or 0), "moves": int(gs["moves"] or 0)}
