"""Tree-search agents written once against the snapshot protocol and the task hooks.

``tree`` (``SearchNode``, ``SearchTree``), ``config`` (``SearchConfig``, the hooks), ``algorithm``
(``SearchAlgorithm``: what an algorithm implements), ``agent`` (``SearchPolicy``, the one policy that
runs any algorithm, ``SearchOptions``, its options, and ``register_algorithm``) and ``options``
(``option``, ``build_config``: typed settings with their sources) are the framework; each algorithm
is one module (``elo``, ``astar``, ...): one class with one frozen config, registered under its agent
names. See README.md in this folder.
"""
from .agent import SearchOptions, SearchPolicy, SearchResult, register_algorithm
from .algorithm import SearchAlgorithm
from .config import SearchConfig
from .options import build_config, option
from .tree import SearchNode, SearchTree

__all__ = ["SearchAlgorithm", "SearchConfig", "SearchNode", "SearchOptions", "SearchPolicy", "SearchResult",
           "SearchTree", "build_config", "option", "register_algorithm"]
