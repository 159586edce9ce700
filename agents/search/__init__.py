"""Tree-search agents written once against the snapshot protocol and the task hooks.

``tree`` (``SearchNode``, ``SearchTree``), ``config`` (``SearchConfig``, the hooks), ``agent``
(``SearchAgent``, the runner, and ``SearchOptions``, the options every algorithm takes) and ``options``
(``option``, ``build_config``: typed settings with their sources) are the framework; each algorithm is
one module (``elo``, ``astar``, ...) with one frozen config dataclass that registers an agent name.
See README.md in this folder.
"""
from .agent import SearchAgent, SearchOptions, SearchResult
from .config import SearchConfig
from .options import build_config, option
from .tree import SearchNode, SearchTree

__all__ = ["SearchAgent", "SearchConfig", "SearchNode", "SearchOptions", "SearchResult", "SearchTree",
           "build_config", "option"]
