"""LLMs by spec string, for ``treegym run --llm SPEC`` (the factory above the transport).

Specs are ``PREFIX`` or ``PREFIX:ARG``; the prefix names a backend:
``scripted`` (the env oracle's replies), ``openai:MODEL``, ``local`` (the
embedded model), ``synthetic:key=value,...`` (a simulated model), or a backend
an installed package adds. ``None`` resolves to an OpenAI-compatible endpoint
when ``OPENAI_BASE_URL`` or ``OPENAI_API_KEY`` is set, otherwise the embedded
local model.

This module lives above ``agents/llm`` (the transport) and ``agents/simulated``
because it picks among both; neither imports it. The built-in backends' modules
are imported on first use (the ``openai`` package is slow to import). Other
backends register with ``register_llm_backend(prefix, factory)`` where
``factory(arg: str, env_id: str | None, **kwargs) -> LLM``; an installed
package does it through the entry-point group :data:`ENTRY_POINT_GROUP`, whose
entry point's *name is the prefix* (it is loaded when a spec first uses that
prefix)::

    [project.entry-points."treegym.llms"]
    myllm = "mypackage.llm"      # a module that calls register_llm_backend("myllm", make)

What a backend declares about itself (simulated, over HTTP, grammar, price) is
its LLM's ``info`` (``treegym.agents.llm.info.LLMInfo``), never its prefix.
"""
from __future__ import annotations

import importlib
import os
from typing import Any, Callable

from .llm.base import LLM

ENTRY_POINT_GROUP = "treegym.llms"
_BACKENDS: dict[str, Callable[..., LLM]] = {}
#: prefix -> (module, factory function) of the built-in backends, imported on first use.
_BUILT_IN: dict[str, tuple[str, str]] = {
    "scripted": ("treegym.agents.simulated.scripted", "make_scripted_llm"),
    "openai": ("treegym.agents.llm.openai_client", "make_openai_llm"),
    "local": ("treegym.agents.llm.local.llm", "make_local_llm"),
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


def backend_prefixes() -> list[str]:
    """Every prefix a spec may start with: built in, registered, or declared by an installed package."""
    from importlib.metadata import entry_points

    return sorted(set(_BUILT_IN) | set(_BACKENDS) | {ep.name for ep in entry_points(group=ENTRY_POINT_GROUP)})


def _factory(prefix: str) -> Callable[..., LLM] | None:
    """The factory behind ``prefix``: registered, built in (imported now), or from the entry point named ``prefix``."""
    if prefix in _BACKENDS:
        return _BACKENDS[prefix]
    if prefix in _BUILT_IN:
        module, name = _BUILT_IN[prefix]
        factory = _BACKENDS[prefix] = getattr(importlib.import_module(module), name)
        return factory
    from treegym.envs.core.plugins import load_entry_points  # lazy: importing treegym.envs registers every id

    if load_entry_points(ENTRY_POINT_GROUP, name=prefix) and prefix not in _BACKENDS:
        raise ValueError(f"the {ENTRY_POINT_GROUP} entry point {prefix!r} loaded but registered no backend "
                         f"{prefix!r}; it must call register_llm_backend({prefix!r}, factory)")
    return _BACKENDS.get(prefix)


def make_llm(spec: str | None, env_id: str | None = None, **kwargs: Any) -> LLM:
    """Build the LLM named by ``spec`` (see module docstring)."""
    spec = spec or default_spec()
    prefix, _, arg = spec.partition(":")
    factory = _factory(prefix)
    if factory is None:
        raise ValueError(f"unknown LLM spec {spec!r}; use one of: scripted, openai:MODEL, local, "
                         f"synthetic:key=value,...; known prefixes: {', '.join(backend_prefixes())}")
    return factory(arg, env_id=env_id, **kwargs)
