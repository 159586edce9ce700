"""LLM clients for agents: the ``LLM`` protocol (``complete(Request) -> list[str]``), backends by spec string,
and wrappers.

* LLMs by spec string (``openai:MODEL``, ``local``, ``scripted``, ``synthetic:...``): ``make_llm`` in
  ``treegym.agents.llm_specs``, above this package (it also builds the simulated models).
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

_LAZY = {"OpenAICompatibleLLM", "choices_grammar"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from . import openai_client  # lazy: the openai package takes about a second to import

        return getattr(openai_client, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "LLM", "Request", "Message", "Usage", "approx_tokens",
    "LLMError", "LLMTimeout", "LLMAuthError", "BudgetExceeded",
    "OpenAICompatibleLLM", "choices_grammar",
    "BudgetedLLM", "CachedLLM", "ResponseCache",
]
