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

import importlib
import pkgutil
import threading
from typing import Callable

from .spec import PromptSpec, Step

ENTRY_POINT_GROUP = "treegym.prompts"
_SPECS: dict[str, type[PromptSpec]] = {}
_loaded = False
_load_lock = threading.RLock()


def register_spec(env_id: str) -> Callable[[type[PromptSpec]], type[PromptSpec]]:
    def deco(cls: type[PromptSpec]) -> type[PromptSpec]:
        cls.env_id = env_id
        _SPECS[env_id] = cls
        return cls

    return deco


def _load_all() -> None:
    """Import the in-tree spec modules and the :data:`ENTRY_POINT_GROUP` plugins, once."""
    global _loaded
    if _loaded:
        return
    with _load_lock:
        if _loaded:
            return
        from treegym.envs.core.plugins import load_entry_points  # here: importing treegym.envs registers every id

        from . import specs

        for info in pkgutil.iter_modules(specs.__path__, specs.__name__ + "."):
            importlib.import_module(info.name)
        load_entry_points(ENTRY_POINT_GROUP)
        _loaded = True


def get_prompts(env_id: str) -> PromptSpec:
    """A fresh prompt spec for ``env_id``: its own (found on first use) or the generic one."""
    if env_id not in _SPECS:
        _load_all()
    spec = _SPECS.get(env_id, PromptSpec)()
    spec.env_id = env_id
    return spec


def spec_env_ids() -> list[str]:
    """Env ids with a prompt spec of their own (every other env gets the generic one)."""
    _load_all()
    return sorted(_SPECS)


__all__ = ["ENTRY_POINT_GROUP", "PromptSpec", "Step", "get_prompts", "register_spec", "spec_env_ids"]
