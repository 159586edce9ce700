"""``Request``: what one ``LLM.complete(request)`` call asks, as one value.

A request is the chat ``messages`` (OpenAI style:
``[{"role": "system"|"user"|"assistant", "content": str}]``) plus the sampling
settings:

* ``n``: completions wanted (at least 1);
* ``temperature``; ``max_tokens`` (None: the backend's default); ``stop`` strings;
* ``choices``: when given, the finite set of strings the answer must be one of
  (valid actions, ``A``/``B``); a backend that can constrain decoding (a grammar)
  does so, the others ignore it and the caller parses;
* ``seed``: passed to the backend (samples of one prompt differ by seed).

``about`` is an opaque payload for whoever *built* the request. The transport
never reads it and it takes no part in equality or cache keys; only simulated
backends look at it. An agent's typed request (``treegym.agents.requests``: its
kind and the env states it concerns) is itself a :class:`ChatRequest` whose
``about`` is itself, so it goes to the backend as it is, one object per call.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

Message = dict[str, str]


def chat_messages(messages: Any) -> tuple[Message, ...]:
    """``messages`` as a tuple of chat message dicts; TypeError naming the expected form otherwise."""
    if type(messages) is list:  # what prompt specs build
        messages = tuple(messages)
    elif type(messages) is not tuple:
        messages = (messages,) if isinstance(messages, (str, bytes)) else tuple(messages)
    for m in messages:
        if type(m) is not dict and not isinstance(m, dict):
            raise TypeError("Request.messages must be a sequence of chat messages "
                            "({'role': ..., 'content': ...} dicts), e.g. [{'role': 'user', 'content': 'hi'}]")
    return messages


class ChatRequest:
    """What the transport reads from any request it is handed, whatever its type: ``messages``, the
    sampling settings ``n``, ``temperature``, ``max_tokens``, ``stop``, ``choices``, ``seed``, and the
    opaque ``about``. :class:`Request` is the plain one; the agents' typed requests
    (``treegym.agents.requests``) are ChatRequests too, so one object goes from an agent to the backend."""

    messages: Sequence[Message]
    n: int
    temperature: float
    max_tokens: int | None
    stop: Sequence[str] | None
    choices: Sequence[str] | None
    seed: int | None
    about: Any

    def _normalise(self) -> None:
        """Store the sequences as tuples and ``n`` as an int >= 1 (in ``__post_init__`` of a frozen dataclass)."""
        setattr_ = object.__setattr__
        setattr_(self, "messages", chat_messages(self.messages))
        if type(self.n) is not int or self.n < 1:
            setattr_(self, "n", max(1, int(self.n)))
        if self.stop is not None and type(self.stop) is not tuple:
            setattr_(self, "stop", tuple(self.stop))
        if self.choices is not None and type(self.choices) is not tuple:
            setattr_(self, "choices", tuple(self.choices))

    def sampling(self) -> dict[str, Any]:
        """The sampling settings as plain JSON values (for cache keys and records)."""
        return {
            "n": self.n,
            "temperature": float(self.temperature),
            "max_tokens": self.max_tokens,
            "stop": list(self.stop) if self.stop else None,
            "choices": list(self.choices) if self.choices else None,
            "seed": self.seed,
        }

    def plain_messages(self) -> list[dict[str, Any]]:
        """A fresh list of fresh message dicts (safe to hand to a client or to store)."""
        return [dict(m) for m in self.messages]

    def replace(self, **changes: Any) -> "Request":
        """A plain :class:`Request` with this one's settings and ``changes`` (e.g.
        ``request.replace(max_tokens=8)``); ``about`` is kept unless changed."""
        fields = {"messages": self.messages, "n": self.n, "temperature": self.temperature,
                  "max_tokens": self.max_tokens, "stop": self.stop, "choices": self.choices, "seed": self.seed,
                  "about": self.about}
        fields.update(changes)
        return Request(**fields)


@dataclass(frozen=True)
class Request(ChatRequest):
    """One chat request (see module docstring). Sequences are stored as tuples."""

    messages: Sequence[Message]
    n: int = 1
    temperature: float = 0.0
    max_tokens: int | None = None
    stop: Sequence[str] | None = None
    choices: Sequence[str] | None = None
    seed: int | None = None
    about: Any = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        self._normalise()
