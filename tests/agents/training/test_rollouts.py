"""`treegym rollouts` on real envs: Tree-GRPO trees and GiGPO anchors sampled from forks of Game24, WebShop
and ALFWorld with the simulated LLM; every row's advantage recomputed from the rows alone; branches and
anchors checked against a replay of their prefix; the accounting's identities; rows loaded with `datasets`
in TRL's prompt-completion format."""
from __future__ import annotations

import json
import statistics
from collections import defaultdict
from pathlib import Path

import gymnasium as gym
import pytest

import treegym.envs as te
from treegym.agents import make_llm
from treegym.agents.prompts import Step, get_prompts
from treegym.agents.training.rollouts import Anchor, Chain, TreeSearch, sample_rollouts, state_identity
from treegym.scripts.cli import main

LLM = "synthetic:p_correct=0.6,seed=3"
ALFWORLD_TASK = "look_at_obj_in_light-AlarmClock-None-DeskLamp-308/trial_T20190908_222933_607649"
FAMILIES = [("treegym/Game24-v0", "900,901"), ("treegym/WebShop-v0", "0,1"), ("treegym/ALFWorld-v0", ALFWORLD_TASK)]
EPS = 1e-6


def read_rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def z(x: float, group: list[float]) -> float:
    if len(group) < 2 or len(set(group)) == 1:
        return 0.0
    return (x - statistics.mean(group)) / (statistics.stdev(group) + EPS)


def by_task(rows: list[dict]) -> dict[str, dict[int, dict]]:
    out: dict[str, dict[int, dict]] = defaultdict(dict)
    for r in rows:
        out[r["task_id"]][r["node"]] = r
    return out


def path_of(nodes: dict[int, dict], node: int) -> list[dict]:
    out = []
    while node is not None:
        out.append(nodes[node])
        node = nodes[node]["parent"]
    return out[::-1]


def recompute(mode: str, nodes: dict[int, dict], gamma: float = 0.95) -> dict[int, dict[str, float]]:
    """The advantages of one task's rows, straight from the formulas and the rows' own fields."""
    leaves = [n for n, r in nodes.items() if r["leaf"]]
    R = {leaf: sum(r["step_reward"] for r in path_of(nodes, leaf)) for leaf in leaves}
    below = defaultdict(list)
    for leaf in leaves:
        for r in path_of(nodes, leaf):
            below[r["node"]].append(leaf)
    everyone = [R[leaf] for leaf in leaves]
    out = {}
    if mode == "tree":
        for n, r in nodes.items():
            same_tree = [R[leaf] for leaf in leaves if nodes[leaf]["tree"] == r["tree"]]
            intra = statistics.mean(z(R[leaf], same_tree) for leaf in below[n])
            inter = statistics.mean(z(R[leaf], everyone) for leaf in below[n])
            out[n] = {"advantage_intra": intra, "advantage_inter": inter, "advantage": intra + inter}
        return out
    returns = defaultdict(list)
    for leaf in leaves:
        g = 0.0
        for r in reversed(path_of(nodes, leaf)):
            g = r["step_reward"] + gamma * g
            returns[r["node"]].append(g)
    q = {n: statistics.mean(v) for n, v in returns.items()}
    groups = defaultdict(list)
    for n, r in nodes.items():
        groups[r["anchor"]].append(n)
    for n, r in nodes.items():
        ep = statistics.mean(z(R[leaf], everyone) for leaf in below[n])
        st = z(q[n], [q[m] for m in groups[r["anchor"]]])
        out[n] = {"advantage_episode": ep, "advantage_step": st, "advantage": ep + st}
    return out


