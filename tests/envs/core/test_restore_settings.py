"""A snapshot restores only into an env that plays by the same rules.

For every family with settings (``restore_settings``: a judging protocol, a reward or observation mode,
...): a snapshot taken under another value of a setting is refused, before and after travelling as
bytes, with one line naming the setting and both values, and the refused env is left as it was; one
taken under the same settings restores exactly (same observation, same next step). Group starts
refuse a twin built with other settings; clones keep their env's settings.
"""
from __future__ import annotations

import dataclasses

import gymnasium as gym
import numpy as np
import pytest

import treegym.envs as te
import treegym.envs.examples.number_walk  # noqa: F401 - registers mysuite/NumberWalk-v0
from treegym.envs import ForkableEnv, SnapshotError
from treegym.envs.core.snapshot import settings_key
from treegym.envs.core.vector import ForkVectorEnv

CASES = [  # (env id, a setting, a value other than its default)
    ("treegym/Game24-v0", "protocol", "tot"),
    ("treegym/WebShop-v0", "observation_mode", "html"),
    ("treegym/ToolBench-v0", "reward_mode", "hidden"),
    ("treegym/ToolBench-v0", "max_observation_length", 300),
    ("treegym/RestBench-v0", "reward_mode", "hidden"),
    ("treegym/RestBench-v0", "max_observation_length", 300),
    ("treegym/ToolTasks-v0", "reward_mode", "hidden"),
    ("treegym/ALFWorld-v0", "style", "0.4"),
    ("treegym/ALFWorld-v0", "expert_plan", True),
    ("treegym/ALFWorld-v0", "expert", "handcoded"),
    ("treegym/BMoCA-v0", "screenshot", True),
    ("mysuite/NumberWalk-v0", "target", 3),
]


def _walk(env: gym.Env, seed: int, steps: int = 3) -> None:
    obs, _ = env.reset(seed=seed)
    for _ in range(steps):
        valid = list(obs.get("valid_actions") or ())
        obs = env.step(valid[-1] if valid else "look")[0]


def _same(a, b) -> bool:
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.array_equal(a, b)
    return a == b


def _state(env: gym.Env):
    snap = te.snapshot(env)
    return snap.payload, snap.steps, snap.task


@pytest.mark.parametrize(("env_id", "name", "value"), CASES, ids=[f"{c[0].split('/')[1]}-{c[1]}" for c in CASES])
def test_a_snapshot_restores_only_into_an_env_of_its_settings(env_id, name, value):
    other = gym.make(env_id, **{name: value})
    default = gym.make(env_id)
    _walk(other, seed=1)
    _walk(default, seed=2)
    snap = te.snapshot(other)
    assert snap.settings == ((name, value),)
    default_snap = te.snapshot(default)
    assert default_snap.settings == ()
    before = _state(default)
    default_value = type(default.unwrapped).restore_setting_defaults[name]
    for travelled in (snap, te.snapshot_from_bytes(te.snapshot_to_bytes(snap))):
        with pytest.raises(SnapshotError) as caught:
            te.restore(default, travelled)
        message = str(caught.value)
        assert f"{name}={value!r}" in message and f"{name}={default_value!r}" in message
        assert "\n" not in message and f"build the env with {name}={value!r}" in message
        assert _same(_state(default), before)  # refused: nothing changed
    with pytest.raises(SnapshotError, match=f"{name}={default_value!r}"):
        te.restore(other, default_snap)

    # the same settings: restores exactly, and steps on the same
    twin = gym.make(env_id, **{name: value})
    _walk(twin, seed=2)
    for travelled in (snap, te.snapshot_from_bytes(te.snapshot_to_bytes(snap)), te.snapshot(te.clone(other))):
        assert travelled.env_class is twin.unwrapped.snapshot_class_key  # one object: the restore's compare stops there
        seen = te.restore(twin, travelled)
        assert _same(seen, te.restore(other, snap))
        valid = list(seen[0].get("valid_actions") or ())
        action = valid[0] if valid else "look"
        assert _same(twin.step(action), other.step(action))
    assert _same(te.restore(default, default_snap), te.restore(gym.make(env_id), default_snap))


