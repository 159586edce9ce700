"""A board's legal moves worked out once: the lines ``valid_actions`` lists and, for each line, how to
play it without parsing it.

:func:`board_moves` works in integer numerators and denominators rather than Fractions: a search
meets a new board at almost every expansion, and Fraction arithmetic made listing a board's lines
most of a step. What it gives equals :func:`~.rules.legal_operations` and
:func:`~.rules.check_operation` on every board the shipped puzzles reach
(tests/envs/game24/test_game24_moves.py).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from math import gcd

from .arithmetic import apply_op, format_number
from .rules import Board, Operation


def legal_lines(board: Board) -> tuple[str, ...]:
    """The lines of :func:`~.rules.legal_operations`, in its order (:func:`board_moves`, cached)."""
    return board_moves(tuple(format_number(x) for x in board)).lines


@dataclass(frozen=True)
class BoardMoves:
    """The legal operations of one board.

    ``lines``: the lines of :func:`~.rules.legal_operations`, in its order. ``plays``: for each line, how
    to play it on the board without parsing it: ``(i, op, j, order)``, the operation ``board[i] op
    board[j]``, and the board it leaves in ascending order: ``order`` lists the indices of the
    numbers left, -1 standing for the result. Playing a line this way gives the :class:`Operation`
    that :func:`~.rules.check_operation` gives for the parsed line.
    """

    lines: tuple[str, ...]
    plays: dict[str, tuple[int, str, int, tuple[int, ...]]]

    def play(self, board: Board, line: str) -> Operation | None:
        """The operation ``line`` performs on ``board`` (the board these moves are of), or None when
        ``line`` is not one of :attr:`lines`."""
        play = self.plays.get(line)
        if play is None:
            return None
        i, op, j, order = play
        x, y = board[i], board[j]
        result = apply_op(x, op, y)
        return Operation(x, op, y, result, tuple(result if k < 0 else board[k] for k in order))


@lru_cache(maxsize=1 << 16)
def board_moves(left_text: tuple[str, ...]) -> BoardMoves:
    """The :class:`BoardMoves` of the board written ``left_text`` (each number as :func:`format_number`
    writes it; cached: boards recur across episodes and branches)."""
    nums = [_ratio(t) for t in left_text]
    lines: list[str] = []
    plays: dict[str, tuple[int, str, int, tuple[int, ...]]] = {}
    seen: set[tuple[tuple[int, int], str, tuple[int, int]]] = set()
    n = len(nums)
    for i in range(n):
        for j in range(i + 1, n):
            rest = [k for k in range(n) if k != i and k != j]  # a = board[i] <= b = board[j]: legal_operations' order
            for b_first, op in _PAIR_OPS:
                xi, yi = (j, i) if b_first else (i, j)
                (xn, xd), (yn, yd) = nums[xi], nums[yi]
                if op == "/" and yn == 0:
                    continue
                key = (nums[xi], op, nums[yi])
                if key in seen:
                    continue
                seen.add(key)
                rn, rd = _combine(xn, xd, op, yn, yd)
                order = _ascending(rest, nums, (rn, rd))
                result = _ratio_text(rn, rd)
                left = " ".join(result if k < 0 else left_text[k] for k in order)
                line = f"{left_text[xi]} {op} {left_text[yi]} = {result} (left: {left})"
                lines.append(line)
                plays[line] = (xi, op, yi, order)
    return BoardMoves(tuple(lines), plays)


# The operations legal_operations tries on each pair a <= b, in its order: (b is the left operand, op).
_PAIR_OPS = ((True, "+"), (True, "-"), (True, "*"), (True, "/"), (False, "/"), (False, "-"))


def _ascending(rest: list[int], nums: list[tuple[int, int]], result: tuple[int, int]) -> tuple[int, ...]:
    """The indices ``rest`` of ``nums`` and -1 (``result``), ordered as :func:`~.rules.sorted_board` orders
    their numbers (ascending, equal numbers in their order: stable, the result last among equals)."""
    out: list[int] = []
    for k in (*rest, -1):
        kn, kd = result if k < 0 else nums[k]
        at = len(out)
        while at:
            pn, pd = result if out[at - 1] < 0 else nums[out[at - 1]]
            if pn * kd <= kn * pd:  # denominators are positive
                break
            at -= 1
        out.insert(at, k)
    return tuple(out)


def _ratio(text: str) -> tuple[int, int]:
    num, _, den = text.partition("/")
    return int(num), int(den or 1)


def _ratio_text(num: int, den: int) -> str:
    return str(num) if den == 1 else f"{num}/{den}"


def _combine(xn: int, xd: int, op: str, yn: int, yd: int) -> tuple[int, int]:
    """``x op y`` in lowest terms with a positive denominator (``y`` is not 0 when dividing)."""
    if op == "+":
        num, den = xn * yd + yn * xd, xd * yd
    elif op == "-":
        num, den = xn * yd - yn * xd, xd * yd
    elif op == "*":
        num, den = xn * yn, xd * yd
    else:
        num, den = xn * yd, xd * yn
    if den < 0:
        num, den = -num, -den
    g = gcd(num, den)
    return num // g, den // g
