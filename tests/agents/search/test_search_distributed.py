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


def _search(env_id: str, agent: str, budget: int = 30, env_seed: int = 0, **options: Any) -> tuple[dict, dict]:
    """(tree JSON, stats) of ``agent`` from ``reset(seed=env_seed)`` with the fixtures' synthetic LLM."""
    import treegym.envs  # noqa: F401
    from treegym.agents.llm_specs import make_llm
    from treegym.agents.registry import make_agent

    env = gym.make(env_id)
    try:
        obs, info = env.reset(seed=env_seed)
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


#: the algorithms that run on Ray workers; FIXED: those with a recorded tree (tests/fixtures/search_trees)
DISTRIBUTED = ("bfs", "judec-bfs", "dfs", "judec-dfs", "dfsdt", "judec-dfsdt", "astar")
FIXED = ("bfs", "dfs", "dfsdt", "astar")
#: with more workers these grow the in-process tree while the budget does not bind (A* pops a batch of
#: open nodes at once, so its later expansions differ)
SAME_TREE = ("bfs", "judec-bfs", "dfs", "judec-dfs", "dfsdt", "judec-dfsdt")
ONE_WORKER = [(env_key, agent) for env_key in sorted(ENVS) for agent in DISTRIBUTED]
#: (env, algorithm) searched from another start than seed 0 in the one-worker test: from seed 0 the tree is the root
#: alone in-process too (the synthetic model's answer to the root's 2-candidate proposal is two malformed lines,
#: and ToT ends a search whose root has no usable proposal: test_tot.py), so it would show nothing of the workers
ENV_SEEDS = {("restbench", "judec-bfs"): 1, ("restbench", "judec-dfs"): 1}


@pytest.fixture(scope="module")
def one_worker_searches(two_node_cluster: str) -> dict[tuple[str, str], tuple[dict, dict]]:
    """(tree, stats) of every (env, algorithm) with one worker on the cluster, searched from one fresh driver."""
    runs = [(ENVS[env_key], agent, 30, {"search_workers": 1, "env_seed": ENV_SEEDS.get((env_key, agent), 0)})
            for env_key, agent in ONE_WORKER]
    return dict(zip(ONE_WORKER, on_cluster(two_node_cluster, *runs)))


@pytest.fixture(scope="module")
def four_worker_searches(two_node_cluster: str) -> dict[str, tuple[dict, dict]]:
    """(tree, stats) of every algorithm on Game of 24 with four workers and a budget that does not bind."""
    runs = [(ENVS["game24"], agent, 300, {"search_workers": 4}) for agent in DISTRIBUTED]
    return dict(zip(DISTRIBUTED, on_cluster(two_node_cluster, *runs)))


@pytest.mark.slow
@pytest.mark.parametrize("env_key, agent", ONE_WORKER)
def test_one_worker_on_the_cluster_grows_the_recorded_tree(one_worker_searches: dict, env_key: str, agent: str) -> None:
    got, stats = one_worker_searches[env_key, agent]
    env_seed = ENV_SEEDS.get((env_key, agent), 0)
    expected, expected_stats = _search(ENVS[env_key], agent, env_seed=env_seed)  # in-process
    if agent in FIXED and env_seed == 0:  # tests/fixtures/search_trees' tree
        assert expected["nodes"] == json.loads(fixture_path(env_key, agent).read_text())["nodes"]
    assert len(got["nodes"]) > 1
    assert _shape(got) == _shape(expected)
    assert got["nodes"] == expected["nodes"]  # LLM excerpts too
    assert stats["search_llm_calls"] == expected_stats["search_llm_calls"]
    assert stats["search_stopped"] == expected_stats["search_stopped"]
    assert stats["search_workers"] == 1 and stats["driver_pid"] not in stats["search_worker_pids"]


@pytest.mark.slow
@pytest.mark.parametrize("agent", DISTRIBUTED)
def test_four_workers_on_two_nodes(four_worker_searches: dict, agent: str) -> None:
    env_id = ENVS["game24"]
    remote, stats = four_worker_searches[agent]
    local, local_stats = _search(env_id, agent, budget=300)
    assert local_stats["search_llm_calls"] < 300  # the budget does not bind: no timing decides the tree
    assert stats["search_worker_nodes"] == 2 and len(stats["search_worker_pids"]) == 4
    assert stats["driver_pid"] not in stats["search_worker_pids"]
    if agent in SAME_TREE:
        assert _shape(remote) == _shape(local) and len(remote["nodes"]) == len(local["nodes"]) >= 4
        assert stats["search_llm_calls"] == local_stats["search_llm_calls"]
    else:  # A*: the first round pops the root alone (the in-process children), then up to 4 nodes a round
        assert _shape(remote)[:6] == _shape(local)[:6]
        assert sum(n["visits"] for n in remote["nodes"]) <= 30  # iterations: one visit per popped node
        assert len(remote["nodes"]) > 10 and stats["search_llm_calls"] < 300


