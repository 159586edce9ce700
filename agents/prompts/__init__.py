"""Prompts as data: generic builders (``spec.PromptSpec``) plus a small prompt spec per env.

``get_prompts(env_id)`` returns the env's prompt spec (``specs/<env>.py``), or
the generic spec for an env without one, so every agent runs on any env that
follows the env-agent contract. Register a spec with ``@register_spec(env_id)``
on a ``PromptSpec`` subclass (or list its module in ``_SPEC_MODULES``).
"""
from __future__ import annotations

import importlib
from typing import Callable

from .spec import PromptSpec, Step

_SPECS: dict[str, type[PromptSpec]] = {}
_SPEC_MODULES: dict[str, str] = {
    "treegym/Game24-v0": "treegym.agents.prompts.specs.game24",
    "treegym/WebShop-v0": "treegym.agents.prompts.specs.webshop",
    "treegym/ToolBench-v0": "treegym.agents.prompts.specs.tools",
    "treegym/RestBench-v0": "treegym.agents.prompts.specs.tools",
    "treegym/ToolTasks-v0": "treegym.agents.prompts.specs.tools",
    "treegym/BMoCA-v0": "treegym.agents.prompts.specs.bmoca",
    "treegym/ALFWorld-v0": "treegym.agents.prompts.specs.alfworld",
    "treegym/TextWorld-v0": "treegym.agents.prompts.specs.textworld",
}


def register_spec(env_id: str) -> Callable[[type[PromptSpec]], type[PromptSpec]]:
    def deco(cls: type[PromptSpec]) -> type[PromptSpec]:
        cls.env_id = env_id
        _SPECS[env_id] = cls
        return cls

    return deco


def get_prompts(env_id: str) -> PromptSpec:
    """A fresh prompt spec for ``env_id``: its own (imported on first use) or the generic one."""
    if env_id not in _SPECS and env_id in _SPEC_MODULES:
        importlib.import_module(_SPEC_MODULES[env_id])
    spec = _SPECS.get(env_id, PromptSpec)()
    spec.env_id = env_id
    return spec


def spec_env_ids() -> list[str]:
    """Env ids with a prompt spec of their own (every other env gets the generic one)."""
    return sorted(set(_SPEC_MODULES) | set(_SPECS))


__all__ = ["PromptSpec", "Step", "get_prompts", "register_spec", "spec_env_ids"]
