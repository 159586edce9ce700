"""Agents by name, for ``treegym run --agent NAME`` and for Python users.

``make_agent(name, env_id=..., llm=..., **options) -> Policy``. Names may carry
a parameter after ``@`` (``cot@3``, ``sc@5``): the factory receives it as
``at=<int>``. A module adds an agent with::

    @register_agent("myagent", needs_llm=True, help="one line")
    def make(env_id, llm, **options): return MyPolicy(...)

A run checks its agent and options once (:func:`check_agent`) and then builds one agent per task:
``check=`` (``check(env_id, llm, **options)``, raising ``ValueError`` for a bad option) lets it check
without building; an agent registered without one is built once to check it. A search algorithm
registered with ``register_algorithm`` (``agents/search``) checks its options from its config's
fields and sets ``searches``.

Agents are discovered lazily, on the first lookup: every module of the
``treegym.agents.search`` and ``treegym.agents.baselines`` packages is imported
(``pkgutil``), then every entry point of the group ``treegym.agents``
(:data:`ENTRY_POINT_GROUP`), so a third-party package adds agents by declaring,
in its ``pyproject.toml``::

    [project.entry-points."treegym.agents"]
    myagent = "mypackage.agents"          # a module that calls @register_agent

An entry point that names a function (not a module or class) is also called.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from .discovery import Discovery
from .policy import Policy


@dataclass(frozen=True)
class AgentSpec:
    name: str
    factory: Callable[..., Policy]
    needs_llm: bool
    help: str
    #: ``check(env_id, llm, **options)``: raise ValueError for options the factory would refuse (None: build to check)
    check: Callable[..., None] | None = None
    #: whether the agent is a tree search (it takes ``tree_out``: ``treegym run --save-trees``)
    searches: bool = False


_AGENTS: dict[str, AgentSpec] = {}
ENTRY_POINT_GROUP = "treegym.agents"
# Packages whose every module may register agents when imported (in this order).
AGENT_PACKAGES: tuple[str, ...] = ("treegym.agents.baselines", "treegym.agents.search")
_DISCOVERY = Discovery(ENTRY_POINT_GROUP, AGENT_PACKAGES)


def register_agent(name: str, *, needs_llm: bool, help: str = "", check: Callable[..., None] | None = None,
                   searches: bool = False) -> Callable:
    def deco(factory: Callable[..., Policy]) -> Callable[..., Policy]:
        _AGENTS[name] = AgentSpec(name, factory, needs_llm, help, check, searches)
        return factory

    return deco


def agents() -> list[AgentSpec]:
    """Every registered agent, by name (``cot@`` for a name taking ``@K``)."""
    _DISCOVERY.load()
    return [_AGENTS[n] for n in sorted(_AGENTS)]


def split_name(name: str) -> tuple[str, int | None]:
    base, sep, param = name.partition("@")
    if not sep:
        return base, None
    try:
        return base, int(param)
    except ValueError:
        raise ValueError(f"agent {name!r}: the part after '@' must be a whole number, as in cot@3") from None


def agent_spec(name: str) -> AgentSpec:
    _DISCOVERY.load()
    base, _ = split_name(name)
    key = base if base in _AGENTS else f"{base}@"
    if key not in _AGENTS:
        raise KeyError(f"unknown agent {name!r}; known agents: {', '.join(agent_names())}")
    return _AGENTS[key]


def agent_names() -> list[str]:
    _DISCOVERY.load()
    return sorted(n if not n.endswith("@") else n + "K" for n in _AGENTS)


def _resolve(name: str, llm: Any, options: dict[str, Any]) -> AgentSpec:
    """The spec of ``name``, after refusing a missing LLM; ``options`` gets the name's ``@N`` as ``at``."""
    spec = agent_spec(name)
    _base, at = split_name(name)
    if spec.needs_llm and llm is None:
        raise ValueError(f"agent {name!r} needs an LLM: pass --llm (scripted, openai:MODEL, local, synthetic:...)")
    if at is not None:
        options["at"] = at
    return spec


def make_agent(name: str, env_id: str, llm: Any = None, **options: Any) -> Policy:
    """Build the agent ``name`` for ``env_id``; ``options`` are its keyword options."""
    spec = _resolve(name, llm, options)
    return spec.factory(env_id=env_id, llm=llm, **options)


def check_agent(name: str, env_id: str, llm: Any = None, **options: Any) -> None:
    """Raise (KeyError, ValueError) where :func:`make_agent` would, without building the agent when it
    registered a ``check``."""
    spec = _resolve(name, llm, options)
    if spec.check is None:
        spec.factory(env_id=env_id, llm=llm, **options)
    else:
        spec.check(env_id, llm, **options)
