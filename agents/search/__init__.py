"""Tree-search agents written once against the snapshot protocol and the task hooks.

``tree`` (``SearchNode``, ``SearchTree``), ``config`` (``SearchConfig``, the hooks) and ``agent``
(``SearchAgent``, the runner) are the framework; each algorithm is one module (``elo``, ``astar``, ...) that
registers an agent name. See README.md in this folder.
"""
from .agent import SearchAgent, SearchResult
from .config import SearchConfig
from .tree import SearchNode, SearchTree

__all__ = ["SearchAgent", "SearchConfig", "SearchNode", "SearchResult", "SearchTree"]
