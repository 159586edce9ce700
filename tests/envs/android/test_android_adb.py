"""The ADB path: Debian's real ``adb`` client and adbutils against the fake adb server in front of the simulator.

Needs the ``adb`` binary (``apt-get install adb``; scripts/test.sh installs it).
"""
from __future__ import annotations

import gc
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import treegym.envs as te
from treegym.envs.android.adb import AdbBackend, AdbError
from treegym.envs.android.env import BMoCAEnv
from treegym.envs.android.sim.phone import SimPhone
from treegym.servers.android.fake_adb import FakeAdbServer

pytestmark = pytest.mark.skipif(shutil.which("adb") is None,
                                reason="Debian's adb client is not installed (apt-get install adb)")


@pytest.fixture
def server():
    srv = FakeAdbServer(SimPhone("test_env_100")).start()
    yield srv
    srv.stop()


def adb(srv: FakeAdbServer, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["adb", "-s", srv.serial, *args], env=srv.client_env(), capture_output=True)


def test_adb_cli_drives_the_fake_server(server, tmp_path):
    r = subprocess.run(["adb", "devices"], env=server.client_env(), capture_output=True, text=True)
    assert r.returncode == 0 and f"{server.serial}\tdevice" in r.stdout
    assert adb(server, "shell", "settings", "get", "global", "airplane_mode_on").stdout == b"0\n"
    assert adb(server, "shell", "uiautomator", "dump", "/sdcard/window_dump.xml").returncode == 0
    assert adb(server, "pull", "/sdcard/window_dump.xml", str(tmp_path / "d.xml")).returncode == 0
    assert (tmp_path / "d.xml").read_text() == server.phone.dump_ui()
    assert adb(server, "shell", "input", "keyevent", "KEYCODE_APP_SWITCH").returncode == 0
    assert server.phone.state.overlay is not None and server.phone.state.overlay.name == "recents"
    png = adb(server, "exec-out", "screencap", "-p").stdout
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    # emulator console through `adb emu`
    assert adb(server, "emu", "avd", "snapshot", "save", "mine").returncode == 0
    adb(server, "shell", "input", "keyevent", "KEYCODE_HOME")
    assert server.phone.state.overlay is None
    assert adb(server, "emu", "avd", "snapshot", "load", "mine").returncode == 0
    assert server.phone.state.overlay.name == "recents"
    assert "console:avd snapshot load mine" in server.requests
    bad = adb(server, "-s", "emulator-1", "shell", "true")
    assert bad.returncode != 0


def test_adbutils_drives_the_fake_server(server):
    adbutils = pytest.importorskip("adbutils")
    client = adbutils.AdbClient(host="127.0.0.1", port=server.port)
    assert [d.serial for d in client.device_list()] == [server.serial]
    d = client.device(server.serial)
    assert d.shell("getprop ro.build.version.sdk") == "29"
    d.shell("input keyevent 3")
    stream = d.shell("logcat -v epoch Tag:I *:S", stream=True)
    try:
        d.shell("log -t Tag hello-from-adbutils")
        data = b""
        while b"hello-from-adbutils" not in data:
            chunk = stream.conn.recv(4096)
            assert chunk, "the logcat stream closed"
            data += chunk
    finally:
        stream.close()
    line = data.decode().strip().splitlines()[-1]
    assert line.endswith("I Tag     : hello-from-adbutils")  # logcat pads the tag to 8 columns
    d.shell("uiautomator dump /sdcard/window_dump.xml")
    assert d.sync.read_bytes("/sdcard/window_dump.xml").decode() == server.phone.dump_ui()
    with pytest.raises(adbutils.AdbError, match="does not exist"):
        d.sync.read_bytes("/nonexistent")


def test_same_episode_through_adb_and_simulator_is_identical(server):
    # a longer step limit leaves room for the malformed and random actions mixed into the expert's
    sim_env = BMoCAEnv(split="test", max_steps=20)
    backend = AdbBackend(serial=server.serial, server=f"tcp:127.0.0.1:{server.port}")
    adb_env = BMoCAEnv(split="test", backend=backend, max_steps=20)
    try:
        for task_id in ("test_env_104/turn_on_airplane_mode", "test_env_101/call_911"):
            o1, i1 = sim_env.reset(options={"task_id": task_id})
            o2, i2 = adb_env.reset(options={"task_id": task_id})
            assert o1 == o2 and i1["xml"] == i2["xml"]
            rng = np.random.default_rng(0)
            trajectory = []
            for step in range(20):
                if step in (1, 2):  # a malformed action and a random one, then the expert
                    a = "tap(oops)" if step == 1 else str(rng.choice(o1["valid_actions"]))
                else:
                    a = sim_env.expert_action() or 'press("HOME")'
                r1 = sim_env.step(a)
                r2 = adb_env.step(a)
                assert r1[0] == r2[0], f"{task_id} step {step} {a}: observations differ"
                assert r1[1:4] == r2[1:4], f"{task_id} step {step} {a}: reward/termination differ"
                assert r1[4]["xml"] == r2[4]["xml"] and r1[4]["message"] == r2[4]["message"]
                trajectory.append((a, r1[1]))
                if r1[2] or r1[3]:
                    break
            assert r1[2] and r1[1] == 1.0, f"{task_id}: {trajectory}"
    finally:
        backend.close()


