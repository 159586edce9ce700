"""The busy neighbour of bench_groups --load: really started, really working, really stopped."""
import time

import pytest

from treegym.scripts.bench.busy_neighbour import BusyNeighbour


def test_the_neighbour_runs_passes_and_stops():
    with BusyNeighbour(procs=1, buffer_mb=1) as neighbour:
        first = neighbour.passes()
        assert first >= 1  # started only once it has made a pass
        while neighbour.passes() == first:
            time.sleep(0.01)
        workers = list(neighbour._workers)
        assert all(w.is_alive() for w in workers)
    assert not any(w.is_alive() for w in workers)
    assert "1 process(es)" in neighbour.describe() and "1 MiB" in neighbour.describe()


def test_a_neighbour_needs_a_process_and_a_buffer():
    with pytest.raises(ValueError, match="procs >= 1"):
        BusyNeighbour(procs=0)
