"""The search tree: :class:`SearchNode` (one state reached by one action, with its snapshot,
observation, value, visits and the LLM exchanges that produced it) and :class:`SearchTree` (the nodes
of one search, saved as JSON for ``treegym tree`` and ``treegym export``).

A node's ``snapshot`` is the env state after its action (``envs/core``'s snapshot protocol); it is
released by the search's snapshot store when the node is pruned or the search ends."""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from ...envs.core import Snapshot
from ..prompts import Step

OBS_EXCERPT_CHARS = 200
OBSERVATION_CHARS = 1500   # per node in a saved tree: what the tree viewer shows
LLM_EXCERPT_CHARS = 1500   # per prompt / answer kept on a node (of the prompt: its last message)
LLM_CALLS_PER_NODE = 8     # LLM exchanges kept per node in a saved tree (the first ones)


def _step(node: "SearchNode") -> Step:
    return Step(node.action or "", node.text, node.reward, node.thought)


def _extend(node: "SearchNode", key: str, item: Any, skip_root: bool = False) -> tuple:
    """``node``'s per-path tuple kept under ``key`` (its parent's plus ``item(node)``), building and keeping
    the missing ones of its ancestors on the way (a loop, not recursion: trees may be deep)."""
    parent = node.parent
    if parent is not None:  # the usual case: the parent's tuple is kept (a new node's parent was read first)
        above = parent.__dict__.get(key)
        if above is not None:
            out = node.__dict__[key] = above + (item(node),)
            return out
    missing: list[SearchNode] = []
    up: SearchNode | None = node
    while up is not None and key not in up.__dict__:
        missing.append(up)
        up = up.parent
    out: tuple = up.__dict__[key] if up is not None else ()
    for n in reversed(missing):
        if not (skip_root and n.parent is None):
            out = out + (item(n),)
        n.__dict__[key] = out
    return out


def _success(info: dict) -> bool:
    """``info["success"]``, which every treegym env reports (envs/core/contract.py)."""
    try:
        return bool(info["success"])
    except KeyError:
        raise ValueError("the env's info has no 'success' entry; every treegym env must report it after "
                         "reset and every step (see envs/core/contract.py)") from None


@dataclass(eq=False)
class SearchNode:
    """One state of the search tree.

    ``snapshot`` is the env state *after* ``action`` (the root's is the state the
    search started from), or None when the search's :class:`SnapshotStore` reaches
    the node by replay from an ancestor instead (costly snapshot kinds) or
    released it; ``observation``/``info`` are what the env returned
    there. ``value`` is the algorithm's main number (Elo, f, Q: the tree names it),
    ``visits`` its visit count; ``stats`` holds anything else per node.
    """

    snapshot: Snapshot | None
    observation: dict
    info: dict = field(default_factory=dict)
    action: str | None = None
    thought: str = ""
    reward: float = 0.0
    terminal: bool = False
    success: bool = False
    depth: int = 0
    parent: "SearchNode | None" = None
    children: list["SearchNode"] = field(default_factory=list)
    visits: int = 0
    value: float = 0.0
    id: int = 0
    stats: dict[str, Any] = field(default_factory=dict)
    llm_calls: list[dict[str, Any]] = field(default_factory=list)

    @property
    def text(self) -> str:
        return str(self.observation.get("text", "")) if isinstance(self.observation, dict) else str(self.observation)

    def path(self) -> tuple["SearchNode", ...]:
        """Nodes from the root to this node, both included. Built once and kept (a shared tuple): a
        node's parent never changes."""
        cached = self.__dict__.get("_path")
        if cached is None:
            cached = _extend(self, "_path", lambda node: node)
        return cached

    def actions(self) -> list[str]:
        return [n.action for n in self.path()[1:] if n.action is not None]

    def trajectory(self) -> tuple[Step, ...]:
        """The path as prompt ``Step`` values, one per node below the root. Built once and kept (a shared
        tuple): a node's action, observation, reward and thought are fixed once the search has made it."""
        cached = self.__dict__.get("_trajectory")
        if cached is None:
            cached = _extend(self, "_trajectory", _step, skip_root=True)
        return cached

    def keep_llm_calls(self, calls: list[dict[str, Any]]) -> None:
        """Keep ``calls`` (LLM excerpts noted elsewhere: on a Ray worker) up to ``LLM_CALLS_PER_NODE`` in all."""
        self.llm_calls += calls[:max(0, LLM_CALLS_PER_NODE - len(self.llm_calls))]

    def child(self, action: str) -> "SearchNode | None":
        return next((c for c in self.children if c.action == action), None)

    def iter_subtree(self) -> Iterator["SearchNode"]:
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))

    def leaves(self) -> list["SearchNode"]:
        return [n for n in self.iter_subtree() if not n.children]


class SearchTree:
    """All nodes of one search, with ids in creation order, and JSON export.

    ``value_name`` says what ``SearchNode.value`` means (``elo``, ``f``, ``q``).
    """

    def __init__(self, root: SearchNode, *, algorithm: str = "", value_name: str = "value", env_id: str = ""):
        self.root = root
        self.nodes: list[SearchNode] = []
        self.algorithm = algorithm
        self.value_name = value_name
        self.env_id = env_id
        self.chosen: SearchNode | None = None
        self.task_id: Any = root.info.get("task_id") if isinstance(root.info, dict) else None
        self.add(root)

    def add(self, node: SearchNode) -> SearchNode:
        node.id = len(self.nodes)
        self.nodes.append(node)
        return node

    def __len__(self) -> int:
        return len(self.nodes)

    def terminal_nodes(self) -> list[SearchNode]:
        return [n for n in self.nodes if n.terminal]

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict: one entry per node (see ``treegym tree`` for a reader)."""
        chosen_ids = {n.id for n in self.chosen.path()} if self.chosen is not None else set()
        root_step = getattr(self.root.snapshot, "steps", None) or 0
        return {
            "format": "treegym-search-tree/1",
            "algorithm": self.algorithm,
            "env_id": self.env_id,
            "value_name": self.value_name,
            "instruction": str(self.root.observation.get("instruction", ""))[:500]
            if isinstance(self.root.observation, dict) else "",
            "task_id": _json_safe(self.task_id),
            "chosen": self.chosen.id if self.chosen is not None else None,
            "nodes": [
                {
                    "id": n.id,
                    "parent": n.parent.id if n.parent is not None else None,
                    "action": n.action,
                    "thought": n.thought[:OBS_EXCERPT_CHARS],
                    "observation": n.text[:OBSERVATION_CHARS],
                    "step": root_step + n.depth,
                    "llm": n.llm_calls,
                    "reward": n.reward,
                    "terminal": n.terminal,
                    "success": n.success,
                    "depth": n.depth,
                    "visits": n.visits,
                    "value": round(float(n.value), 6),
                    "chosen": n.id in chosen_ids,
                    "stats": _json_safe(n.stats),
                    **({"text": n.text} if len(n.text) > OBS_EXCERPT_CHARS else {}),  # the full observation
                }
                for n in self.nodes
            ],
        }

    def save(self, path: str | os.PathLike) -> Path:
        """Write the tree JSON atomically (temp file + rename); returns the path."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        data = self.to_json()
        try:
            text = json.dumps(data, ensure_ascii=False, indent=1).encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate (an LLM answer): kept as a JSON \u escape
            text = json.dumps(data, ensure_ascii=True, indent=1).encode("ascii")
        tmp.write_bytes(text)
        os.replace(tmp, path)
        return path


def _json_safe(x: Any) -> Any:
    try:
        json.dumps(x)
        return x
    except TypeError:
        return json.loads(json.dumps(x, default=str))


