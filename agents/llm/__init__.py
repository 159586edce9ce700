"""LLM clients for agents: the ``LLM`` protocol (``complete(Request) -> list[str]``), backends by spec string,
and wrappers.

* ``make_llm(spec, env_id=None, **kw)``: ``openai:MODEL``, ``local``, and the simulated ``scripted`` and
  ``synthetic:...`` (``treegym.agents.simulated``), resolved by name.
* ``OpenAICompatibleLLM``: any OpenAI-compatible endpoint, with counted retries.
* ``BudgetedLLM`` / ``CachedLLM``: call/token budget; on-disk record/replay cache.

The OpenAI client is imported on first use (the ``openai`` package is slow to import).
"""
from __future__ import annotations

from typing import Any

from .base import LLM, BudgetExceeded, LLMAuthError, LLMError, LLMTimeout, Message, Usage, approx_tokens
from .budget import BudgetedLLM
from .cache import CachedLLM, ResponseCache
from .request import Request
from .spec import make_llm, register_llm_backend

_LAZY = {"OpenAICompatibleLLM", "choices_grammar"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from . import openai_client

        return getattr(openai_client, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "LLM", "Request", "Message", "Usage", "approx_tokens",
    "LLMError", "LLMTimeout", "LLMAuthError", "BudgetExceeded",
    "make_llm", "register_llm_backend",
    "OpenAICompatibleLLM", "choices_grammar",
    "BudgetedLLM", "CachedLLM", "ResponseCache",
]
