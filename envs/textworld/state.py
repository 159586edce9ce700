"""The values of a TextWorld episode: :class:`TextWorldState` (immutable, what snapshots hold),
:class:`TextWorldLive` (the mutable working copy ``EngineEnv`` steps in place), and the
command / feedback cleaning both sides apply.

Pickling: a state's ``GameProgression`` references the game's rules (``Game``,
``KnowledgeBase``, ``GameLogic``): large, read-only and holding lazily filled caches. They
are pickled as references to the game file (:func:`shared_game`), never copied; a shipped
game is referenced by its name (``gamefiles.portable_path``), so the bytes restore under any
install location. textworld's logic values (``Variable``, ``Signature``, ``Proposition``,
``Placeholder``) cache ``hash()`` of their strings in a ``_hash`` slot, which Python salts per
process: pickled as is, they land in the wrong set and dict buckets of another process
(textworld's ``_get_name_mapping`` then fails on the next step). They are pickled without the
cache and rehashed on load (:data:`_REHASHED`).
Needs the ``textworld`` extra.
"""
from __future__ import annotations

import functools
import io
import pickle
import re
from dataclasses import dataclass
from typing import Any

from textworld.generator.game import Game
from textworld.logic import Placeholder, Proposition, Signature, Variable

from .gamefiles import local_path, portable_path

_STATUS_LINE = re.compile(r"\n>\s*-=.*?=-\s*-?\d+/\d+\s*$", re.S)
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
    text = str(action)
    if not (text.isascii() and text.isprintable() and "\\" not in text):  # (ASCII printable: 32..126)
        text = "".join(ch if 32 <= ord(ch) < 127 and ch != "\\" else " " for ch in text)
    return " ".join(text.split())[:190].strip()


@dataclass(frozen=True, eq=False)
class TextWorldState:
    """One moment of a game (a snapshot holds it as is; thawing copies out of it).

    ``game`` is the task id and ``game_path`` its ``.z8``; ``jericho`` is the Z-machine's
    state (``machine.Machine.save``: ``FrotzEnv.get_state()``'s layout, memory and stack as
    ``bytes``), ``progression`` a ``GameProgression`` no step writes (later steps write forks of
    it: ``progression.py``), ``last_action``, ``previous_policy``/``current_policy`` and
    ``tw_moves`` TextWorld's state-tracking fields; the rest is what the agent saw.
    """

    game: str
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
        buf = io.BytesIO()
        pickler = _GamePickler(buf, self.progression.game)
        path = portable_path(self.game_path)
        pickler.dump(tuple(path if f == "game_path" else getattr(self, f) for f in self.__dataclass_fields__))
        return _unpickle_state, (path, buf.getvalue())


@dataclass(eq=False)
class TextWorldLive:
    """The mutable working copy of a :class:`TextWorldState` (``TextWorldEngine.thaw``).

    Copy on write: while ``base`` is a state (right after ``thaw`` or ``freeze``), the value
    equals ``base`` and shares its ``progression``; the next step copies it first. Otherwise
    it owns its ``progression`` (the engine's game stack mutates it in place while the
    stack holds this value). ``jericho`` is None while the stack's Z-machine holds the
    machine state (the engine saves it here when the stack turns to another value).
    """

    game: str
    game_path: str
    jericho: Any
    progression: Any
    last_action: Any
    previous_policy: Any
    current_policy: Any
    tw_moves: int
    text: str
    admissible: tuple[str, ...]
    policy: tuple[str, ...]
    won: bool
    lost: bool
    score: int
    moves: int
    base: Any = None


FIELDS = tuple(TextWorldState.__dataclass_fields__)


@functools.lru_cache(maxsize=32)
def shared_game(game_path: str) -> Any:
    """The read-only TextWorld ``Game`` of a ``.z8`` (from its ``.json``), loaded once per process."""
    return Game.load(str(game_path).rsplit(".", 1)[0] + ".json")


def _shared_parts(game: Any) -> dict[str, Any]:
    return {"game": game, "kb": game.kb, "logic": game.kb.logic}


#: textworld logic classes whose ``_hash`` slot caches ``hash()`` of these slots (their ``__init__``'s rule).
_REHASHED: dict[type, tuple[str, ...]] = {Variable: ("name", "type"), Placeholder: ("name", "type"),
                                          Signature: ("name", "types"), Proposition: ("name", "arguments")}


def _rehashed(cls: type, slots: tuple[str, ...], values: tuple) -> Any:
    """A logic value rebuilt from its slots, its hash cache computed in this process."""
    obj = cls.__new__(cls)
    for slot, value in zip(slots, values):
        setattr(obj, slot, value)
    obj._hash = hash(tuple(getattr(obj, s) for s in _REHASHED[cls]))
    return obj


def _reduce_logic(obj: Any) -> tuple:
    slots = tuple(s for s in type(obj).__slots__ if s != "_hash")
    return _rehashed, (type(obj), slots, tuple(getattr(obj, s) for s in slots))


class _GamePickler(pickle.Pickler):
    dispatch_table = {cls: _reduce_logic for cls in _REHASHED}

    def __init__(self, file, game: Any):
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self._ids = {id(v): k for k, v in _shared_parts(game).items()}

    def persistent_id(self, obj: Any) -> str | None:
        return self._ids.get(id(obj))


def _unpickle_state(game_path: str, data: bytes) -> TextWorldState:
    game_path = local_path(game_path)
    parts = _shared_parts(shared_game(game_path))

    class _Unpickler(pickle.Unpickler):
        def persistent_load(self, pid: str) -> Any:
            return parts[pid]

    values = list(_Unpickler(io.BytesIO(data)).load())
    values[FIELDS.index("game_path")] = game_path  # this machine's path of the game
    return TextWorldState(*values)