def test_external_snapshots_restore_and_are_released(server):
    backend = AdbBackend(serial=server.serial, server=f"tcp:127.0.0.1:{server.port}")
    env = BMoCAEnv(split="test", backend=backend)
    try:
        assert env.snapshot_kind == "external"
        obs, _ = env.reset(options={"task_id": "test_env_100/turn_on_airplane_mode"})
        snap = env.snapshot()
        name = snap.payload.device.ref
        assert name in server.phone.named
        env.step('swipe("up")')
        restored, info = env.restore(snap)
        assert restored == obs and info["success"] is False
        env.step("tap(2)")  # Settings on test_env_100's home screen
        assert env.state.success is False
        del snap
        gc.collect()
        assert name not in server.phone.named, "dropping the snapshot must delete it on the emulator"
        with pytest.raises(AdbError, match="does not exist"):
            backend.load_snapshot("never_saved")
    finally:
        backend.close()


def test_a_device_snapshot_pickles_in_its_process_and_is_refused_in_another(server):
    backend = AdbBackend(serial=server.serial, server=f"tcp:127.0.0.1:{server.port}")
    env = BMoCAEnv(split="test", backend=backend)
    try:
        obs, _ = env.reset(options={"task_id": "test_env_100/turn_on_airplane_mode"})
        snap = env.snapshot()
        data = te.snapshot_to_bytes(snap)
        again = te.snapshot_from_bytes(data)
        assert again.payload.device is snap.payload.device  # the same handle in the process that holds it
        env.step('swipe("up")')
        assert env.restore(again)[0] == obs
        code = ("import sys, treegym.envs as te; from treegym.envs.android.env import BMoCAEnv\n"
                "snap = te.snapshot_from_bytes(sys.stdin.buffer.read())\n"
                "env = BMoCAEnv(split='test'); env.reset(seed=1)\n"
                "try:\n    env.restore(snap)\nexcept te.SnapshotError as exc:\n    print(exc)\n")
        out = subprocess.run([sys.executable, "-c", code], input=data, capture_output=True, check=True).stdout.decode()
        assert f"emulator snapshot on the device {server.serial} driven by process {os.getpid()}" in out
        assert "cannot travel" in out and out.count("\n") == 1
    finally:
        backend.close()


def test_missing_adb_binary_is_a_clear_error():
    b = AdbBackend(adb="/nonexistent/adb")
    with pytest.raises(AdbError, match="apt-get install adb"):
        b.shell("true")


def _raw(server: FakeAdbServer, payload: bytes) -> bytes:
    import socket

    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as s:
        s.sendall(payload)
        data = b""
        while True:
            chunk = s.recv(4096)
            if not chunk:
                return data
            data += chunk


def test_fake_server_answers_garbage_with_fail_and_keeps_serving(server):
    assert _raw(server, b"zzzz").startswith(b"FAIL") and b"not 4 hex digits" in _raw(server, b"zzzz")
    assert _raw(server, b"0005hello").startswith(b"FAIL")
    assert b"unknown service" in _raw(server, b"0012host:transport-any" + b"0007frob:xx")
    assert b"not found" in _raw(server, b"0015host:transport:nobody")
    assert _raw(server, b"000chost:version") == b"OKAY00040029"
    r = adb(server, "shell", "frobnicate")
    assert (r.returncode, r.stdout, r.stderr) == (127, b"", b"/system/bin/sh: frobnicate: not found\n")


def test_fake_server_memory_is_bounded(tmp_path):
    """Pushed files and the request log stay within their byte bounds; a push past the bound is refused."""
    with FakeAdbServer(SimPhone("test_env_100"), max_file_bytes=1 << 20, max_log_bytes=2048) as srv:
        blob = tmp_path / "blob.bin"
        blob.write_bytes(b"x" * 700_000)
        assert adb(srv, "push", str(blob), "/sdcard/Download/a.bin").returncode == 0
        r = adb(srv, "push", str(blob), "/sdcard/Download/b.bin")
        assert r.returncode == 1 and b"No space left on device" in r.stdout + r.stderr
        assert "/sdcard/Download/b.bin" not in srv.phone.files and srv.phone.files.used == 700_000
        assert adb(srv, "push", str(blob), "/sdcard/Download/a.bin").returncode == 0  # replacing fits
        assert adb(srv, "shell", "rm", "/sdcard/Download/a.bin").returncode == 0
        assert srv.phone.files.used == 0 and adb(srv, "push", str(blob), "/sdcard/Download/b.bin").returncode == 0
        for _ in range(30):
            adb(srv, "shell", "echo", "x" * 200)
        assert srv.requests.bytes <= 2048 and len(srv.requests) < 30
