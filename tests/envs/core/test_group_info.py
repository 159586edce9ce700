"""A group start's batched info (``vector_batch.group_info``): the same dict Gymnasium's ``_add_info``
builds when the same info is added once per sub-env (keys in the same order, nested dicts, every
value kind), and a fresh dict each time: what a caller does to one batch (adding, replacing,
deleting keys) shows in no later batch."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
from gymnasium.vector import SyncVectorEnv

from treegym.envs.core.vector_batch import group_info

N = 4


def gymnasium_batch(info: dict) -> dict:
    """The batch Gymnasium makes of ``info`` added for each of N sub-envs."""
    vec = SimpleNamespace(num_envs=N)  # _add_info reads only num_envs (and itself, for nested dicts)
    vec._add_info = lambda *args: SyncVectorEnv._add_info(vec, *args)
    out: dict = {}
    for i in range(N):
        out = vec._add_info(out, info, i)
    return out


def assert_same(got: dict, want: dict) -> None:
    assert list(got) == list(want)
    for key, value in want.items():
        if isinstance(value, dict):
            assert isinstance(got[key], dict)
            assert_same(got[key], value)
            continue
        assert got[key].dtype == value.dtype and got[key].shape == value.shape, key
        assert [x == y for x, y in zip(got[key].tolist(), value.tolist())] == [True] * len(value), key


def sample_info() -> dict:
    return {"won": False, "steps": 3, "name": "task-7", "commands": ["look", "go to desk 1"],
            "score": 0.5, "parts": {"has_bar": True, "items": ["x"], "r": None},
            "vec": np.arange(3, dtype=np.int32), "extra": None}


def test_a_group_info_is_what_gymnasium_batches():
    info = sample_info()
    assert_same(group_info(info, N), gymnasium_batch(info))
    assert_same(group_info({}, N), gymnasium_batch({}))


def test_each_group_info_is_a_fresh_dict_whatever_the_caller_did_to_the_last():
    info = sample_info()
    first = group_info(info, N)
    first["won"] = "replaced"
    first["added"] = 1
    del first["_steps"]
    first["parts"]["items"] = None
    second = group_info(info, N)
    assert second is not first and second["parts"] is not first["parts"]
    assert_same(second, gymnasium_batch(info))
    changed = dict(info, won=True, steps=4)  # same keys, other values: the values of this info
    assert list(group_info(changed, N)["won"]) == [True] * N and list(group_info(changed, N)["steps"]) == [4] * N
