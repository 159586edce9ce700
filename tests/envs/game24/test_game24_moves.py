"""Game24's table of a board's moves (``moves.board_moves``): the same lines as ``legal_operations``
and, for each line, the same operation and the same next state as parsing and checking the line."""
from __future__ import annotations

from fractions import Fraction

import pytest

from treegym.envs.game24 import rules
from treegym.envs.game24.engine import Game24Engine, Game24State
from treegym.envs.game24.moves import board_moves, legal_lines
from treegym.envs.game24.rules import legal_operations, next_boards, sorted_board
from treegym.envs.game24.tasks import load_tasks

TASKS = load_tasks()

# Boards no puzzle reaches but a hand-written state can hold: zeros, negatives, repeats, large numbers.
ODD_BOARDS = [sorted_board(b) for b in (
    (0, 0, 3, 3), (Fraction(-3, 4), 0, 0, 7), (1, 1, 1, 1), (-5, -5, Fraction(1, 3), 2),
    (Fraction(-28561, 3), Fraction(1, 28561), 13, 13), (0, 24), (24,), (Fraction(7, 2), Fraction(7, 2)),
)] + [tuple(Fraction(x) for x in b) for b in ((13, 4, 10, 9), (6, 1, 6, 1), (5, Fraction(-1, 2), 0))]
# (the last three unsorted, as a hand-built Game24State may hold them: the table sorts what it leaves)


def reachable_boards(tasks) -> set:
    """Every board of two or more numbers that the operations reach from the puzzles of ``tasks``."""
    seen: set = set()
    stack = [t.board for t in tasks]
    while stack:
        board = stack.pop()
        if board in seen or len(board) < 2:
            continue
        seen.add(board)
        stack.extend(next_boards(board))
    return seen


def check_board(engine: Game24Engine, board) -> None:
    ops = legal_operations(board)
    assert legal_lines(board) == tuple(op.line() for op in ops)
    moves = board_moves(tuple(rules.format_number(x) for x in board))
    state = Game24State(board, ("earlier line",), task=TASKS[0])
    for op in ops:
        line = op.line()
        assert moves.play(board, line) == op == rules.check_operation(board, rules.parse_action(line))
        fast = engine.step(state, line)
        slow = engine._play(state, rules.parse_action(line))
        assert (fast.state, fast.reward, fast.terminated) == (slow, float(slow.won), slow.done)
        assert fast.state.left_text == slow.left_text and fast.state.moves == slow.moves


def test_table_matches_parsing_on_sample_and_odd_boards():
    engine = Game24Engine(TASKS)
    boards = sorted(reachable_boards(TASKS[:25])) + ODD_BOARDS
    assert len(boards) > 1000
    for board in boards:
        check_board(engine, board)


@pytest.mark.slow
def test_table_matches_parsing_on_every_board_of_the_shipped_puzzles():
    engine = Game24Engine(TASKS)
    for board in reachable_boards(TASKS):
        check_board(engine, board)


def test_unlisted_text_is_parsed_as_before():
    engine = Game24Engine(TASKS)
    task = next(t for t in TASKS if t.numbers == (4, 9, 10, 13))
    state = engine.initial_state(task)
    moves = board_moves(state.left_text)
    for text in ("13 - 9", " 13 - 9 = 4 (left: 4 4 10) ", "13 - 9 = 4 (left: 10 4 4)", "13 − 9 = 4 (left: 4 4 10)"):
        assert moves.play(state.left, text) is None
        assert engine.step(state, text).state.history == ("13 - 9 = 4 (left: 4 4 10)",)
    wrong = engine.step(state, "13 - 9 = 5 (left: 4 5 10)").state
    assert wrong.invalid and wrong.left == state.left and "not 5" in wrong.message
    assert engine.step(state, ["13 - 9"]).state.message.startswith("Invalid action: an action must be a string")
