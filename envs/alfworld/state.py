"""ALFWorld's episode state and dynamics: :class:`ALFWorldState`, admissible commands, step, won test.

Shared by the engine (:mod:`.engine`), the experts (:mod:`.expert`, :mod:`.handcoded`) and the
generator; it imports none of them.

A state is immutable: the fluent facts (tuples, see :mod:`.rules`; held as the difference from the
game's initial facts, two small sorted tuples of facts shared per game, so a state owns a few
references and dropping one is cheap; :attr:`~ALFWorldState.facts` builds the frozenset), the last
observation text, the won flag, the number of valid moves, the last command and the episode's
(command, feedback) history (linked cells shared with the states before it). It refers to its
:class:`~.game.Game` (shared, static) but never pickles it: a pickled state holds the game's loader
key (:meth:`~.game.Game.__reduce__`), its facts as a diff from the game's initial facts and its
history as pairs, so it is 1-2 KB (mostly the history) and loads in a fresh process.

The won test is the game's compiled goal (:mod:`.goal`), re-evaluated on a step only when the
step changed a fact the goal mentions.
"""
from __future__ import annotations

import weakref
from bisect import bisect_left
from dataclasses import dataclass, field
from typing import Iterable

from ..core.value_table import ValueTable
from .game import Game
from .goal import goal_checker
from .rules import Action, applicable, changes, feedback, intro_text

NOTHING_HAPPENS = "Nothing happens."


_EMPTY: tuple = ()


def _difference(facts: Iterable[tuple] | None, game: Game) -> tuple:
    """A fact difference as a state holds it: a sorted tuple (equal sets give equal tuples), one per
    game and value (:data:`_DIFFS`): states with the same difference share it, so dropping a state
    (a fork replacing it) frees no difference."""
    return _table(_DIFFS, game).one(tuple(sorted(facts))) if facts else _EMPTY


def _table(tables: "weakref.WeakKeyDictionary[Game, ValueTable]", game: Game) -> ValueTable:
    """``game``'s table in ``tables`` (``envs/core/value_table.py``: one object per value, bounded;
    made on first use)."""
    table = tables.get(game)
    if table is None:
        table = tables[game] = ValueTable(_TABLE_LIMIT)
    return table


def _linked(history: Iterable[tuple[str, str]]) -> tuple | None:
    """(command, feedback) pairs as the linked cells a state holds (``ALFWorldState.trail``)."""
    trail = None
    for command, feedback in history:
        trail = (trail, command, feedback)
    return trail


# Per game, fact -> the one tuple standing for it (the game's initial facts, then every fact a step
# adds): the differences states hold refer to these, so dropping a state frees no fact.
_FACTS: "weakref.WeakKeyDictionary[Game, dict[tuple, tuple]]" = weakref.WeakKeyDictionary()
# Per game, difference -> the one tuple standing for it (see _difference).
_DIFFS: "weakref.WeakKeyDictionary[Game, ValueTable]" = weakref.WeakKeyDictionary()
_TABLE_LIMIT = 50_000  # entries per game in each table of shared tuples (cleared when full)


def _fact_pool(game: Game) -> dict[tuple, tuple]:
    pool = _FACTS.get(game)
    if pool is None:
        pool = _FACTS[game] = {f: f for f in game.init_facts}
    return pool


