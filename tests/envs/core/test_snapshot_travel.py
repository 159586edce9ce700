"""Snapshots travel: a depth-8 snapshot of every family, taken here and turned into bytes, restores in a
fresh process that holds another task, to the same observation, and steps to the same next observation.

Also: the snapshot record refuses bytes of another format or treegym version, a tampered payload, and
bytes sealed under another ``TREEGYM_SNAPSHOT_KEY``, each with one line.
"""
from __future__ import annotations

import json
import pickle
import subprocess
import sys

import gymnasium as gym
import numpy as np
import pytest

import treegym.envs as te
from treegym.envs.core import snapshot_bytes
from treegym.scripts.bench.bench_rollback import _draw, open_walk, replay

FAMILIES = ("treegym/Game24-v0", "treegym/WebShop-v0", "treegym/ToolBench-v0", "treegym/RestBench-v0",
            "treegym/ToolTasks-v0", "treegym/BMoCA-v0", "treegym/ALFWorld-v0", "treegym/TextWorld-v0")
DEPTH = 8

# The other process: holds task seed=1 (two steps into it), then restores each snapshot from its bytes
# and steps the given action; prints pickles of what it saw, one family after another.
CHILD = """
import pickle, sys
import gymnasium as gym
import treegym.envs as te
jobs = pickle.load(sys.stdin.buffer)
out = {}
for env_id, data, action in jobs:
    env = gym.make(env_id, max_steps=24)
    obs, _ = env.reset(seed=1)
    for _ in range(2):
        valid = list(obs.get("valid_actions") or ())
        obs = env.step(valid[-1] if valid else "look")[0]
    try:
        restored = te.restore(env, te.snapshot_from_bytes(data))
        out[env_id] = ("ok", restored, env.step(action))
    except Exception as exc:
        out[env_id] = ("raised", f"{type(exc).__name__}: {exc}", None)
    env.close()
sys.stdout.buffer.write(pickle.dumps(out))
"""


def _take(env_id: str) -> tuple[bytes, tuple, object, tuple]:
    env = gym.make(env_id, max_steps=24)
    try:
        actions = open_walk(env, 0, DEPTH, np.random.default_rng(0))
        obs, info, _r = replay(env, 0, actions)
        data = te.snapshot_to_bytes(te.snapshot(env))
        action = _draw(obs, env, np.random.default_rng(1))
        return data, (obs, info), action, env.step(action)
    finally:
        env.close()


@pytest.mark.slow
def test_a_depth_8_snapshot_of_every_family_restores_and_steps_alike_in_a_fresh_process():
    taken = {env_id: _take(env_id) for env_id in FAMILIES}
    jobs = [(env_id, data, action) for env_id, (data, _ref, action, _next) in taken.items()]
    run = subprocess.run([sys.executable, "-c", CHILD], input=pickle.dumps(jobs), capture_output=True)
    assert run.returncode == 0, run.stderr.decode()[-2000:]
    seen = pickle.loads(run.stdout)
    for env_id, (_data, ref, _action, ref_next) in taken.items():
        status, restored, stepped = seen[env_id]
        assert status == "ok", f"{env_id}: {restored}"
        assert te.first_difference(restored, ref) is None, f"{env_id} restore: {te.first_difference(restored, ref)}"
        assert te.first_difference(stepped, ref_next) is None, f"{env_id} next step: {te.first_difference(stepped, ref_next)}"
    # depth 8 reached except where the episode is shorter (Game of 24 ends after 3 moves)
    depths = {env_id: te.snapshot_from_bytes(taken[env_id][0]).steps for env_id in FAMILIES}
    assert all(d == DEPTH for env_id, d in depths.items() if env_id != "treegym/Game24-v0"), depths


def _game24_bytes() -> tuple[gym.Env, te.Snapshot, bytes]:
    env = gym.make("treegym/Game24-v0")
    env.reset(seed=0)
    env.step(env.unwrapped.expert().next_action)
    snap = te.snapshot(env)
    return env, snap, te.snapshot_to_bytes(snap)


