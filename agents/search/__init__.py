"""Tree-search agents written once against the snapshot protocol and the task hooks.

``base`` holds the framework (``SearchNode``, ``SearchTree``, ``TaskHooks``,
``SearchAgent``); each algorithm is one module (``elo``, ``astar``, ...) that
registers an agent name. See README.md in this folder.
"""
from .base import SearchAgent, SearchNode, SearchResult, SearchTree, TaskHooks

__all__ = ["SearchAgent", "SearchNode", "SearchResult", "SearchTree", "TaskHooks"]
