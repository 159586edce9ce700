"""The one LLM protocol every agent talks to, and its errors.

``complete(request: Request) -> list[str]``: a :class:`~.request.Request` holds
the chat messages (``[{"role": "system"|"user"|"assistant", "content": str}]``)
and the sampling settings (``n``, ``temperature``, ``max_tokens``, ``stop``,
``choices``, ``seed``); the answer is ``request.n`` completions. ``choices``,
when given, is the finite set of strings the answer must be one of (valid
actions, ``A``/``B``); a backend that can constrain decoding (grammar) does so,
the others ignore it and the caller parses. ``usage`` counts calls and tokens
for the run report.

A request also carries an opaque ``about`` payload: agents put their typed
request there (``treegym.agents.requests``: its kind and the env states it
concerns). Real backends and every wrapper pass it through untouched; only the
simulated backends (``agents/simulated``) read it, for the truth.

A custom LLM is any object with ``name``, ``usage`` and this one ``complete``.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from .request import Message, Request


class LLMError(RuntimeError):
    """The LLM backend failed (network, server, bad response). The message says what to do."""


class LLMTimeout(LLMError):
    """The backend did not answer in time (after retries)."""


class LLMAuthError(LLMError):
    """Bad credentials or unknown model: retrying will not help."""


class BudgetExceeded(LLMError):
    """The call or token budget of this episode is spent; agents stop cleanly on it."""


_USAGE_LOCK = threading.Lock()  # one for every Usage: an add is a few additions, and a Usage is made per call


@dataclass
class Usage:
    """Calls and tokens spent. Thread-safe to ``add`` to (all Usage objects share one lock, so making one
    costs no lock of its own)."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def add(self, calls: int = 0, prompt_tokens: int = 0, completion_tokens: int = 0) -> None:
        with _USAGE_LOCK:
            self.calls += calls
            self.prompt_tokens += prompt_tokens
            self.completion_tokens += completion_tokens

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def as_dict(self) -> dict[str, int]:
        return {"calls": self.calls, "prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens}


@runtime_checkable
class LLM(Protocol):
    """A :class:`Request` in, ``request.n`` completions out, usage counted."""

    name: str
    usage: Usage

    def complete(self, request: Request) -> list[str]: ...


def approx_tokens(text: str) -> int:
    """A tokenizer-free token estimate (about 4 characters a token) for backends without usage."""
    return max(1, (len(text) + 3) // 4) if text else 0