@dataclass(frozen=True, init=False, slots=True)
class ALFWorldState:
    """Everything that changes within an episode (see the module docstring).

    The fluent facts are held as their difference from the game's initial facts (``removed``,
    ``added``: sorted tuples, a few facts after a few steps), so a state owns a handful of references
    and dropping one (a fork replacing a sub-env's state) frees little; :attr:`facts` builds the full
    frozenset when asked. Built with ``facts=`` (a full set) or with ``removed=``/``added=`` (any
    iterables of facts). Slotted (no instance dict): one object fewer per state."""

    game: Game = field(repr=False, compare=False, hash=False)
    removed: tuple  # initial facts that no longer hold, sorted
    added: tuple    # facts that hold and are not initial, sorted
    text: str
    won: bool
    moves: int
    last_command: str | None
    valid: bool
    # the episode's steps as linked cells (earlier cell, command, feedback), None at the start: a step
    # adds one cell and shares the rest, and dropping a state frees its own cells only (``history``)
    trail: tuple | None = field(compare=False, hash=False, repr=False)
    # memo (sorted_commands): the admissible commands, and the actions where they differ from the game's shared ones
    _sorted: tuple | None = field(init=False, compare=False, hash=False, repr=False)
    _overrides: dict | None = field(init=False, compare=False, hash=False, repr=False)

    def __init__(self, game: Game, facts: frozenset | None = None, text: str = "", won: bool = False,
                 moves: int = 0, last_command: str | None = None, valid: bool = True, history: tuple = (),
                 removed: Iterable[tuple] | None = None, added: Iterable[tuple] | None = None,
                 trail: tuple | None = None):
        if facts is not None:  # wins over removed/added (dataclasses.replace(state, facts=...) passes all three)
            init = game.init_facts
            if facts is init:
                removed = added = _EMPTY
            else:
                facts = frozenset(facts)
                removed, added = init - facts, facts - init
        put = object.__setattr__
        put(self, "game", game)
        put(self, "removed", _difference(removed, game))
        put(self, "added", _difference(added, game))
        put(self, "text", text)
        put(self, "won", won)
        put(self, "moves", moves)
        put(self, "last_command", last_command)
        put(self, "valid", valid)
        put(self, "trail", _linked(history) if trail is None else trail)
        put(self, "_sorted", None)
        put(self, "_overrides", None)

    @property
    def history(self) -> tuple[tuple[str, str], ...]:
        """(command, feedback) of every step so far, first to last (what an agent has seen; the
        handcoded expert's memory), built from :attr:`trail`."""
        pairs = []
        cell = self.trail
        while cell is not None:
            cell, command, feedback = cell
            pairs.append((command, feedback))
        pairs.reverse()
        return tuple(pairs)

    @property
    def facts(self) -> frozenset:
        """The fluent facts that hold (a frozenset of tuples, :mod:`.rules`), built from the game's
        initial facts and this state's difference (the initial set itself when there is none)."""
        removed, added = self.removed, self.added
        init = self.game.init_facts
        if removed:
            return init.difference(removed).union(added) if added else init.difference(removed)
        return init.union(added) if added else init


def _pickled(self: ALFWorldState) -> dict:
    """The game (pickled by its loader key), the facts as a diff from its initial facts, the rest; and,
    once computed, the admissible commands with their actions (so a state restored in another process
    is observed and stepped without working them out again: a cold restore costs less than a step)."""
    data = {k: getattr(self, k) for k in ("game", "text", "won", "moves", "last_command", "valid", "history")}
    data["facts_removed"] = self.removed
    data["facts_added"] = self.added
    if self._sorted is not None:
        data["commands"] = (self._sorted, tuple(action_of(self, c) for c in self._sorted))
    return data


def _unpickled(self: ALFWorldState, data: dict) -> None:
    """Rebuild a state from :func:`_pickled`'s dict (or an older pickle holding the full facts)."""
    data = dict(data)
    put = object.__setattr__
    put(self, "_sorted", None)
    put(self, "_overrides", None)
    if "facts" in data:  # pickled before the facts were held as a difference
        facts = data.pop("facts")
        init = data["game"].init_facts
        data["facts_removed"], data["facts_added"] = init - facts, facts - init
    removed, added = data.pop("facts_removed"), data.pop("facts_added")
    put(self, "trail", _linked(data.pop("history", ())))
    game = data["game"]
    put(self, "removed", _difference(removed, game))
    put(self, "added", _difference(added, game))
    carried = data.pop("commands", None)
    if carried is not None:  # the memo, every action as an override: independent of this process's shared table
        names, actions = carried
        put(self, "_sorted", _table(_COMMAND_LISTS, game).one(names))
        put(self, "_overrides", dict(zip(names, actions)))
    for k, v in data.items():
        put(self, k, v)


# Set after the class is made: dataclass(slots=True) would otherwise give a frozen class its own
# pickling methods (Python 3.10 always does).
ALFWorldState.__getstate__ = _pickled  # type: ignore[method-assign]
ALFWorldState.__setstate__ = _unpickled  # type: ignore[method-assign]


# Per game, command -> (command, action): a command string names one action in a game (the display
# names are unique), so a state memoises only its sorted tuple of admissible commands, whose strings
# are these shared ones; a state where a command's first action differs keeps an override.
_SHARED_COMMANDS: "weakref.WeakKeyDictionary[Game, dict[str, tuple[str, Action]]]" = weakref.WeakKeyDictionary()
# Per game, sorted command list -> the one tuple standing for it (see _memoise).
_COMMAND_LISTS: "weakref.WeakKeyDictionary[Game, ValueTable]" = weakref.WeakKeyDictionary()


