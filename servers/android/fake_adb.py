"""A fake adb server and emulator console in front of the simulated phone.

The **adb host protocol** on a loopback port, so the unmodified ``adb``
command-line client (``ADB_SERVER_SOCKET=tcp:127.0.0.1:PORT`` or ``adb -P PORT``)
and ``adbutils.AdbClient(port=PORT)`` drive a :class:`SimPhone` as they would an
Android 10 emulator named ``emulator-<console port>`` (wire formats: ``adb_wire.py``):

* host requests: ``host:version`` (41), ``host:devices[-l]``, ``host:track-devices``,
  ``host:features`` (``shell_v2``), ``host:transport[-any|:<serial>]``,
  ``host:tport:serial:<s>|any`` (OKAY + 8-byte transport id), ``host:get-state``,
  ``host:get-serialno``, ``host:wait-for-<transport>-<device|any|disconnect>`` (OKAY,
  then OKAY when the device is in that state), each also as ``host-serial:<s>:...``
  and ``host-transport-id:<n>:...``; ``host:kill``;
* device services: ``shell:`` (protocol v1) and ``shell,v2,...:`` (protocol v2: stdout,
  stderr and the **exit status**), with a command or interactive (lines from stdin,
  e.g. ``su`` then ``cp ...``); ``exec:`` (raw bytes, e.g. ``screencap -p``,
  ``uiautomator dump /dev/tty``); ``sync:`` (push/pull/stat/list); ``root:`` /
  ``unroot:`` (adbd restarts: the device drops off and comes back); ``reboot:``
  (the device is gone for ``boot_seconds`` and comes back booted, see
  ``SimPhone.reboot``). A ``logcat`` without ``-d``/``-c``/``-t`` streams new lines
  until the client hangs up.

Commands run in the phone's shell (``envs/android/sim/shell.py``): exit statuses,
``/system/bin/sh: X: not found`` (127), root only after ``adb root`` or ``su``.
Memory is bounded: files on the phone hold at most ``max_file_bytes`` (a push past
it fails with "No space left on device" and is not kept), the request log
``max_log_bytes``, a console or interactive-shell line :data:`MAX_LINE` bytes (a
longer one ends the connection with a message). Connections that send nothing
for ``idle_timeout`` seconds are closed (a streaming ``logcat`` and
``track-devices`` are not idle), and each port serves at most
``max_connections`` at once (the next is answered ``FAIL`` and closed), so idle
or slow clients cannot pile up threads.

The **emulator console** listens on the port named in the serial (``adb emu``
connects there): a greeting, then ``avd snapshot save|load|list|delete NAME``
(``OK`` / ``KO: ...``), ``kill`` (the emulator exits: the device leaves ``adb
devices`` and the console closes, until :meth:`FakeAdbServer.power_on`), ``help``,
``quit``; any ``auth`` line is accepted. Loading a name that was never saved but
is a configuration id (``test_env_100``) boots that configuration's base state,
like B-MoCA's per-configuration emulator snapshots.

Run standalone: ``python -m treegym.servers.android.fake_adb --config test_env_100``.
"""
from __future__ import annotations

import argparse
import os
import socket
import socketserver
import struct
import threading
import time
from typing import Any

from treegym.envs.android.sim.phone import SimPhone
from treegym.envs.android.sim.storage import DEFAULT_MAX_BYTES

from .adb_shell import run_shell
from .adb_wire import BoundedLog, fail, okay, recv_exact, serve_sync
from .emulator_console import serve_console

