"""scripts/bench/bench_rollback.py runs and measures Game24 at the requested depth (no timing asserted)."""
from __future__ import annotations

from treegym.scripts.bench import bench_rollback


def test_the_rollback_benchmark_prints_a_row_per_env(capsys):
    bench_rollback.main(["--env", "treegym/Game24-v0", "--depth", "2", "--repeats", "5", "--budget", "0"])
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("treegym/Game24-v0 "))
    fields = row.split()
    assert fields[1:3] == ["native", "2"]
    assert all(float(x) > 0 for x in fields[3:6]) and fields[6].endswith("x")
    assert "differs" not in out and "target treegym/Game24-v0" in out


def test_a_prefix_that_ends_the_episode_stops_early():
    import gymnasium as gym

    env = gym.make("treegym/Game24-v0")
    actions, obs = bench_rollback.play_prefix(env, seed=0, depth=10)
    assert len(actions) == 3 and obs["left"] == ("24",)
