"""``ALFWorldEngine``: ALFWorld's text games as a pure :class:`~treegym.envs.core.contract.Engine`.

A state (:class:`ALFWorldState`) is immutable: the fluent facts (a frozenset of
tuples, see :mod:`.rules`), the last observation text, the won flag and the
number of valid moves. A snapshot is a reference; states are hashable and
pickle to a few KB. The :class:`~.game.Game` (static facts, names) lives on
the task, never in a state.

Behaviour matches ALFWorld's official engine (textworld's ``PddlEnv`` with
ALFWorld's demangler): same observation text, same admissible commands (sorted,
deduplicated), same won condition (the problem's ``:goal``). An invalid
command answers "Nothing happens." and changes nothing (the env still counts
the step). ``reward`` is 1.0 on the winning step; a won game is terminal.
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from ..core.contract import ExpertAdvice, StepResult
from .game import STYLES, Game
from .pddl import holds, index_facts
from .rules import Action, applicable, apply, feedback, intro_text

NOTHING_HAPPENS = "Nothing happens."


@dataclass(frozen=True)
class ALFWorldState:
    """Everything that changes within an episode (see the module docstring)."""

    game: Game = field(repr=False, compare=False, hash=False)
    facts: frozenset
    text: str
    won: bool = False
    moves: int = 0
    last_command: str | None = None
    valid: bool = True
    # (command, feedback) of every step so far (what an agent has seen; the handcoded expert's memory)
    history: tuple = field(default=(), compare=False, hash=False, repr=False)

    def __getstate__(self) -> dict:
        return {k: getattr(self, k) for k in ("game", "facts", "text", "won", "moves", "last_command", "valid",
                                             "history")}

    def __setstate__(self, data: dict) -> None:
        object.__setattr__(self, "history", ())
        for k, v in data.items():
            object.__setattr__(self, k, v)


# Per game, command -> (command, action) as last offered: the commands of a game's states share
# their strings and action tuples, so a state's memo is a dict of references (cheap to drop).
_SHARED_COMMANDS: "weakref.WeakKeyDictionary[Game, dict[str, tuple[str, Action]]]" = weakref.WeakKeyDictionary()


def commands(state: ALFWorldState) -> dict[str, Action]:
    """Admissible command -> action (the first action offering that command, as the reference picks).

    Memoised on the (immutable) state, unpickled and not compared: a state restored many times (a
    search node, a group of forks) or observed and then stepped computes its commands once. Read-only.
    The strings and actions are shared with the game's other states (``_SHARED_COMMANDS``), so
    dropping a state (a fork replacing it) frees one dict, not a few dozen objects."""
    table = state.__dict__.get("_commands")
    if table is None:
        table = {}
        game = state.game
        shared = _SHARED_COMMANDS.get(game)
        if shared is None:
            shared = _SHARED_COMMANDS[game] = {}
        for cmd, action in applicable(game, state.facts):
            if cmd not in table:
                pair = shared.get(cmd)
                if pair is None or pair[1] != action:
                    pair = shared[cmd] = (cmd, action)
                table[pair[0]] = pair[1]
        object.__setattr__(state, "_commands", table)
    return table


def admissible_commands(state: ALFWorldState) -> list[str]:
    return list(sorted_commands(state))


def sorted_commands(state: ALFWorldState) -> tuple[str, ...]:
    """The admissible commands, sorted: memoised on the state as :func:`commands` is."""
    valid = state.__dict__.get("_sorted")
    if valid is None:
        valid = tuple(sorted(commands(state)))
        object.__setattr__(state, "_sorted", valid)
    return valid


def is_won(game: Game, facts: frozenset) -> bool:
    fluent = index_facts(facts)
    index = {**game.static_index, **fluent}  # static and fluent predicates are disjoint
    return holds(game.problem.goal, {}, index, game.objects_by_type)


def initial_state(game: Game) -> ALFWorldState:
    facts = game.init_facts
    return ALFWorldState(game=game, facts=facts, text=intro_text(game, facts), won=is_won(game, facts))


def step_state(state: ALFWorldState, command: str) -> ALFWorldState:
    command = str(command).strip()
    action = commands(state).get(command)
    if action is None:
        return ALFWorldState(game=state.game, facts=state.facts, text=NOTHING_HAPPENS, won=state.won,
                             moves=state.moves, last_command=command, valid=False,
                             history=state.history + ((command, NOTHING_HAPPENS),))
    game = state.game
    facts = apply(game, state.facts, action)
    text = feedback(game, state.facts, facts, action)
    return ALFWorldState(game=game, facts=facts, text=text, won=is_won(game, facts), moves=state.moves + 1,
                         last_command=command, history=state.history + ((command, text),))


class ALFWorldEngine:
    """The Engine over a set of games (``games``: task id -> Game loader), by split."""

    def __init__(self, splits: Mapping[str, Sequence[str]], loader: Any, style: str = "2.1.1"):
        if style not in STYLES:
            raise ValueError(f"style must be one of {STYLES}, got {style!r}")
        self._splits = {k: tuple(v) for k, v in splits.items()}
        self._loader = loader  # task_id -> Game (2.1.1 style); cached by the caller
        self.style = style
        self._all = {t for ids in self._splits.values() for t in ids}
        self._plans: dict[tuple, tuple[str, ...]] = {}

    # ------------------------------------------------------------------ tasks
    def splits(self) -> Sequence[str]:
        return tuple(self._splits)

    def task_ids(self, split: str) -> Sequence[str]:
        return self._splits[split]

    def task(self, task_id: Any) -> Game:
        if task_id not in self._all:
            sample = ", ".join(sorted(self._all)[:3])
            raise ValueError(f"unknown ALFWorld task id {task_id!r}; ids look like {sample}, ...")
        return self._loader(task_id).with_style(self.style)

    # ------------------------------------------------------------------ dynamics
    def initial_state(self, task: Game, seed: int | None) -> ALFWorldState:
        return initial_state(task)

    def step(self, state: ALFWorldState, action: str) -> StepResult:
        if state.won:
            return StepResult(state, 0.0, True)
        nxt = step_state(state, action)
        return StepResult(nxt, 1.0 if nxt.won else 0.0, nxt.won)

    def is_terminal(self, state: ALFWorldState) -> bool:
        return state.won

    def observe(self, state: ALFWorldState) -> tuple[dict, dict]:
        game = state.game
        # the official engine keeps listing the admissible commands on (and after) the winning step
        valid = sorted_commands(state)
        obs = {"text": state.text, "instruction": game.task_text, "valid_actions": valid}
        info = {
            "won": state.won, "success": state.won, "task_type": game.task_type,
            "admissible_commands": list(valid), "moves": state.moves,
            "gamefile": game.source,
            "invalid_action": not state.valid,
        }
        return obs, info

    # ------------------------------------------------------------------ expert
    def expert(self, state: ALFWorldState) -> ExpertAdvice:
        from .expert import plan_from

        if state.won:
            return ExpertAdvice(plan=(), value=1.0, solvable=True)
        key = (state.game.source, state.game.style)
        plan = self._plans.get((key, state.facts))
        if plan is None:
            plan = plan_from(state)
            if plan is not None:
                # remember the plan's suffix for every state along it (the oracle replays it step by step)
                s = state
                for i, cmd in enumerate(plan):
                    self._plans[(key, s.facts)] = tuple(plan[i:])
                    s = step_state(s, cmd)
                if len(self._plans) > 100_000:
                    self._plans.clear()
        if plan is None:
            return ExpertAdvice(plan=(), value=0.0, solvable=False)
        return ExpertAdvice(plan=tuple(plan), value=1.0, solvable=True)

    # ------------------------------------------------------------------ JSON
    def state_to_json(self, state: ALFWorldState) -> Any:
        return {"facts": sorted(list(f) for f in state.facts), "text": state.text, "won": state.won,
                "moves": state.moves, "last_command": state.last_command, "valid": state.valid,
                "history": [list(h) for h in state.history], "task_id": state.game.task_id}

    def state_from_json(self, data: Any) -> ALFWorldState:
        game = self.task(data["task_id"])
        return ALFWorldState(game=game, facts=frozenset(tuple(f) for f in data["facts"]), text=str(data["text"]),
                             won=bool(data["won"]), moves=int(data["moves"]), last_command=data.get("last_command"),
                             valid=bool(data.get("valid", True)),
                             history=tuple((str(c), str(t)) for c, t in data.get("history", ())))
