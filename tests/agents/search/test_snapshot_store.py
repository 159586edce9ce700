"""The snapshot lifecycle: release of external snapshots, the per-search store, snapshot-or-replay by cost."""
from __future__ import annotations

import pytest
from support.agent_runs import ENV

import treegym.envs as te
from treegym.agents.llm_specs import make_llm
from treegym.agents.registry import make_agent
from treegym.agents.search.tree import SearchNode
from treegym.agents.search.snapshot_store import SnapshotStore
from treegym.envs.core import SnapshotError
from treegym.envs.examples.external_snapshots import HandleSnapshots
from treegym.envs.game24.env import Game24Env

MEDIUM = "synthetic:p_correct=0.5,value_noise=0.4,seed=1"


class HandleGame24(HandleSnapshots, Game24Env):
    """Game of 24 whose snapshots are device handles, like an emulator's: ``external`` (declared
    to cost seconds each), held until released, counted."""


def test_release_frees_external_snapshots_and_is_a_no_op_for_native():
    env = HandleGame24()
    env.reset(options={"task_id": 900})
    snap = te.snapshot(env)
    assert snap.kind == "external" and snap.cost_seconds == te.SNAPSHOT_COST_SECONDS["external"]
    te.release(env, snap)
    te.release(env, snap)  # twice is harmless
    assert env.released == 1 and not env.live
    with pytest.raises(SnapshotError, match="released"):
        te.restore(env, snap)
    twin = te.clone(env)  # clone's own snapshot is released once the twin holds the state
    assert env.taken == 2 and env.released == 2 and twin.numbers_left == env.numbers_left
    native = Game24Env()
    native.reset(options={"task_id": 900})
    nsnap = te.snapshot(native)
    te.release(native, nsnap)
    te.restore(native, nsnap)  # still restorable: a native snapshot is a value
    with pytest.raises(SnapshotError, match="needs a treegym Snapshot"):
        te.release(env, "not a snapshot")


def _chain(store, root, seconds):
    node, nodes = root, []
    for s in seconds:
        action = store.env._observe()[0]["valid_actions"][0]
        obs, *_ = store.env.step(action)
        child = SearchNode(snapshot=None, observation=obs, action=action, parent=node, depth=node.depth + 1)
        node.children.append(child)
        store.add_child(child, s)
        nodes.append(child)
        node = child
    return nodes


def test_store_snapshots_a_costly_kind_only_when_replay_would_cost_more():
    env = HandleGame24(max_steps=10)
    obs, _ = env.reset(options={"task_id": 900})
    store = SnapshotStore(env)
    assert store.kind == "external" and store.cost_seconds == 2.0 and not store.eager
    root = SearchNode(snapshot=None, observation=obs)
    store.add_root(root)
    a, b, c = _chain(store, root, [0.9, 0.9, 0.9])  # replay debt 0.9, 1.8, 2.7 s: the third is snapshotted
    assert root.snapshot is not None and a.snapshot is None and b.snapshot is None and c.snapshot is not None
    assert env.taken == 2 and store.held == 2
    # back to b: restore the root and replay one step; to c: its own snapshot; to a from the root again
    store.restore(b)
    assert store.restores == 1 and store.replayed_steps == 2 and env._observe()[0] == b.observation
    store.restore(c)
    assert store.restores == 2 and env._observe()[0] == c.observation
    store.restore(a)
    assert store.replayed_steps == 3 and env._observe()[0] == a.observation
    store.restore(b)  # from a, the env's current node, without any restore
    assert store.restores == 3 and store.replayed_steps == 4 and env._observe()[0] == b.observation
    store.release_subtree(b)  # c's snapshot goes; the root's stays
    assert env.released == 1 and c.snapshot is None and store.held == 1
    store.restore(c)  # still reachable by replay from the root
    assert env._observe()[0] == c.observation
    store.close()
    assert env.released == env.taken == 2 and not env.live and root.snapshot is None


def test_native_store_is_eager_and_keeps_its_snapshots():
    env = Game24Env()
    obs, _ = env.reset(options={"task_id": 900})
    store = SnapshotStore(env)
    root = SearchNode(snapshot=None, observation=obs)
    store.add_root(root)
    nodes = _chain(store, root, [0.0, 0.0])
    assert store.eager and all(n.snapshot is not None for n in [root] + nodes)
    store.restore(root)
    store.restore(nodes[1])
    assert store.replayed_steps == 0 and store.restores == 2
    store.release_subtree(root)
    store.close()
    assert all(n.snapshot is not None for n in [root] + nodes) and store.released == 0


def _search(agent, env, **options):
    obs, info = env.reset(options={"task_id": 902})
    before = env.numbers_left, env.steps
    policy = make_agent(agent, ENV, make_llm(MEDIUM, env_id=ENV), seed=0, **options)
    policy.reset()
    policy.bind(env)
    first = policy.act(obs, info)
    assert (env.numbers_left, env.steps) == before  # the search leaves the env where it started
    tree = policy.result.tree
    shape = [(n.parent.id if n.parent else None, n.action, n.observation["text"], n.reward, n.terminal, n.value)
             for n in tree.nodes]
    return first, policy.result.actions, shape, policy.stats()


