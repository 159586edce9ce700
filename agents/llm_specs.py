"""LLMs by spec string, for ``treegym run --llm SPEC`` (the factory above the transport).

Specs: ``scripted`` (the env oracle's replies), ``openai:MODEL``,
``local`` (the embedded model), ``synthetic:key=value,...`` (a simulated model).
``None`` resolves to an OpenAI-compatible endpoint when ``OPENAI_BASE_URL`` or
``OPENAI_API_KEY`` is set, otherwise the embedded local model.

This module lives above ``agents/llm`` (the transport) and ``agents/simulated``
because it picks among both; neither imports it. The built-in backends' modules
are imported on first use (the ``openai`` package is slow to import). Other
backends register with ``register_llm_backend(prefix, factory)`` where
``factory(arg: str, env_id: str | None, **kwargs) -> LLM``.
"""
from __future__ import annotations

import importlib
import os
from typing import Any, Callable

from .llm.base import LLM

_BACKENDS: dict[str, Callable[..., LLM]] = {}
#: prefix -> (module, factory function) of the built-in backends, imported on first use.
_BUILT_IN: dict[str, tuple[str, str]] = {
    "scripted": ("treegym.agents.simulated.scripted", "make_scripted_llm"),
    "openai": ("treegym.agents.llm.openai_client", "make_openai_llm"),
    "local": ("treegym.agents.llm.local", "make_local_llm"),
    "synthetic": ("treegym.agents.simulated.synthetic", "make_synthetic_llm"),
}


def register_llm_backend(prefix: str, factory: Callable[..., LLM]) -> None:
    """``make_llm("PREFIX:ARG", env_id, **kw)`` will call ``factory(ARG, env_id=env_id, **kw)``."""
    _BACKENDS[prefix] = factory


def default_spec() -> str:
    """``openai:$TREEGYM_MODEL`` when an endpoint is configured (``OPENAI_BASE_URL``/``OPENAI_API_KEY``), else ``local``."""
    if os.environ.get("OPENAI_BASE_URL") or os.environ.get("OPENAI_API_KEY"):
        return "openai:" + os.environ.get("TREEGYM_MODEL", "")
    return "local"


def make_llm(spec: str | None, env_id: str | None = None, **kwargs: Any) -> LLM:
    """Build the LLM named by ``spec`` (see module docstring)."""
    spec = spec or default_spec()
    prefix, _, arg = spec.partition(":")
    factory = _BACKENDS.get(prefix)
    if factory is None and prefix in _BUILT_IN:
        module, name = _BUILT_IN[prefix]
        factory = _BACKENDS[prefix] = getattr(importlib.import_module(module), name)
    if factory is None:
        raise ValueError(
            f"unknown LLM spec {spec!r}; use one of: scripted, openai:MODEL, local, synthetic:key=value,..."
        )
    return factory(arg, env_id=env_id, **kwargs)
