"""LLM wrappers, each itself an ``LLM``: a call/token budget and a persistent response cache.

They nest: ``BudgetedLLM(CachedLLM(OpenAICompatibleLLM(...), "runs/cache.jsonl"), max_calls=30)``
stops a replayed run exactly where the recorded one stopped. See ``budget.py``
and ``cache.py`` for the rules.
"""
from .budget import BudgetedLLM
from .cache import CachedLLM, ResponseCache, request_key

__all__ = ["BudgetedLLM", "CachedLLM", "ResponseCache", "request_key"]