def _memoise(state: ALFWorldState, facts: frozenset | None = None) -> tuple[str, ...]:
    """Compute and memoise ``state``'s sorted commands (``facts``: its facts, when the caller has them)."""
    game = state.game
    shared = _SHARED_COMMANDS.get(game)
    if shared is None:
        shared = _SHARED_COMMANDS[game] = {}
    first: dict[str, Action] = {}
    for cmd, action in applicable(game, state.facts if facts is None else facts):
        if cmd not in first:
            first[cmd] = action
    names = []
    overrides = None
    for cmd, action in first.items():
        pair = shared.get(cmd)
        if pair is None:
            pair = shared[cmd] = (cmd, action)
        elif pair[1] != action:
            overrides = overrides or {}
            overrides[pair[0]] = action
        names.append(pair[0])
    names.sort()
    # one tuple per game and command list: states that offer the same commands share it, so
    # dropping a state frees no command list
    valid = _table(_COMMAND_LISTS, game).one(tuple(names))
    object.__setattr__(state, "_sorted", valid)
    if overrides:
        object.__setattr__(state, "_overrides", overrides)
    return valid


def sorted_commands(state: ALFWorldState) -> tuple[str, ...]:
    """The admissible commands, sorted, deduplicated. Memoised on the (immutable) state, unpickled and not
    compared: a state restored many times (a search node, a group of forks) or observed and then stepped
    computes them once. The tuple (and its strings) is shared with the game's other states that offer the
    same commands, so dropping a state (a fork replacing it) frees none of it."""
    valid = state._sorted
    return _memoise(state) if valid is None else valid


def action_of(state: ALFWorldState, command: str) -> Action | None:
    """The action an admissible ``command`` runs in ``state`` (the first action offering it, as the
    reference picks), or None when the command is not admissible there."""
    valid = sorted_commands(state)
    i = bisect_left(valid, command)
    if i == len(valid) or valid[i] != command:
        return None
    overrides = state._overrides
    if overrides is not None and command in overrides:
        return overrides[command]
    return _SHARED_COMMANDS[state.game][command][1]


def commands(state: ALFWorldState) -> dict[str, Action]:
    """Admissible command -> action, sorted by command (a fresh dict; see :func:`action_of`)."""
    return {cmd: action_of(state, cmd) for cmd in sorted_commands(state)}


def admissible_commands(state: ALFWorldState) -> list[str]:
    """The admissible commands, sorted (a fresh list)."""
    return list(sorted_commands(state))


def is_won(game: Game, facts: frozenset) -> bool:
    """Whether the game's goal holds in ``facts`` (the compiled goal, :mod:`.goal`)."""
    return goal_checker(game).holds(facts)


def initial_state(game: Game) -> ALFWorldState:
    """The state at reset: the game's initial facts and its intro text."""
    facts = game.init_facts
    return ALFWorldState(game=game, facts=facts, text=intro_text(game, facts), won=is_won(game, facts))


def step_state(state: ALFWorldState, command: str, with_commands: bool = False) -> ALFWorldState:
    """The state after ``command`` (an inadmissible one answers "Nothing happens." and changes no fact).
    ``with_commands``: also memoise the new state's admissible commands now, from the facts the step
    built (what the env does, since it observes every state it steps to: the facts are built once)."""
    command = str(command).strip()
    action = action_of(state, command)
    if action is None:
        nxt = ALFWorldState(game=state.game, removed=state.removed, added=state.added, text=NOTHING_HAPPENS,
                            won=state.won, moves=state.moves, last_command=command, valid=False,
                            trail=(state.trail, command, NOTHING_HAPPENS))
        # the same facts: the same admissible commands (and overrides), memoised already
        object.__setattr__(nxt, "_sorted", state._sorted)
        object.__setattr__(nxt, "_overrides", state._overrides)
        return nxt
    game = state.game
    old = state.facts
    rem, add = changes(game, old, action)
    if rem or add:
        facts = old.difference(rem).union(add)
        won = goal_checker(game).after(state.won, facts, (*rem, *add))
        init = game.init_facts
        pool = _fact_pool(game)
        # the new difference from the initial facts, from the old one and the change (the game's own fact tuples)
        removed = set(state.removed)
        removed.update([pool[f] for f in rem if f in init])
        removed.difference_update(add)
        added = set(state.added)
        added.difference_update(rem)
        added.update([pool.setdefault(f, f) for f in add if f not in init])
    else:
        facts, won, removed, added = old, state.won, state.removed, state.added
    text = feedback(game, old, facts, action)
    nxt = ALFWorldState(game=game, removed=removed, added=added, text=text, won=won, moves=state.moves + 1,
                        last_command=command, trail=(state.trail, command, text))
    if with_commands:
        _memoise(nxt, facts)
    return nxt
