"""MCTS, LATS and Elo over Ray workers (``search_workers``, agents/search/distributed_sims.py): simulations
with virtual loss, comparisons at once; on a two-node Ray cluster started on this machine, searched from
fresh driver processes (tests/support/ray_cluster.py), workers in other processes. One worker grows the
recorded in-process tree; N workers keep the call budget and grow a valid tree."""
from __future__ import annotations

import json
import os
from typing import Any

import pytest

from treegym.agents.search import distributed_sims
from treegym.agents.search.distributed_sims import _select_round
from treegym.agents.search.mcts import MCTS, MCTSConfig
from treegym.agents.search.tree import SearchNode
from tests.agents.search.test_search_distributed import _search
from tests.support.ray_cluster import in_fresh_driver, two_node_cluster  # noqa: F401 - the fixture
from tests.support.tree_fixtures import ENVS, fixture_path

AGENTS = ("mcts", "lats", "elo")
#: Elo compares each new sequence with 3 earlier ones here, so a round has 3 comparisons to spread
N_WORKER_OPTIONS = {"mcts": {}, "lats": {"n_iters": 8}, "elo": {"comparisons": 3, "explorations": 8}}


def sim_searches(address: str, runs: list[list], whole_units: bool = False) -> list[dict]:
    """In a fresh driver joined to ``address``: ``[env_id, agent, budget, options]`` -> {"tree", "stats"} each,
    with the driver's pid in the stats. ``whole_units``: rounds of several workers run each simulation as
    one unit, as one worker does, instead of in waves."""
    if whole_units:
        distributed_sims._phased = distributed_sims._whole
    out = []
    for env_id, agent, budget, options in runs:
        tree, stats = _search(env_id, agent, budget, ray_address=address, **options)
        out.append({"tree": tree, "stats": {**stats, "driver_pid": os.getpid()}})
    return out


def _on_cluster(address: str, runs: list[tuple], whole_units: bool = False) -> list[tuple[dict, dict]]:
    got = in_fresh_driver("tests.agents.search.test_search_distributed_sim:sim_searches", address=address,
                          runs=[list(r) for r in runs], whole_units=whole_units)
    return [(g["tree"], g["stats"]) for g in got]


def _check_tree(tree: dict, agent: str) -> None:
    """A valid tree: ids in creation order, children one step below their parent, no action expanded twice
    from one node; for MCTS/LATS every Q in [0, 1] and no node visited less than its children together."""
    nodes = tree["nodes"]
    assert [n["id"] for n in nodes] == list(range(len(nodes)))
    children: dict[int, list[dict]] = {}
    for n in nodes[1:]:
        assert n["parent"] < n["id"] and n["depth"] == nodes[n["parent"]]["depth"] + 1
        children.setdefault(n["parent"], []).append(n)
    for kids in children.values():
        assert len({k["action"] for k in kids}) == len(kids)
    if agent != "elo":
        for n in nodes:
            assert 0.0 <= n["value"] <= 1.0
            assert n["visits"] >= sum(k["visits"] for k in children.get(n["id"], ()))


def _mcts(**config: Any) -> MCTS:
    return MCTS(MCTSConfig(**config))


def _node(parent: SearchNode | None, visits: int, value: float, **stats: Any) -> SearchNode:
    action = f"step {len(parent.children)}" if parent is not None else None
    node = SearchNode(snapshot=None, observation={}, parent=parent, depth=parent.depth + 1 if parent else 0,
                      visits=visits, value=value, stats=dict(stats), action=action)
    if parent is not None:
        parent.children.append(node)
    return node


def test_virtual_loss_steers_a_rounds_second_selection_to_another_branch() -> None:
    mcts = _mcts(w_exp=1.0)
    root = _node(None, 10, 0.58)
    a, b = _node(root, 5, 0.6), _node(root, 5, 0.55)
    a1, _a2 = _node(a, 0, 0.0, prior=0.9), _node(a, 0, 0.0, prior=0.8)
    assert mcts._select(root)[-1] is a1  # one at a time: a (higher Q), then its best fresh child
    leaves, before = _select_round(mcts, root, 2)
    # a's virtual loss (one more visit, reward 0) puts b above it; without it a's other child, a2, came next
    assert leaves == [a1, b]
    assert (root.visits, a.visits, a1.visits, b.visits) == (12, 6, 1, 6)
    assert before == {root: (10, 0.58), a: (5, 0.6), a1: (0, 0.0), b: (5, 0.55)}


