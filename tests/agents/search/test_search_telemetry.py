"""Live search telemetry (nodes, best value, LLM calls and tokens) and the patience rule, for every algorithm."""
from __future__ import annotations

import json

import gymnasium as gym
import pytest

import treegym.envs  # noqa: F401
from treegym.agents.llm_specs import make_llm
from treegym.agents.registry import make_agent
from treegym.agents.search.telemetry import listening, search_value
from treegym.scripts.cli import main

GAME24 = "treegym/Game24-v0"


def search(agent: str, **options):
    env = gym.make(GAME24)
    obs, info = env.reset(seed=0, options={"task_id": 905})
    policy = make_agent(agent, GAME24, make_llm("synthetic:p_correct=0.3,seed=2", env_id=GAME24), **options)
    policy.bind(env)
    result = policy.run_search(obs, info)
    return policy, result


@pytest.mark.parametrize("agent", ["elo", "astar", "mcts", "lats", "dfsdt", "bfs", "dfs"])
def test_every_algorithm_reports_live_figures_and_its_best_value(agent):
    seen: list[dict] = []
    with listening(seen.append):
        policy, result = search(agent, budget=30)
    stats = policy.stats()
    assert seen, "no live figures during the search"
    assert [f["search_expansions"] for f in seen] == list(range(1, len(seen) + 1))
    assert seen[-1]["search_nodes"] == len(result.tree) or result.stopped != "done"
    assert stats["search_tokens"] > 0 and stats["search_llm_calls"] == policy._llm_view.usage.calls
    values = [search_value(agent, n.value, n.visits, n.stats) for n in result.tree.nodes]
    judged = [v for v in values if v is not None]
    if judged:  # the best value seen during the search; values may fall later (Elo, Q), never the record
        assert stats["search_best_value"] >= max(judged) - 1e-6
    else:
        assert stats["search_best_value"] is None


def test_patience_stops_a_search_whose_best_value_stalls():
    full, full_result = search("mcts", budget=200)
    patient, result = search("mcts", budget=200, patience=3)
    stats = patient.stats()
    assert result.stopped == "patience" and stats["search_stopped"] == "patience"
    assert stats["search_expansions"] - stats["search_best_at_expansion"] >= 3
    assert stats["search_expansions"] < full.stats()["search_expansions"]
    assert stats["search_llm_calls"] < full.stats()["search_llm_calls"]


def test_patience_from_the_command_line_lands_in_the_record(tmp_path, capsys):
    out = tmp_path / "r.jsonl"
    assert main(["run", GAME24, "--agent", "bfs", "--llm", "synthetic:p_correct=0.3,seed=2", "--tasks", "905",
                 "--budget", "100", "--agent-opt", "patience=2", "--out", str(out), "--no-progress"]) == 0
    stats = json.loads(out.read_text().splitlines()[0])["agent_stats"]
    assert stats["search_stopped"] == "patience" and {"search_best_value", "search_tokens"} <= set(stats)
    assert main(["run", GAME24, "--agent", "bfs", "--llm", "scripted", "--tasks", "905",
                 "--agent-opt", "patience=-1", "--out", str(out), "--no-progress"]) == 2
    assert "patience" in capsys.readouterr().err


