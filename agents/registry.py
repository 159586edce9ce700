"""Agents by name, for ``treegym run --agent NAME`` and for Python users.

``make_agent(name, env_id=..., llm=..., **options) -> Policy``. Names may carry
a parameter after ``@`` (``cot@3``, ``sc@5``): the factory receives it as
``at=<int>``. A module adds an agent with::

    @register_agent("myagent", needs_llm=True, help="one line")
    def make(env_id, llm, **options): return MyPolicy(...)

Modules listed in ``_AGENT_MODULES`` are imported lazily on first lookup.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Callable

from .policy import Policy


@dataclass(frozen=True)
class AgentSpec:
    name: str
    factory: Callable[..., Policy]
    needs_llm: bool
    help: str


_AGENTS: dict[str, AgentSpec] = {}
# Modules that register agents when imported.
_AGENT_MODULES: list[str] = [
    "treegym.agents.baselines.react",
    "treegym.agents.baselines.webshop_rule",
    "treegym.agents.search.elo",
    "treegym.agents.search.astar",
    "treegym.agents.search.mcts",
    "treegym.agents.search.dfsdt",
    "treegym.agents.search.tot",
    "treegym.agents.baselines.attempts",
    "treegym.agents.baselines.autogpt",
]


def register_agent(name: str, *, needs_llm: bool, help: str = "") -> Callable:
    def deco(factory: Callable[..., Policy]) -> Callable[..., Policy]:
        _AGENTS[name] = AgentSpec(name, factory, needs_llm, help)
        return factory

    return deco


def _load_all() -> None:
    for mod in _AGENT_MODULES:
        try:
            importlib.import_module(mod)
        except ModuleNotFoundError as exc:
            if exc.name is None or not exc.name.startswith("treegym."):
                raise


def split_name(name: str) -> tuple[str, int | None]:
    base, sep, param = name.partition("@")
    if not sep:
        return base, None
    try:
        return base, int(param)
    except ValueError:
        raise ValueError(f"agent {name!r}: the part after '@' must be a whole number, as in cot@3") from None


def agent_spec(name: str) -> AgentSpec:
    _load_all()
    base, _ = split_name(name)
    key = base if base in _AGENTS else f"{base}@"
    if key not in _AGENTS:
        raise KeyError(f"unknown agent {name!r}; known agents: {', '.join(agent_names())}")
    return _AGENTS[key]


def agent_names() -> list[str]:
    _load_all()
    return sorted(n if not n.endswith("@") else n + "K" for n in _AGENTS)


def make_agent(name: str, env_id: str, llm: Any = None, **options: Any) -> Policy:
    """Build the agent ``name`` for ``env_id``; ``options`` are its keyword options."""
    spec = agent_spec(name)
    _base, at = split_name(name)
    if spec.needs_llm and llm is None:
        raise ValueError(f"agent {name!r} needs an LLM: pass --llm (scripted, openai:MODEL, local, synthetic:...)")
    if at is not None:
        options["at"] = at
    return spec.factory(env_id=env_id, llm=llm, **options)
