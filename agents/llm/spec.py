"""LLMs by spec string, for ``treegym run --llm SPEC``.

Specs: ``scripted`` (the env oracle's replies), ``openai:MODEL``,
``local`` (the embedded model), ``synthetic:key=value,...`` (a simulated model).
``None`` resolves to an OpenAI-compatible endpoint when ``OPENAI_BASE_URL`` or
``OPENAI_API_KEY`` is set, otherwise the embedded local model.

Backends register with ``register_llm_backend(prefix, factory)`` where
``factory(arg: str, env_id: str | None, **kwargs) -> LLM``.
"""
from __future__ import annotations

import importlib
import os
from typing import Any, Callable

from .base import LLM

_BACKENDS: dict[str, Callable[..., LLM]] = {}
_BACKEND_MODULES: dict[str, str] = {
    "scripted": "treegym.agents.simulated.scripted",
    "openai": "treegym.agents.llm.openai_client",
    "local": "treegym.agents.llm.local",
    "synthetic": "treegym.agents.simulated.synthetic",
}


def register_llm_backend(prefix: str, factory: Callable[..., LLM]) -> None:
    _BACKENDS[prefix] = factory


def default_spec() -> str:
    if os.environ.get("OPENAI_BASE_URL") or os.environ.get("OPENAI_API_KEY"):
        return "openai:" + os.environ.get("TREEGYM_MODEL", "")
    return "local"


def make_llm(spec: str | None, env_id: str | None = None, **kwargs: Any) -> LLM:
    """Build the LLM named by ``spec`` (see module docstring)."""
    spec = spec or default_spec()
    prefix, _, arg = spec.partition(":")
    if prefix not in _BACKENDS and prefix in _BACKEND_MODULES:
        importlib.import_module(_BACKEND_MODULES[prefix])
    if prefix not in _BACKENDS:
        raise ValueError(
            f"unknown LLM spec {spec!r}; use one of: scripted, openai:MODEL, local, synthetic:key=value,..."
        )
    return _BACKENDS[prefix](arg, env_id=env_id, **kwargs)
