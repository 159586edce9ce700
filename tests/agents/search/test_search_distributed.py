"""One search over Ray workers (``search_workers``, agents/search/distributed.py): nodes travel as snapshot
bytes, expansions run in other processes, on a two-node Ray cluster started on this machine; one worker
grows the recorded in-process tree, more workers the same tree while the budget does not bind."""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Iterator

import gymnasium as gym
import pytest

from tests.support.tree_fixtures import ENVS, LLM_SPEC, fixture_path

RAY = Path(sys.executable).with_name("ray")


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


@pytest.mark.parametrize("agent", ["reflexion", "sc@3"])
def test_algorithms_without_workers_refuse_the_option(agent: str) -> None:
    from treegym.agents.registry import make_agent
    from treegym.agents.llm_specs import make_llm

    env_id = ENVS["game24"]
    with pytest.raises(ValueError, match="search_workers does not run this agent on Ray workers"):
        make_agent(agent, env_id, make_llm(LLM_SPEC, env_id=env_id), search_workers=2)


def test_a_negative_worker_count_is_refused() -> None:
    from treegym.agents.registry import make_agent
    from treegym.agents.llm_specs import make_llm

    env_id = ENVS["game24"]
    with pytest.raises(ValueError, match="search_workers"):
        make_agent("bfs", env_id, make_llm(LLM_SPEC, env_id=env_id), search_workers=-1)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _stop_processes_under(path: str) -> None:
    """Stop the Ray processes of this test's cluster only (those whose command lines name its temp dir, and
    their descendants)."""
    import psutil

    named = [p for p in psutil.process_iter(["cmdline"]) if any(path in a for a in (p.info["cmdline"] or ()))]
    mine = list({p.pid: p for q in named for p in (q, *q.children(recursive=True))}.values())  # agents and workers too
    for p in mine:
        p.terminate()
    _, alive = psutil.wait_procs(mine, timeout=10)
    for p in alive:
        p.kill()


@pytest.fixture(scope="module")
def two_node_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A Ray head and a second node on this machine (``ray start``), stopped at teardown."""
    ray = pytest.importorskip("ray")
    temp = str(tmp_path_factory.mktemp("ray"))
    env = {**os.environ, "RAY_AUTH_MODE": "disabled"}
    old_mode = os.environ.get("RAY_AUTH_MODE")
    os.environ["RAY_AUTH_MODE"] = "disabled"
    port = _free_port()
    address = f"127.0.0.1:{port}"
    if ray.is_initialized():
        ray.shutdown()  # a local Ray of an earlier test: this module's searches join the cluster
    try:
        subprocess.run([str(RAY), "start", "--head", f"--port={port}", "--num-cpus=1", "--include-dashboard=false",
                        "--disable-usage-stats", f"--temp-dir={temp}"], env=env, check=True, capture_output=True)
        subprocess.run([str(RAY), "start", f"--address={address}", "--num-cpus=1", "--disable-usage-stats"],
                       env=env, check=True, capture_output=True)
        ray.init(address=address, log_to_driver=False)
        while sum(bool(n.get("Alive")) for n in ray.nodes()) < 2:  # the second node registers after `ray start` returns
            time.sleep(0.2)
        yield address
    finally:
        if ray.is_initialized():
            ray.shutdown()
        _stop_processes_under(temp)
        if old_mode is None:
            os.environ.pop("RAY_AUTH_MODE", None)
        else:
            os.environ["RAY_AUTH_MODE"] = old_mode


@pytest.mark.slow
@pytest.mark.parametrize("env_key", sorted(ENVS))
@pytest.mark.parametrize("agent", ["bfs", "judec-bfs"])
def test_one_worker_on_the_cluster_grows_the_recorded_tree(two_node_cluster: str, env_key: str, agent: str) -> None:
    got, stats = _search(ENVS[env_key], agent, search_workers=1, ray_address=two_node_cluster)
    expected, expected_stats = _search(ENVS[env_key], agent)  # in-process (bfs: tests/fixtures/search_trees' tree)
    if agent == "bfs":
        assert expected["nodes"] == json.loads(fixture_path(env_key, agent).read_text())["nodes"]
    assert _shape(got) == _shape(expected)
    assert got["nodes"] == expected["nodes"]  # LLM excerpts too
    assert stats["search_llm_calls"] == expected_stats["search_llm_calls"]
    assert stats["search_workers"] == 1 and os.getpid() not in stats["search_worker_pids"]


@pytest.mark.slow
@pytest.mark.parametrize("agent", ["bfs", "judec-bfs"])
def test_four_workers_on_two_nodes_grow_the_in_process_tree(two_node_cluster: str, agent: str) -> None:
    env_id = ENVS["game24"]
    local, local_stats = _search(env_id, agent, budget=300)
    remote, stats = _search(env_id, agent, budget=300, search_workers=4, ray_address=two_node_cluster)
    assert local_stats["search_llm_calls"] < 300  # the budget does not bind: no timing decides the tree
    assert _shape(remote) == _shape(local) and len(remote["nodes"]) == len(local["nodes"]) >= 10
    assert stats["search_llm_calls"] == local_stats["search_llm_calls"]
    assert stats["search_worker_nodes"] == 2 and len(stats["search_worker_pids"]) == 4
    assert os.getpid() not in stats["search_worker_pids"]


@pytest.mark.slow
def test_the_budget_holds_across_workers(two_node_cluster: str) -> None:
    tree, stats = _search(ENVS["tooltasks"], "bfs", budget=17, search_workers=4, ray_address=two_node_cluster)
    assert stats["search_llm_calls"] == 17 and stats["search_stopped"] == "budget"
    assert len(tree["nodes"]) > 1
