"""The rules of the Game of 24 as pure functions on the numbers left.

One *operation* combines two of the numbers left with ``+ - * /`` into one; the
board is always kept sorted ascending so equal multisets are equal tuples.
An operation is written in the Tree-of-Thoughts line format
``13 - 9 = 4 (left: 4 4 10)`` (:func:`format_operation`); a player may also
write just ``13 - 9``, or finish with ``answer: (13 - 9) * (10 - 4)``.

:func:`parse_action` turns one action string into an :class:`OperationAction`
or :class:`AnswerAction` (or raises :class:`ActionError` saying what is wrong);
:func:`check_operation` / :func:`check_answer` validate it against the board.
Nothing here mutates anything: the env holds the state.
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from fractions import Fraction
from typing import Iterable

from .arithmetic import (
    MAX_ACTION_CHARS,
    EvaluationError,
    Expr,
    Num,
    BinOp,
    ParseError,
    apply_op,
    evaluate,
    format_number,
    literals,
    normalize,
    parse_expression,
    parse_number,
)

TARGET = Fraction(24)

Board = tuple[Fraction, ...]


class ActionError(ValueError):
    """An action that cannot be played; the message says what was wrong and how to write it."""


@dataclass(frozen=True)
class Operation:
    """``a op b = result``, leaving ``left`` (sorted) on the board."""

    a: Fraction
    op: str
    b: Fraction
    result: Fraction
    left: Board

    def line(self) -> str:
        return format_operation(self.a, self.op, self.b, self.result, self.left)


@dataclass(frozen=True)
class OperationAction:
    """A parsed step: the operands as written, plus the optional claims to verify."""

    a: Fraction
    op: str
    b: Fraction
    claimed_result: Fraction | None = None
    claimed_left: tuple[Fraction, ...] | None = None


@dataclass(frozen=True)
class AnswerAction:
    """A parsed final ``answer: <expression> [= N]``.

    The answer is judged by the expression's value; a trailing ``= 24`` (as Tree
    of Thoughts writes it) is kept in ``claimed_value`` but does not decide anything.
    """

    expression: Expr
    text: str
    claimed_value: Fraction | None = None


def format_board(numbers: Iterable[Fraction]) -> str:
    return " ".join(format_number(x) for x in numbers)


def format_operation(a: Fraction, op: str, b: Fraction, result: Fraction, left: Board) -> str:
    return f"{format_number(a)} {op} {format_number(b)} = {format_number(result)} (left: {format_board(left)})"


def sorted_board(numbers: Iterable[Fraction]) -> Board:
    return tuple(sorted(Fraction(x) for x in numbers))


def remove_operands(board: Board, a: Fraction, b: Fraction) -> Board:
    """``board`` without one ``a`` and one ``b``; :class:`ActionError` naming a missing operand."""
    rest = list(board)
    for x in (a, b):
        if x not in rest:
            if x in board:
                raise ActionError(
                    f"{format_number(x)} is used twice but only one {format_number(x)} is left "
                    f"(numbers left: {format_board(board)})"
                )
            raise ActionError(f"{format_number(x)} is not among the numbers left ({format_board(board)})")
        rest.remove(x)
    return tuple(rest)


def legal_operations(board: Board) -> list[Operation]:
    """Every distinct operation on ``board`` (deduplicated by its line), in a fixed order.

    For each pair ``a <= b``: ``b + a``, ``b - a``, ``b * a``, ``b / a``, ``a / b``, ``a - b``
    (divisions by zero left out). Negative results are legal; they come last per pair.
    """
    ops: list[Operation] = []
    seen: set[tuple[Fraction, str, Fraction]] = set()  # the line is a function of (x, op, y)
    for x, op, y, r, rest in _combinations(board):
        if (x, op, y) not in seen:
            seen.add((x, op, y))
            ops.append(Operation(x, op, y, r, sorted_board(rest + (r,))))
    return ops


def next_boards(board: Board) -> set[Board]:
    """The distinct boards one operation away (what a search expands)."""
    return {tuple(sorted(rest + (r,))) for _x, _op, _y, r, rest in _combinations(board)}


def _combinations(board: Board):
    n = len(board)
    for i in range(n):
        for j in range(i + 1, n):
            a, b = board[i], board[j]  # a <= b: the board is sorted
            rest = board[:i] + board[i + 1 : j] + board[j + 1 :]
            yield b, "+", a, b + a, rest
            yield b, "-", a, b - a, rest
            yield b, "*", a, b * a, rest
            if a != 0:
                yield b, "/", a, b / a, rest
            if b != 0:
                yield a, "/", b, a / b, rest
            yield a, "-", b, a - b, rest


# --------------------------------------------------------------------------- parsing
_ANSWER_RE = re.compile(r"^answer\s*[:=]?\s*(?P<body>.*)$", re.IGNORECASE | re.DOTALL)
_LEFT_RE = re.compile(r"\(\s*left\s*:?\s*(?P<left>[^()]*)\)\s*$", re.IGNORECASE)

SYNTAX_HELP = "write one operation like '13 - 9 = 4 (left: 4 4 10)' or '13 - 9', or 'answer: (13 - 9) * (10 - 4)'"


def parse_action(text: str) -> OperationAction | AnswerAction:
    """Parse one action string; :class:`ActionError` says what is malformed."""
    if not isinstance(text, str):
        raise ActionError(f"an action must be a string, got {type(text).__name__}; {SYNTAX_HELP}")
    parsed, error = _parse_cached(text)
    if error:
        raise ActionError(error)
    return parsed


@lru_cache(maxsize=1 << 16)
def _parse_cached(text: str) -> tuple[OperationAction | AnswerAction | None, str]:
    """(action, "") or (None, what is wrong): parsing is pure, and lines recur across branches."""
    try:
        return _parse(text), ""
    except ActionError as exc:
        return None, str(exc)


def _parse(text: str) -> OperationAction | AnswerAction:
    if len(text) > MAX_ACTION_CHARS:
        raise ActionError(f"the action is {len(text)} characters long (limit {MAX_ACTION_CHARS}); {SYNTAX_HELP}")
    text = normalize(text)
    if not text:
        raise ActionError(f"empty action; {SYNTAX_HELP}")
    try:
        m = _ANSWER_RE.match(text)
        if m:
            return _parse_answer(m.group("body"))
        return _parse_operation(text)
    except EvaluationError as exc:
        raise ActionError(f"division by zero: {exc}") from None
    except ParseError as exc:
        raise ActionError(f"cannot read {text[:60]!r}: {exc}; {SYNTAX_HELP}") from None
    except ActionError:
        raise
    except (ValueError, ArithmeticError) as exc:  # a number the tokenizer let through (e.g. "--51/3")
        raise ActionError(f"cannot read {text[:60]!r}: {exc}; {SYNTAX_HELP}") from None


def _split_claim(text: str) -> tuple[str, str | None]:
    if text.count("=") > 1:
        raise ParseError("more than one '='")
    lhs, eq, rhs = text.partition("=")
    if eq and not rhs.strip():
        raise ParseError("nothing after '='")
    return lhs.strip(), (rhs.strip() if eq else None)


def _parse_answer(body: str) -> AnswerAction:
    body = body.strip()
    expr_text, claim = _split_claim(body)
    if not expr_text:
        raise ParseError("the answer has no expression")
    expr = parse_expression(expr_text)
    return AnswerAction(expr, expr_text, parse_number(claim) if claim is not None else None)


def _parse_operation(text: str) -> OperationAction:
    claimed_left = None
    m = _LEFT_RE.search(text)
    if m:
        items = [s for s in re.split(r"[\s,]+", m.group("left").strip()) if s]
        claimed_left = tuple(parse_number(s) for s in items)
        text = text[: m.start()].strip()
    lhs, claim = _split_claim(text)
    if not lhs:
        raise ParseError("no operation before '='")
    expr = parse_expression(lhs)
    if isinstance(expr, Num) and "/" in expr.text:
        # "6/3" alone is an operation, not a number: split it into 6 / 3.
        num, den = expr.text.rsplit("/", 1)
        expr = BinOp("/", Num(Fraction(num), num), Num(Fraction(den), den))
    if not (isinstance(expr, BinOp) and isinstance(expr.left, Num) and isinstance(expr.right, Num)):
        raise ParseError("one step combines exactly two numbers with one operator (use 'answer: ...' for a whole expression)")
    claimed = parse_number(claim) if claim is not None else None
    return OperationAction(expr.left.value, expr.op, expr.right.value, claimed, claimed_left)


@lru_cache(maxsize=1 << 16)
def canonical_line(text: str) -> str | None:
    """What an action does, whatever the board: ``"13 - 9"`` for any spelling of that
    operation (claims dropped, ``+``/``*`` operands larger first, as
    :func:`legal_operations` writes them), ``"answer: <expression>"`` for an answer;
    None when :func:`parse_action` rejects the text."""
    try:
        action = parse_action(text)
    except ActionError:
        return None
    if isinstance(action, AnswerAction):
        return f"answer: {action.text}"
    a, b = action.a, action.b
    if action.op in "+*" and a < b:
        a, b = b, a
    return f"{format_number(a)} {action.op} {format_number(b)}"


# --------------------------------------------------------------------------- checking
def check_operation(board: Board, action: OperationAction) -> Operation:
    """The :class:`Operation` ``action`` performs on ``board``, or :class:`ActionError`."""
    rest = remove_operands(board, action.a, action.b)
    shown = f"{format_number(action.a)} {action.op} {format_number(action.b)}"
    if action.op == "/" and action.b == 0:
        raise ActionError(f"{shown} divides by zero")
    result = apply_op(action.a, action.op, action.b)
    if action.claimed_result is not None and action.claimed_result != result:
        raise ActionError(
            f"{shown} is {format_number(result)}, not {format_number(action.claimed_result)}; results must be exact"
        )
    left = sorted_board(rest + (result,))
    if action.claimed_left is not None and sorted_board(action.claimed_left) != left:
        raise ActionError(
            f"wrong left list: after {shown} = {format_number(result)} the numbers left are "
            f"{format_board(left)}, not {format_board(action.claimed_left)}"
        )
    return Operation(action.a, action.op, action.b, result, left)


def check_answer(puzzle: Board, action: AnswerAction) -> Fraction:
    """The value of a final answer that uses each puzzle number exactly once, or :class:`ActionError`.

    A value other than 24 is not an error here: it is a wrong (terminal) answer.
    """
    used = literals(action.expression)
    if Counter(used) != Counter(puzzle):
        want, got = Counter(puzzle), Counter(used)
        problems = []
        missing = want - got
        extra = got - want
        if missing:
            problems.append("missing " + format_board(sorted(missing.elements())))
        if extra:
            problems.append("not allowed or reused " + format_board(sorted(extra.elements())))
        raise ActionError(
            f"the answer must use each input number {format_board(puzzle)} exactly once; "
            f"{action.text!r} is {'; '.join(problems)}"
        )
    try:
        value = evaluate(action.expression)
    except EvaluationError as exc:
        raise ActionError(f"the answer divides by zero ({exc})") from None
    return value
