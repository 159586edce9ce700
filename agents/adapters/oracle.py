"""Request kinds and oracle answers: how scripted and synthetic LLMs read adapter prompts.

Every adapter prompt starts its system message with a tag line
``[treegym request: KIND]`` (KIND one of :data:`REQUEST_KINDS`), so a model
that only sees the messages (the scripted LLM, the synthetic LLM, a response
cache) can tell what is asked. Real models simply read it as part of the prompt.

An adapter that can compute the truth for its prompts implements
``oracle_answer(messages) -> OracleAnswer``; the rendering hooks of
:class:`OracleRendering` turn a (possibly corrupted) answer back into the text
a model would write, in the format the adapter's own parsers accept.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Sequence

from ..llm.base import Message

REQUEST_KINDS: tuple[str, ...] = ("react", "propose", "compare", "value", "reflect", "imagine")

_TAG_RE = re.compile(r"^\[treegym request: (\w+)\]")


def request_tag(kind: str) -> str:
    """The first line of the system message of a ``kind`` prompt."""
    if kind not in REQUEST_KINDS:
        raise ValueError(f"unknown request kind {kind!r}; use one of {REQUEST_KINDS}")
    return f"[treegym request: {kind}]"


def request_kind(messages: Sequence[Message]) -> str | None:
    """The tagged kind of a prompt, or None when no message carries a tag."""
    for m in messages:
        match = _TAG_RE.match(str(m.get("content", "")).lstrip())
        if match:
            return match.group(1)
    return None


@dataclass(frozen=True)
class OracleAnswer:
    """The truth about one request, as the env's oracle sees it.

    * ``react`` / ``propose``: ``correct`` are next actions that keep the task
      solvable (or finish it), ``wrong`` legal actions that do not, ``malformed``
      answers the env would reject; ``k`` is how many proposals were asked for.
    * ``compare``: ``preference`` is 1.0 when trajectory A is truly better,
      0.0 when B is, 0.5 when they are equally good.
    * ``value``: ``value`` in [0, 1] (1 = the task can still be solved).
    * ``reflect``: ``text`` is a useful reflection.
    * ``imagine``: ``correct`` is the rest of a plan that completes the task
      from here (empty with ``value`` 0 when it cannot be completed), ``wrong``
      a plausible but failing continuation.
    """

    kind: str
    correct: tuple[str, ...] = ()
    wrong: tuple[str, ...] = ()
    malformed: tuple[str, ...] = ()
    k: int = 1
    preference: float | None = None
    value: float | None = None
    text: str = ""
    extra: dict = field(default_factory=dict, compare=False)


class OracleRendering:
    """Default renderings of oracle answers; adapters override to match their parsers."""

    def render_react(self, action: str, thought: str = "") -> str:
        return f"Thought: {thought or 'This is the next step.'}\nAction: {action}"

    def render_proposals(self, actions: Sequence[str]) -> str:
        return "\n".join(actions)

    def render_comparison(self, preference: float) -> str:
        if preference >= 0.75:
            return "A"
        if preference <= 0.25:
            return "B"
        return "Tie"

    def render_value(self, value: float) -> str:
        if value >= 0.75:
            return "sure"
        if value >= 0.25:
            return "likely"
        return "impossible"

    def render_plan(self, actions: Sequence[str]) -> str:
        """An imagined rest-of-plan; no actions means "the task cannot be completed from here"."""
        return "\n".join(actions) if actions else "impossible"

    def render_oracle(self, answer: OracleAnswer) -> str:
        """What a perfect model answers to the request ``answer`` describes."""
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
