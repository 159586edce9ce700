"""How answers that do not name an action are read and written: comparisons, values, oracle renderings.

:class:`AnswerForms` is the part of :class:`~.spec.PromptSpec` that knows no env: it parses a
pairwise verdict (``A``/``B``) and a ToT value word (``sure``/``likely``/``impossible``), and
writes an oracle answer (``OracleAnswer``, from ``agents/simulated/oracle.py``) as a model
would, in the form the parsers read (the scripted and synthetic LLMs use the ``render_*``
methods). Env prompt specs override any of them through ``PromptSpec``.
"""
from __future__ import annotations

import re
from typing import Any, Callable, Sequence


MAX_READ = 1024  # answer texts remembered per form (a search reads the same few verdicts thousands of times)
MAX_READ_CHARS = 512  # longer answers (a real model's reasoning) are read afresh: they seldom recur
_COMPARISONS: dict[str, float] = {}
_VALUES: dict[str, float] = {}


def _remembered(memo: dict[str, float], text: Any, read: Callable[[Any], float]) -> float:
    """``read(text)``, remembered in ``memo`` for text (a pure function of it): at most ``MAX_READ`` texts of at
    most ``MAX_READ_CHARS`` characters, then the memo starts over."""
    if type(text) is not str or len(text) > MAX_READ_CHARS:
        return read(text)
    got = memo.get(text)
    if got is None:
        if len(memo) >= MAX_READ:
            memo.clear()
        got = memo[text] = read(text)
    return got


def _read_comparison(text: Any) -> float:
    verdicts = re.findall(r"(?:answer|preference|choice|better|winner|trajectory)\W{0,3}\s*(?:is\s+)?\W?([AB])\b",
                          str(text or ""), flags=re.IGNORECASE)
    if not verdicts:
        verdicts = re.findall(r"(?<![A-Za-z])([AB])(?![A-Za-z])", str(text or "").strip()[:3], flags=re.IGNORECASE)
    if not verdicts:
        return 0.5
    return 1.0 if verdicts[-1].upper() == "A" else 0.0


def _read_value(text: Any) -> float:
    t = text.strip().lower().splitlines()[-1] if str(text or "").strip() else ""
    for word, v in (("sure", 1.0), ("likely", 0.5), ("impossible", 0.0)):
        if word in t:
            return v
    return 0.25


class AnswerForms:
    """Env-independent answer parsers and renderers (module docstring); a base of ``PromptSpec``."""

    def parse_comparison(self, text: str) -> float:
        """1.0 when the answer picks A, 0.0 for B, 0.5 when it picks neither or both.

        Reads the last ``A``/``B`` verdict: ``Answer: B``, ``preference: A``,
        ``**B**`` or a bare letter, so a reasoning preamble does not count as a vote.
        A text read before is answered from memory (:func:`_remembered`).
        """
        return _remembered(_COMPARISONS, text, _read_comparison)

    def parse_value(self, text: str) -> float:
        """The ToT value word on the answer's last line: sure 1.0, likely 0.5, impossible 0.0, else 0.25
        (remembered per text as :meth:`parse_comparison` is)."""
        return _remembered(_VALUES, text, _read_value)

    # renderings of oracle answers
    def render_react(self, action: str, thought: str = "") -> str:
        return f"Thought: {thought or 'This is the next step.'}\nAction: {action}"

    def render_proposals(self, actions: Sequence[str]) -> str:
        return "\n".join(actions)

    def render_comparison(self, preference: float) -> str:
        return "Answer: A" if preference >= 0.75 else "Answer: B" if preference <= 0.25 else "Answer: tie"

    def render_value(self, value: float) -> str:
        return "sure" if value >= 0.75 else "likely" if value >= 0.25 else "impossible"

    def render_plan(self, actions: Sequence[str]) -> str:
        """An imagined rest-of-plan; no actions means "the task cannot be completed from here"."""
        return "\n".join(actions) if actions else "impossible"

    def render_oracle(self, answer: Any) -> str:
        """What a perfect model answers to the request ``answer`` (an ``OracleAnswer``) describes."""
        if answer.kind == "react":
            return self.render_react(answer.correct[0] if answer.correct else (answer.wrong or ("",))[0])
        if answer.kind == "propose":
            return self.render_proposals(list(answer.correct[: answer.k]) or list(answer.wrong[: answer.k]))
        if answer.kind == "compare":
            return self.render_comparison(0.5 if answer.preference is None else answer.preference)
        if answer.kind == "value":
            return self.render_value(0.0 if answer.value is None else answer.value)
        if answer.kind == "imagine":
            return self.render_plan(answer.correct)
        return answer.text