@pytest.mark.parametrize("mode", ["tree", "anchor"])
@pytest.mark.parametrize("env_id,tasks", FAMILIES, ids=["game24", "webshop", "alfworld"])
def test_rollouts_rows_on_each_family_carry_the_advantages_of_the_formulas(tmp_path, env_id, tasks, mode):
    out, stats = tmp_path / "rows.jsonl", tmp_path / "stats.json"
    sizes = ["--trees", "2", "--expand", "1", "--iters", "2"] if mode == "tree" else \
        ["--group", "3", "--states", "2", "--branch", "2"]
    assert main(["rollouts", env_id, "--mode", mode, "--llm", LLM, "--tasks", tasks, "--out", str(out),
                 "--stats", str(stats), "--max-steps", "12", *sizes]) == 0
    rows = read_rows(out)
    acct = json.loads(stats.read_text())
    assert acct["env_steps"] == len(rows) == acct["llm_calls"]  # each step played once, one call each
    assert acct["trajectories"] == sum(r["leaf"] for r in rows)
    assert acct["restores"] > 0 and acct["prefix_steps_saved"] > 0
    # the trajectories' total length = steps played + prefix steps a restore replaced
    assert sum(r["depth"] for r in rows if r["leaf"]) == acct["env_steps"] + acct["prefix_steps_saved"]
    for task, nodes in by_task(rows).items():
        want = recompute(mode, nodes)
        for n, r in nodes.items():
            assert r["mode"] == mode and r["env_id"] == env_id
            for key, value in want[n].items():
                assert r[key] == pytest.approx(value, abs=1e-9), (task, n, key)
            assert r["leaves"] == sum(1 for m, x in nodes.items() if x["leaf"] and n in
                                      [p["node"] for p in path_of(nodes, m)])
    assert any(r["advantage"] != 0 for r in rows) or len({r["reward"] for r in rows}) == 1


def replay_to(env_id: str, row: dict, nodes: dict[int, dict]) -> tuple[gym.Env, dict, list[Step]]:
    """A fresh env replayed from reset through the steps before ``row``; its observation and history."""
    env = gym.make(env_id)
    task = nodes[row["node"]]["task_id"]
    obs, _ = env.reset(seed=row["seed"], options={"task_id": int(task) if task.isdigit() else task})
    history = []
    for r in path_of(nodes, row["node"])[:-1]:
        obs, reward, *_ = env.step(r["action"])
        history.append(Step(r["action"], str(obs.get("text", "")), float(reward), r["completion"][0]["content"]))
    return env, obs, history


@pytest.mark.parametrize("env_id,task,scheme", [
    ("treegym/WebShop-v0", 2, TreeSearch(trees=1, expand=2, iters=2)),
    ("treegym/ALFWorld-v0", ALFWORLD_TASK, Anchor(group=2, states=2, branch=2)),
], ids=["webshop-tree", "alfworld-anchor"])
def test_every_step_of_every_branch_equals_a_replay_of_its_path(env_id, task, scheme):
    """Restored == replayed: each row's prompt is what a fresh env replayed along the row's path shows,
    and the row's own action, replayed, gives the row's reward and ends the episode where the row does."""
    llm = make_llm(LLM, env_id=env_id)
    (forest, rows, spent), = list(sample_rollouts(env_id, llm, [task], scheme, seed=5, max_steps=10))
    nodes = {r["node"]: r for r in rows}
    assert spent.restores >= 4 and any(len(n.children) > 1 for n in forest.steps())
    for row in rows:
        env, obs, history = replay_to(env_id, row, nodes)
        prompts = get_prompts(env_id).bind(env)
        assert [dict(m) for m in prompts.react_messages(obs, history)] == row["prompt"], row["node"]
        _, reward, terminated, truncated, _ = env.step(row["action"])
        assert float(reward) == row["step_reward"], row["node"]
        assert bool(terminated or truncated or row["depth"] == 10) == row["leaf"], row["node"]
        env.close()


def test_anchor_groups_hold_the_steps_taken_from_one_env_state():
    env_id = "treegym/ALFWorld-v0"
    llm = make_llm(LLM, env_id=env_id)
    (forest, rows, _), = list(sample_rollouts(env_id, llm, [ALFWORLD_TASK], Anchor(group=3, states=3, branch=2),
                                              max_steps=10))
    nodes = {r["node"]: r for r in rows}
    groups = defaultdict(list)
    for r in rows:
        groups[r["anchor"]].append(r)
    assert max(len(g) for g in groups.values()) >= 3  # the root's group at least
    assert all(r["anchor_size"] == len(groups[r["anchor"]]) for r in rows)
    for key, members in groups.items():
        for r in members:
            env, _, _ = replay_to(env_id, r, nodes)
            assert state_identity(env, te.snapshot(env)) == key, (key, r["node"])
            env.close()


