"""The LLM-facing side of ``treegym/Game24-v0``: ToT-style prompts, tolerant parsers, the oracle.

Actions (the env's syntax, one line each):

* ``a op b = c (left: x y z)`` - combine two of the numbers left (``op`` in ``+ - * /``);
* ``answer: <expression over the four puzzle numbers> = 24`` - the final answer.

Prompts follow Tree of Thoughts (princeton-nlp/tree-of-thought-llm): the
ReAct prompt is a one-shot Thought/Action example; the propose prompt asks for
"Possible next steps:" one per line; the value prompt asks whether the numbers
left can reach 24 (sure / likely / impossible), or for a finished attempt
whether the answer is correct; the compare prompt shows two attempts A and B.
Every prompt's system message starts with a request tag (see ``oracle.py``),
and every user message carries the puzzle and the steps taken as plain
``Puzzle: a b c d`` / ``Step k: ...`` lines, which is what lets
:meth:`Game24Adapter.oracle_answer` recompute the truth from the messages alone.

Numbers are exact rationals (``fractions.Fraction``); a non-integer is written
``p/q``. The oracle uses the env's exact solver (``treegym.envs.game24``).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Sequence

from ..llm.base import Message
from .base import EnvAdapter, Step, register_adapter
from .oracle import OracleAnswer, OracleRendering, request_kind, request_tag

ENV_ID = "treegym/Game24-v0"
OPS = ("+", "-", "*", "/")

_NUM = r"-?\d+(?:\.\d+)?(?:/\d+)?"
_STEP_RE = re.compile(rf"({_NUM})\s*([-+*/])\s*({_NUM})(?:\s*=\s*({_NUM}))?")
_ANSWER_RE = re.compile(r"answer\s*[:=]?\s*(.+)", re.IGNORECASE)
_OP_NORMALISE = str.maketrans({"×": "*", "x": "*", "X": "*", "÷": "/", "−": "-", "–": "-", "—": "-"})


# ----------------------------------------------------------------- numbers
def to_fraction(text: str) -> Fraction | None:
    """``"5"``, ``"1.5"``, ``"5/3"`` as an exact Fraction; None when not a number."""
    try:
        return Fraction(text.strip())
    except (ValueError, ZeroDivisionError):
        return None


def fmt_num(x: Fraction | int) -> str:
    x = Fraction(x)
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def fmt_nums(xs: Sequence[Fraction | int]) -> str:
    return " ".join(fmt_num(x) for x in xs)


def parse_nums(text: str) -> list[Fraction]:
    return [f for f in (to_fraction(t) for t in re.findall(_NUM, text)) if f is not None]


def apply_op(a: Fraction, op: str, b: Fraction) -> Fraction | None:
    """``a op b`` by the env's own arithmetic; None for division by zero or an unknown operator."""
    from treegym.envs.game24 import arithmetic

    if op not in "+-*/" or len(op) != 1:
        return None
    try:
        return arithmetic.apply_op(a, op, b)
    except arithmetic.EvaluationError:
        return None


def evaluate_expression(expr: str) -> tuple[Fraction, list[Fraction]] | None:
    """Exact value and number literals of an arithmetic expression, or None.

    Uses the env's own safe parser (``treegym.envs.game24.arithmetic``); never eval.
    """
    from treegym.envs.game24 import arithmetic

    try:
        tree = arithmetic.parse_expression(arithmetic.normalize(expr))
        return arithmetic.evaluate(tree), arithmetic.literals(tree)
    except (ValueError, RecursionError):
        return None


