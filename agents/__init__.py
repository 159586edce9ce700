"""treegym agents: the front door.

A quick start needs nothing deeper than this package::

    import gymnasium as gym
    import treegym.envs                                   # registers the treegym/... ids
    from treegym.agents import make_agent, make_llm, run_episode

    llm = make_llm("synthetic:p_correct=0.8", env_id="treegym/Game24-v0")  # or "openai:MODEL", "local"
    policy = make_agent("elo", "treegym/Game24-v0", llm)
    print(run_episode(gym.make("treegym/Game24-v0"), policy, task_id=900, seed=0))

Names are imported on first use (:data:`__all__` says from where), so
``import treegym.agents`` stays cheap and imports no agent, backend or env.
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

#: public name -> the module that defines it (imported when the name is first read)
_EXPORTS: dict[str, str] = {
    # agents
    "make_agent": "treegym.agents.registry",
    "register_agent": "treegym.agents.registry",
    "agent_names": "treegym.agents.registry",
    "Policy": "treegym.agents.policy",
    "BasePolicy": "treegym.agents.policy",
    "AgentGaveUp": "treegym.agents.policy",
    # LLMs
    "make_llm": "treegym.agents.llm_specs",
    "register_llm_backend": "treegym.agents.llm_specs",
    "LLM": "treegym.agents.llm.base",
    "LLMError": "treegym.agents.llm.base",
    "Usage": "treegym.agents.llm.base",
    "LLMInfo": "treegym.agents.llm.info",
    "Request": "treegym.agents.llm.request",
    # prompts
    "PromptSpec": "treegym.agents.prompts",
    "register_spec": "treegym.agents.prompts",
    "get_prompts": "treegym.agents.prompts",
    # running
    "run_episode": "treegym.agents.experiments.episode",
    "evaluate": "treegym.agents.experiments.evaluation",
    "RunConfig": "treegym.agents.experiments.evaluation",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later reads skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


if TYPE_CHECKING:  # for type checkers and IDEs; at run time the names load lazily
    from .experiments.episode import run_episode
    from .experiments.evaluation import RunConfig, evaluate
    from .llm.base import LLM, LLMError, Usage
    from .llm.info import LLMInfo
    from .llm.request import Request
    from .llm_specs import make_llm, register_llm_backend
    from .policy import AgentGaveUp, BasePolicy, Policy
    from .prompts import PromptSpec, get_prompts, register_spec
    from .registry import agent_names, make_agent, register_agent
