"""scripts/bench/bench_all.py: the results file's shape, its equality checks, and refusals (no timing asserted)."""
from __future__ import annotations

import json

import gymnasium as gym
import pytest

from treegym.scripts.bench import bench_all, bench_overhead
from treegym.scripts.bench.bench_rollback import RollbackRefused, measure_rollback
from treegym.agents.llm.request import Request

BROKEN_ID = "BrokenRestoreToolTasks-v0"


class StepAfterRestore(gym.Wrapper):
    """A wrong restore (around the raw env): it returns the snapshot's observation but then silently plays one more action,
    so the env holds another state than the one it reported."""

    def snapshot(self):
        return self.env.snapshot()

    def restore(self, snap):
        obs, info = self.env.restore(snap)
        self.env.step(obs["valid_actions"][0])
        return obs, info


def _broken(**kwargs) -> gym.Env:
    return StepAfterRestore(gym.make("treegym/ToolTasks-v0", **kwargs).unwrapped)


if BROKEN_ID not in gym.registry:
    gym.register(id=BROKEN_ID, entry_point=_broken, disable_env_checker=True)


def _quick(tmp_path, *extra: str) -> list[str]:
    return ["--quick", "--agents", "bfs,mcts", "--out", str(tmp_path / "results.json"), *extra]


def test_a_quick_run_writes_checked_figures_for_each_env(tmp_path, capsys):
    assert bench_all.main(_quick(tmp_path, "--envs", "game24,tooltasks")) == 0
    results = json.loads((tmp_path / "results.json").read_text())
    assert results["schema"] == bench_all.SCHEMA
    assert {"git_commit", "git_dirty", "python", "load_before", "load_after", "seconds"} <= set(results)
    assert len(results["load_before"]) == 3
    settings = results["settings"]
    assert settings["quick"] is True and settings["agents"] == ["bfs", "mcts"]
    assert settings["envs"] == ["treegym/Game24-v0", "treegym/ToolTasks-v0"]
    depths = {}
    for entry in results["envs"]:
        assert entry["status"] == "ok", entry
        r = entry["rollback"]
        depths[entry["env_id"]] = r["depth"]
        # every repetition restored twice (sibling, other task) and replayed once, each checked
        assert r["checked"] == {"restores": 2 * r["repeats"], "replays": r["repeats"]}
        assert r["repeats"] == settings["repeats"]
        for name in ("restore", "restore_other_task", "step", "snapshot", "replay"):
            for clock in ("cpu", "wall"):
                s = r[name][clock]
                assert s["n"] == (2 if name in ("step", "snapshot") else 1) * r["repeats"]
                assert 0 <= s["min"] <= s["p25"] <= s["median"] <= s["p75"] <= s["max"]
        assert r["ratio_cpu"] == pytest.approx(r["replay"]["cpu"]["median"] / r["restore"]["cpu"]["median"])
        search = entry["search"]
        assert set(search) == {"start", "depth"}
        assert search["start"]["depth"] == 0 and search["start"]["depths"] == {"0": 0}
        # the depth column's searches start at the rollback's depth-d states (Game24: 2, its episodes end at step 3)
        assert search["depth"]["depth"] == r["depth"] and search["depth"]["depths"] == {"0": r["depth"]}
        for column in ("start", "depth"):
            s = search[column]
            assert s["baseline"]["cpu"]["median"] > 0 and s["baseline"]["cpu"]["n"] == settings["search_repeats"] * 2
            for agent in ("bfs", "mcts"):
                a = s["agents"][agent]
                assert a["expansions"]["median"] >= 1 and a["llm_calls"]["median"] >= 1
                assert a["framework"]["cpu"]["median"] > 0 and a["ratio_cpu"] > 0
                assert a["starts_checked"] == settings["search_repeats"]
                assert 0 < a["timer_cpu_per_expansion"] < a["framework"]["cpu"]["median"]
                # one search, one seed: the ratio is its framework cost over its start state's baseline
                assert a["ratio_cpu"] == pytest.approx(a["framework"]["cpu"]["median"] / s["baseline"]["cpu"]["median"])
                # schema 3: and over the replay of its own expansions, checked against its tree
                assert a["replays_checked"] == settings["search_repeats"] * bench_overhead.REPLAY_BLOCKS
                assert a["ratio_at_expansions_cpu"] == pytest.approx(
                    a["framework"]["cpu"]["median"] / a["expansion_env"]["cpu"]["median"])
                assert a["ratio_at_expansions"]["wall"]["median"] == a["ratio_at_expansions_wall"] > 0
                assert 0 <= a["follow_on_share"] <= 1
        # room below the depth states: the env's step limit grew by the depth asked for
        if search["start"]["max_steps"] is not None:
            assert search["depth"]["max_steps"] == search["start"]["max_steps"] + settings["depth"]
    assert depths == {"treegym/Game24-v0": 2, "treegym/ToolTasks-v0": 8}  # Game24 episodes end at step 3
    out = capsys.readouterr().out
    assert "Game24-v0" in out and "ToolTasks-v0" in out and "load average" in out
    assert "searches from depth 8 (seed 0: 8)" in out and "searches from depth 2 (seed 0: 2)" in out
    assert "searches from depth 0 (seed 0: 0)" in out and "env@d" in out and "timer" in out
    # the summary's depth cells are the ratios against the expansions' cost, the start cells against the start state
    row = next(line for line in out.splitlines() if line.startswith("ToolTasks-v0 "))
    tooltasks = next(e for e in results["envs"] if e["env_id"] == "treegym/ToolTasks-v0")["search"]
    for agent in ("bfs", "mcts"):
        cell = (f"{tooltasks['depth']['agents'][agent]['ratio_at_expansions_cpu']:.1f}/"
                f"{tooltasks['start']['agents'][agent]['ratio_cpu']:.1f}x")
        assert cell in row
    assert "env@exp" in out and "(/exp: target <= 2x)" in out and "(/start: target <= 2.5x)" in out