# ----------------------------------------------------------------- the board as the oracle tracks it
@dataclass(frozen=True)
class Board:
    """Numbers left (with the expression each one stands for) after some steps."""

    puzzle: tuple[Fraction, ...]
    left: tuple[tuple[Fraction, str], ...]
    answered: bool = False
    answer_correct: bool = False

    @classmethod
    def start(cls, puzzle: Sequence[Fraction]) -> "Board":
        return cls(tuple(puzzle), tuple((x, fmt_num(x)) for x in puzzle))

    @property
    def numbers(self) -> list[Fraction]:
        return [v for v, _ in self.left]

    def step(self, a: Fraction, op: str, b: Fraction) -> "Board | None":
        """The board after ``a op b``; None when the operands are not both left (or b = 0 for /)."""
        values = self.numbers
        try:
            i = values.index(a)
            j = next(k for k, v in enumerate(values) if v == b and k != i)
        except (ValueError, StopIteration):
            return None
        c = apply_op(a, op, b)
        if c is None:
            return None
        rest = [item for k, item in enumerate(self.left) if k not in (i, j)]
        return Board(self.puzzle, tuple(rest + [(c, f"({self.left[i][1]} {op} {self.left[j][1]})")]))

    def answer(self, expr: str) -> "Board":
        ok = check_answer(expr, self.puzzle)
        return Board(self.puzzle, self.left, answered=True, answer_correct=ok)

    def apply(self, action: str) -> "Board":
        """Apply one action line; actions the env would reject leave the board as it was."""
        parsed = parse_step(action)
        if parsed is None:
            return self
        if parsed[0] == "answer":
            return self.answer(parsed[1])
        _, a, op, b = parsed
        return self.step(a, op, b) or self

    def final_expression(self) -> str:
        if len(self.left) != 1:
            return ""
        expr = self.left[0][1]
        return expr[1:-1] if expr.startswith("(") and expr.endswith(")") else expr


def check_answer(expr: str, puzzle: Sequence[Fraction]) -> bool:
    """True when ``expr`` (optionally ``... = 24``) uses exactly the puzzle numbers and equals 24."""
    expr = expr.split("=")[0]
    result = evaluate_expression(expr)
    return result is not None and result[0] == 24 and sorted(result[1]) == sorted(puzzle)


def parse_step(line: str) -> tuple | None:
    """``("answer", expr)`` or ``("step", a, op, b)`` from one action line, else None."""
    line = line.translate(_OP_NORMALISE).strip().strip("`").strip()
    m = _ANSWER_RE.search(line)
    if m and line.lower().lstrip("*# ").startswith("answer"):
        return ("answer", m.group(1).strip().rstrip("."))
    m = _STEP_RE.search(line)
    if not m:
        return None
    a, b = to_fraction(m.group(1)), to_fraction(m.group(3))
    if a is None or b is None:
        return None
    return ("step", a, m.group(2), b)


def step_line(board: Board, a: Fraction, op: str, b: Fraction) -> str | None:
    """The env's line for ``a op b`` on ``board`` (``+``/``*`` operands in either order), or None if illegal."""
    for x, y in ((a, b), (b, a)) if op in "+*" else ((a, b),):
        nxt = board.step(x, op, y)
        if nxt is not None:
            line = _legal_by_key(board).get((x, op, y))
            if line is not None:
                return line
    return None


@lru_cache(maxsize=1 << 14)
def _legal_ops(board: tuple[Fraction, ...]) -> tuple:
    """The env's legal operations on a sorted board (cached: boards recur across requests)."""
    from treegym.envs.game24.rules import legal_operations

    return tuple(legal_operations(board))


def _legal_by_key(board: Board) -> dict[tuple[Fraction, str, Fraction], str]:
    return {(o.a, o.op, o.b): o.line() for o in _legal_ops(tuple(sorted(board.numbers)))}


def next_steps(board: Board) -> list[tuple[str, Board]]:
    """Every legal step line from ``board`` (the env's own list, in its order) with the board after it."""
    out = []
    for o in _legal_ops(tuple(sorted(board.numbers))):
        nxt = board.step(o.a, o.op, o.b)
        if nxt is not None:
            out.append((o.line(), nxt))
    return out


# ----------------------------------------------------------------- the solver (the env's)
def solvable(numbers: Sequence[Fraction]) -> bool:
    """The env's exact solver: can ``numbers`` still make 24?"""
    return _solvable_sorted(tuple(sorted(numbers)))


@lru_cache(maxsize=1 << 14)
def _solvable_sorted(board: tuple[Fraction, ...]) -> bool:
    from treegym.envs.game24.solver import is_solvable

    return bool(is_solvable(board))