@pytest.mark.slow
@pytest.mark.parametrize("agent", DISTRIBUTED)
def test_the_budget_holds_across_workers(two_node_cluster: str, agent: str) -> None:
    budget = {"judec-dfs": 4, "dfsdt": 8}.get(agent, 12)  # one that binds in-process
    [(tree, stats)] = on_cluster(two_node_cluster, (ENVS["tooltasks"], agent, budget, {"search_workers": 3}))
    _, local_stats = _search(ENVS["tooltasks"], agent, budget=budget)
    assert local_stats["search_stopped"] == "budget"
    assert stats["search_llm_calls"] <= budget and stats["search_stopped"] == "budget"
    assert len(tree["nodes"]) > 1


@pytest.mark.slow
def test_a_process_on_one_ray_refuses_a_search_on_another(two_node_cluster: str) -> None:
    port = int(two_node_cluster.rsplit(":", 1)[1])
    other, same, auto = in_fresh_driver("tests.agents.search.test_search_distributed:other_cluster_refusals",
                                        address=two_node_cluster)
    assert other.startswith(f"ray_address='127.0.0.1:{port + 1}': this process is already connected to the Ray at ")
    assert other.endswith(f":{port}; call ray.shutdown() before starting search_workers, or drop ray_address to "
                          "use that one")  # names its session
    assert same is None and auto is None


def children_protocols(address: str) -> list[list[str]]:
    """In a fresh driver: the ``info["protocol"]`` of every node a 2-worker bfs search grew below the root of a
    Game of 24 env built with ``protocol="tot"``, and of the in-process search's nodes."""
    import treegym.envs  # noqa: F401
    from treegym.agents.llm_specs import make_llm
    from treegym.agents.registry import make_agent

    out = []
    for options in ({}, {"search_workers": 2, "ray_address": address}):
        env = gym.make(ENVS["game24"], protocol="tot")
        obs, info = env.reset(seed=0)
        policy = make_agent("bfs", ENVS["game24"], make_llm(LLM_SPEC, env_id=ENVS["game24"]), seed=0, budget=30,
                            **options)
        policy.reset()
        policy.bind(env)
        policy.act(obs, info)
        out.append([str(n.info.get("protocol")) for n in policy.result.tree.nodes if n.parent is not None])
        env.close()
    return out


@pytest.mark.slow
def test_workers_build_their_envs_as_the_searched_env_was_built(two_node_cluster: str) -> None:
    # a worker env of the default protocol would judge the tot env's states by other rules, silently
    in_process, on_workers = in_fresh_driver("tests.agents.search.test_search_distributed:children_protocols",
                                             address=two_node_cluster)
    assert in_process and set(in_process) == {"tot"}
    assert on_workers and set(on_workers) == {"tot"}


def test_env_arguments_that_cannot_travel_are_refused_in_one_line() -> None:
    from treegym.agents.search.distributed import worker_env_kwargs

    env = gym.make(ENVS["game24"], task_ids=[0, 1])
    assert worker_env_kwargs(env)["task_ids"] == [0, 1]
    env.unwrapped.__dict__["_construction"] = ((), {"task_ids": [0], "render_mode": lambda: None})
    with pytest.raises(ValueError, match="cannot be sent to the workers.*drop search_workers"):
        worker_env_kwargs(env)


class _TimesOutAfter:
    """The fixtures' LLM, whose backend stops answering after ``answers`` calls (in whichever process)."""

    def __init__(self, inner: Any, answers: int):
        self.inner, self.answers, self.calls = inner, answers, 0

    def __getattr__(self, name: str) -> Any:
        if name == "inner":  # unpickling asks before __init__ ran
            raise AttributeError(name)
        return getattr(self.inner, name)

    def complete(self, request: Any) -> Any:
        from treegym.agents.llm.base import LLMTimeout

        self.calls += 1
        if self.calls > self.answers:
            raise LLMTimeout("the endpoint did not answer in 60 s after 3 tries; check the server")
        return self.inner.complete(request)


def llm_error_on_workers(address: str) -> list:
    """In a fresh driver: (stopped, search_llm_error) of a one-worker bfs search whose LLM times out on the
    worker after 3 answers."""
    import treegym.envs  # noqa: F401
    from treegym.agents.llm_specs import make_llm
    from treegym.agents.registry import make_agent

    env = gym.make(ENVS["game24"])
    obs, info = env.reset(seed=0)
    llm = _TimesOutAfter(make_llm(LLM_SPEC, env_id=ENVS["game24"]), answers=3)
    policy = make_agent("bfs", ENVS["game24"], llm, seed=0, budget=40, search_workers=1, ray_address=address)
    policy.reset()
    policy.bind(env)
    policy.act(obs, info)
    return [policy.result.stopped, policy.stats().get("search_llm_error")]


@pytest.mark.slow
def test_a_backend_failure_on_a_worker_ends_the_search_with_its_own_message(two_node_cluster: str) -> None:
    stopped, error = in_fresh_driver("tests.agents.search.test_search_distributed:llm_error_on_workers",
                                     address=two_node_cluster)
    assert stopped == "llm_error"
    assert error.startswith("the endpoint did not answer in 60 s"), error  # not Ray's remote traceback
