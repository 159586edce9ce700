"""scripts/bench/bench_overhead_floor.py: the floor builds, per replayed expansion, the prompt a search builds for
the child and reads the answer naming the expansion's action back to that action; figures per env and agent;
the command line (no timing asserted)."""
from __future__ import annotations

import re

import pytest

from treegym.agents.prompts import get_prompts
from treegym.scripts.bench import bench_overhead as bo, bench_overhead_floor as fl
from treegym.scripts.bench.bench_support import Samples
from treegym.scripts.bench.expansion_replay import ExpansionReplay, expansions_of

TOOLTASKS = "treegym/ToolTasks-v0"


def test_the_floor_builds_each_childs_value_prompt_and_reads_the_answer_that_chose_it(monkeypatch):
    built, parsed = [], []
    specs = []

    def recording_prompts(env_id):
        base = type(get_prompts(env_id))

        class Recording(base):
            def value_messages(self, obs, history):
                built.append(messages := super().value_messages(obs, history))
                return messages

            def parse_action(self, text, obs):
                parsed.append(action := super().parse_action(text, obs))
                return action

        spec = Recording()
        spec.env_id = env_id
        specs.append(spec)
        return spec

    monkeypatch.setattr(fl, "get_prompts", recording_prompts)
    env = bo.make_with_room(TOOLTASKS, 8)
    try:
        state = bo.start_states(env, [0], 8)[0]
        policy, _cpu, _wall = bo.checked_search(env, TOOLTASKS, state, "mcts", bo.timed_llm(bo.LLM_SPEC, TOOLTASKS), 12)
        root = policy.result.tree.root
        nodes = expansions_of(root, int(policy.stats()["search_expansions"]), "the search")
        replayed = ExpansionReplay(env, state, nodes, "the search")
        samples = Samples()
        arm = fl.floor_arm(env, TOOLTASKS, replayed, root.observation, samples)
        arm(0)
        arm(1)
        replayed.close()
        reference = get_prompts(TOOLTASKS)
        reference.bind(env)  # the env holds the episode's task (its prompts name it)
        want = [reference.value_messages(*reference.without_verdict(n.observation, n.trajectory())) for n in nodes]
    finally:
        env.close()
    assert len(samples.cpu["floor"]) == 2
    assert len({id(s) for s in specs}) == len(specs) == 3  # the answers' renderer, then a fresh spec per block
    for block in (0, 1):
        got = built[block * len(nodes):(block + 1) * len(nodes)]
        # the prompt a search's value hook builds for the child, from the tree's own observation and path
        assert got == want
        assert parsed[block * len(nodes):(block + 1) * len(nodes)] == [n.action for n in nodes]


def test_measure_floor_gives_per_agent_ratios_over_seeds():
    r = fl.measure_floor(TOOLTASKS, agents=["mcts", "nosuchagent"], seeds=[0, 1], repeats=2, budget=10)
    assert r["depth"] == 8
    assert "nosuchagent" in r["agents"]["nosuchagent"]["error"]
    a = r["agents"]["mcts"]
    assert set(a["expansions"]) == {0, 1} and all(n >= 1 for n in a["expansions"].values())
    assert a["ratio"]["n"] == 2 and a["ratio_cpu"] > 0
    assert r["replay"]["cpu"]["n"] == r["floor"]["cpu"]["n"] == 2 * 2  # 2 seeds x 2 repetitions, once each
    table = fl.format_floor([(TOOLTASKS, r)], ["mcts", "nosuchagent"])
    row = next(line for line in table.splitlines() if line.startswith("ToolTasks-v0"))
    assert f"{a['ratio_cpu']:.2f}x" in row and "n/a" in row


def test_a_floor_over_the_target_is_called_unreachable():
    r = {"depth": 8, "replay": {"cpu": {"median": 10e-6}}, "floor": {"cpu": {"median": 25e-6}},
         "agents": {"mcts": {"ratio_cpu": 2.5}, "bfs": {"ratio_cpu": 1.5}}}
    table = fl.format_floor([(TOOLTASKS, r), ("treegym/Game24-v0", {"error": "SKIPPED: no"})], ["mcts", "bfs"])
    assert "ToolTasks-v0: the floor alone exceeds 2x for mcts: the target is unreachable there" in table
    assert "Game24-v0              SKIPPED: no" in table
    r["agents"]["mcts"]["ratio_cpu"] = 1.9
    assert "no env's floor exceeds 2x" in fl.format_floor([(TOOLTASKS, r)], ["mcts", "bfs"])


def test_the_command_line(capsys):
    assert fl.main(["--envs", "game24", "--agents", "mcts", "--seeds", "1", "--repeats", "1", "--budget", "8"]) == 0
    out = capsys.readouterr().out
    assert "bench_overhead_floor: commit" in out and "load average" in out and "floor / replay" in out
    assert re.search(r"^Game24-v0 +2 ", out, re.M)  # Game of 24 starts at its last open depth
    with pytest.raises(SystemExit):
        fl.main(["--envs", "nosuchenv"])
    assert "'nosuchenv' is neither a family" in capsys.readouterr().err