ADB_VERSION = 41
FEATURES = "shell_v2"
BACKLOG = 128
IDLE_TIMEOUT = 120.0  # seconds a connection may send nothing
MAX_CONNECTIONS = 256  # connections served at once per port (each holds a thread)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class FakeAdbServer:
    """An adb server + emulator console serving one :class:`SimPhone` (see the module docstring).

    Use as a context manager or call ``start()`` / ``stop()``. ``port`` is the adb
    server port, ``console_port`` the console's, ``serial`` the device name.
    ``boot_seconds``: how long a reboot keeps the device away (adbd restarts take a
    fifth of it); ``backlog``: the listen queue (socketserver's default of 5 makes
    concurrent clients wait out TCP retransmits).
    """

    def __init__(self, phone: SimPhone | None = None, host: str = "127.0.0.1", port: int = 0,
                 console_port: int = 0, max_file_bytes: int = DEFAULT_MAX_BYTES, max_log_bytes: int = 256 * 1024,
                 boot_seconds: float = 0.5, backlog: int = BACKLOG, idle_timeout: float = IDLE_TIMEOUT,
                 max_connections: int = MAX_CONNECTIONS):
        self.phone = phone or SimPhone()
        self.phone.files.max_bytes = int(max_file_bytes)
        self.lock = threading.RLock()
        self.host = host
        self._want_port = port
        self._want_console = console_port
        self.port = 0
        self.console_port = 0
        self.boot_seconds = float(boot_seconds)
        self.backlog = int(backlog)
        self.idle_timeout = float(idle_timeout)
        self.max_connections = int(max_connections)
        self._servers: list[socketserver.ThreadingTCPServer] = []
        self._threads: list[threading.Thread] = []
        self.stopped = threading.Event()
        self.requests = BoundedLog(max_log_bytes)  # recent host requests and services, for tests and debugging
        self.powered = True
        self.transport_id = 1
        self._away_until = 0.0  # monotonic time until which the device is rebooting / restarting adbd

    @property
    def serial(self) -> str:
        return f"emulator-{self.console_port}"

    def client_env(self, base: dict | None = None) -> dict:
        """Environment for the ``adb`` CLI to talk to this server."""
        env = dict(os.environ if base is None else base)
        env["ADB_SERVER_SOCKET"] = f"tcp:{self.host}:{self.port}"
        env["ANDROID_SERIAL"] = self.serial
        return env

    # ------------------------------------------------------------------ device presence
    def online(self) -> bool:
        """The device is listed and answers (powered, not in a reboot)."""
        return self.powered and time.monotonic() >= self._away_until

    def _go_away(self, seconds: float) -> None:
        """The device drops off (new transport id when it is back)."""
        self._away_until = time.monotonic() + seconds
        self.transport_id += 1

    def power_on(self) -> None:
        """Start the emulator again after a console ``kill`` (a cold boot of the same phone)."""
        with self.lock:
            if not self.powered:
                self.phone.reboot()
                self.powered = True
                self._go_away(self.boot_seconds)

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> "FakeAdbServer":
        outer = self

        class AdbHandler(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                try:
                    self.request.settimeout(outer.idle_timeout)
                    outer._serve_adb(self.request)
                except (ConnectionError, OSError, struct.error):
                    pass

        class ConsoleHandler(socketserver.StreamRequestHandler):
            timeout = outer.idle_timeout

            def handle(self) -> None:
                try:
                    serve_console(outer, self.rfile, self.wfile)
                except (ConnectionError, OSError):
                    pass

        class Server(socketserver.ThreadingTCPServer):
            allow_reuse_address = True
            daemon_threads = True
            request_queue_size = outer.backlog  # listen() backlog: clients connecting at once are not dropped

            def __init__(self, *args: Any, **kw: Any) -> None:
                super().__init__(*args, **kw)
                self.slots = threading.BoundedSemaphore(outer.max_connections)

            def process_request(self, request: Any, client_address: Any) -> None:
                if not self.slots.acquire(blocking=False):  # at the cap: say so and close, no new thread
                    try:
                        fail(request, f"too many connections (at most {outer.max_connections}); try again")
                    except OSError:
                        pass
                    self.shutdown_request(request)
                    return
                super().process_request(request, client_address)

            def process_request_thread(self, request: Any, client_address: Any) -> None:
                try:
                    super().process_request_thread(request, client_address)
                finally:
                    self.slots.release()

        console = Server((self.host, self._want_console or _free_port()), ConsoleHandler)
        adb = Server((self.host, self._want_port or _free_port()), AdbHandler)
        self.console_port = console.server_address[1]
        self.port = adb.server_address[1]
        for srv in (adb, console):
            t = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
            t.start()
            self._servers.append(srv)
            self._threads.append(t)
        return self

    def stop(self) -> None:
        self.stopped.set()
        for srv in self._servers:
            srv.shutdown()
            srv.server_close()
        self._servers.clear()

    def __enter__(self) -> "FakeAdbServer":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    # ------------------------------------------------------------------ adb host protocol
    def _read_request(self, sock: socket.socket) -> str | None:
        """The next request, or None (after answering FAIL) when its length prefix is not 4 hex digits."""
        head = recv_exact(sock, 4)
        try:
            n = int(head.decode("ascii"), 16)
        except (UnicodeDecodeError, ValueError):
            fail(sock, f"bad request: length prefix {head!r} is not 4 hex digits")
            return None
        return recv_exact(sock, n).decode("utf-8", "replace")

    def _target(self, req: str) -> tuple[str, str | None, int | None]:
        """Split a host request into (command, serial, transport id)."""
        if req.startswith("host-serial:"):
            serial, _, cmd = req[len("host-serial:"):].rpartition(":")
            return cmd, serial, None
        if req.startswith("host-transport-id:"):
            tid, _, cmd = req[len("host-transport-id:"):].partition(":")
            return cmd, None, int(tid) if tid.isdigit() else -1
        if req.startswith("host-local:") or req.startswith("host-usb:"):
            return req.split(":", 1)[1], None, None
        return req[len("host:"):] if req.startswith("host:") else req, None, None

    def _missing(self, serial: str | None, tid: int | None) -> str | None:
        """Why the named device cannot be used now (None: it can)."""
        if serial is not None and serial != self.serial:
            return f"device '{serial}' not found"
        if tid is not None and tid != self.transport_id:
            return f"no device with transport id '{tid}'"
        if not self.online():
            return f"device '{serial or self.serial}' not found" if serial else "no devices/emulators found"
        return None

    def _serve_adb(self, sock: socket.socket) -> None:
        while True:
            req = self._read_request(sock)
            if req is None:
                return
            self.requests.append(req)
            cmd, serial, tid = self._target(req)
            if cmd == "version":
                return okay(sock, f"{ADB_VERSION:04x}".encode())
            if cmd in ("devices", "devices-l"):
                line = ""
                if self.online():
                    line = f"{self.serial}\tdevice\n"
                    if cmd.endswith("-l"):
                        line = (f"{self.serial}              device product:sdk_gphone_x86 "
                                f"model:{self.phone.config.device} device:generic_x86 "
                                f"transport_id:{self.transport_id}\n")
                return okay(sock, line.encode())
            if cmd == "track-devices":
                okay(sock)
                line = f"{self.serial}\tdevice\n".encode()
                sock.sendall(f"{len(line):04x}".encode() + line)
                self.stopped.wait()
                return
            if cmd == "kill":
                return okay(sock)
            if cmd in ("features", "host-features"):
                return okay(sock, FEATURES.encode())
            if cmd.startswith("wait-for-"):
                return self._wait_for(sock, cmd, serial, tid)
            if cmd.startswith("tport:"):
                which = cmd[len("tport:"):]
                want = which.split(":", 1)[1] if which.startswith("serial:") else None
                problem = self._missing(want, None) if which.startswith("serial:") or which in ("any", "local") \
                    else f"unknown transport {which!r}"
                if problem:
                    return fail(sock, problem)
                okay(sock)
                sock.sendall(struct.pack("<Q", self.transport_id))
                return self._serve_device(sock)
            if cmd.startswith("transport"):
                want = cmd.split(":", 1)[1] if cmd.startswith("transport:") else serial
                problem = self._missing(want, tid)
                if problem:
                    return fail(sock, problem)
                okay(sock)
                return self._serve_device(sock)
            problem = self._missing(serial, tid)
            if cmd in ("get-state", "get-serialno", "get-devpath"):
                if problem:
                    return fail(sock, problem)
                value = {"get-state": "device", "get-serialno": self.serial, "get-devpath": "unknown"}[cmd]
                return okay(sock, value.encode())
            return fail(sock, f"unknown host service {req!r}")

    def _wait_for(self, sock: socket.socket, cmd: str, serial: str | None, tid: int | None) -> None:
        """``wait-for-<transport>-<state>``: OKAY now, OKAY again once the device is in that state."""
        state = cmd.rsplit("-", 1)[-1]
        if state not in ("device", "any", "disconnect", "recovery", "rescue", "sideload", "bootloader"):
            return fail(sock, f"invalid wait-for state: {state}")
        okay(sock)
        if serial is not None and serial != self.serial and state != "disconnect":
            self.stopped.wait()  # a device that never appears: wait like adb does
            return
        while not self.stopped.is_set():
            gone = not self.online() or (tid is not None and tid != self.transport_id)
            if (state == "disconnect" and gone) or (state in ("device", "any") and not gone):
                return okay(sock)
            time.sleep(0.02)

    # ------------------------------------------------------------------ device services
    def _serve_device(self, sock: socket.socket) -> None:
        req = self._read_request(sock)
        if req is None:
            return
        self.requests.append(req)
        if not self.online():
            return fail(sock, "device offline")
        if req.startswith("shell") and ":" in req:
            opts, _, cmd = req.partition(":")
            okay(sock)
            return run_shell(self, sock, cmd, v2="v2" in opts.split(",")[1:])
        if req.startswith("exec:"):
            okay(sock)
            return run_shell(self, sock, req[len("exec:"):], v2=False)
        if req == "sync:":
            okay(sock)
            return serve_sync(sock, self.phone, self.lock, lambda: self.phone.adb_root)
        if req in ("root:", "unroot:"):
            okay(sock)
            want = req == "root:"
            with self.lock:
                if self.phone.adb_root == want:
                    sock.sendall(b"adbd is already running as root\n" if want else b"adbd not running as root\n")
                    return
                self.phone.adb_root = want
                sock.sendall(b"restarting adbd as root\n" if want else b"restarting adbd as non root\n")
                self._go_away(self.boot_seconds / 5)
            return
        if req.startswith("reboot:"):
            okay(sock)
            with self.lock:
                self.phone.reboot()
                self._go_away(self.boot_seconds)
            return
        return fail(sock, f"unknown service {req!r}")


def create_server(host: str = "127.0.0.1", port: int = 0, config: str = "test_env_100", console_port: int = 0,
                  max_file_bytes: int = DEFAULT_MAX_BYTES) -> FakeAdbServer:
    """A fake adb server (not started: call ``start()``) on a phone in configuration ``config``;
    what ``treegym serve fake-adb`` runs (declared in ``envs/android/__init__.py``)."""
    return FakeAdbServer(SimPhone(config), host=host, port=port, console_port=console_port,
                         max_file_bytes=max_file_bytes)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Serve the simulated phone over the adb host protocol.")
    ap.add_argument("--config", default="test_env_100", help="device configuration id (default test_env_100)")
    ap.add_argument("--port", type=int, default=0, help="adb server port (default: a free port)")
    ap.add_argument("--console-port", type=int, default=0, help="emulator console port (default: a free port)")
    ap.add_argument("--max-file-bytes", type=int, default=DEFAULT_MAX_BYTES,
                    help=f"bytes the phone's files may hold in all (default {DEFAULT_MAX_BYTES})")
    args = ap.parse_args(argv)
    srv = FakeAdbServer(SimPhone(args.config), port=args.port, console_port=args.console_port,
                        max_file_bytes=args.max_file_bytes).start()
    print(f"fake adb server on 127.0.0.1:{srv.port}, device {srv.serial} ({args.config})")
    print(f"  export ADB_SERVER_SOCKET=tcp:127.0.0.1:{srv.port}; adb devices")
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        srv.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