def test_tree_sizes_follow_m_n_l_and_chain_budget_stops_at_the_call_budget():
    env_id = "treegym/Game24-v0"
    llm = make_llm(LLM, env_id=env_id)
    (forest, rows, spent), = list(sample_rollouts(env_id, llm, [905], TreeSearch(trees=3, expand=1, iters=2)))
    for tree in range(3):  # Game24 takes 3 steps: 2 expandable nodes per initial chain, enough for N=1, L=2
        assert len(forest.leaves(tree)) == 1 + 1 * 2
    assert spent.trajectories == 9 and spent.resets == 3 and spent.restores == 6
    (_, rows, spent), = list(sample_rollouts(env_id, llm, [905], Chain(budget=10)))
    last = max(r["tree"] for r in rows)
    last_len = sum(1 for r in rows if r["tree"] == last)
    assert spent.llm_calls >= 10 > spent.llm_calls - last_len
    assert spent.restores == 0 and spent.snapshots == 0 and spent.resets == last + 1


def test_rows_load_with_datasets_in_trls_prompt_completion_format(tmp_path):
    datasets = pytest.importorskip("datasets", reason="the train extra (datasets) is not installed")
    out = tmp_path / "rows.jsonl"
    assert main(["rollouts", "treegym/Game24-v0", "--mode", "anchor", "--llm", LLM, "--tasks", "900:902",
                 "--out", str(out)]) == 0
    rows = read_rows(out)
    ds = datasets.load_dataset("json", data_files=str(out), split="train")
    assert ds.num_rows == len(rows) > 0
    # TRL's conversational prompt-completion format: prompt = messages ending with a user turn, completion =
    # the assistant's reply as a list of one message; a trainer with precomputed advantages reads `advantage`
    assert {"prompt", "completion", "advantage", "advantage_episode", "advantage_step", "anchor"} <= set(ds.column_names)
    for key in ("prompt", "completion"):
        feature = ds.features[key]
        inner = getattr(feature, "feature", None) or feature[0]
        assert set(inner) == {"role", "content"}, feature
    assert ds.features["advantage"].dtype in ("float64", "float32")
    for got, row in zip(ds, rows):
        assert got["prompt"][-1]["role"] == "user" and [m["role"] for m in got["completion"]] == ["assistant"]
        assert got["advantage"] == pytest.approx(row["advantage"])


@pytest.mark.parametrize("argv,message", [
    (["--mode", "tree", "--budget", "5"], "--budget applies to --mode chain"),
    (["--gamma", "1.5"], "--gamma 1.5"),
    (["--tasks", "5-9"], "--tasks 5-9"),
    (["--iters", "-1"], "--iters"),
])
def test_bad_inputs_are_refused_with_one_line(tmp_path, capsys, argv, message):
    out = tmp_path / "rows.jsonl"
    with pytest.raises(SystemExit) if "--iters" in argv else _nothing():
        code = main(["rollouts", "treegym/Game24-v0", "--llm", LLM, "--tasks", "900", "--out", str(out), *argv])
        assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert any(message in line for line in err), err
    assert not out.exists()


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_a_run_is_reproducible_from_its_seed_and_another_seed_samples_differently(tmp_path):
    argv = ["rollouts", "treegym/Game24-v0", "--mode", "tree", "--llm", LLM, "--tasks", "900:902"]
    paths = [tmp_path / f"{name}.jsonl" for name in ("a", "b", "c")]
    for path, seed in zip(paths, ("4", "4", "5")):
        assert main([*argv, "--seed", seed, "--out", str(path)]) == 0
    assert paths[0].read_bytes() == paths[1].read_bytes()
    assert paths[0].read_bytes() != paths[2].read_bytes()


@pytest.mark.slow
def test_the_embedded_model_plays_a_tree_whose_rows_carry_the_formulas(tmp_path):
    """`--llm local` (SmolLM2 through llama.cpp's server): the plumbing end to end, not the model's skill."""
    out, stats = tmp_path / "rows.jsonl", tmp_path / "stats.json"
    assert main(["rollouts", "treegym/Game24-v0", "--mode", "tree", "--llm", "local", "--tasks", "900",
                 "--trees", "2", "--expand", "1", "--iters", "1", "--out", str(out), "--stats", str(stats)]) == 0
    rows = read_rows(out)
    acct = json.loads(stats.read_text())
    assert rows and acct["llm_calls"] == acct["env_steps"] == len(rows) and acct["tokens"] > 0
    for nodes in by_task(rows).values():
        for n, want in recompute("tree", nodes).items():
            assert all(nodes[n][k] == pytest.approx(v, abs=1e-9) for k, v in want.items())