def _edit_header(data: bytes, **changes) -> bytes:
    start = len(snapshot_bytes.MAGIC) + 4
    (n,) = snapshot_bytes._LENGTH.unpack_from(data, len(snapshot_bytes.MAGIC))
    header = json.loads(data[start:start + n])
    head = json.dumps({**header, **changes}, sort_keys=True).encode()  # (the digest, next, no longer matches)
    return snapshot_bytes.MAGIC + snapshot_bytes._LENGTH.pack(len(head)) + head + data[start + n:]


def test_snapshot_bytes_round_trip_and_refuse_what_they_cannot_restore(monkeypatch):
    env, snap, data = _game24_bytes()
    obs = env.unwrapped.restore(snap)[0]
    env.reset(seed=3)
    assert te.restore(env, te.snapshot_from_bytes(data))[0] == obs
    tampered = bytearray(data)
    tampered[-5] ^= 0x01
    refusals = {
        "tampered": (bytes(tampered), "does not match its seal"),
        "truncated": (data[:-3], "does not match its seal"),
        "not a record": (pickle.dumps(snap), "not a treegym snapshot"),
        "other format": (_edit_header(data, format=snapshot_bytes.FORMAT_VERSION + 1),
                         f"snapshot format {snapshot_bytes.FORMAT_VERSION + 1}"),
        "other treegym": (_edit_header(data, treegym="0.0.1"), "written by treegym 0.0.1"),
    }
    for what, (bad, message) in refusals.items():
        with pytest.raises(te.SnapshotBytesError, match=message) as caught:
            te.snapshot_from_bytes(bad)
        assert "\n" not in str(caught.value), what
    # a cluster key: bytes sealed under it restore under it only
    monkeypatch.setenv(snapshot_bytes.KEY_VARIABLE, "cluster secret")
    keyed = te.snapshot_to_bytes(snap)
    assert te.restore(env, te.snapshot_from_bytes(keyed))[0] == obs
    with pytest.raises(te.SnapshotBytesError, match="sealed with 'sha256'"):
        te.snapshot_from_bytes(data)
    monkeypatch.setenv(snapshot_bytes.KEY_VARIABLE, "another secret")
    with pytest.raises(te.SnapshotBytesError, match="does not match its seal"):
        te.snapshot_from_bytes(keyed)
    monkeypatch.delenv(snapshot_bytes.KEY_VARIABLE)
    with pytest.raises(te.SnapshotBytesError, match="unset TREEGYM_SNAPSHOT_KEY|sealed with 'hmac-sha256'"):
        te.snapshot_from_bytes(keyed)


def test_a_pickled_snapshot_of_another_format_is_refused():
    _env, snap, _data = _game24_bytes()
    fn, (version, *fields) = snap.__reduce__()
    assert pickle.loads(pickle.dumps(snap)) == snap and version == snapshot_bytes.FORMAT_VERSION
    with pytest.raises(te.SnapshotError, match="snapshot format 0"):
        fn(0, *fields)


def test_server_states_restore_on_another_server_process_with_the_same_key(monkeypatch):
    from treegym.envs.core.signed import StateSigner

    monkeypatch.setenv(snapshot_bytes.KEY_VARIABLE, "cluster secret")
    state = StateSigner("state").dumps(("x", 1))
    assert StateSigner("state").loads(state) == ("x", 1)  # another signer: another server process, same key
    monkeypatch.delenv(snapshot_bytes.KEY_VARIABLE)
    with pytest.raises(ValueError, match="not made by this server process"):
        StateSigner("state").loads(state)