@pytest.mark.parametrize("agent,options", [("bfs", {"budget": 120}), ("mcts", {"budget": 60}),
                                           ("elo", {"budget": 40}), ("dfsdt", {"budget": 100, "peek_success": True})])
def test_search_on_costly_snapshots_takes_few_releases_all_and_finds_the_same(agent, options):
    native = Game24Env()
    first_n, actions_n, shape_n, stats_n = _search(agent, native, **options)
    costly = HandleGame24()
    first_c, actions_c, shape_c, stats_c = _search(agent, costly, **options)
    assert (first_c, actions_c, shape_c) == (first_n, actions_n, shape_n)  # the same search, step for step
    assert len(shape_n) >= 8, len(shape_n)
    assert costly.taken <= 2 < len(shape_n)  # the root (and nothing else at Game of 24's step cost)
    assert costly.released == costly.taken and not costly.live
    # the store's own snapshots, all released; the env's count also has the one the simulated
    # model took (and released at once) to clone its private scratch env
    assert stats_c["snapshots_taken"] == stats_c["snapshots_released"] >= costly.taken - 1
    assert stats_c["replayed_steps"] > 0 and "snapshots_taken" not in stats_n


def test_the_declared_cost_comes_from_the_env_else_its_kind():
    class CheapDevice(HandleGame24):
        snapshot_cost_seconds = 0.0

    assert te.snapshot_cost(Game24Env()) == te.SNAPSHOT_COST_SECONDS["native"]
    assert te.snapshot_cost(HandleGame24()) == te.SNAPSHOT_COST_SECONDS["external"] == 2.0
    cheap = CheapDevice()
    obs, _ = cheap.reset(options={"task_id": 900})
    store = SnapshotStore(cheap)
    assert store.eager and store.cost_seconds == 0.0
    root = SearchNode(snapshot=None, observation=obs)
    store.add_root(root)
    nodes = _chain(store, root, [0.0, 0.0])
    assert cheap.taken == 3 and all(n.snapshot is not None for n in nodes)
    store.close()
    assert cheap.released == 3 and not cheap.live


class EagerHandleGame24(HandleSnapshots, Game24Env):
    """External handles declared free to take: the store snapshots every node, so what an
    algorithm prunes is what keeps the live handle count down."""

    snapshot_cost_seconds = 0.0


@pytest.mark.parametrize("agent,options", [("bfs", {"budget": 120}), ("dfs", {"budget": 120}),
                                           ("dfsdt", {"budget": 100}),
                                           ("radagent-mcts@3", {"budget": 80})])
def test_algorithms_prune_what_they_leave_for_good(agent, options):
    """BFS drops the states it does not keep, DFS and DFSDT the subtrees they backtrack out of,
    MCTS@N the siblings of each committed decision: their handles are freed during the search,
    so fewer are live at once than the tree has nodes, and the search itself is unchanged."""
    native = Game24Env()
    first_n, actions_n, shape_n, _ = _search(agent, native, **options)
    env = EagerHandleGame24()
    first_e, actions_e, shape_e, stats = _search(agent, env, **options)
    assert (first_e, actions_e, shape_e) == (first_n, actions_n, shape_n)
    nodes = len(shape_e)
    assert env.taken >= nodes  # every node held a handle at some point
    assert env.peak < nodes, (env.peak, nodes)  # pruned subtrees were freed while the search ran
    assert stats["replayed_steps"] == 0  # and only those it never came back to: nothing was replayed
    assert env.released == env.taken and not env.live


def test_native_store_restores_each_node_from_its_own_snapshot():
    """Native snapshots: every node holds its own (no store entry, never released, prune is a no-op),
    and a node with a snapshot is restored from it directly, even one the store did not take
    (a node grafted from a search worker), with no replay."""
    env = Game24Env(max_steps=10)
    obs, _ = env.reset(options={"task_id": 900})
    store = SnapshotStore(env)
    assert store.kind == "native" and store.eager
    root = SearchNode(snapshot=None, observation=obs)
    store.add_root(root)
    a, b = _chain(store, root, [0.0, 0.0])
    assert a.snapshot is not None and b.snapshot is not None and store.held == 3 == store.taken
    store.release_subtree(a)  # nothing to free: the nodes keep their snapshots
    assert a.snapshot is not None and b.snapshot is not None and store.released == 0
    store.restore(a)
    assert env._observe()[0] == a.observation and store.restores == 1 and store.replayed_steps == 0
    grafted = SearchNode(snapshot=b.snapshot, observation=b.observation, action=b.action, parent=a, depth=2)
    store.restore(grafted)
    assert env._observe()[0] == b.observation and store.restores == 2 and store.replayed_steps == 0
    store.restore(root)
    blank = SearchNode(snapshot=None, observation=b.observation, action=b.action, parent=a, depth=2)
    store.restore(blank)  # no snapshot of its own: its parent's, then its action replayed
    assert env._observe()[0] == b.observation and store.restores == 4 and store.replayed_steps == 1
