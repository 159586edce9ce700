"""Finding what registers itself: import every module of some packages, then an entry-point group, once.

The agent registry (``registry.py``) and the prompt specs (``prompts``) each keep
one :class:`Discovery`; their first lookup calls :meth:`Discovery.load`. What a
module registers is its own business (``@register_agent``, ``@register_spec``).
"""
from __future__ import annotations

import importlib
import pkgutil
import threading
from typing import Sequence


def package_modules(package: str) -> list[str]:
    """The module names of ``package`` (not its subpackages' modules), sorted; [] when it is not installed."""
    try:
        pkg = importlib.import_module(package)
    except ModuleNotFoundError as exc:
        if exc.name is not None and package.startswith(exc.name):
            return []
        raise
    return sorted(info.name for info in pkgutil.iter_modules(getattr(pkg, "__path__", []), package + "."))


class Discovery:
    """Imports every module of ``packages`` (in order), then every entry point of ``group``, on the first
    :meth:`load` (thread-safe; later calls return at once). Set ``loaded = False`` to look again."""

    def __init__(self, group: str, packages: Sequence[str]) -> None:
        self.group = group
        self.packages = tuple(packages)
        self.loaded = False
        self._lock = threading.RLock()

    def load(self) -> None:
        if self.loaded:
            return
        with self._lock:
            if self.loaded:
                return
            from treegym.envs.core.plugins import load_entry_points  # lazy: importing treegym.envs registers every id

            for package in self.packages:
                for module in package_modules(package):
                    importlib.import_module(module)
            load_entry_points(self.group)
            self.loaded = True
