"""Tree of Thoughts' verdict on a Game of 24 output, re-implemented (``protocol="tot"``).

The ToT repository (princeton-nlp/tree-of-thought-llm, ``Game24Task.test_output``)
scores an output by its **last line** only, and its published tables (ToT
Table 2, and the RaDAgent/JUDEC tables that reuse its puzzles and evaluator)
count that verdict. The rule, as :func:`judge_line` applies it:

1. the *expression* is the line stripped and lower-cased, with every
   ``"answer: "`` removed, up to its first ``=`` (:func:`tot_expression`);
2. the runs of digits in the expression, compared as strings, must be the
   puzzle's runs of digits as a multiset: ``1.5`` counts as ``1`` and ``5``,
   ``04`` is not ``4`` (:func:`numbers_match`);
3. the expression must be exactly 24. ToT asks sympy; here the env's exact
   tokenizer and parser read the raw expression (no ``×`` or trailing-period
   normalising, which sympy does not do either), so anything that is not
   ``+ - * /``, numbers and parentheses (letters, ``Answer: None``, unbalanced
   parentheses) is wrong. Known difference: sympy also reads ``^`` and ``**`` as
   powers and a leading ``+``; none of ToT's 20,500 published GPT-4 outputs
   uses them (tests/envs/game24/test_game24_tot_logs.py replays all of them).

:func:`reads_as_answer` says which lines ToT would take as a final answer: one
that starts with ``answer``, or a bare expression whose numbers are exactly the
puzzle's (``(6 / (9 - 7)) * 8 = 24``). Pure functions; the engine decides what
an answer does to an episode.
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction

from .arithmetic import MAX_ACTION_CHARS, EvaluationError, ParseError, evaluate, format_number, parse_expression
from .rules import TARGET

_DIGITS = re.compile(r"\d+")


@dataclass(frozen=True)
class ToTVerdict:
    """ToT's verdict on one line: ``expression`` (what it evaluates), ``correct``, and ``reason`` (why not)."""

    expression: str
    correct: bool
    value: Fraction | None
    reason: str


def tot_expression(line: str) -> str:
    """The part of ``line`` ToT evaluates: lower-cased, ``"answer: "`` removed, up to the first ``=``."""
    return line.strip().lower().replace("answer: ", "").split("=")[0]


def numbers_match(puzzle: str, expression: str) -> bool:
    """Whether the digit runs of ``expression`` are exactly the puzzle's (as strings, any order)."""
    return Counter(_DIGITS.findall(expression)) == Counter(_DIGITS.findall(puzzle))


def reads_as_answer(puzzle: str, line: str) -> bool:
    """Whether ToT would judge ``line`` as a final answer: it starts with ``answer``, or (a bare
    expression) its numbers before ``=`` are exactly the puzzle's."""
    if not isinstance(line, str):
        return False
    return line.strip().lower().startswith("answer") or numbers_match(puzzle, tot_expression(line))


def judge_line(puzzle: str, line: str) -> ToTVerdict:
    """ToT's ``test_output`` rule on one final line (see the module docstring)."""
    expression = tot_expression(line)
    shown = expression.strip()[:MAX_ACTION_CHARS]  # what messages and the history show
    if not numbers_match(puzzle, expression):
        used = " ".join(sorted(_DIGITS.findall(expression), key=int)) or "no numbers"
        return ToTVerdict(shown, False, None, f"it uses {used}, not exactly the puzzle's {puzzle}")
    if len(expression) > MAX_ACTION_CHARS:
        return ToTVerdict(shown, False, None, f"the expression is longer than {MAX_ACTION_CHARS} characters")
    try:
        value = evaluate(parse_expression(expression.strip()))
    except ParseError as exc:
        return ToTVerdict(shown, False, None, f"it is not an arithmetic expression ({exc})")
    except (EvaluationError, ZeroDivisionError):
        return ToTVerdict(shown, False, None, "it divides by zero")
    except (ValueError, ArithmeticError) as exc:
        return ToTVerdict(shown, False, None, f"it is not an arithmetic expression ({exc})")
    if value != TARGET:
        return ToTVerdict(shown, False, value, f"it equals {format_number(value)}, not 24")
    return ToTVerdict(shown, True, value, "")


def judge_output(puzzle: str, output: str) -> bool:
    """ToT's verdict on a whole output: its last non-blank line, judged by :func:`judge_line`."""
    lines = output.strip().split("\n")
    return judge_line(puzzle, lines[-1]).correct
