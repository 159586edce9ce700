"""TextWorld game files: the shipped fixtures, their splits, and the user's own games.

A game is a ``.z8`` story file made by ``tw-make`` with its ``.json`` beside it
(TextWorld's description of the world and quests, which the env needs for the
admissible commands, the objective and the walkthrough). A game's task id is
its file stem (``coin_1`` for ``coin_1.z8``).

The shipped games live in ``envs/textworld/games/`` with ``splits.json``
(split name -> list of game ids). ``load_games(game_files=..., game_dir=...)``
collects the user's games instead; they form the single split ``all``.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

GAMES_DIR = Path(__file__).resolve().parent / "games"
SPLITS_FILE = GAMES_DIR / "splits.json"


SHIPPED_PREFIX = "shipped:"  # a portable path: a shipped game by file name, wherever treegym is installed


def portable_path(path: str) -> str:
    """``path`` as pickles carry it: a shipped game as ``shipped:<file name>``, any other game as is
    (a user's game restores on a machine that has it at the same path)."""
    p = Path(path)
    return SHIPPED_PREFIX + p.name if p.parent == GAMES_DIR else str(path)


def local_path(path: str) -> str:
    """The path on this machine of a :func:`portable_path`."""
    if path.startswith(SHIPPED_PREFIX):
        return str(GAMES_DIR / Path(path[len(SHIPPED_PREFIX):]).name)
    return path


@dataclass(frozen=True)
class TextWorldGame:
    """One playable game: ``game_id`` (the file stem) and the absolute ``path`` of its ``.z8``
    (pickled as a :func:`portable_path`)."""

    game_id: str
    path: str

    def __reduce__(self):
        return _local_game, (self.game_id, portable_path(self.path))


def _local_game(game_id: str, path: str) -> TextWorldGame:
    return TextWorldGame(game_id, local_path(path))


class GameFileError(ValueError):
    """A game file is missing, of the wrong format, or lacks its ``.json``."""


def check_game_file(path: str | os.PathLike) -> TextWorldGame:
    """Validate one game file; raise :class:`GameFileError` saying what is wrong."""
    p = Path(path).expanduser().resolve()
    if p.suffix == ".ulx":
        raise GameFileError(
            f"{p}: Glulx (.ulx) games are not supported by textworld 1.7 (Jericho plays Z-machine games); "
            "regenerate it with `treegym textworld make` (which writes .z8)"
        )
    if not p.suffix.startswith(".z"):
        raise GameFileError(f"{p}: not a Z-machine game (.z8); TextWorld-v0 plays games made by tw-make")
    if not p.is_file():
        raise GameFileError(f"{p}: no such game file")
    if not p.with_suffix(".json").is_file():
        raise GameFileError(
            f"{p}: its TextWorld description {p.with_suffix('.json').name} is missing; "
            "keep the .json that tw-make wrote next to the .z8"
        )
    return TextWorldGame(p.stem, str(p))


def load_games(game_files: Iterable[str | os.PathLike] | None = None,
               game_dir: str | os.PathLike | None = None) -> dict[str, TextWorldGame]:
    """Game id -> game, from ``game_files`` and/or every ``*.z8`` in ``game_dir``, or the shipped set."""
    paths: list[Path] = []
    if game_dir is not None:
        d = Path(game_dir).expanduser()
        if not d.is_dir():
            raise GameFileError(f"game_dir {d} is not a directory")
        paths += sorted(d.glob("*.z8"))
        if not paths and game_files is None:
            raise GameFileError(f"game_dir {d} holds no .z8 games; make some with `treegym textworld make`")
    if isinstance(game_files, (str, os.PathLike)):
        game_files = [game_files]
    if game_files is not None:
        paths += [Path(f) for f in game_files]
        if not paths:
            raise GameFileError("game_files is empty; give at least one .z8 path")
    if game_dir is None and game_files is None:
        paths = sorted(GAMES_DIR.glob("*.z8"))
    games: dict[str, TextWorldGame] = {}
    for p in paths:
        g = check_game_file(p)
        if g.game_id in games and games[g.game_id].path != g.path:
            raise GameFileError(f"two games share the id {g.game_id!r}: {games[g.game_id].path} and {g.path}; rename one")
        games[g.game_id] = g
    return games


def shipped_splits() -> dict[str, list[str]]:
    """Split name -> game ids of the shipped games (``all`` is every shipped game)."""
    with open(SPLITS_FILE, encoding="utf-8") as fh:
        splits = {k: list(v) for k, v in json.load(fh).items()}
    splits["all"] = sorted(load_games())
    return splits
