"""Prompts as data: generic builders (``spec.PromptSpec``) plus a small prompt spec per env.

``get_prompts(env_id)`` returns the env's prompt spec, or the generic spec for
an env without one, so every agent runs on any env that follows the env-agent
contract. A spec registers itself with ``@register_spec(env_id)`` on a
``PromptSpec`` subclass. Specs are found the way agents are, lazily on the
first lookup: every module of ``treegym.agents.prompts.specs`` is imported,
then every entry point of the group :data:`ENTRY_POINT_GROUP`, so an installed
package adds a spec with::

    [project.entry-points."treegym.prompts"]
    myenv = "mypackage.prompts"      # a module that uses @register_spec
"""
from __future__ import annotations

from typing import Callable

from ..discovery import Discovery
from .spec import PromptSpec, Step

ENTRY_POINT_GROUP = "treegym.prompts"
_SPECS: dict[str, type[PromptSpec]] = {}
_DISCOVERY = Discovery(ENTRY_POINT_GROUP, (f"{__name__}.specs",))


def register_spec(env_id: str) -> Callable[[type[PromptSpec]], type[PromptSpec]]:
    def deco(cls: type[PromptSpec]) -> type[PromptSpec]:
        cls.env_id = env_id
        _SPECS[env_id] = cls
        return cls

    return deco


def get_prompts(env_id: str) -> PromptSpec:
    """A fresh prompt spec for ``env_id``: its own (found on first use) or the generic one."""
    if env_id not in _SPECS:
        _DISCOVERY.load()
    spec = _SPECS.get(env_id, PromptSpec)()
    spec.env_id = env_id
    return spec


def spec_env_ids() -> list[str]:
    """Env ids with a prompt spec of their own (every other env gets the generic one)."""
    _DISCOVERY.load()
    return sorted(_SPECS)


__all__ = ["ENTRY_POINT_GROUP", "PromptSpec", "Step", "get_prompts", "register_spec", "spec_env_ids"]
