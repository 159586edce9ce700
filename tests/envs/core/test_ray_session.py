"""Which ``ray_address`` names the Ray this process is connected to (envs/core/ray_session.py): a search or
an executor naming another cluster is refused rather than run on the wrong one (the refusal itself is
tested on a two-node cluster in tests/agents/search/test_search_distributed.py)."""
from __future__ import annotations

import pytest

from treegym.envs.core.ray_session import _same_cluster


@pytest.mark.parametrize("address, same", [
    ("10.0.0.5:6379", True),
    ("127.0.0.1:6379", True),  # this machine, by loopback
    ("localhost:6379", True),
    ("127.0.0.1:6380", False),  # another port: another cluster
    ("10.0.0.9:6379", False),  # another host
    ("ray://127.0.0.1:10001", False),  # a Ray Client address: not the connected GCS
])
def test_an_address_names_the_connected_cluster_only_by_its_host_and_port(address: str, same: bool) -> None:
    assert _same_cluster(address, "10.0.0.5:6379", here="10.0.0.5") is same


def test_another_machine_is_not_this_one() -> None:
    assert not _same_cluster("127.0.0.1:6379", "10.0.0.9:6379", here="10.0.0.5")
