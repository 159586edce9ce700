"""The side channel of an LLM request: which env states it is about.

Agents build prompts from observations; a *simulated* model (the scripted
oracle, the synthetic LLM) must know the truth about the same request, and it
learns it from the env, never by reading the prompt back. So every agent wraps
its ``llm.complete(...)`` call in ``with asking(About(...)):``; the simulated
backends read :func:`current_about` inside ``complete``, real backends (OpenAI,
llama.cpp, the cache) never look at it. It is a context variable, so it passes
through any wrapper (budget, cache, accounting) unchanged and each thread sees
only its own requests.

``About.states`` holds one :data:`StateRef` per state the request concerns
(a compare request: trajectory A, then B): ``(snapshot, actions)`` means "the
state reached by playing ``actions`` from ``snapshot``"; a ``None`` snapshot
means the env's live state at the time of the call.
"""
from __future__ import annotations

import contextlib
import contextvars
from dataclasses import dataclass
from typing import Any, Iterator

REQUEST_KINDS: tuple[str, ...] = ("react", "propose", "compare", "value", "reflect", "imagine")

StateRef = tuple[Any, tuple[str, ...]]  # (Snapshot | None, actions played from it)
LIVE: StateRef = (None, ())


@dataclass(frozen=True)
class About:
    """What one LLM request concerns (see module docstring).

    * ``kind``: one of :data:`REQUEST_KINDS`;
    * ``env``: the env the snapshots belong to (the agent's bound env);
    * ``states``: the states asked about (compare: A then B), as :data:`StateRef`;
    * ``k``: proposals asked for; ``avoid``: actions the prompt says were tried.
    """

    kind: str
    env: Any
    states: tuple[StateRef, ...] = (LIVE,)
    k: int = 1
    avoid: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.kind not in REQUEST_KINDS:
            raise ValueError(f"unknown request kind {self.kind!r}; use one of {REQUEST_KINDS}")
        object.__setattr__(self, "states", tuple((s, tuple(a)) for s, a in self.states))
        object.__setattr__(self, "avoid", tuple(self.avoid))


_CURRENT: contextvars.ContextVar[About | None] = contextvars.ContextVar("treegym_llm_about", default=None)


@contextlib.contextmanager
def asking(about: About | None) -> Iterator[None]:
    """Within the block, :func:`current_about` is ``about`` (nesting restores the outer one)."""
    token = _CURRENT.set(about)
    try:
        yield
    finally:
        _CURRENT.reset(token)


def current_about() -> About | None:
    """The request being answered, or None when the caller said nothing (a plain prompt)."""
    return _CURRENT.get()
