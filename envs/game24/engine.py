"""The Game of 24 as a pure :class:`~treegym.envs.core.contract.Engine`: the rules over an immutable
:class:`Game24State`, shared by :class:`~treegym.envs.game24.env.Game24Env` (in-process or
``server_url=``) and the generic session server (``treegym serve treegym/Game24-v0``).

``protocol`` says how an episode is judged (:data:`PROTOCOLS`): ``"treegym"`` (the
default) ends it with success as soon as the last number left is 24 or an answer
equals 24; ``"tot"`` judges it as Tree of Thoughts does (:mod:`.tot_judge`): steps
never end it, the final answer line does, and its verdict is ToT's
``test_output`` rule; a bare whole expression counts as an answer where ToT
reads it as one.

The state holds its task (a reference to the shared :class:`Game24Task`), so observing
needs nothing else; its JSON form is ``{"task_id", "left", "history", "done", "won",
"message", "invalid"}`` with numbers as exact fraction strings (``"3/4"``).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Sequence

from treegym.envs.core.contract import ExpertAdvice, StepResult
from treegym.envs.core.state_json import StateReader

from . import solver
from .arithmetic import format_number, parse_number
from .moves import board_moves
from .rules import (TARGET, ActionError, AnswerAction, Board, Operation, OperationAction, canonical_line, check_answer,
                    check_operation, parse_action, sorted_board)
from .tasks import SPLITS, Game24Task, check_task_id, pickled_with_fractions, split_ids
from .tot_judge import judge_line, reads_as_answer

DEFAULT_SPLIT = "test"

#: How an episode is judged: ``treegym`` (the default) or ``tot`` (Tree of Thoughts' test_output).
PROTOCOLS = ("treegym", "tot")
DEFAULT_PROTOCOL = "treegym"


def check_protocol(protocol: Any) -> str:
    """``protocol`` if it is one of :data:`PROTOCOLS`, else ValueError naming them."""
    if protocol not in PROTOCOLS:
        raise ValueError(f"protocol must be one of {', '.join(map(repr, PROTOCOLS))} (how an episode is judged), "
                         f"got {protocol!r}")
    return protocol


@dataclass(frozen=True)
class Game24State:
    """Everything that changes within an episode, and the task it is on (immutable; a snapshot holds it as is).

    ``left`` are the numbers left (sorted Fractions), ``history`` the lines played,
    ``message`` the last result or error. ``left_text``, ``text`` and ``moves`` (the
    legal operation lines) are derived once at construction, so a restore only
    re-wraps them in fresh dicts.
    """

    left: Board
    history: tuple[str, ...] = ()
    done: bool = False
    won: bool = False
    message: str = ""
    invalid: bool = False
    task: Game24Task | None = field(default=None, compare=False, repr=False)
    left_text: tuple[str, ...] = field(init=False, repr=False, compare=False)
    text: str = field(init=False, repr=False, compare=False)
    moves: tuple[str, ...] = field(init=False, repr=False, compare=False)

    def __reduce__(self):
        return pickled_with_fractions(self, "left")

    def __post_init__(self) -> None:
        left_text = tuple(format_number(x) for x in self.left)
        numbers = "Numbers left: " + " ".join(left_text)
        object.__setattr__(self, "left_text", left_text)
        object.__setattr__(self, "text", f"{self.message}\n{numbers}" if self.message else numbers)
        object.__setattr__(self, "moves", () if self.done or len(self.left) < 2 else board_moves(left_text).lines)


class Game24Engine:
    """The rules of the Game of 24 over the puzzles ``tasks`` (rows of a ToT-format CSV)."""

    default_split = DEFAULT_SPLIT

    def __init__(self, tasks: Sequence[Game24Task], source: str = "the packaged 24.csv",
                 protocol: str = DEFAULT_PROTOCOL):
        self.tasks = tuple(tasks)
        self.source = source
        self.protocol = check_protocol(protocol)

    # ------------------------------------------------------------------ tasks
    def splits(self) -> tuple[str, ...]:
        return SPLITS

    def task_ids(self, split: str) -> tuple[int, ...]:
        return split_ids(split, len(self.tasks))

    def canonical_task_id(self, task_id: Any) -> int:
        """The row index ``task_id`` names (``"3"`` -> 3), or ValueError naming the valid range."""
        return check_task_id(task_id, len(self.tasks))

    def task(self, task_id: Any) -> Game24Task:
        return self.tasks[self.canonical_task_id(task_id)]

    # ------------------------------------------------------------------ dynamics
    def initial_state(self, task: Game24Task, seed: int | None = None) -> Game24State:
        return Game24State(left=task.board, task=task)

    def step(self, state: Game24State, action: str) -> StepResult[Game24State]:
        try:
            if self.protocol == "tot":
                new = self._play_tot(state, action)
            else:
                # a listed line (what agents mostly send) is played off the board's table, unparsed
                listed = board_moves(state.left_text).play(state.left, action) if isinstance(action, str) else None
                new = self._after(state, listed, action) if listed is not None else self._play(state, parse_action(action))
        except ActionError as exc:
            new = Game24State(state.left, state.history, state.done, state.won, f"Invalid action: {exc}", True,
                              state.task)
        return StepResult(new, 1.0 if new.won else 0.0, new.done)

    @staticmethod
    def _play(st: Game24State, action: Any) -> Game24State:
        if isinstance(action, AnswerAction):
            value = check_answer(st.task.board, action)
            won = value == TARGET
            verdict = "Solved." if won else "That is not 24; the episode is over."
            msg = f"Answer: {action.text} = {format_number(value)}. {verdict}"
            return Game24State(st.left, st.history + (f"answer: {action.text}",), True, won, msg, False, st.task)
        op = check_operation(st.left, action)
        return Game24Engine._after(st, op, op.line())

    @staticmethod
    def _after(st: Game24State, op: Operation, line: str) -> Game24State:
        """The state after playing the (checked) operation ``op``, written ``line``, on ``st``'s numbers."""
        done = len(op.left) == 1
        won = done and op.left[0] == TARGET
        msg = line
        if done:
            msg += " Solved: the last number is 24." if won else f" The last number is {format_number(op.left[0])}, not 24."
        return Game24State(op.left, st.history + (line,), done, won, msg, False, st.task)

    @staticmethod
    def _play_tot(st: Game24State, text: str) -> Game24State:
        """ToT's protocol: an answer line (or a bare whole expression) ends the episode with ToT's verdict;
        an operation moves the numbers and never ends it."""
        puzzle = st.task.puzzle
        if not reads_as_answer(puzzle, text):
            action = parse_action(text)
            if isinstance(action, OperationAction):
                op = check_operation(st.left, action)
                msg = op.line()
                if len(op.left) == 1:
                    msg += (" 24 is left: now write the final 'Answer: <expression> = 24' using each puzzle number "
                            "once (the answer alone is judged).") if op.left[0] == TARGET else (
                        f" The last number is {format_number(op.left[0])}, not 24; the episode ends only with "
                        "your 'Answer: <expression> = 24' line.")
                return Game24State(op.left, st.history + (op.line(),), False, False, msg, False, st.task)
        verdict = judge_line(puzzle, text)
        msg = (f"Answer: {verdict.expression} = 24. Solved." if verdict.correct else
               f"Answer {verdict.expression!r} is wrong: {verdict.reason}. The episode is over.")
        return Game24State(st.left, st.history + (f"answer: {verdict.expression}",), True, verdict.correct, msg,
                           False, st.task)

    def is_terminal(self, state: Game24State) -> bool:
        return state.done

    def observe(self, state: Game24State) -> tuple[dict, dict]:
        task = state.task
        obs = {"text": state.text, "instruction": task.instruction, "valid_actions": state.moves,
               "left": state.left_text}
        info = {"success": state.won, "won": state.won, "task_id": task.task_id, "puzzle": task.puzzle,
                "left": state.left_text, "invalid_action": state.invalid, "message": state.message,
                "protocol": self.protocol}
        if self.protocol == "tot" and not state.done and len(state.left) == 1:
            answer = answer_line(task, state.history)
            obs["valid_actions"] = (answer,) if answer else ()
        return obs, info

    def expert(self, state: Game24State) -> ExpertAdvice:
        """The solver's plan from the numbers left; value 1 while 24 can be (or was) made, else 0.

        Under ``protocol="tot"`` the plan ends with the answer line its steps make. The expert follows
        the steps (as ToT's value prompt judges the numbers left): numbers that cannot make 24 are lost
        for it, though an answer over the puzzle's numbers would still be accepted."""
        if state.done:
            return ExpertAdvice((), 1.0 if state.won else 0.0, state.won)
        steps = tuple(op.line() for op in solver.plan(state.left))
        if self.protocol == "tot" and (steps or state.left == (TARGET,)):
            answer = answer_line(state.task, state.history + steps)
            steps += (answer,) if answer else ()
        return ExpertAdvice(steps, 1.0 if steps else 0.0, bool(steps))

    # ------------------------------------------------------------------ contract extras
    def task_fields(self, task: Game24Task) -> dict[str, Any]:
        """``{"numbers": ["4", "9", "10", "13"]}``: the puzzle as written (never a solution)."""
        return {"numbers": [str(n) for n in task.numbers]}

    def canonical_action(self, action: str) -> str | None:
        return canonical_line(action) if isinstance(action, str) else None

    # ------------------------------------------------------------------ JSON
    def state_to_json(self, state: Game24State) -> dict[str, Any]:
        return {"task_id": state.task.task_id, "left": list(state.left_text), "history": list(state.history),
                "done": state.done, "won": state.won, "message": state.message, "invalid": state.invalid}

    def state_from_json(self, data: Any) -> Game24State:
        r = StateReader(data, "Game of 24 state")
        r.plain_of(data, "state")  # every string writable as UTF-8, every number finite and bounded
        task = self.task(r.task_id())
        left = data.get("left")
        if not isinstance(left, list) or not 1 <= len(left) <= len(task.board) or not all(isinstance(x, str) for x in left):
            raise ValueError(f"left must be a list of 1..{len(task.board)} number strings, got {left!r}")
        history = data.get("history", [])
        if not isinstance(history, list) or not all(isinstance(x, str) for x in history):
            raise ValueError("history must be a list of strings")
        flags = {k: data.get(k, False) for k in ("done", "won", "invalid")}
        for k, v in flags.items():
            if not isinstance(v, bool):
                raise ValueError(f"{k} must be true or false, got {v!r}")
        message = data.get("message", "")
        if not isinstance(message, str):
            raise ValueError("message must be a string")
        board = sorted_board(_number(x) for x in left)
        step_won = board == (TARGET,) and self.protocol != "tot"
        if flags["won"] and not (flags["done"] and (step_won or history[-1:] and history[-1].startswith("answer:"))):
            raise ValueError("won is true only for a finished episode that made 24")
        return Game24State(board, tuple(history), flags["done"], flags["won"], message, flags["invalid"], task)


def answer_line(task: Game24Task, history: Sequence[str]) -> str | None:
    """``answer: <expression> = <value>``: the one expression over the puzzle's numbers that the
    operation lines of ``history`` (as the engine records them) compute; None when a line does not
    play on the board (a history read from hand-written JSON)."""
    board, path = task.board, []
    for line in history:
        try:
            action = parse_action(line)
            if isinstance(action, OperationAction):
                op = check_operation(board, action)
                path.append(op)
                board = op.left
        except ActionError:
            return None
    value = format_number(board[0]) if len(board) == 1 else "?"
    return f"answer: {solver.expression_of(task.board, path)} = {value}"


def _number(text: str) -> Fraction:
    try:
        return parse_number(text)
    except ValueError as exc:
        raise ValueError(f"left holds {text!r}, not a number ({exc})") from None