def test_a_schema_2_results_file_is_refused_too(tmp_path, capsys):
    # schema 2 files have no ratios against the expansions' cost: not silently replaced by schema 3 ones
    out = tmp_path / "results.json"
    args = _quick(tmp_path, "--envs", "game24", "--no-search")
    settings = bench_all.settings_of(bench_all.parse_args(args))
    out.write_text(json.dumps({"schema": "treegym.bench_all/2", "settings": settings, "envs": []}))
    assert bench_all.SCHEMA == "treegym.bench_all/3"
    assert bench_all.main(args) == 2
    assert "another bench_all version (treegym.bench_all/2" in capsys.readouterr().err


def test_an_old_results_file_is_refused_naming_its_version(tmp_path, capsys):
    out = tmp_path / "results.json"
    args = _quick(tmp_path, "--envs", "game24", "--no-search")
    settings = bench_all.settings_of(bench_all.parse_args(args))
    out.write_text(json.dumps({"schema": "treegym.bench_all/1", "settings": settings, "envs": []}))
    assert bench_all.main(args) == 2
    assert "another bench_all version (treegym.bench_all/1" in capsys.readouterr().err
    assert json.loads(out.read_text())["schema"] == "treegym.bench_all/1"


def test_a_results_file_from_other_settings_is_not_replaced(tmp_path, capsys):
    assert bench_all.main(_quick(tmp_path, "--envs", "game24", "--no-search")) == 0
    before = (tmp_path / "results.json").read_text()
    assert bench_all.main(_quick(tmp_path, "--envs", "game24", "--no-search", "--depth", "1")) == 2
    assert "other settings (differs in: depth)" in capsys.readouterr().err
    assert (tmp_path / "results.json").read_text() == before
    assert bench_all.main(_quick(tmp_path, "--envs", "game24", "--no-search", "--depth", "1", "--overwrite")) == 0
    assert json.loads((tmp_path / "results.json").read_text())["settings"]["depth"] == 1


def test_a_wrong_restore_is_refused_and_no_figure_is_written(tmp_path, capsys):
    with pytest.raises(RollbackRefused, match="next step"):
        measure_rollback(lambda: _broken(max_steps=16), repeats=3)
    assert bench_all.main(_quick(tmp_path, "--envs", BROKEN_ID)) == 1
    [entry] = json.loads((tmp_path / "results.json").read_text())["envs"]
    assert entry["status"] == "refused" and "differs" in entry["reason"]
    assert "rollback" not in entry and "search" not in entry
    assert "REFUSED" in capsys.readouterr().out


def test_unknown_envs_are_named(tmp_path, capsys):
    with pytest.raises(SystemExit):
        bench_all.main(_quick(tmp_path, "--envs", "game24,nosuchenv"))
    assert "'nosuchenv' is neither a family" in capsys.readouterr().err


def test_the_timed_llm_counts_the_time_inside_the_llm_and_forwards_the_rest():
    import time

    from treegym.scripts.bench.bench_support import TimedLLM

    class BusyLLM:
        name = "busy"
        inside = 0.0

        def complete(self, request):
            t0 = time.process_time()
            while time.process_time() - t0 < 0.02:
                pass
            self.inside += time.process_time() - t0
            return [f"{len(request.messages)} {request.n}"]

    raw = BusyLLM()
    llm = TimedLLM(raw)
    t0 = time.process_time()
    assert llm.complete(Request([{"role": "user", "content": "x"}], n=2)) == ["1 2"]
    outside = time.process_time() - t0
    assert llm.name == "busy" and llm.inside == raw.inside
    assert raw.inside <= llm.cpu_seconds <= outside
    assert llm.wall_seconds > 0
    t0 = time.process_time()
    assert llm.complete(Request([{"role": "user", "content": "y"}], n=1)) == ["1 1"]  # the kept wrapper
    outside += time.process_time() - t0
    assert raw.inside <= llm.cpu_seconds <= outside and raw.inside >= 0.04


def test_the_summary_shows_a_column_that_could_not_be_measured_as_such():
    r = measure_rollback(lambda: gym.make("treegym/Game24-v0", max_steps=16), depth=2, repeats=2)
    agent = {"ratio_cpu": 3.0}
    start = {"depth": 0, "baseline": {"cpu": {"median": 20e-6}}, "agents": {"mcts": agent}}
    entry = {"env_id": "treegym/Game24-v0", "status": "ok", "rollback": r,
             "search": {"start": start, "depth": {"error": "no valid_actions to step"}}}
    table = bench_all.summary_table([entry], ["mcts"])
    row = next(line for line in table.splitlines() if line.startswith("Game24-v0"))
    assert "n/a/3.0x" in row and " 20.0 " in row and " n/a " in row  # env@exp: no depth column figure
    assert "search not measured from depth: no valid_actions to step" in row
