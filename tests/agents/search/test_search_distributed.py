"""One search over Ray workers (``search_workers``, agents/search/distributed.py): nodes travel as snapshot
bytes, expansions run in other processes, on a two-node Ray cluster started on this machine; one worker
grows the recorded in-process tree, more workers the same tree while the budget does not bind."""
from __future__ import annotations

import json
import os
from typing import Any

import gymnasium as gym
import pytest

from tests.support.ray_cluster import in_fresh_driver, two_node_cluster  # noqa: F401 - the fixture
from tests.support.tree_fixtures import ENVS, LLM_SPEC, fixture_path


def _search(env_id: str, agent: str, budget: int = 30, **options: Any) -> tuple[dict, dict]:
    """(tree JSON, stats) of ``agent`` from ``reset(seed=0)`` with the fixtures' synthetic LLM."""
    import treegym.envs  # noqa: F401
    from treegym.agents.llm_specs import make_llm
    from treegym.agents.registry import make_agent

    env = gym.make(env_id)
    try:
        obs, info = env.reset(seed=0)
        policy = make_agent(agent, env_id, make_llm(LLM_SPEC, env_id=env_id), seed=0, budget=budget, **options)
        policy.reset()
        policy.bind(env)
        policy.act(obs, info)
        return json.loads(json.dumps(policy.result.tree.to_json(), default=str)), policy.stats()
    finally:
        env.close()


def _shape(tree: dict) -> list:
    return [(n["id"], n["parent"], n["action"], n["value"], n["visits"], n["stats"]) for n in tree["nodes"]]


@pytest.mark.parametrize("agent", ["dfs", "mcts", "astar", "elo"])
def test_algorithms_without_workers_refuse_the_option(agent: str) -> None:
    from treegym.agents.registry import make_agent
    from treegym.agents.llm_specs import make_llm

    env_id = ENVS["game24"]
    with pytest.raises(ValueError, match="search_workers runs bfs and judec-bfs on Ray workers so far"):
        make_agent(agent, env_id, make_llm(LLM_SPEC, env_id=env_id), search_workers=2)


def test_a_negative_worker_count_is_refused() -> None:
    from treegym.agents.registry import make_agent
    from treegym.agents.llm_specs import make_llm

    env_id = ENVS["game24"]
    with pytest.raises(ValueError, match="search_workers"):
        make_agent("bfs", env_id, make_llm(LLM_SPEC, env_id=env_id), search_workers=-1)


def cluster_searches(address: str, runs: list[list]) -> list[dict]:
    """``_search(env_id, agent, budget, ray_address=address, **options)`` for each ``[env_id, agent, budget,
    options]`` of ``runs``, in this (fresh driver) process: [{"tree", "stats"}, ...]."""
    out = []
    for env_id, agent, budget, options in runs:
        tree, stats = _search(env_id, agent, budget, ray_address=address, **options)
        out.append({"tree": tree, "stats": {**stats, "driver_pid": os.getpid()}})
    return out


def other_cluster_refusals(address: str) -> list[str | None]:
    """In a driver already joined to ``address``: what a one-worker search says for a ``ray_address`` of
    another cluster, of the same one spelt differently and of ``auto`` (None: it searched)."""
    import ray

    ray.init(address=address, log_to_driver=False)
    port = int(address.rsplit(":", 1)[1])
    out: list[str | None] = []
    for other in (f"127.0.0.1:{port + 1}", f"localhost:{port}", "auto"):
        try:
            _search(ENVS["game24"], "bfs", search_workers=1, ray_address=other)
            out.append(None)
        except ValueError as exc:
            out.append(str(exc))
    return out


def on_cluster(address: str, *runs: tuple) -> list[tuple[dict, dict]]:
    """(tree, stats) of each run ``(env_id, agent, budget, options)`` searched from a fresh driver."""
    got = in_fresh_driver("tests.agents.search.test_search_distributed:cluster_searches", address=address,
                          runs=[list(r) for r in runs])
    return [(g["tree"], g["stats"]) for g in got]


@pytest.mark.slow
@pytest.mark.parametrize("env_key", sorted(ENVS))
@pytest.mark.parametrize("agent", ["bfs", "judec-bfs"])
def test_one_worker_on_the_cluster_grows_the_recorded_tree(two_node_cluster: str, env_key: str, agent: str) -> None:
    [(got, stats)] = on_cluster(two_node_cluster, (ENVS[env_key], agent, 30, {"search_workers": 1}))
    expected, expected_stats = _search(ENVS[env_key], agent)  # in-process (bfs: tests/fixtures/search_trees' tree)
    if agent == "bfs":
        assert expected["nodes"] == json.loads(fixture_path(env_key, agent).read_text())["nodes"]
    assert _shape(got) == _shape(expected)
    assert got["nodes"] == expected["nodes"]  # LLM excerpts too
    assert stats["search_llm_calls"] == expected_stats["search_llm_calls"]
    assert stats["search_workers"] == 1 and stats["driver_pid"] not in stats["search_worker_pids"]


@pytest.mark.slow
@pytest.mark.parametrize("agent", ["bfs", "judec-bfs"])
def test_four_workers_on_two_nodes_grow_the_in_process_tree(two_node_cluster: str, agent: str) -> None:
    env_id = ENVS["game24"]
    local, local_stats = _search(env_id, agent, budget=300)
    [(remote, stats)] = on_cluster(two_node_cluster, (env_id, agent, 300, {"search_workers": 4}))
    assert local_stats["search_llm_calls"] < 300  # the budget does not bind: no timing decides the tree
    assert _shape(remote) == _shape(local) and len(remote["nodes"]) == len(local["nodes"]) >= 10
    assert stats["search_llm_calls"] == local_stats["search_llm_calls"]
    assert stats["search_worker_nodes"] == 2 and len(stats["search_worker_pids"]) == 4
    assert stats["driver_pid"] not in stats["search_worker_pids"]


@pytest.mark.slow
def test_the_budget_holds_across_workers(two_node_cluster: str) -> None:
    [(tree, stats)] = on_cluster(two_node_cluster, (ENVS["tooltasks"], "bfs", 17, {"search_workers": 4}))
    assert stats["search_llm_calls"] == 17 and stats["search_stopped"] == "budget"
    assert len(tree["nodes"]) > 1


@pytest.mark.slow
def test_a_process_on_one_ray_refuses_a_search_on_another(two_node_cluster: str) -> None:
    port = int(two_node_cluster.rsplit(":", 1)[1])
    other, same, auto = in_fresh_driver("tests.agents.search.test_search_distributed:other_cluster_refusals",
                                        address=two_node_cluster)
    assert other.startswith(f"ray_address='127.0.0.1:{port + 1}': this process is already connected to the Ray at ")
    assert f":{port}; call ray.shutdown() before the search, or drop ray_address" in other  # names its session
    assert same is None and auto is None