def _served_elsewhere(make_engine, task_id, monkeypatch) -> None:
    """A state one server (engine) hands out restores on another server with the same key, to the same
    observation and next step; without the key it is refused."""
    monkeypatch.setenv(snapshot_bytes.KEY_VARIABLE, "cluster secret")
    here, there = make_engine(), make_engine()
    state = here.initial_state(here.task(task_id), 0)
    for _ in range(2):
        state = here.step(state, here.observe(state)[0]["valid_actions"][-1]).state
    data = here.state_to_json(state)
    moved = there.state_from_json(data)
    assert te.first_difference(there.observe(moved), here.observe(state)) is None
    action = here.observe(state)[0]["valid_actions"][0]
    assert te.first_difference(there.observe(there.step(moved, action).state),
                               here.observe(here.step(state, action).state)) is None
    monkeypatch.delenv(snapshot_bytes.KEY_VARIABLE)
    with pytest.raises(ValueError, match="not made by this server process"):
        make_engine().state_from_json(data)


def test_a_served_textworld_state_restores_on_another_server_with_the_same_key(monkeypatch):
    from treegym.envs.textworld.engine import TextWorldEngine

    _served_elsewhere(TextWorldEngine, "coin_1", monkeypatch)


def test_a_served_bmoca_state_restores_on_another_server_with_the_same_key(monkeypatch):
    from treegym.envs.android.env import BMoCAEnv
    from treegym.servers.env_server import ForkEngine

    _served_elsewhere(lambda: ForkEngine(BMoCAEnv(split="test")), "test_env_100/turn_on_airplane_mode", monkeypatch)


def test_a_tool_world_pickles_as_its_changes_from_the_initial_world_it_came_from():
    from treegym.envs.tools_common.world import Tx, WorldState, static_world

    base = static_world({"cart": {"a": 1}, "catalog": {str(i): {"price": i} for i in range(300)}})
    tx = Tx(base)
    tx.put("cart", "b", 2)
    world = tx.commit()
    data = pickle.dumps(world)
    assert len(data) * 10 < len(pickle.dumps(WorldState(dict(world.collections))))  # the catalog stays behind
    back = pickle.loads(data)
    assert back == world and back.collections["catalog"] is base.collections["catalog"]
    assert pickle.loads(pickle.dumps(base)) is base
    assert pickle.loads(pickle.dumps(back)) == world  # a world restored from bytes travels on alike
    # a process that never built that initial world (no env on the same data) says so
    code = ("import pickle, sys\ntry:\n    pickle.loads(sys.stdin.buffer.read())\n"
            "except ValueError as exc:\n    print(exc)\n")
    out = subprocess.run([sys.executable, "-c", code], input=data, capture_output=True, check=True).stdout.decode()
    assert "is not loaded in this process: make an env of the same family on the same task data" in out


def test_a_tool_world_travels_after_an_equal_initial_world_it_did_not_come_from_is_gone():
    # Engines built again on the same task data (RestBench's per-setting engines, an lru_cache of 4) hold equal
    # initial worlds; the registry must find the live one after the first one built is collected.
    from treegym.envs.tools_common.world import Tx, static_world

    data = {"cart": {"a": 1}, "catalog": {"equal-initial-worlds": {"price": 1}}}
    first = static_world(data)
    second = static_world(data)
    tx = Tx(second)
    tx.put("cart", "b", 2)
    world = tx.commit()
    del first, tx
    assert pickle.loads(pickle.dumps(second)) is second
    back = pickle.loads(pickle.dumps(world))
    assert back == world and back.collections["catalog"] is second.collections["catalog"]


@pytest.mark.slow
def test_the_cold_restore_bench_checks_every_restore_in_a_fresh_worker():
    from treegym.scripts.bench.bench_cold_restore import measure_cold_restore

    r = measure_cold_restore("treegym/ToolTasks-v0", depth=3, repeats=4)  # raises RollbackRefused on a difference
    assert r["repeats"] == 4 and r["depth"] == 3 and r["distinct"] == 4
    for name in ("first", "cold", "unseal", "step", "warm", "replay"):
        assert r[name]["cpu"]["median"] > 0, name
