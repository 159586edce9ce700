"""Game of 24 tasks: the 1,362 puzzles of ``data/24.csv`` and their splits.

The CSV is the one Tree of Thoughts ships (collected from 4nums.com, ranked by
human solve time): columns ``Rank, Puzzles, AMT (s), Solved rate,
1-sigma Mean (s), 1-sigma STD (s)``; ``Puzzles`` holds four integers separated
by spaces. A task id is the 0-based row index in the file.

Splits (over the rows of whichever file is loaded):

* ``test``  - rows 900-999, the split ToT and RaDAgent report on;
* ``train`` - every other row;
* ``all``   - every row.

Loaded files are cached per path and per modification time, so envs share one
read-only tuple of tasks.
"""
from __future__ import annotations

import csv
import numbers
import os
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from pathlib import Path
from typing import Any

DEFAULT_DATA_PATH = Path(__file__).resolve().parent / "data" / "24.csv"
TEST_ROWS = range(900, 1000)
SPLITS = ("train", "test", "all")
REQUIRED_COLUMNS = ("Rank", "Puzzles")
INSTRUCTION = "Use numbers and basic arithmetic operations (+ - * /) to obtain 24. Input: {puzzle}"


class TaskFileError(ValueError):
    """The task CSV is missing or malformed; the message names the file, row and fix."""


@dataclass(frozen=True)
class Game24Task:
    """One puzzle: ``numbers`` (the four input integers as written) and its row metadata.

    ``puzzle`` (``"4 9 10 13"``), ``instruction`` and ``board`` (sorted Fractions)
    are derived at construction, so the value never changes after it is made.
    """

    task_id: int
    numbers: tuple[int, ...]
    rank: int
    solved_rate: str = ""
    puzzle: str = field(init=False, repr=False, compare=False)
    instruction: str = field(init=False, repr=False, compare=False)
    board: tuple[Fraction, ...] = field(init=False, repr=False, compare=False)

    def __reduce__(self):
        return pickled_with_fractions(self, "board")

    def __post_init__(self) -> None:
        puzzle = " ".join(str(n) for n in self.numbers)
        object.__setattr__(self, "puzzle", puzzle)
        object.__setattr__(self, "instruction", INSTRUCTION.format(puzzle=puzzle))
        object.__setattr__(self, "board", tuple(sorted(Fraction(n) for n in self.numbers)))


def pickled_with_fractions(value: Any, key: str) -> tuple:
    """A ``__reduce__`` value for a frozen dataclass whose field ``key`` holds Fractions: every field as
    it is (derived ones too), the Fractions as integer pairs. Fractions pickle as text parsed again on
    load, and ``__post_init__`` re-derives; this way a cold restore in another process costs less than
    a step."""
    fields = dict(value.__dict__)
    fields[key] = tuple((x.numerator, x.denominator) for x in fields[key])
    return _unpickled_with_fractions, (type(value), fields, key)


def _unpickled_with_fractions(cls: type, fields: dict, key: str) -> Any:
    value = object.__new__(cls)
    value.__dict__.update(fields)
    value.__dict__[key] = tuple(Fraction(n, d) for n, d in fields[key])
    return value


def load_tasks(data_path: str | os.PathLike | None = None) -> tuple[Game24Task, ...]:
    """All tasks of the CSV at ``data_path`` (default: the packaged 24.csv), in file order."""
    path = Path(data_path) if data_path is not None else DEFAULT_DATA_PATH
    try:
        mtime = path.stat().st_mtime_ns
    except OSError as exc:
        raise TaskFileError(
            f"Game of 24 task file {str(path)!r} cannot be read ({exc.strerror or exc}); "
            "pass data_path= pointing at a CSV with 'Rank' and 'Puzzles' columns, "
            "or reinstall treegym to restore the packaged envs/game24/data/24.csv"
        ) from None
    return _load(str(path), mtime)


@lru_cache(maxsize=8)
def _load(path: str, _mtime: int) -> tuple[Game24Task, ...]:
    try:
        with open(path, newline="", encoding="utf-8") as f:
            reader = csv.DictReader(f)
            columns = reader.fieldnames or []
            missing = [c for c in REQUIRED_COLUMNS if c not in columns]
            if missing:
                raise TaskFileError(
                    f"{path}: missing column(s) {', '.join(missing)} (found {columns or 'no header'}); "
                    "the file needs a header row with 'Rank' and 'Puzzles'"
                )
            tasks = tuple(_row_task(path, i, row) for i, row in enumerate(reader))
    except UnicodeDecodeError as exc:
        raise TaskFileError(f"{path}: not UTF-8 text ({exc}); is this really the Game of 24 CSV?") from None
    except csv.Error as exc:
        raise TaskFileError(f"{path}: malformed CSV ({exc})") from None
    if not tasks:
        raise TaskFileError(f"{path}: has a header but no puzzles")
    return tasks


def _row_task(path: str, i: int, row: dict) -> Game24Task:
    where = f"{path}, row {i} (line {i + 2})"
    text = (row.get("Puzzles") or "").strip()
    parts = text.split()
    if len(parts) != 4 or not all(p.isdigit() for p in parts):
        raise TaskFileError(f"{where}: 'Puzzles' must be four non-negative integers like '4 9 10 13', got {text!r}")
    rank_text = (row.get("Rank") or "").strip()
    try:
        rank = int(rank_text)
    except ValueError:
        raise TaskFileError(f"{where}: 'Rank' must be an integer, got {rank_text!r}") from None
    solved_rate = (row.get("Solved rate") or "").strip()
    return Game24Task(task_id=i, numbers=tuple(int(p) for p in parts), rank=rank, solved_rate=solved_rate)


def split_ids(split: str, n_tasks: int) -> tuple[int, ...]:
    """The task ids of ``split`` for a file of ``n_tasks`` rows, in file order."""
    if split == "all":
        return tuple(range(n_tasks))
    test = tuple(i for i in TEST_ROWS if i < n_tasks)
    if split == "test":
        return test
    if split == "train":
        test_set = set(test)
        return tuple(i for i in range(n_tasks) if i not in test_set)
    raise ValueError(f"unknown Game of 24 split {split!r}; choose one of {', '.join(SPLITS)}")


def check_task_id(task_id: object, n_tasks: int) -> int:
    """``task_id`` as an int row index, or a ValueError naming the valid range."""
    if isinstance(task_id, bool) or not isinstance(task_id, (numbers.Integral, str)):
        raise ValueError(f"Game of 24 task_id must be an integer row index 0..{n_tasks - 1}, got {task_id!r}")
    try:
        i = int(task_id)
    except ValueError:
        raise ValueError(f"Game of 24 task_id must be an integer row index 0..{n_tasks - 1}, got {task_id!r}") from None
    if not 0 <= i < n_tasks:
        raise ValueError(f"Game of 24 task_id {i} is out of range: valid ids are 0..{n_tasks - 1}")
    return i
