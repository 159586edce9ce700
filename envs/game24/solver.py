"""An exact Game of 24 solver, the env's oracle.

* :func:`is_solvable(numbers)` - can the numbers be combined into 24?
* :func:`solve(numbers)` - every solution from that board, each a
  :class:`Solution`: the operation lines (ToT format, the env accepts them
  verbatim) and the equivalent one-line expression over the given numbers.
* :func:`first_step(numbers)` - the first line of the first solution (what the
  expert plays), or None.

Boards are multisets: results are memoised on the sorted tuple of exact
:class:`~fractions.Fraction` values, so boards shared between puzzles (most
two-number boards) are solved once per process. Solutions are enumerated over
:func:`~treegym.envs.game24.rules.legal_operations`, so two solutions that
differ only in the order of independent operations are both listed.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Iterable

from .arithmetic import format_number
from .rules import TARGET, Board, Operation, legal_operations, next_boards, sorted_board

_Path = tuple[Operation, ...]


@dataclass(frozen=True)
class Solution:
    """One way to reach 24: ``steps`` (operation lines) and the one-line ``expression``."""

    steps: tuple[str, ...]
    expression: str


def _board(numbers: Iterable[Fraction | int | str]) -> Board:
    return sorted_board(Fraction(x) for x in numbers)


@lru_cache(maxsize=None)
def _children(board: Board) -> tuple[Operation, ...]:
    return tuple(legal_operations(board))


@lru_cache(maxsize=None)
def _solvable(board: Board) -> bool:
    if len(board) == 1:
        return board[0] == TARGET
    if len(board) == 2:
        a, b = board
        return TARGET in (a + b, a * b, a - b, b - a) or (b != 0 and a / b == TARGET) or (a != 0 and b / a == TARGET)
    return any(_solvable(b) for b in next_boards(board))


@lru_cache(maxsize=4096)
def _paths(board: Board) -> tuple[_Path, ...]:
    if len(board) == 1:
        return ((),) if board[0] == TARGET else ()
    out: list[_Path] = []
    for op in _children(board):
        if _solvable(op.left):
            out.extend((op,) + rest for rest in _paths(op.left))
    return tuple(out)


def is_solvable(numbers: Iterable[Fraction | int | str]) -> bool:
    """True when the numbers (any order, exact values) can be combined into exactly 24."""
    return _solvable(_board(numbers))


def first_step(numbers: Iterable[Fraction | int | str]) -> Operation | None:
    """The first operation of the first solution, or None when there is none (or one number is left)."""
    board = _board(numbers)
    if len(board) < 2:
        return None
    for op in _children(board):
        if _solvable(op.left):
            return op
    return None


def plan(numbers: Iterable[Fraction | int | str]) -> list[Operation]:
    """The operations of the first solution (empty when unsolvable or already done)."""
    return list(_plan(_board(numbers)))


@lru_cache(maxsize=1 << 14)
def _plan(board: Board) -> tuple[Operation, ...]:
    steps: list[Operation] = []
    while (op := first_step(board)) is not None:
        steps.append(op)
        board = op.left
    return tuple(steps)


def expression_of(numbers: Iterable[Fraction | int | str], path: Iterable[Operation]) -> str:
    """Rebuild one expression over ``numbers`` from operation steps (which name values, not positions)."""
    atoms: list[tuple[Fraction, str, bool]] = [(x, format_number(x), False) for x in _board(numbers)]
    for op in path:
        ia = next(i for i, (v, _e, _c) in enumerate(atoms) if v == op.a)
        va, ea, ca = atoms.pop(ia)
        ib = next(i for i, (v, _e, _c) in enumerate(atoms) if v == op.b)
        vb, eb, cb = atoms.pop(ib)
        atoms.append((op.result, f"{_wrap(ea, ca)} {op.op} {_wrap(eb, cb)}", True))
    return " ".join(e for _v, e, _c in atoms)


def _wrap(text: str, compound: bool) -> str:
    return f"({text})" if compound or text.startswith("-") else text


def solve(numbers: Iterable[Fraction | int | str]) -> list[Solution]:
    """Every solution from this board (empty list when unsolvable)."""
    board = _board(numbers)
    return [
        Solution(tuple(op.line() for op in path), expression_of(board, path))
        for path in _paths(board)
    ]
