"""Tree-search agents written once against the snapshot protocol and the task hooks.

``base`` holds the framework (``SearchNode``, ``SearchTree``, ``SearchConfig``,
``SearchAgent``); each algorithm is one module (``elo``, ``astar``, ...) that
registers an agent name. See README.md in this folder.
"""
from .base import SearchAgent, SearchConfig, SearchNode, SearchResult, SearchTree, TaskHooks

__all__ = ["SearchAgent", "SearchConfig", "SearchNode", "SearchResult", "SearchTree", "TaskHooks"]
