"""The one LLM protocol every agent talks to, and its errors.

``complete(messages, n=1, temperature=0.0, max_tokens=None, stop=None,
choices=None, seed=None) -> list[str]`` takes OpenAI-style chat messages
(``[{"role": "system"|"user"|"assistant", "content": str}]``) and returns
``n`` completions. ``choices``, when given, is the finite set of strings the
answer must be one of (valid actions, ``A``/``B``); a backend that can
constrain decoding (grammar) does so, the others ignore it and the caller
parses. ``usage`` counts calls and tokens for the run report.

Agents send each request with a side channel (``about.py``: its kind and the
env states it concerns); the simulated backends (``scripted``, ``synthetic``)
read the truth from it, every other backend ignores it.
"""
from __future__ import annotations

import threading
from dataclasses import asdict, dataclass
from typing import Protocol, Sequence, runtime_checkable

Message = dict[str, str]


class LLMError(RuntimeError):
    """The LLM backend failed (network, server, bad response). The message says what to do."""


class LLMTimeout(LLMError):
    """The backend did not answer in time (after retries)."""


class LLMAuthError(LLMError):
    """Bad credentials or unknown model: retrying will not help."""


class BudgetExceeded(LLMError):
    """The call or token budget of this episode is spent; agents stop cleanly on it."""


@dataclass
class Usage:
    """Calls and tokens spent. Thread-safe to ``add`` to."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def __post_init__(self) -> None:
        self._lock = threading.Lock()

    def add(self, calls: int = 0, prompt_tokens: int = 0, completion_tokens: int = 0) -> None:
        with self._lock:
            self.calls += calls
            self.prompt_tokens += prompt_tokens
            self.completion_tokens += completion_tokens

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def as_dict(self) -> dict[str, int]:
        return {"calls": self.calls, "prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens}

    def __getstate__(self) -> dict:
        return asdict(self)

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()


@runtime_checkable
class LLM(Protocol):
    """Chat messages in, ``n`` completions out, usage counted."""

    name: str
    usage: Usage

    def complete(
        self,
        messages: Sequence[Message],
        n: int = 1,
        temperature: float = 0.0,
        max_tokens: int | None = None,
        stop: Sequence[str] | None = None,
        choices: Sequence[str] | None = None,
        seed: int | None = None,
    ) -> list[str]: ...


def approx_tokens(text: str) -> int:
    """A tokenizer-free token estimate (about 4 characters a token) for backends without usage."""
    return max(1, (len(text) + 3) // 4) if text else 0
