"""Where ALFWorld games come from: the shipped ``valid_unseen`` set and the user's own data tree.

* ``valid_unseen``: the 134 games of ALFWorld's ``json_2.1.1/valid_unseen``
  (its ``eval_out_of_distribution`` split), shipped as ``data/valid_unseen_134.tar.xz``
  and read straight from the archive (no unpacking). Task ids are
  ``"<task>-<Obj>-<MRecep>-<Recep>-<scene>/<trial>"``, sorted.
* ``ALFWORLD_DATA``: :func:`scan_data_tree` walks a directory as ALFWorld's
  ``AlfredTWEnv.collect_game_files`` does: a trial counts when it has
  ``game.tw-pddl`` with ``"solvable": true`` and its path contains neither
  ``movable`` nor ``Sliced``; a ``traj_data.json`` (when present) gives the task
  type, otherwise the directory name does. Trials without ``traj_data.json``
  are accepted (the shipped set has none) and reported.
"""
from __future__ import annotations

import json
import os
import tarfile
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Mapping

from .game import TASK_TYPES, GameFileError

ARCHIVE = "valid_unseen_134.tar.xz"
SHIPPED_SPLIT = "valid_unseen"


def task_type_of(task_id: str) -> str:
    """The task type named by a task id's first directory (``pick_two_obj_and_place-...``)."""
    head = task_id.split("/", 1)[0]
    for t in sorted(TASK_TYPES, key=len, reverse=True):
        if head.startswith(t):
            return t
    raise GameFileError(f"cannot tell the task type of {task_id!r}: its directory must start with one of {TASK_TYPES}")


@lru_cache(maxsize=1)
def shipped_games() -> Mapping[str, dict]:
    """task id -> the parsed ``game.tw-pddl`` JSON of the 134 shipped games."""
    ref = resources.files("treegym.envs.alfworld").joinpath("data", ARCHIVE)
    games: dict[str, dict] = {}
    with resources.as_file(ref) as path:
        if not Path(path).is_file():
            raise FileNotFoundError(f"the shipped ALFWorld games are missing ({path}); reinstall treegym")
        with tarfile.open(path, "r:xz") as tar:
            for member in tar.getmembers():
                if not member.isfile() or not member.name.endswith("/game.tw-pddl"):
                    continue
                parts = member.name.split("/")
                if len(parts) != 4 or parts[0] != SHIPPED_SPLIT:
                    continue
                fh = tar.extractfile(member)
                assert fh is not None
                games[f"{parts[1]}/{parts[2]}"] = json.loads(fh.read().decode("utf-8"))
    return dict(sorted(games.items()))


def scan_data_tree(root: str | os.PathLike) -> tuple[dict[str, str], dict[str, int]]:
    """Game files under ``root`` kept by ALFWorld's filtering rules (see the module docstring).

    Returns ``({task_id: path}, counts)`` where ``counts`` has ``kept``,
    ``movable_or_sliced``, ``unsolvable``, ``no_game_file``, ``unreadable`` and
    ``unknown_task_type``. Task ids are paths relative to ``root`` (``split/task/trial``).
    """
    root = Path(root)
    if not root.is_dir():
        raise FileNotFoundError(f"ALFWorld data directory {root} does not exist (set ALFWORLD_DATA or pass data_dir=)")
    kept: dict[str, str] = {}
    counts = dict(kept=0, movable_or_sliced=0, unsolvable=0, no_game_file=0, unreadable=0, unknown_task_type=0)
    for dirpath, _dirs, files in sorted(os.walk(root)):
        if "traj_data.json" not in files and "game.tw-pddl" not in files:
            continue
        rel = Path(dirpath).relative_to(root).as_posix()
        if "movable" in rel or "Sliced" in rel:
            counts["movable_or_sliced"] += 1
            continue
        game_path = Path(dirpath, "game.tw-pddl")
        if not game_path.is_file():
            counts["no_game_file"] += 1
            continue
        try:
            with open(game_path, encoding="utf-8") as fh:
                data = json.load(fh)
        except (OSError, json.JSONDecodeError):
            counts["unreadable"] += 1
            continue
        if not data.get("solvable", False):
            counts["unsolvable"] += 1
            continue
        task_type = None
        traj = Path(dirpath, "traj_data.json")
        if traj.is_file():
            try:
                with open(traj, encoding="utf-8") as fh:
                    task_type = json.load(fh).get("task_type")
            except (OSError, json.JSONDecodeError):
                counts["unreadable"] += 1
                continue
        if task_type is None:
            try:
                task_type = task_type_of(Path(dirpath).parent.name)
            except GameFileError:
                counts["unknown_task_type"] += 1
                continue
        kept[rel] = str(game_path)
        counts["kept"] += 1
    return kept, counts
