"""The fake adb server cannot be wedged: a hostile alarms.db pushed before a reboot is refused with a
message, and long lines, idle connections and connection floods are bounded. The real ``adb`` client
and raw sockets drive it."""
from __future__ import annotations

import shutil
import socket
import sqlite3
import subprocess
from pathlib import Path

import pytest

from treegym.envs.android.sim.phone import SimPhone
from treegym.servers.android.adb_wire import MAX_LINE
from treegym.servers.android.fake_adb import FakeAdbServer

needs_adb = pytest.mark.skipif(shutil.which("adb") is None, reason="Debian's adb client is not installed")
ALARM_DB = "/data/user_de/0/com.google.android.deskclock/databases/alarms.db"


def adb(srv: FakeAdbServer, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["adb", "-s", srv.serial, *args], env=srv.client_env(), capture_output=True,
                          stdin=subprocess.DEVNULL)


def hostile_db(path: Path, view_sql: str) -> Path:
    con = sqlite3.connect(path)
    con.execute(view_sql)
    con.commit()
    con.close()
    return path


def booted(srv: FakeAdbServer) -> None:
    for _ in range(300):
        if adb(srv, "shell", "getprop", "sys.boot_completed").stdout.strip() == b"1":
            return
    raise AssertionError("the device did not come back")


@needs_adb
@pytest.mark.parametrize("view,why", [
    ("CREATE VIEW alarm_templates AS WITH RECURSIVE r(_id, hour, minutes, enabled, daysofweek) AS "
     "(SELECT 1, 7, 0, 1, 0 UNION ALL SELECT _id + 1, 7, 0, 1, 0 FROM r) SELECT * FROM r", "SQLite steps"),
    ("CREATE VIEW alarm_templates AS SELECT 1 AS _id, NULL AS hour, 0 AS minutes, 1 AS enabled, 0 AS daysofweek",
     "hour = None, not an integer"),
    ("CREATE VIEW alarm_templates AS SELECT 1 AS _id, 'seven' AS hour, 0 AS minutes, 1 AS enabled, 0 AS daysofweek",
     "hour = 'seven'"),
])
def test_a_hostile_alarms_db_is_refused_and_the_phone_keeps_answering(tmp_path, view, why):
    with FakeAdbServer(SimPhone("test_env_100"), boot_seconds=0.1) as srv:
        alarms_before = srv.phone.state.alarms
        db = hostile_db(tmp_path / "alarms.db", view)
        assert adb(srv, "root").returncode == 0
        booted(srv)
        assert adb(srv, "push", str(db), ALARM_DB).returncode == 0
        assert adb(srv, "reboot").returncode == 0
        booted(srv)
        assert adb(srv, "shell", "id").stdout.startswith(b"uid=2000(shell)")
        assert srv.phone.state.alarms == alarms_before
        log = adb(srv, "logcat", "-d", "AlarmClock:E", "*:S").stdout.decode()
        assert "cannot read the pushed alarms.db" in log and why in log, log


def _connect_shell(port: int, service: bytes) -> socket.socket:
    s = socket.create_connection(("127.0.0.1", port), timeout=120)
    for req in (b"host:transport-any", service):
        s.sendall(f"{len(req):04x}".encode() + req)
        assert s.recv(4) == b"OKAY"
    return s


def _read_all(s: socket.socket) -> bytes:
    out = b""
    try:
        while chunk := s.recv(65536):
            out += chunk
    except (ConnectionResetError, BrokenPipeError):
        pass
    return out


def test_long_lines_end_the_console_and_the_interactive_shell_with_a_message():
    with FakeAdbServer(SimPhone("test_env_100"), boot_seconds=0.05) as srv:
        with socket.create_connection(("127.0.0.1", srv.console_port), timeout=120) as con:
            con.recv(100)
            try:
                con.sendall(b"a" * (MAX_LINE * 4))
            except (ConnectionResetError, BrokenPipeError):
                pass
            assert b"KO: line longer than" in _read_all(con)
        with _connect_shell(srv.port, b"shell:") as sh:
            try:
                sh.sendall(b"echo x" + b" " * (MAX_LINE * 4))
            except (ConnectionResetError, BrokenPipeError):
                pass
            assert b"a line longer than" in _read_all(sh)
        with _connect_shell(srv.port, b"shell,v2,raw:") as sh:
            sh.sendall(b"\x00" + (1 << 30).to_bytes(4, "little") + b"x" * 1000)  # a 1 GiB stdin packet announced
            assert b"a shell packet of 1073741824 bytes" in _read_all(sh)
        with _connect_shell(srv.port, b"shell:") as sh:  # many short lines still run, in order
            sh.sendall(b"echo one\n" * 2000 + b"echo two\nexit\n")
            out = _read_all(sh)
            assert out.count(b"one\n") == 2000 and out.endswith(b"two\n")


def test_idle_connections_are_closed_and_floods_are_capped():
    with FakeAdbServer(SimPhone("test_env_100"), idle_timeout=0.5, max_connections=8) as srv:
        idle = [socket.create_connection(("127.0.0.1", srv.port), timeout=120) for _ in range(8)]
        over = socket.create_connection(("127.0.0.1", srv.port), timeout=120)
        refused = _read_all(over)
        assert refused.startswith(b"FAIL") and b"too many connections" in refused
        for s in idle:  # each closed by the server after idle_timeout
            assert _read_all(s) == b""
            s.close()
        console = socket.create_connection(("127.0.0.1", srv.console_port), timeout=120)
        assert _read_all(console).startswith(b"Android Console")  # greeted, then closed when idle
        with socket.create_connection(("127.0.0.1", srv.port), timeout=120) as s:
            s.sendall(b"000chost:version")
            assert s.recv(12) == b"OKAY00040029"