# ----------------------------------------------------------------- prompts
REACT_SYSTEM = """{tag}
You are playing the Game of 24: use each of the four puzzle numbers exactly once with + - * / to obtain 24.
Each turn, combine two of the numbers left into one; the game is won when the last number left is 24.
Reply with one Thought line and one Action line. The Action is exactly one of:
  a op b = c (left: <the numbers left after this step>)
  answer: <one expression using the four puzzle numbers> = 24   (ends the game at once)

Example
Puzzle: 4 4 6 8
Numbers left: 4 4 6 8
Thought: 4 + 8 = 12 leaves 4 6 12, and 12 * (6 - 4) = 24.
Action: 8 + 4 = 12 (left: 4 6 12)
Numbers left: 4 6 12
Thought: 6 - 4 = 2 leaves 2 12, and 2 * 12 = 24.
Action: 6 - 4 = 2 (left: 2 12)
Numbers left: 2 12
Thought: 12 * 2 = 24, the last number.
Action: 12 * 2 = 24 (left: 24)
"""

PROPOSE_SYSTEM = """{tag}
You help solve the Game of 24 by proposing possible next steps, one per line, in the form
a op b = c (left: <numbers left>). The game is won when the last number left is 24.

Example
Input: 2 8 8 14
Possible next steps:
2 + 8 = 10 (left: 8 10 14)
8 / 2 = 4 (left: 4 8 14)
14 + 2 = 16 (left: 8 8 16)
2 * 8 = 16 (left: 8 14 16)
8 - 2 = 6 (left: 6 8 14)
14 - 8 = 6 (left: 2 6 8)
14 / 2 = 7 (left: 7 8 8)
14 - 2 = 12 (left: 8 8 12)
"""

VALUE_SYSTEM = """{tag}
Evaluate if the given numbers can reach 24 (sure/likely/impossible). End with one word: sure, likely or impossible.

Input: 10 14
10 + 14 = 24
sure
Input: 11 12
11 + 12 = 23
12 - 11 = 1
11 * 12 = 132
11 / 12 = 0.91
impossible
Input: 4 4 10
4 + 4 + 10 = 8 + 10 = 18
4 * 10 - 4 = 40 - 4 = 36
(10 - 4) * 4 = 6 * 4 = 24
sure
Input: 5 7 8
5 + 7 + 8 = 12 + 8 = 20
(8 - 5) * 7 = 3 * 7 = 21
I cannot obtain 24 now, but numbers are within a reasonable range
likely
Input: 1 3 3
1 * 3 * 3 = 9
(1 + 3) * 3 = 12
1 3 3 are all too small
impossible

When an attempt already gave its answer, judge the answer instead: sure if it uses each puzzle number
exactly once and equals 24, otherwise impossible.
"""

COMPARE_SYSTEM = """{tag}
You compare two attempts at the same Game of 24 puzzle. An attempt that gave a correct answer beats
one that did not; otherwise prefer the attempt whose numbers left can still make 24.
Answer with one letter: A or B.
"""

IMAGINE_SYSTEM = """{tag}
Imagine how the Game of 24 attempt below continues until it reaches 24. Write every remaining step,
one per line, in the form a op b = c (left: <numbers left>). If the numbers left cannot make 24,
write only the word impossible.
"""

REFLECT_SYSTEM = """{tag}
You review a failed Game of 24 attempt and write a short plan for the next attempt.
"""


def _history_lines(history: Sequence[Step]) -> list[str]:
    lines = []
    for i, s in enumerate(history, 1):
        lines.append(f"Step {i}: {s.action}")
        if s.observation:
            lines.append(f"Result: {s.observation.strip().splitlines()[0][:200]}")
    return lines


def _history_actions(text: str) -> list[str]:
    return [m.group(1).strip() for m in re.finditer(r"^Step \d+: (.*)$", text, re.MULTILINE)]


