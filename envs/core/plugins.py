"""Entry-point plugins: the one loader behind every ``treegym.*`` entry-point group.

The groups (each read by the registry it feeds): ``treegym.envs`` (env families,
:mod:`treegym.envs.registration`), ``treegym.agents`` (agents and algorithms,
``treegym.agents.registry``), ``treegym.prompts`` (prompt specs,
``treegym.agents.prompts``) and ``treegym.llms`` (LLM backends,
``treegym.agents.llm_specs``; there the entry point's name is the ``--llm`` spec
prefix). An entry point names a module whose import registers its things, or a
callable (not a class), which is then called with no argument to register them.
"""
from __future__ import annotations

from importlib.metadata import entry_points


def load_entry_points(group: str, name: str | None = None) -> list[str]:
    """Import (and, for a function, call) every entry point of ``group`` (only the one called ``name``
    when given); returns the names loaded. A plugin that fails raises ``ImportError`` naming it."""
    found = entry_points(group=group) if name is None else entry_points(group=group, name=name)
    names = []
    for ep in found:
        try:
            obj = ep.load()
            if callable(obj) and not isinstance(obj, type):
                obj()
        except Exception as exc:  # noqa: BLE001 - a broken plugin is named, not a bare traceback
            raise ImportError(f"the {group} entry point {ep.name!r} ({ep.value}) failed to load: "
                              f"{type(exc).__name__}: {exc}") from exc
        names.append(ep.name)
    return names
