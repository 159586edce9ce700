"""scripts/bench/bench_groups.py: one row per run and env, every fork checked against a replay, the
neighbour really started beside the measurement with --load (no timing asserted)."""
from __future__ import annotations

import pytest

from treegym.scripts.bench import bench_groups


def _rows(out: str, env_id: str) -> list[list[str]]:
    return [line.split() for line in out.splitlines() if line.startswith(env_id + " ")]


def test_each_run_prints_a_row_and_the_target_names_every_ratio(capsys):
    bench_groups.main(["--env", "treegym/ALFWorld-v0", "--depth", "3", "--group", "4", "--repeats", "3",
                       "--runs", "2"])
    out = capsys.readouterr().out
    rows = _rows(out, "treegym/ALFWorld-v0")
    assert [r[1] for r in rows] == ["1", "2"] and all(r[-1] == "yes" for r in rows)  # restored == replayed
    assert all(float(r[6]) > 0 and float(r[7]) > 0 for r in rows)  # fork and replay ms
    target = next(line for line in out.splitlines() if line.startswith("target treegym/ALFWorld-v0"))
    assert "each of 2 run(s)" in target and target.count("x,") == 1
    assert "no neighbour" in out


@pytest.mark.slow
def test_load_runs_the_neighbour_beside_the_measurement(capsys):
    bench_groups.main(["--env", "treegym/WebShop-v0", "--depth", "2", "--group", "2", "--repeats", "3",
                       "--load", "--load-procs", "1", "--load-mb", "1"])
    out = capsys.readouterr().out
    line = next(line for line in out.splitlines() if line.startswith("busy neighbour:"))
    assert "1 process(es)" in line and int(line.split(" passes")[0].rsplit(" ", 1)[-1]) >= 1
    assert _rows(out, "treegym/WebShop-v0")[0][-1] == "yes"


def test_bad_counts_are_refused_with_a_message(capsys):
    with pytest.raises(SystemExit):
        bench_groups.main(["--runs", "0"])
    assert "--runs" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        bench_groups.main(["--load", "--load-procs", "0"])
    assert "--load-procs" in capsys.readouterr().err