def test_the_progress_bar_shows_the_search_figures(tmp_path, capsys):
    out = tmp_path / "p.jsonl"
    assert main(["run", GAME24, "--agent", "mcts", "--llm", "synthetic:p_correct=0.3,seed=2", "--tasks", "905",
                 "--budget", "20", "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "nodes=" in err and "best=" in err and "calls=" in err and "tok=" in err


@pytest.mark.parametrize("algorithm", ["elo", "astar", "mcts", "radagent-mcts", "lats", "dfsdt", "bfs", "dfs"])
def test_best_value_scan_is_the_highest_search_value(algorithm):
    """The telemetry's one-comprehension scan gives what reading every node's search_value gives:
    the highest judged value (the first of equals), None when no node is judged."""
    import random

    from treegym.agents.search.telemetry import SearchTelemetry
    from treegym.agents.search.tree import SearchNode

    rng = random.Random(algorithm)
    telemetry = SearchTelemetry(algorithm)
    for size in range(0, 12):
        nodes = []
        for _ in range(size):
            stats = rng.choice([{}, {"elo_updates": 2}, {"g": 0.5}, {"prior": rng.random()}, {"prior": None},
                                {"judged": rng.choice([0.0, 1.0])}])
            nodes.append(SearchNode(snapshot=None, observation={}, value=rng.choice([0.25, 0.5, rng.random()]),
                                    visits=rng.choice([0, 1, 3]), stats=stats))
        judged = [v for n in nodes if (v := search_value(algorithm, n.value, n.visits, n.stats)) is not None]
        best = telemetry._best(nodes)
        assert best == (max(judged) if judged else None)
        assert best is None or type(best) is float


def test_a_silent_run_listens_to_no_search_and_records_the_same(tmp_path):
    """``--no-progress`` registers no telemetry listener (searches then compute no per-expansion figures);
    the run records' search figures are the same as with the bar."""
    from treegym.agents.experiments.progress import _NoBar, search_figures_on
    from treegym.agents.search import telemetry

    class Bar:
        def set_postfix_str(self, s: str = "", refresh: bool = True) -> None:
            pass

    with search_figures_on(_NoBar()):
        assert telemetry._LISTENERS == []
    with search_figures_on(Bar()):
        assert len(telemetry._LISTENERS) == 1
    assert telemetry._LISTENERS == []
    records = []
    for flag in (["--no-progress"], []):
        out = tmp_path / f"r{len(records)}.jsonl"
        assert main(["run", GAME24, "--agent", "mcts", "--llm", "synthetic:p_correct=0.3,seed=2", "--tasks", "905",
                     "--budget", "20", "--agent-opt", "patience=3", "--out", str(out), *flag]) == 0
        stats = json.loads(out.read_text().splitlines()[0])["agent_stats"]
        records.append({k: v for k, v in stats.items() if k.startswith("search_") and "second" not in k})
    assert records[0] == records[1] and "search_best_at_expansion" in records[0]


@pytest.mark.parametrize("algorithm", ["elo", "astar", "mcts", "dfsdt", "bfs"])
def test_expansions_see_the_best_value_on_the_documented_schedule(algorithm):
    """After each ``SearchConfig.expand``, the telemetry re-reads the tree every ``nodes // SCAN_SHARE``
    expansions (every one while the tree has fewer than 2 * SCAN_SHARE nodes): its best value and the
    expansion it was first seen at are those of that schedule over every node's ``search_value``, whatever
    the algorithm changed in between (values may fall as well as rise)."""
    import random

    from treegym.agents.prompts import get_prompts
    from treegym.agents.search.config import SearchConfig
    from treegym.agents.search.telemetry import SCAN_SHARE, SearchTelemetry
    from treegym.agents.search.tree import SearchTree

    env = gym.make(GAME24)
    obs, info = env.reset(seed=0, options={"task_id": 905})
    hooks = SearchConfig(env, get_prompts(GAME24), make_llm("synthetic:seed=0", env_id=GAME24))
    root = hooks.make_root(obs, info)
    hooks.tree = SearchTree(root, algorithm=algorithm)
    hooks.telemetry = telemetry = SearchTelemetry(algorithm)
    rng = random.Random(algorithm)
    best, seen_at, rises = None, 0, 0
    frontier = [root]
    while hooks.expansions < 3 * SCAN_SHARE and frontier:
        node = frontier.pop(0)
        for action in list(node.observation.get("valid_actions") or ())[:4]:
            frontier.append(hooks.expand(node, action))
            nodes = hooks.tree.nodes
            if hooks.expansions % max(1, len(nodes) // SCAN_SHARE) == 0:
                judged = [v for n in nodes if (v := search_value(algorithm, n.value, n.visits, n.stats)) is not None]
                if judged and (best is None or max(judged) > best + 1e-12):
                    best, seen_at, rises = max(judged), hooks.expansions, rises + 1
            assert (telemetry.best_value, telemetry.best_at_expansion) == (best, seen_at)
            for changed in rng.sample(nodes, min(3, len(nodes))):  # the algorithm judges some nodes again
                changed.value, changed.visits = rng.uniform(-1.0, 1.0), rng.choice([0, 1, 2])
                changed.stats.update(rng.choice([{}, {"elo_updates": 1}, {"g": 0.5}, {"prior": rng.random()},
                                                 {"judged": rng.random()}]))
    assert hooks.expansions >= 2 * SCAN_SHARE and rises >= 2
