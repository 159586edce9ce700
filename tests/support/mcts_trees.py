"""Hand-built trees and node helpers shared by the MCTS family's tests (plain MCTS, RaDAgent's
MCTS@N, LATS): trees for ``support.tree_world.run``, a node's action path, and bare search nodes."""
from __future__ import annotations

from treegym.agents.search.tree import SearchNode

WIDE = {"": ["a", "b", "c"], "a": ["a1", "a2"], "b": ["b1", "b2"], "c": ["c1"], "a/a1": ["x", "y"],
        "a/a2": ["z"], "b/b1": ["w"], "b/b2": ["v"], "c/c1": ["u"]}
WIDE_VALUES = {"a": 0.5, "b": 0.75, "c": 0.25, "a/a1": 0.5, "a/a2": 1.0, "b/b1": 0.25, "b/b2": 0.5, "c/c1": 0.75,
               "a/a1/x": 0.0, "a/a1/y": 1.0, "a/a2/z": 0.25, "b/b1/w": 0.5, "b/b2/v": 0.0, "c/c1/u": 1.0}

CHAIN = {"": ["a"], "a": ["b"], "a/b": ["c"], "a/b/c": ["d"]}  # a/b/c/d ends the episode


def node_path(node) -> str:
    """The node's actions from the root, joined by "/" (the keys of the trees above)."""
    return "/".join(node.actions())


def nodes_by_path(agent) -> dict:
    """Every node of the agent's last search tree, by its path."""
    return {node_path(n): n for n in agent.result.tree.nodes}


def hand_node(parent=None, *, value=0.0, visits=0, terminal=False, success=False, id=0, **stats) -> SearchNode:
    """A search node without a snapshot, appended to ``parent``'s children; ``stats`` go to its stats."""
    node = SearchNode(snapshot=None, observation={}, value=value, visits=visits, terminal=terminal,  # type: ignore
                      success=success, id=id, depth=parent.depth + 1 if parent else 0, parent=parent)
    node.stats.update(stats)
    if parent is not None:
        parent.children.append(node)
    return node