def test_a_group_start_refuses_a_twin_built_with_other_settings():
    vec = ForkVectorEnv([lambda: gym.make("treegym/Game24-v0"), lambda: gym.make("treegym/Game24-v0", protocol="tot")])
    vec.reset(seed=1)
    snap = vec.snapshot(0)
    for _ in range(3):  # the first restore settles the wrappers; later ones take the group's short path
        with pytest.raises(SnapshotError, match="protocol='tot'"):
            vec.restore(snap)
    same = ForkVectorEnv([lambda: gym.make("treegym/Game24-v0", protocol="tot")] * 3)
    same.reset(seed=[1, 2, 3])
    tot = same.snapshot(0)
    obs, _ = same.restore(tot)
    assert [s.payload for s in (same.snapshot(i) for i in range(3))] == [tot.payload] * 3
    assert all(same.snapshot(i).env_class is tot.env_class for i in range(3))


def test_a_hand_built_key_is_checked():
    env = gym.make("treegym/Game24-v0", protocol="tot")
    env.reset(seed=1)
    snap = te.snapshot(env)
    assert snap.env_class == "treegym.envs.game24.env:Game24Env[protocol='tot']"
    plain = "treegym.envs.game24.env:Game24Env"
    for env_class, message in ((settings_key(plain, (("protocol", "nonsense"),)), "protocol='nonsense'"),
                               (settings_key(plain, (("colour", "red"),)), "setting 'colour', which Game24Env does not"),
                               (plain + "[protocol='unseen']", r"taken on .*Game24Env\[protocol='unseen'\]; this env is"),
                               ("treegym.envs.game24.env:Other", "taken on treegym.envs.game24.env:Other, cannot"),
                               (plain, "with protocol='treegym'; this env has protocol='tot'")):
        with pytest.raises(SnapshotError, match=message):
            te.restore(env, dataclasses.replace(snap, env_class=env_class))
    assert te.restore(env, dataclasses.replace(snap, env_class=settings_key(plain, (("protocol", "tot"),))))[1][
        "protocol"] == "tot"


def test_a_setting_must_be_a_constructor_parameter_with_a_default():
    with pytest.raises(TypeError, match="'colour', which is not a parameter"):
        class Painted(ForkableEnv):  # noqa: F841 - defining it is the test
            restore_settings = ("colour",)

            def __init__(self, max_steps: int | None = None):
                super().__init__(max_steps=max_steps)


def test_a_subclass_inherits_settings_it_passes_on_and_drops_those_it_fixes():
    from treegym.envs.examples.number_walk import NumberWalkEnv

    class PassesOn(NumberWalkEnv):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)

    class FixesIt(NumberWalkEnv):
        def __init__(self, max_steps: int = 10):
            super().__init__(target=5, max_steps=max_steps)

    assert PassesOn.restore_setting_defaults == {"target": 7} and FixesIt.restore_setting_defaults == {}
    three, four = PassesOn(target=3), PassesOn(target=4)
    three.reset(seed=0)
    four.reset(seed=0)
    with pytest.raises(SnapshotError, match="target=3"):
        four.restore(three.snapshot())
    assert PassesOn(target=3).restore(three.snapshot())[0] == three.restore(three.snapshot())[0]