def test_a_round_never_selects_a_leaf_in_flight_twice() -> None:
    mcts = _mcts()
    root = _node(None, 0, 0.0)  # a fresh root: the first simulation expands it, nothing else can run
    leaves, _ = _select_round(mcts, root, 4)
    assert leaves == [root]
    only = _node(_node(None, 3, 0.5), 0, 0.0, prior=0.5)  # one open leaf under a visited root
    leaves, _ = _select_round(mcts, only.parent, 4)
    assert leaves == [only]


@pytest.fixture(scope="module")
def one_worker_runs(two_node_cluster: str) -> dict[tuple[str, str], tuple[dict, dict]]:
    """Every recorded (env, agent) of AGENTS, and radagent-mcts@4 on Game24, searched with one worker."""
    keys = [(env_key, agent) for env_key in sorted(ENVS) for agent in AGENTS] + [("game24", "radagent-mcts@4")]
    got = _on_cluster(two_node_cluster, [(ENVS[e], a, 30, {"search_workers": 1}) for e, a in keys])
    return dict(zip(keys, got))


@pytest.mark.slow
@pytest.mark.parametrize("env_key", sorted(ENVS))
@pytest.mark.parametrize("agent", AGENTS)
def test_one_worker_grows_the_recorded_tree(one_worker_runs: dict, env_key: str, agent: str) -> None:
    got, stats = one_worker_runs[env_key, agent]
    recorded = json.loads(fixture_path(env_key, agent).read_text())
    assert got["nodes"] == recorded["nodes"]  # actions, values, visits, stats, LLM excerpts
    assert stats["search_llm_calls"] == recorded["prompt_calls"]
    assert stats["search_workers"] == 1 and stats["driver_pid"] not in stats["search_worker_pids"]


@pytest.mark.slow
def test_one_worker_grows_the_in_process_radagent_mcts_tree(one_worker_runs: dict) -> None:
    got, stats = one_worker_runs["game24", "radagent-mcts@4"]
    expected, expected_stats = _search(ENVS["game24"], "radagent-mcts@4")
    assert got["nodes"] == expected["nodes"] and len(got["nodes"]) > 5
    assert stats["mcts_decisions"] == expected_stats["mcts_decisions"] > 0


@pytest.mark.slow
@pytest.mark.parametrize("agent", AGENTS)
def test_four_workers_on_two_nodes_grow_a_valid_tree(two_node_cluster: str, agent: str) -> None:
    options = {"search_workers": 4, **N_WORKER_OPTIONS[agent]}
    [(tree, stats)] = _on_cluster(two_node_cluster, [(ENVS["game24"], agent, 400, options)])
    assert stats["search_stopped"] == "done" and stats["search_llm_calls"] <= 400
    _check_tree(tree, agent)
    if agent == "elo":  # comparisons do not depend on each other: the in-process tree
        assert stats["elo_sequences"] == N_WORKER_OPTIONS["elo"]["explorations"]
        expected, expected_stats = _search(ENVS["game24"], agent, 400, **N_WORKER_OPTIONS[agent])
        assert tree["nodes"] == expected["nodes"] and stats["search_llm_calls"] == expected_stats["search_llm_calls"]
    else:  # every simulation backed up once, every virtual loss taken back
        assert tree["nodes"][0]["visits"] == stats["mcts_iterations"] == (N_WORKER_OPTIONS[agent].get("n_iters") or 10)
    assert stats["search_workers"] == 4 and len(stats["search_worker_pids"]) == 4
    assert stats["search_worker_nodes"] == 2 and stats["driver_pid"] not in stats["search_worker_pids"]


@pytest.mark.slow
def test_mcts_rounds_in_waves_grow_the_tree_of_whole_simulations(two_node_cluster: str) -> None:
    runs = [(ENVS[env_key], "mcts", 400, {"search_workers": 4}) for env_key in sorted(ENVS)]
    waves = _on_cluster(two_node_cluster, runs)
    whole = _on_cluster(two_node_cluster, runs, whole_units=True)
    for (tree, stats), (expected, expected_stats) in zip(waves, whole):
        assert tree["nodes"] == expected["nodes"] and len(tree["nodes"]) > 10
        assert stats["search_llm_calls"] == expected_stats["search_llm_calls"]


@pytest.mark.slow
@pytest.mark.parametrize("env_key", sorted(ENVS))
def test_the_budget_holds_under_four_workers(two_node_cluster: str, env_key: str) -> None:
    runs = [(ENVS[env_key], agent, 17, {"search_workers": 4, **N_WORKER_OPTIONS[agent]}) for agent in AGENTS]
    for agent, (tree, stats) in zip(AGENTS, _on_cluster(two_node_cluster, runs)):
        assert stats["search_llm_calls"] <= 17 and stats["search_stopped"] == "budget", agent
        _check_tree(tree, agent)
        assert len(tree["nodes"]) > 1
