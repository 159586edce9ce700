"""Deprecated: the LLM-facing side of envs moved to ``treegym.agents.prompts`` (prompt specs).

``get_adapter(env_id)`` is ``get_prompts(env_id)``; kept so code written against
the old name keeps working. New code imports from ``treegym.agents.prompts``.
"""
from ..prompts import PromptSpec as EnvAdapter
from ..prompts import Step, get_prompts as get_adapter

__all__ = ["EnvAdapter", "Step", "get_adapter"]
