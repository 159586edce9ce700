"""The task pool helper (envs/core/task_pool.py): the selection rules every family shares, and
what the families get from it (listing, make-kwargs, reset options)."""
from __future__ import annotations

import gymnasium as gym
import pytest

import treegym.envs as te
from treegym.envs.core import EngineEnv, TaskPool


def _pool() -> TaskPool:
    return TaskPool({"train": (0, 1, 2), "test": (3, 4)}, check=lambda t: int(t), default="test", source="demo")


def test_select_follows_split_task_ids_and_refuses_what_does_not_fit():
    pool = _pool()
    assert pool.select() == (3, 4) and pool.select("train") == (0, 1, 2)
    assert pool.select(task_ids=["1", 4]) == (1, 4)  # the check canonicalises ids
    assert pool.counts() == {"train": 3, "test": 2}
    with pytest.raises(ValueError, match="unknown split 'dev' of demo; choose one of train, test"):
        pool.select("dev")
    with pytest.raises(ValueError, match=r"task_ids \[1\] are not in split 'test'"):
        pool.select("test", [1])
    with pytest.raises(ValueError, match="task_ids is empty"):
        pool.select(task_ids=[])
    with pytest.raises(ValueError, match="sequence of task ids"):
        pool.select(task_ids="3")
    with pytest.raises(ValueError, match="split 'none' of demo has no tasks"):
        TaskPool({"none": (), "all": (1,)}, source="demo").select("none")


def test_choose_walks_the_selection_and_honours_options():
    pool = _pool()
    chosen = pool.select()
    assert pool.choose(chosen, None, None, {}) == 3
    assert pool.choose(chosen, 3, None, {}) == 4 and pool.choose(chosen, 4, None, {}) == 3  # wraps
    assert [pool.choose(chosen, None, s, {}) for s in range(3)] == [3, 4, 3]
    assert pool.choose(chosen, 3, 5, {"split": "train"}) == 2
    assert pool.choose(chosen, None, None, {"task_id": "0"}) == 0


def test_a_lazy_pool_reads_a_split_only_when_asked():
    asked = []
    pool = TaskPool.lazy(("a", "b"), lambda s: asked.append(s) or [s + "1", s + "2"])
    assert pool.select() == ("a1", "a2") and asked == ["a"]
    assert pool.check("b2") == "b2" and asked == ["a", "b"]
    with pytest.raises(ValueError, match="unknown task id 'c1'"):
        pool.check("c1")


@pytest.mark.parametrize("env_id", te.env_ids())
def test_every_family_lists_its_tasks_from_its_pool(env_id):
    try:
        cls = te.env_class(env_id)
    except gym.error.DependencyNotInstalled as exc:
        pytest.skip(str(exc))
    pool = cls.default_task_pool()
    assert isinstance(pool, TaskPool) and cls.task_counts()
    for split, n in cls.task_counts().items():
        ids = cls.split_task_ids(split)
        assert len(ids) == n and ids == list(pool.ids(split))


def test_engine_env_task_fields_work_on_toolbench_in_both_modes():
    from treegym.servers.env_server import create_env_app
    from treegym.servers.run import serve_in_thread

    local = gym.make("treegym/ToolBench-v0")
    local.reset(seed=1)
    fields = EngineEnv.task_fields(local.unwrapped)  # the generic method, which used to raise AttributeError
    assert fields["query"] and fields["functions"] and fields == local.unwrapped.task_fields()
    with serve_in_thread(create_env_app("toolbench")) as srv:
        remote = gym.make("treegym/ToolBench-v0", server_url=srv.url)
        remote.reset(seed=1)
        assert remote.unwrapped.task_fields() == fields
        remote.close()


def test_splits_of_records_groups_a_task_file_by_its_split_field():
    from treegym.envs.core.task_pool import splits_of_records

    rows = [{"id": 1, "split": "dev"}, {"id": 2, "split": "test"}, {"id": 3, "split": "extra"}, {"id": 4, "split": "test"}]
    assert splits_of_records(rows, "id") == {"dev": (1,), "test": (2, 4), "extra": (3,), "all": (1, 2, 3, 4)}
    assert splits_of_records(rows, "id", order=("test", "dev", "all", "extra", "none"), all_of=("test", "dev")) == \
        {"test": (2, 4), "dev": (1,), "all": (1, 2, 4), "extra": (3,), "none": ()}
    pool = TaskPool(splits_of_records(rows, "id", all_split=None), default="test")
    assert pool.select() == (2, 4) and pool.splits() == ("dev", "test", "extra")
