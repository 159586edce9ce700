"""Saved search trees as training material: loading, node values, and chat conversations.

A saved tree is the JSON ``SearchTree.save`` writes (``format: treegym-search-tree/1``;
``treegym run ... --save-trees`` or ``--agent-opt tree_out=...``). This module reads it
tolerantly (unknown fields are ignored, so later additions to the format do not break it)
into a :class:`SavedTree`, finds the trees behind run records (``agent_stats.tree_json``),
gives every node a value, and renders the path to a node as chat messages. A record without a
tree (any agent, e.g. ``oracle`` demonstrations) becomes a one-path tree by replaying its actions.

**Node values** (``value_source``):

* ``outcome`` (default): the share of the terminal nodes in the node's subtree where the
  env reported success (the env's own verdict, recorded in the tree; Math-Shepherd's "soft"
  estimate); None when the subtree holds no terminal node;
* ``search``: the algorithm's own judgement, higher is better, in the algorithm's units
  (:func:`treegym.agents.search.telemetry.search_value`: Elo, ``-f`` for A*, Q for MCTS/LATS,
  the LLM value for BFS/DFS, the answer check for DFSDT); None where it never judged.

**Conversations.** The path from the root to a node becomes ``system`` (the env prompt
spec's task description), ``user`` (the first observation, with the instruction when the
observation does not contain it), then one ``assistant`` message per action (the action
string in the env's own syntax) and one ``user`` message per observation that followed it.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator

from ..search.telemetry import search_value
import treegym.envs  # noqa: F401 - registers the ids
from ..experiments.runs import record_key
from ..prompts import get_prompts

TREE_FORMAT = "treegym-search-tree/"
VALUE_SOURCES = ("outcome", "search")
EXCERPT_CHARS = 200  # what trees saved before full observations kept (SearchTree's OBS_EXCERPT_CHARS)


class ExportError(ValueError):
    """An input cannot be exported; the message names the file and what to do."""


@dataclass
class SavedTree:
    """One saved search tree: its header fields and nodes (dicts as saved) by id."""

    source: str
    algorithm: str
    env_id: str
    task_id: str
    instruction: str
    chosen: int | None
    nodes: dict[int, dict]
    children: dict[int, list[int]] = field(default_factory=dict)
    record_success: bool | None = None  # the run record's verdict, when the tree came through one
    replayed: bool = False  # a one-path tree replayed from a record that names no saved tree

    @property
    def root(self) -> dict:
        return self.nodes[min(self.nodes)]

    def text(self, node: dict) -> str:
        """The node's full observation (``text``), or the saved excerpt when the tree has only that."""
        return str(node.get("text") or node.get("observation") or "")

    def cut_observations(self) -> int:
        """How many nodes kept only an excerpt that may be cut (trees saved before full observations)."""
        return sum(1 for n in self.nodes.values() if "text" not in n and len(str(n.get("observation") or "")) >= EXCERPT_CHARS)

    def path(self, node_id: int) -> list[dict]:
        """Nodes from the root to ``node_id``, both included."""
        out, cur = [], self.nodes.get(node_id)
        while cur is not None:
            out.append(cur)
            parent = cur.get("parent")
            cur = self.nodes.get(parent) if parent is not None else None
        return out[::-1]


def parse_tree(data: Any, source: str) -> SavedTree:
    """A :class:`SavedTree` from a loaded tree JSON; :class:`ExportError` when it is not one."""
    if not isinstance(data, dict) or not str(data.get("format", "")).startswith(TREE_FORMAT):
        raise ExportError(f"{source}: not a treegym search tree (no 'format: {TREE_FORMAT}1'); save trees with "
                          "`treegym run ... --save-trees DIR`")
    nodes: dict[int, dict] = {}
    for raw in data.get("nodes") or ():
        if isinstance(raw, dict) and isinstance(raw.get("id"), int):
            nodes[raw["id"]] = raw
    if not nodes:
        raise ExportError(f"{source}: the tree has no nodes")
    children: dict[int, list[int]] = {i: [] for i in nodes}
    for i in sorted(nodes):
        parent = nodes[i].get("parent")
        if parent is not None:
            if parent not in nodes:
                raise ExportError(f"{source}: node {i} names parent {parent}, which the tree does not hold")
            children[parent].append(i)
    task = data.get("task_id")
    return SavedTree(source=source, algorithm=str(data.get("algorithm") or ""), env_id=str(data.get("env_id") or ""),
                     task_id="" if task is None else str(task), instruction=str(data.get("instruction") or ""),
                     chosen=data.get("chosen") if isinstance(data.get("chosen"), int) else None,
                     nodes=nodes, children=children)