@register_adapter(ENV_ID)
class Game24Adapter(OracleRendering, EnvAdapter):
    """Prompts, parsers and oracle for ``treegym/Game24-v0`` (see module docstring)."""

    # ------------------------------------------------------------- reading an observation
    @staticmethod
    def puzzle_numbers(obs: dict) -> list[Fraction]:
        """The four puzzle numbers from an observation (``puzzle``/``numbers`` keys or the text)."""
        for key in ("puzzle", "task_numbers"):
            if obs.get(key) is not None:
                value = obs[key]
                return parse_nums(value) if isinstance(value, str) else [Fraction(x) for x in value]
        for key in ("instruction", "text"):
            m = re.search(r"(?:Puzzle|Input|numbers)\s*:?\s*((?:" + _NUM + r"[ ,]*){4})", str(obs.get(key, "")))
            if m:
                return parse_nums(m.group(1))
        return []

    @staticmethod
    def left_numbers(obs: dict) -> list[Fraction] | None:
        """The numbers left in an observation, or None when it does not say."""
        value = obs.get("left", obs.get("numbers"))
        if value is not None:
            return parse_nums(value) if isinstance(value, str) else [Fraction(x) for x in value]
        m = re.search(r"left\s*(?:numbers)?\s*:?\s*\[?([-\d./ ,]*)", str(obs.get("text", "")), re.IGNORECASE)
        return parse_nums(m.group(1)) if m else None

    def _board(self, obs: dict, history: Sequence[Step]) -> Board:
        board = Board.start(self.puzzle_numbers(obs))
        for s in history:
            board = board.apply(s.action)
        return board

    def _state_lines(self, obs: dict, history: Sequence[Step]) -> list[str]:
        puzzle = self.puzzle_numbers(obs)
        left = self.left_numbers(obs)
        if left is None:
            left = self._board(obs, history).numbers
        lines = [f"Puzzle: {fmt_nums(puzzle)}"]
        if history:
            lines.append("Steps so far:")
            lines += _history_lines(history)
        lines.append(f"Numbers left: {fmt_nums(left)}")
        return lines

    # ------------------------------------------------------------- ReAct
    def react_messages(self, obs: dict, history: Sequence[Step], reflections: Sequence[str] = ()) -> list[Message]:
        user = self._state_lines(obs, history)
        if reflections:
            user = ["Lessons from earlier attempts:"] + [f"- {r}" for r in reflections] + [""] + user
        user.append("Reply with Thought: ... and Action: ...")
        return [
            {"role": "system", "content": REACT_SYSTEM.format(tag=request_tag("react"))},
            {"role": "user", "content": "\n".join(user)},
        ]

    def parse_action(self, text: str, obs: dict) -> str:
        """The action in an answer, normalised to the env's syntax; never raises.

        Takes the last ``Action:`` line (else the last line that looks like a step
        or an answer), strips backticks and trailing words, and rewrites a bare
        ``a op b`` as ``a op b = c (left: ...)`` when the observation says what is left.
        """
        lines = [ln.strip() for ln in str(text or "").strip().splitlines() if ln.strip()]
        if not lines:
            return ""
        chosen = None
        for ln in reversed(lines):
            if ln.lower().lstrip("*# ").startswith("action"):
                chosen = ln.split(":", 1)[1].strip() if ":" in ln else ln
                break
        if chosen is None:
            chosen = next((ln for ln in reversed(lines) if parse_step(ln) is not None), lines[-1])
        return self._normalise(chosen, obs)

    def _normalise(self, line: str, obs: dict) -> str:
        parsed = parse_step(line)
        if parsed is None:
            return line.strip().strip("`").strip()
        if parsed[0] == "answer":
            expr = parsed[1].strip().strip("`").strip()
            expr = expr.split("=")[0].strip()
            return f"answer: {expr} = 24"
        _, a, op, b = parsed
        left = self.left_numbers(obs)
        if left is not None:
            line_ = step_line(Board.start(left), a, op, b)
            # an illegal step is passed on as written: the env says what is wrong with it
            return line_ if line_ is not None else line.strip().strip("`").strip()
        c = apply_op(a, op, b)
        return f"{fmt_num(a)} {op} {fmt_num(b)} = {fmt_num(c) if c is not None else 'undefined'}"

    # ------------------------------------------------------------- propose
    def propose_messages(self, obs: dict, history: Sequence[Step], k: int, avoid: Sequence[str] = ()) -> list[Message]:
        user = self._state_lines(obs, history)
        left = user[-1].split(":", 1)[1].strip()
        if avoid:
            user.append("These steps were already tried from here; propose different ones:")
            user += [f"- {a}" for a in avoid]
        user += [f"Propose {k} possible next steps.", f"Input: {left}", "Possible next steps:"]
        return [
            {"role": "system", "content": PROPOSE_SYSTEM.format(tag=request_tag("propose"))},
            {"role": "user", "content": "\n".join(user)},
        ]

    def parse_proposals(self, text: str, obs: dict) -> list[str]:
        """Distinct actions, one per line that parses as a step or an answer, in order."""
        out: list[str] = []
        for ln in str(text or "").splitlines():
            ln = re.sub(r"^\s*(?:[-*•]|\d+[.)])\s+", "", ln).strip()
            if not ln or parse_step(ln) is None:
                continue
            action = self._normalise(ln, obs)
            if action not in out:
                out.append(action)
        return out

    # ------------------------------------------------------------- value
    def value_messages(self, obs: dict, history: Sequence[Step]) -> list[Message]:
        user = self._state_lines(obs, history)
        answered = [s.action for s in history if (parse_step(s.action) or ("",))[0] == "answer"]
        if answered:
            user.append(f"Judge this answer: {answered[-1]}")
        else:
            user.append(f"Input: {user[-1].split(':', 1)[1].strip()}")
        return [
            {"role": "system", "content": VALUE_SYSTEM.format(tag=request_tag("value"))},
            {"role": "user", "content": "\n".join(user)},
        ]

    # ------------------------------------------------------------- compare
    def compare_messages(self, obs: dict, traj_a: Sequence[Step], traj_b: Sequence[Step]) -> list[Message]:
        puzzle = fmt_nums(self.puzzle_numbers(obs))
        parts = [f"Puzzle: {puzzle}"]
        for name, traj in (("A", traj_a), ("B", traj_b)):
            board = self._board(obs, traj)
            parts.append(f"Trajectory {name}:")
            parts += _history_lines(traj) or ["(no steps yet)"]
            parts.append(f"Numbers left: {fmt_nums(board.numbers)}")
        parts.append("Which trajectory is more likely to reach 24? Answer A or B.")
        return [
            {"role": "system", "content": COMPARE_SYSTEM.format(tag=request_tag("compare"))},
            {"role": "user", "content": "\n".join(parts)},
        ]

    def parse_comparison(self, text: str) -> float:
        t = str(text or "").strip()
        m = re.search(r"\b(?:answer|preference|trajectory)\s*:?\s*([AB])\b", t, re.IGNORECASE)
        letter = m.group(1).upper() if m else (t[:1].upper() if t[:1].upper() in ("A", "B") and
                                                (len(t) == 1 or not t[1].isalpha()) else "")
        return {"A": 1.0, "B": 0.0}.get(letter, 0.5)

    # ------------------------------------------------------------- imagine (A* h2)
    def imagine_messages(self, obs: dict, history: Sequence[Step]) -> list[Message]:
        user = self._state_lines(obs, history) + ["Remaining steps:"]
        return [
            {"role": "system", "content": IMAGINE_SYSTEM.format(tag=request_tag("imagine"))},
            {"role": "user", "content": "\n".join(user)},
        ]

    def parse_imagined(self, text: str) -> list[str]:
        """The imagined remaining steps ([] when the model says it cannot be done)."""
        return [ln.strip() for ln in str(text or "").splitlines() if parse_step(ln) is not None]

    @staticmethod
    def action_key(action: str) -> str:
        """What makes two actions "the same" across puzzles (for A*'s memory): the operation, not the board."""
        return action.split("(left:")[0].strip().lower()

    # ------------------------------------------------------------- reflect
    def reflect_messages(self, obs: dict, trajectory: Sequence[Step], outcome: str) -> list[Message]:
        user = self._state_lines(obs, trajectory)
        user += [f"Outcome: {outcome}", "In two sentences, say what went wrong and what to do differently next time."]
        return [
            {"role": "system", "content": REFLECT_SYSTEM.format(tag=request_tag("reflect"))},
            {"role": "user", "content": "\n".join(user)},
        ]

    # ------------------------------------------------------------- demonstrations (A* memory)
    def demonstrations(self, n: int = 5, seed: int = 0) -> list[list[str]]:
        """Solved plans (action lists: steps then answer) for ``n`` train-split puzzles, via the solver."""
        import random

        from treegym.envs.game24.tasks import load_tasks, split_ids

        tasks = load_tasks()
        ids = list(split_ids("train", len(tasks)))
        random.Random(seed).shuffle(ids)
        plans: list[list[str]] = []
        for i in ids:
            plan = self.solution_plan([Fraction(x) for x in tasks[i].numbers])
            if plan:
                plans.append(plan)
            if len(plans) >= n:
                break
        return plans

    @staticmethod
    def solution_plan(puzzle: Sequence[Fraction]) -> list[str]:
        """The solver's first solution for ``puzzle`` as actions (steps then answer), or []."""
        from treegym.envs.game24.solver import solve

        solutions = solve(list(puzzle))
        if not solutions:
            return []
        return list(solutions[0].steps) + [f"answer: {solutions[0].expression} = 24"]

    # ------------------------------------------------------------- the oracle
    def _board_from_text(self, text: str) -> Board:
        m = re.search(r"^Puzzle: (.*)$", text, re.MULTILINE)
        board = Board.start(parse_nums(m.group(1)) if m else [])
        for action in _history_actions(text):
            board = board.apply(action)
        return board

    def _step_truth(self, board: Board) -> tuple[list[str], list[str], list[str]]:
        """(correct, wrong, malformed) next actions from ``board``."""
        if board.answered:
            return [], [], []
        if len(board.numbers) == 1:
            expr = board.final_expression()
            right = [f"answer: {expr} = 24"] if board.numbers[0] == 24 else []
            wrong = [] if right else [f"answer: {expr} = 24"]
            return right, wrong, ["answer: 24"]
        correct, wrong = [], []
        for line, nxt in next_steps(board):
            (correct if solvable(nxt.numbers) else wrong).append(line)
        values = board.numbers
        absent = max(abs(v) for v in values) + 7
        malformed = [f"{fmt_num(values[0])} + {fmt_num(absent)} = {fmt_num(values[0] + absent)}", "I need to think more."]
        return correct, wrong, malformed

    @staticmethod
    def _score(board: Board) -> int:
        """2 = correctly answered, 1 = can still make 24, 0 = lost."""
        if board.answered:
            return 2 if board.answer_correct else 0
        return 1 if board.numbers and solvable(board.numbers) else 0

    def oracle_answer(self, messages: Sequence[Message]) -> OracleAnswer:
        """The truth about a request built by this adapter (kind from the system tag)."""
        kind = request_kind(messages) or "react"
        user = next((str(m.get("content", "")) for m in reversed(messages) if m.get("role") == "user"), "")
        if kind == "compare":
            head, _, rest = user.partition("Trajectory A:")
            a_text, _, b_text = rest.partition("Trajectory B:")
            board_a = self._board_from_text(head + a_text)
            board_b = self._board_from_text(head + b_text)
            sa, sb = self._score(board_a), self._score(board_b)
            return OracleAnswer("compare", preference=1.0 if sa > sb else 0.0 if sa < sb else 0.5)
        board = self._board_from_text(user)
        if kind == "value":
            return OracleAnswer("value", value=1.0 if self._score(board) >= 1 else 0.0)
        correct, wrong, malformed = self._step_truth(board)
        if kind == "reflect":
            text = ("The attempt reached numbers that cannot make 24. "
                    + (f"From the start, a good first step is {self.solution_plan(board.puzzle)[0]}."
                       if self.solution_plan(board.puzzle) else "This puzzle has no solution."))
            return OracleAnswer("reflect", text=text)
        if kind == "imagine":
            plan = self.solution_plan(board.numbers)[:-1] if len(board.numbers) > 1 else []
            wrong = [w for w in wrong[:1]] + ["24 + 0 = 24 (left: 24)"] if wrong else ["24 + 0 = 24 (left: 24)"]
            return OracleAnswer("imagine", correct=tuple(plan), wrong=tuple(wrong),
                                value=1.0 if plan else 0.0)
        k = 1
        if kind == "propose":
            m = re.search(r"Propose (\d+) possible", user)
            k = int(m.group(1)) if m else 1
            avoid = set(re.findall(r"^- (.*)$", user, re.MULTILINE))
            correct = [a for a in correct if a not in avoid] or correct
            wrong = [a for a in wrong if a not in avoid] or wrong
        return OracleAnswer(kind, correct=tuple(correct), wrong=tuple(wrong), malformed=tuple(malformed), k=k)

    def scripted_reply(self, messages: Sequence[Message]) -> str:
        """What a perfect model answers (the oracle's truth, rendered)."""
        return self.render_oracle(self.oracle_answer(messages))

    def render_proposals(self, actions: Sequence[str]) -> str:
        return "\n".join(actions)
