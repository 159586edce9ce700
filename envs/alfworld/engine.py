"""``ALFWorldEngine``: ALFWorld's text games as a pure :class:`~treegym.envs.core.contract.Engine`.

A state (:class:`ALFWorldState`) is immutable: the fluent facts (tuples, see :mod:`.rules`;
held as a difference from the game's initial facts, ``state.facts`` builds the frozenset), the last observation text, the won flag and the
number of valid moves (:mod:`.state`). A snapshot is a reference; states are
hashable and pickle to 1-2 KB (the game by its loader key, the facts as a
diff from the game's initial facts). The :class:`~.game.Game` (static facts,
names) is shared by every state of every episode on it.

Behaviour matches ALFWorld's official engine (textworld's ``PddlEnv`` with
ALFWorld's demangler): same observation text, same admissible commands (sorted,
deduplicated), same won condition (the problem's ``:goal``). An invalid
command answers "Nothing happens." and changes nothing (the env still counts
the step). ``reward`` is 1.0 on the winning step; a won game is terminal.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

from ..core.contract import ExpertAdvice, StepResult
from ..core.state_json import StateReader
from .game import STYLES, Game
from .state import (NOTHING_HAPPENS, ALFWorldState, admissible_commands, commands, initial_state, is_won,
                    sorted_commands, step_state)
from .expert import plan_from

__all__ = ["ALFWorldEngine", "ALFWorldState", "NOTHING_HAPPENS", "admissible_commands", "commands", "initial_state",
           "is_won", "sorted_commands", "step_state"]


#: length (predicate included) of the fluent facts the rules read by position (rules.View)
_FLUENT_ARITY = {"atlocation": 3, "holds": 3, "inreceptacle": 3, "opened": 2, "isclean": 2, "ishot": 2, "iscool": 2,
                 "issliced": 2, "istoggled": 2}


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
        nxt = step_state(state, action, with_commands=True)  # observed next: its facts are built once
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
        if state.won:
            return ExpertAdvice(plan=(), value=1.0, solvable=True)
        key = (state.game.source, state.game.style)
        plan = self._plans.get((key, state.removed, state.added))
        if plan is None:
            plan = plan_from(state)
            if plan is not None:
                # remember the plan's suffix for every state along it (the oracle replays it step by step)
                s = state
                for i, cmd in enumerate(plan):
                    self._plans[(key, s.removed, s.added)] = tuple(plan[i:])
                    s = step_state(s, cmd)
                if len(self._plans) > 20_000:  # bounded: each entry keeps a fact difference alive
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
        """Every field checked (``StateReader``): facts are lists of strings, history [command, text] pairs."""
        r = StateReader(data, "ALFWorld state")
        game = self.task(r.task_id())
        facts = frozenset(tuple(r.texts_of(f, f"facts[{i}]")) for i, f in enumerate(r.items("facts")))
        for fact in facts:
            arity = _FLUENT_ARITY.get(fact[0]) if fact else None
            if len(fact) < 2 or (arity is not None and len(fact) != arity):
                raise ValueError(f"ALFWorld state field 'facts' holds {list(fact)[:4]!r}, not a fact: a predicate and "
                                 f"its arguments ({', '.join(f'{p}/{n - 1}' for p, n in _FLUENT_ARITY.items())})")
        history = []
        for i, h in enumerate(r.items("history", [])):
            pair = r.texts_of(h, f"history[{i}]")
            if len(pair) != 2:
                raise r.fail(f"history[{i}]", "a [command, text] pair", h)
            history.append(tuple(pair))
        return ALFWorldState(game=game, facts=facts, text=r.text("text"), won=r.flag("won"),
                             moves=r.integer("moves", lo=0), last_command=r.optional("last_command", r.text_of),
                             valid=r.flag("valid", True), history=tuple(history))