def load_tree(path: str | Path) -> SavedTree:
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ExportError(f"cannot read {path}: {exc.strerror or exc}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ExportError(f"{path}: not valid JSON ({exc}); is it a saved search tree?") from None
    return parse_tree(data, str(path))


def _records(path: Path) -> Iterator[tuple[int, dict]]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise ExportError(f"cannot read {path}: {exc.strerror or exc}") from None
    for i, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            if i == len(lines):
                continue  # a torn last line left by a killed run
            raise ExportError(f"{path}:{i}: not a JSON line; pass run records (treegym run --out) or tree files") from None
        if isinstance(rec, dict):
            yield i, rec


def chain_from_record(rec: dict, source: str) -> SavedTree:
    """A one-path "tree" for a record without a saved tree: its actions replayed from the same reset
    (``gym.make(env_id, **env_options)``, ``reset(seed, task_id)``) to recover the observations.
    :class:`ExportError` when the replay does not end as the record says (other settings, or a
    changed env)."""
    import gymnasium as gym

    config = rec.get("config") or {}
    env_id = str(rec.get("env_id"))
    try:
        env = gym.make(env_id, **dict(config.get("env_options") or {}))
    except Exception as exc:  # noqa: BLE001 - any failure to build the env is the input's problem here
        raise ExportError(f"{source}: cannot make {env_id} to replay the record: {exc}") from None
    try:
        obs, info = env.reset(seed=rec.get("seed"), options={"task_id": rec.get("task_id")})
        nodes = {0: {"id": 0, "parent": None, "action": None, "text": str(obs.get("text", "")),
                     "terminal": False, "success": False, "depth": 0, "reward": 0.0}}
        for i, action in enumerate(rec.get("actions") or (), 1):
            obs, reward, term, trunc, info = env.step(action)
            nodes[i] = {"id": i, "parent": i - 1, "action": str(action), "text": str(obs.get("text", "")),
                        "terminal": bool(term or trunc), "success": bool(info.get("success")), "depth": i,
                        "reward": float(reward)}
        instruction = str(obs.get("instruction", "")) if isinstance(obs, dict) else ""
    finally:
        env.close()
    last = nodes[max(nodes)]
    if last["success"] != bool(rec.get("success")):
        raise ExportError(f"{source}: replaying the record's {len(nodes) - 1} actions ends with success="
                          f"{last['success']}, the record says {rec.get('success')} (made with other settings?)")
    tree = SavedTree(source=source, algorithm=str(rec.get("agent") or ""), env_id=env_id,
                     task_id=str(rec.get("task_id")), instruction=instruction, chosen=max(nodes), nodes=nodes,
                     children={i: ([i + 1] if i + 1 in nodes else []) for i in nodes})
    tree.record_success = bool(rec.get("success"))
    tree.replayed = True
    return tree


def trees_from_records(path: Path, warn: Any) -> list[SavedTree]:
    """The saved trees the records of ``path`` name (``agent_stats.tree_json``), each checked to
    belong to its record (same env, task and algorithm); a missing or mismatched tree is skipped with
    a warning. Of several records of one episode (a rerun) the last one counts. A record with no tree (any agent) becomes a one-path tree by replay (:func:`chain_from_record`)."""
    latest: dict[Any, tuple[int, dict]] = {}  # a rerun's record supersedes the one it replaced
    for line, rec in _records(path):
        latest[record_key(rec) or ("line", line)] = (line, rec)
    out = []
    for line, rec in sorted(latest.values(), key=lambda x: x[0]):
        tree_path = (rec.get("agent_stats") or {}).get("tree_json")
        if not tree_path:
            # an episode cut short by infrastructure (LLM, connection, a crash) says nothing about its actions
            if rec.get("actions") and rec.get("error_kind") not in ("llm", "infra", "exception"):
                try:
                    out.append(chain_from_record(rec, f"{path}:{line}"))
                except ExportError as exc:
                    warn(f"{exc}; skipped")
            continue
        candidate = Path(tree_path)
        if not candidate.is_absolute() and not candidate.exists():
            candidate = path.parent / tree_path
        if not candidate.exists():
            warn(f"{path}:{line}: the tree {tree_path} is gone; skipped")
            continue
        tree = load_tree(candidate)
        if (tree.env_id, tree.task_id, tree.algorithm) != (str(rec.get("env_id")), str(rec.get("task_id")),
                                                           str(rec.get("agent"))):
            warn(f"{path}:{line}: {candidate} holds a {tree.algorithm} tree of {tree.env_id} task {tree.task_id!r}, "
                 f"not this record's {rec.get('agent')} on {rec.get('env_id')} task {rec.get('task_id')!r} "
                 "(overwritten by another run?); skipped")
            continue
        tree.record_success = bool(rec.get("success")) if rec.get("success") in (True, False) else None
        out.append(tree)
    if not out:
        warn(f"{path}: no record gave a tree (search agents: run with --save-trees)")
    return out


def load_inputs(paths: Iterable[str | Path], warn: Any) -> list[SavedTree]:
    """Trees from tree files, folders of them (``*.json``, sorted) and run-record files (``*.jsonl``),
    in the order given; a tree reached twice is kept once."""
    trees, seen = [], set()
    for p in paths:
        p = Path(p)
        if p.is_dir():
            found = [load_tree(f) for f in sorted(p.rglob("*.json"))]
        elif p.suffix == ".jsonl":
            found = trees_from_records(p, warn)
        elif p.exists():
            found = [load_tree(p)]
        else:
            raise ExportError(f"{p}: no such file or folder")
        for t in found:
            key = str(Path(t.source).resolve())
            if key not in seen:
                seen.add(key)
                trees.append(t)
    return trees


def node_values(tree: SavedTree, source: str = "outcome") -> dict[int, float | None]:
    """Every node's value under ``source`` (see module docstring)."""
    if source == "search":
        return {i: search_value(tree.algorithm, float(n.get("value") or 0.0), int(n.get("visits") or 0),
                                n.get("stats") if isinstance(n.get("stats"), dict) else {})
                for i, n in tree.nodes.items()}
    if source != "outcome":
        raise ExportError(f"unknown value source {source!r}; use one of: {', '.join(VALUE_SOURCES)}")
    wins: dict[int, int] = {}
    ends: dict[int, int] = {}
    for i in sorted(tree.nodes, reverse=True):  # children have larger ids than their parents
        node = tree.nodes[i]
        ends[i] = int(bool(node.get("terminal"))) + sum(ends[c] for c in tree.children[i])
        wins[i] = int(bool(node.get("terminal")) and bool(node.get("success"))) + sum(wins[c] for c in tree.children[i])
    return {i: (wins[i] / ends[i] if ends[i] else None) for i in tree.nodes}


def system_prompt(env_id: str) -> str:
    """The env prompt spec's task description (the generic one for an unknown env)."""
    return str(get_prompts(env_id).task)


def conversation(tree: SavedTree, node_id: int, system: str | None) -> list[dict[str, str]]:
    """The chat messages of the path root -> ``node_id``, ending with the observation at the node."""
    path = tree.path(node_id)
    first = tree.text(path[0])
    if tree.instruction and tree.instruction not in first:
        first = f"{tree.instruction}\n\n{first}" if first else tree.instruction
    messages = [{"role": "system", "content": system}] if system else []
    messages.append({"role": "user", "content": first})
    for node in path[1:]:
        messages.append({"role": "assistant", "content": str(node.get("action") or "")})
        messages.append({"role": "user", "content": tree.text(node)})
    return messages
