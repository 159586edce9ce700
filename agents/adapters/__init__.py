"""Adapters from treegym envs to RL trainers, and (deprecated) the old name of prompt specs.

* :mod:`.trl` - TRL ``environment_factory`` classes, one per env family (tools = the family's actions);
* :mod:`.gem` - GEM text envs with ``spawn(same_state=True)`` by fork;
* :mod:`.verifiers` - a ``verifiers.v1`` env over treegym's OpenEnv server (``treegym.servers.openenv``);
* :mod:`.episode` - the text episode they share, with group starts cached as forks.

Deprecated here: ``get_adapter(env_id)`` is ``get_prompts(env_id)`` (the LLM-facing
side of envs moved to ``treegym.agents.prompts``); kept so code written against
the old name keeps working.
"""
from ..prompts import PromptSpec as EnvAdapter
from ..prompts import Step, get_prompts as get_adapter

__all__ = ["EnvAdapter", "Step", "get_adapter"]