def test_a_data_setting_records_the_identity_the_env_gives_it():
    from treegym.envs.examples.number_walk import NumberWalkEnv

    class TableWalk(NumberWalkEnv):  # a walk whose moves come from a table it loads, known by a digest
        data_settings = {"table": "build the env on the snapshot's table"}

        def __init__(self, table: str | None = None, **kwargs):
            super().__init__(**kwargs)
            self.record_data_setting("table", None if table in (None, "shipped") else f"digest of {table}")

    class FixedTable(TableWalk):  # fixes the argument: its envs still record the table
        def __init__(self):
            super().__init__(table="mine")

    assert TableWalk.restore_setting_defaults == {"target": 7, "table": None}
    assert FixedTable.restore_setting_defaults == {"table": None}
    mine, theirs, shipped = TableWalk(table="mine", target=3), TableWalk(table="theirs", target=3), TableWalk()
    for env in (mine, theirs, shipped):
        env.reset(seed=0)
    snap = mine.snapshot()
    assert snap.settings == (("target", 3), ("table", "digest of mine"))  # in the class's order
    assert TableWalk(table="shipped").snapshot_class_key is shipped.snapshot_class_key  # None: nothing recorded
    assert TableWalk(table="mine", target=3).snapshot_class_key is snap.env_class
    with pytest.raises(SnapshotError, match="table='digest of mine'; this env has table='digest of theirs', whose "
                                            "data .* build the env on the snapshot's table$"):
        theirs.restore(snap)
    with pytest.raises(SnapshotError, match="table=None"):
        mine.restore(TableWalk(target=3).snapshot())
    fixed = FixedTable()
    fixed.reset(seed=0)
    assert fixed.snapshot().settings == (("table", "digest of mine"),)
    with pytest.raises(TypeError, match="does not list 'colour'"):
        mine.record_data_setting("colour", "red")


def test_a_replay_snapshot_is_replayed_only_under_its_settings():
    from treegym.envs import ReplayForkable
    from treegym.envs.examples.number_walk import NumberWalkEnv

    class ReplayWalk(ReplayForkable, NumberWalkEnv):
        pass

    three = ReplayWalk(target=3)
    three.reset(seed=0)
    for action in ("add 2", "add 1"):
        three.step(action)
    snap = three.snapshot()
    assert snap.kind == "replay" and snap.settings == (("target", 3),)
    with pytest.raises(SnapshotError, match="target=3"):
        ReplayWalk().restore(snap)
    obs, info = ReplayWalk(target=3).restore(snap)
    assert info["success"] and obs == three._observe()[0]


CHILD = """
import sys
import gymnasium as gym
import treegym.envs as te
data = sys.stdin.buffer.read()
for protocol in ("tot", "treegym"):
    env = gym.make("treegym/Game24-v0", protocol=protocol)
    env.reset(seed=2)
    try:
        print(te.restore(env, te.snapshot_from_bytes(data))[1]["protocol"])
    except te.SnapshotError as exc:
        print("refused:", exc)
"""


@pytest.mark.slow
def test_settings_travel_to_a_fresh_process():
    import subprocess
    import sys

    env = gym.make("treegym/Game24-v0", protocol="tot")
    _walk(env, seed=1, steps=1)
    out = subprocess.run([sys.executable, "-c", CHILD], input=te.snapshot_to_bytes(te.snapshot(env)),
                         capture_output=True, check=True).stdout.decode().splitlines()
    assert out[0] == "tot"
    assert out[1].startswith("refused: ") and "build the env with protocol='tot'" in out[1]


@pytest.mark.slow
def test_remote_envs_refuse_a_snapshot_of_other_settings_on_their_server():
    pytest.importorskip("flask")
    from treegym.servers.env_server import create_env_app
    from treegym.servers.run import serve_in_thread

    with serve_in_thread(create_env_app("treegym/ToolTasks-v0")) as srv:
        url = f"http://{srv.host}:{srv.port}"
        hidden = gym.make("treegym/ToolTasks-v0", server_url=url, reward_mode="hidden")
        _walk(hidden, seed=1, steps=2)
        snap = te.snapshot(hidden)
        assert type(snap.payload).__name__ == "RemoteState"  # the server's state
        terminal = gym.make("treegym/ToolTasks-v0", server_url=url)
        terminal.reset(seed=2)
        with pytest.raises(SnapshotError, match="reward_mode='hidden'"):
            te.restore(terminal, snap)
        twin = gym.make("treegym/ToolTasks-v0", server_url=url, reward_mode="hidden")
        twin.reset(seed=2)
        assert _same(te.restore(twin, snap), te.restore(hidden, snap))
        for env in (hidden, terminal, twin):
            env.close()
