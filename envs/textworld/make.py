"""Generate TextWorld games offline with TextWorld's own ``tw-make`` (Inform7 ships in the wheel).

``make_game(challenge, out_dir, seed, ...)`` runs ``tw-make`` in a subprocess and
returns the checked :class:`~treegym.envs.textworld.gamefiles.TextWorldGame`
(a ``.z8`` with its ``.json``; the Inform7 source ``.ni`` is removed). About
8-30 s per game on 2 cores.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from .gamefiles import TextWorldGame, check_game_file

#: challenge -> the tw-make arguments of a small game of that kind
CHALLENGES: dict[str, list[str]] = {
    "simple": ["tw-simple", "--rewards", "dense", "--goal", "detailed"],
    "coin": ["tw-coin_collector", "--level", "5"],
    "treasure": ["tw-treasure_hunter", "--level", "5"],
    "cooking": ["tw-cooking", "--recipe", "1", "--take", "1", "--go", "1", "--open", "--cut", "--cook",
                "--split", "train"],
    "custom": ["custom", "--world-size", "3", "--nb-objects", "5", "--quest-length", "3"],
}


def tw_make_path() -> str:
    """The ``tw-make`` executable of the running Python's textworld, or a clear error."""
    beside = Path(sys.executable).parent / "tw-make"
    found = str(beside) if beside.is_file() else shutil.which("tw-make")
    if not found:
        raise RuntimeError("tw-make not found: pip install 'treegym[textworld]'")
    return found


def make_game(challenge: str, out_dir: str | os.PathLike, seed: int = 0, name: str | None = None,
              extra_args: list[str] | None = None, overwrite: bool = False) -> TextWorldGame:
    """Make one game ``out_dir/<name>.z8`` (default name ``<challenge>_<seed>``)."""
    if challenge not in CHALLENGES:
        raise ValueError(f"unknown challenge {challenge!r}; choose one of {sorted(CHALLENGES)}")
    out = Path(out_dir).expanduser()
    out.mkdir(parents=True, exist_ok=True)
    target = out / f"{name or f'{challenge}_{seed}'}.z8"
    if target.exists() and not overwrite:
        raise FileExistsError(f"{target} exists; pass overwrite=True (--overwrite) to replace it")
    cmd = [tw_make_path(), *CHALLENGES[challenge], *(extra_args or []), "--seed", str(int(seed)),
           "--output", str(target), "-f", "--silent"]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"tw-make failed (exit {done.returncode}): {' '.join(cmd)}\n{done.stderr.strip()[-2000:]}")
    target.with_suffix(".ni").unlink(missing_ok=True)
    return check_game_file(target)
