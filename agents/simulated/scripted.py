"""A deterministic scripted ``LLM`` for tests and for oracle-like play.

``ScriptedLLM(responses)``: ``responses`` is either a list of replies,
consumed in order (one per completion; ``n`` completions consume ``n``
replies; when the list runs out ``ScriptExhausted`` is raised unless
``cycle=True``), or a callable ``reply(messages) -> str`` that computes each
reply from the chat messages (called once per completion; a callable with
``takes_request = True`` gets the whole :class:`Request` instead, as the
oracle's replies do). ``None`` always
answers ``""``; an empty list is an LLM that must never be called (e.g. behind a
replay-only cache).

Every ``complete`` call is recorded in ``calls`` (a copy of its message list)
and ``kinds`` (the kind of the typed request in ``request.about``,
``agents/requests.py``, or None for a plain request) and counted as one call in ``usage`` with
``approx_tokens`` token estimates.

The spec ``scripted`` (``make_llm("scripted", env_id=...)``) answers every
request with the truth from the env's expert (``agents/prompts/oracle.py``),
written in the env's prompt format, so an agent on it plays like the oracle.
"""
from __future__ import annotations

import threading
from typing import Any, Callable, Sequence

from ..llm.accounting import CostTracker, PerProcessLock
from ..llm.base import LLMError, Message, Usage, approx_tokens
from ..llm.info import SIMULATED_INFO
from ..llm.request import Request
from ..prompts import get_prompts

ReplyFn = Callable[[list[Message]], str]  # or, with `takes_request = True`, Callable[[Request], str]


class ScriptExhausted(LLMError):
    """A ScriptedLLM was asked for more replies than its script holds."""


class ScriptedLLM(PerProcessLock):
    """Replies from a fixed list or a function of the messages (see module docstring)."""

    info = SIMULATED_INFO

    def __init__(
        self,
        responses: Sequence[str] | ReplyFn | None = None,
        *,
        name: str = "scripted",
        cycle: bool = False,
    ) -> None:
        if callable(responses):
            self._reply: ReplyFn | None = responses
            self._script: list[str] = []
        else:
            self._reply = None
            self._script = [str(r) for r in responses] if responses is not None else [""]
            cycle = cycle or responses is None
            if cycle and not self._script:
                raise ValueError("ScriptedLLM(cycle=True) needs at least one response")
        self.name = name
        self.cycle = cycle
        self.calls: list[list[Message]] = []
        self.kinds: list[str | None] = []
        self._cost = CostTracker()
        self.usage: Usage = self._cost.usage
        self._position = 0
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"ScriptedLLM(name={self.name!r}, calls={len(self.calls)})"

    def last_cost(self) -> Usage:
        return self._cost.last()

    @property
    def remaining(self) -> int | None:
        """Replies left in a list script (None for a callable or a cycling script)."""
        if self._reply is not None or self.cycle:
            return None
        return len(self._script) - self._position

    def complete(self, request: Request) -> list[str]:
        self._cost.begin()
        msgs = request.plain_messages()
        n = request.n
        with self._lock:
            self.calls.append(msgs)
            self.kinds.append(getattr(request.about, "kind", None))
            if self._reply is None:
                replies = [self._next_scripted() for _ in range(n)]
        if self._reply is not None:
            arg = request if getattr(self._reply, "takes_request", False) else msgs
            replies = [str(self._reply(arg) or "") for _ in range(n)]
        self._cost.charge(
            calls=1,
            prompt_tokens=sum(approx_tokens(str(m.get("content") or "")) for m in msgs),
            completion_tokens=sum(approx_tokens(r) for r in replies),
        )
        return replies

    def _next_scripted(self) -> str:
        if self._position >= len(self._script):
            if not self.cycle:
                raise ScriptExhausted(
                    f"ScriptedLLM {self.name!r} ran out of responses after {len(self._script)} replies "
                    f"({len(self.calls)} calls); give it more responses or pass cycle=True"
                )
            self._position = 0
        reply = self._script[self._position]
        self._position += 1
        return reply


UNREADABLE_PROMPT_REPLY = "(simulated model: the caller did not say what this prompt is about.)"


class OracleReply:
    """A reply function (picklable, for process workers): the truth about the typed request in
    ``request.about`` (``agents/requests.py``), rendered by ``prompts`` (a PromptSpec)."""

    takes_request = True

    def __init__(self, prompts: Any):
        self.prompts = prompts

    def __call__(self, request: Request) -> str:
        from .oracle import knows, render, truth  # lazy: the prompts package imports this one

        if not knows(request.about):
            return UNREADABLE_PROMPT_REPLY
        answer = truth(request.about, self.prompts.malformed_examples)
        return render(request.about, answer, self.prompts)


oracle_reply = OracleReply


def make_scripted_llm(arg: str = "", env_id: str | None = None, **kwargs: Any) -> ScriptedLLM:
    """``scripted``: the oracle's replies in ``env_id``'s prompt format."""
    if not env_id:
        raise ValueError(
            "the 'scripted' LLM plays an env's oracle replies and needs an env id: "
            "make_llm('scripted', env_id='treegym/Game24-v0') or treegym run --env ID --llm scripted"
        )

    return ScriptedLLM(oracle_reply(get_prompts(env_id)), name=f"scripted:{env_id}")

