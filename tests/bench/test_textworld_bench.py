"""The benchmarks never report TextWorld's lazy restore alone as a fork's cost (issue 37): bench_rollback
times restore + first step for it, bench_textworld runs and checks its restores (no timing asserted)."""
from __future__ import annotations

import gymnasium as gym
import pytest

from treegym.scripts.bench import bench_textworld
from treegym.scripts.bench.bench_rollback import measure_rollback, restores_lazily


def test_only_a_live_engines_restore_counts_as_lazy():
    game24 = gym.make("treegym/Game24-v0")
    try:
        assert not restores_lazily(game24)
        r = measure_rollback(lambda: gym.make("treegym/Game24-v0", max_steps=10), depth=2, repeats=3)
        assert r["restore_timed"] == "restore"
    finally:
        game24.close()


def test_textworlds_restore_is_timed_with_its_first_step():
    pytest.importorskip("textworld", reason="treegym/TextWorld-v0 needs the textworld extra")
    env = gym.make("treegym/TextWorld-v0")
    try:
        assert restores_lazily(env)
    finally:
        env.close()
    r = measure_rollback(lambda: gym.make("treegym/TextWorld-v0", max_steps=12), depth=3, repeats=3)
    assert r["restore_timed"] == "restore + first step"
    assert r["checked"] == {"restores": 6, "replays": 3}
    # every restore sample holds its own step, so none is cheaper than the cheapest step (a restore alone,
    # which only records the state, is a hundred times cheaper than a step)
    for name in ("restore", "restore_other_task"):
        assert r[name]["cpu"]["min"] >= r["step"]["cpu"]["min"]
        assert r[name]["wall"]["min"] >= r["step"]["wall"]["min"]
    assert r["ratio_cpu"] == pytest.approx(r["replay"]["cpu"]["median"] / r["restore"]["cpu"]["median"])


def test_bench_textworld_runs_and_checks_its_forks(capsys):
    pytest.importorskip("textworld", reason="treegym/TextWorld-v0 needs the textworld extra")
    assert bench_textworld.main(["--depth", "2", "--repeats", "2", "--games", "coin_1"]) == 0
    out = capsys.readouterr().out
    assert "restore + first step / textworld's own step of the same command" in out
    assert "coin_1" in out and "look" in out and "load average" in out


def test_bench_all_marks_a_lazy_restore_and_says_what_it_timed():
    pytest.importorskip("textworld", reason="treegym/TextWorld-v0 needs the textworld extra")
    from treegym.scripts.bench.bench_all import format_rollback, summary_table
    from treegym.scripts.bench.bench_rollback import LAZY_NOTE

    r = measure_rollback(lambda: gym.make("treegym/TextWorld-v0", max_steps=12), depth=2, repeats=2)
    table = summary_table([{"env_id": "treegym/TextWorld-v0", "status": "ok", "rollback": r}], [])
    assert "TextWorld-v0*" in table and LAZY_NOTE in table
    text = format_rollback("treegym/TextWorld-v0", r)
    assert "lazy restore" in text and "reset+replay / restore + first step" in text
