"""A fake adb server and emulator console in front of the simulated phone.

The **adb host protocol** on a loopback port, so the unmodified ``adb``
command-line client (``ADB_SERVER_SOCKET=tcp:127.0.0.1:PORT`` or ``adb -P PORT``)
and ``adbutils.AdbClient(port=PORT)`` drive a :class:`SimPhone` as if it were
an emulator named ``emulator-<console port>``:

* requests are a 4-hex-digit length plus payload; answers ``OKAY`` or ``FAIL`` +
  length-prefixed message;
* ``host:version`` (41), ``host:devices``, ``host:devices-l``, ``host:features``,
  ``host:transport:<serial>`` / ``host:transport-any``, ``host:tport:serial:<s>`` /
  ``host:tport:any`` (OKAY + 8-byte transport id), ``host-serial:<s>:features|get-state|get-serialno``,
  ``host:get-state``, ``host:kill``;
* after a transport: ``shell:<cmd>`` (output, then close; ``logcat`` without ``-d``/``-c``
  streams new lines until the client hangs up), ``exec:<cmd>`` (raw bytes, e.g.
  ``screencap -p``), ``sync:`` with ``STAT``, ``RECV``, ``SEND``, ``LIST``, ``QUIT``.

No features are advertised, so clients fall back to shell protocol v1.

The **emulator console** listens on the port named in the serial (``adb emu``
connects there): a greeting, then ``avd snapshot save|load|list|delete NAME``
(answers ``OK`` / ``KO: ...``), ``help``, ``quit``. The console accepts any
``auth`` line. Loading a name that was never saved but is a configuration id
(``test_env_100``) boots that configuration's base state, like B-MoCA's
per-configuration emulator snapshots.

Run standalone: ``python -m treegym.servers.android.fake_adb --config test_env_100``.
"""
from __future__ import annotations

import argparse
import shlex
import socket
import socketserver
import struct
import threading
import time
from typing import Any

from treegym.envs.android.device import all_configs
from treegym.envs.android.logcat import filter_lines
from treegym.envs.android.sim.phone import SimPhone, initial_state

ADB_VERSION = 41


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _recv_exact(sock: socket.socket, n: int) -> bytes:
    buf = b""
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise ConnectionError("client closed the connection")
        buf += chunk
    return buf


def _okay(sock: socket.socket, payload: bytes | None = None) -> None:
    if payload is None:
        sock.sendall(b"OKAY")
    else:
        sock.sendall(b"OKAY" + f"{len(payload):04x}".encode() + payload)


def _fail(sock: socket.socket, message: str) -> None:
    data = message.encode()
    sock.sendall(b"FAIL" + f"{len(data):04x}".encode() + data)


class FakeAdbServer:
    """An adb server + emulator console serving one :class:`SimPhone` (see the module docstring).

    Use as a context manager or call ``start()`` / ``stop()``. ``port`` is the adb
    server port, ``console_port`` the console's, ``serial`` the device name.
    """

    def __init__(self, phone: SimPhone | None = None, host: str = "127.0.0.1", port: int = 0,
                 console_port: int = 0):
        self.phone = phone or SimPhone()
        self.lock = threading.RLock()
        self.host = host
        self._want_port = port
        self._want_console = console_port
        self.port = 0
        self.console_port = 0
        self._servers: list[socketserver.ThreadingTCPServer] = []
        self._threads: list[threading.Thread] = []
        self.stopped = threading.Event()
        self.requests: list[str] = []  # every host request and service, for tests and debugging

    @property
    def serial(self) -> str:
        return f"emulator-{self.console_port}"

    def client_env(self, base: dict | None = None) -> dict:
        """Environment for the ``adb`` CLI to talk to this server."""
        import os

        env = dict(os.environ if base is None else base)
        env["ADB_SERVER_SOCKET"] = f"tcp:{self.host}:{self.port}"
        env["ANDROID_SERIAL"] = self.serial
        return env

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> "FakeAdbServer":
        outer = self

        class AdbHandler(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                try:
                    outer._serve_adb(self.request)
                except (ConnectionError, OSError):
                    pass

        class ConsoleHandler(socketserver.StreamRequestHandler):
            def handle(self) -> None:
                try:
                    outer._serve_console(self.rfile, self.wfile)
                except (ConnectionError, OSError):
                    pass

        class Server(socketserver.ThreadingTCPServer):
            allow_reuse_address = True
            daemon_threads = True

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
        head = _recv_exact(sock, 4)
        try:
            n = int(head.decode("ascii"), 16)
        except (UnicodeDecodeError, ValueError):
            _fail(sock, f"bad request: length prefix {head!r} is not 4 hex digits")
            return None
        return _recv_exact(sock, n).decode("utf-8", "replace")

    def _serve_adb(self, sock: socket.socket) -> None:
        transport = False
        while True:
            req = self._read_request(sock)
            if req is None:
                return
            self.requests.append(req)
            if not transport:
                if req == "host:version":
                    _okay(sock, f"{ADB_VERSION:04x}".encode())
                    return
                if req in ("host:devices", "host:devices-l"):
                    line = f"{self.serial}\tdevice"
                    if req.endswith("-l"):
                        line = (f"{self.serial}              device product:sdk_gphone_x86_64 "
                                f"model:{self.phone.config.device} device:generic_x86_64 transport_id:1")
                    _okay(sock, (line + "\n").encode())
                    return
                if req == "host:track-devices":
                    _okay(sock)
                    line = f"{self.serial}\tdevice\n".encode()
                    sock.sendall(f"{len(line):04x}".encode() + line)
                    self.stopped.wait()
                    return
                if req in ("host:features", "host:host-features") or req.endswith(":features"):
                    _okay(sock, b"")
                    return
                if req in ("host:get-state",) or req.endswith(":get-state"):
                    _okay(sock, b"device")
                    return
                if req.endswith(":get-serialno"):
                    _okay(sock, self.serial.encode())
                    return
                if req == "host:kill":
                    _okay(sock)
                    return
                if req.startswith("host:tport:"):
                    which = req[len("host:tport:"):]
                    if which not in ("any", f"serial:{self.serial}", "local", "usb") and which != "emulator":
                        _fail(sock, f"device '{which.split(':', 1)[-1]}' not found")
                        return
                    _okay(sock)
                    sock.sendall(struct.pack("<Q", 1))
                    transport = True
                    continue
                if req.startswith("host:transport") or req.startswith("host-serial:"):
                    target = req.split(":", 2)[-1] if req.startswith("host:transport:") else ""
                    if req.startswith("host-serial:"):
                        serial = req.split(":")[1]
                        if serial != self.serial:
                            _fail(sock, f"device '{serial}' not found")
                            return
                        _fail(sock, f"unsupported request {req!r}")
                        return
                    if target and target != self.serial:
                        _fail(sock, f"device '{target}' not found")
                        return
                    _okay(sock)
                    transport = True
                    continue
                _fail(sock, f"unknown host request {req!r}")
                return
            # a device service on the selected transport
            if req.startswith("shell:") or req.startswith("exec:"):
                cmd = req.split(":", 1)[1]
                _okay(sock)
                self._run_shell(sock, cmd)
                return
            if req == "sync:":
                _okay(sock)
                self._serve_sync(sock)
                return
            if req.startswith("shell,") :
                _fail(sock, "shell protocol v2 is not supported by this fake; use shell v1")
                return
            _fail(sock, f"unknown service {req!r}")
            return

    def _run_shell(self, sock: socket.socket, cmd: str) -> None:
        # `adb logcat` sends `export ANDROID_LOG_TAGS="..." ; exec logcat ARGS`
        last = cmd.split(";")[-1].strip()
        if last.startswith("exec "):
            last = last[len("exec "):]
        try:
            argv = shlex.split(last)
        except ValueError:
            argv = last.split()
        if argv[:1] == ["logcat"] and "-d" not in argv and "-c" not in argv and "--help" not in argv:
            self._stream_logcat(sock, [a for a in argv[1:] if ":" in a and not a.startswith("-")])
            return
        with self.lock:
            out = self.phone.shell_bytes(cmd)
        sock.sendall(out)

    def _stream_logcat(self, sock: socket.socket, filters: list[str]) -> None:
        cursor = 0
        sock.settimeout(0.02)
        while not self.stopped.is_set():
            with self.lock:
                lines, cursor = self.phone.logcat_read(cursor)
            if filters:
                lines = filter_lines(lines, filters)
            if lines:
                sock.sendall("".join(line + "\n" for line in lines).encode())
            try:
                if sock.recv(1) == b"":
                    return  # the client hung up
            except socket.timeout:
                continue

    def _serve_sync(self, sock: socket.socket) -> None:
        while True:
            head = _recv_exact(sock, 8)
            cmd, n = head[:4], struct.unpack("<I", head[4:])[0]
            arg = _recv_exact(sock, n).decode("utf-8", "replace") if cmd != b"QUIT" else ""
            if cmd == b"QUIT":
                return
            if cmd == b"STAT":
                with self.lock:
                    data = self.phone.files.get(arg)
                if data is None:
                    sock.sendall(b"STAT" + struct.pack("<III", 0, 0, 0))
                else:
                    sock.sendall(b"STAT" + struct.pack("<III", 0o100644, len(data), int(time.time())))
            elif cmd == b"RECV":
                with self.lock:
                    data = self.phone.files.get(arg)
                if data is None:
                    msg = f"remote object '{arg}' does not exist".encode()
                    sock.sendall(b"FAIL" + struct.pack("<I", len(msg)) + msg)
                    continue
                for i in range(0, len(data), 64 * 1024):
                    chunk = data[i:i + 64 * 1024]
                    sock.sendall(b"DATA" + struct.pack("<I", len(chunk)) + chunk)
                sock.sendall(b"DONE" + struct.pack("<I", 0))
            elif cmd == b"SEND":
                path = arg.rsplit(",", 1)[0]
                buf = b""
                while True:
                    h = _recv_exact(sock, 8)
                    kind, m = h[:4], struct.unpack("<I", h[4:])[0]
                    if kind == b"DATA":
                        buf += _recv_exact(sock, m)
                    elif kind == b"DONE":
                        break
                    else:
                        raise ConnectionError(f"unexpected sync chunk {kind!r}")
                with self.lock:
                    self.phone.files[path] = buf
                sock.sendall(b"OKAY" + struct.pack("<I", 0))
            elif cmd == b"LIST":
                with self.lock:
                    names = [p for p in self.phone.files if p.rsplit("/", 1)[0] == arg.rstrip("/")]
                    for p in names:
                        name = p.rsplit("/", 1)[1].encode()
                        sock.sendall(b"DENT" + struct.pack("<IIII", 0o100644, len(self.phone.files[p]),
                                                           int(time.time()), len(name)) + name)
                sock.sendall(b"DONE" + struct.pack("<IIII", 0, 0, 0, 0))
            else:
                msg = f"unsupported sync command {cmd!r}".encode()
                sock.sendall(b"FAIL" + struct.pack("<I", len(msg)) + msg)
                return

    # ------------------------------------------------------------------ emulator console
    def _serve_console(self, rfile: Any, wfile: Any) -> None:
        wfile.write(b"Android Console: type 'help' for a list of commands\r\nOK\r\n")
        wfile.flush()
        for raw in rfile:
            line = raw.decode("utf-8", "replace").strip()
            self.requests.append(f"console:{line}")
            if not line:
                continue
            if line == "quit" or line == "exit":
                return
            reply = self._console_command(line.split())
            wfile.write(reply.encode())
            wfile.flush()

    def _console_command(self, argv: list[str]) -> str:
        if argv[0] == "auth" or argv[0] == "ping":
            return "OK\r\n"
        if argv[0] == "help":
            return "Android console commands:\r\n    avd snapshot save|load|list|delete\r\nOK\r\n"
        if argv[:2] != ["avd", "snapshot"] or len(argv) < 3:
            return f"KO: unknown command, try 'help'\r\n"
        op, name = argv[2], (argv[3] if len(argv) > 3 else "")
        with self.lock:
            named = self.phone.named
            if op == "list":
                rows = "".join(f"{n}\r\n" for n in sorted(named))
                return "List of snapshots present on all disks:\r\n" + rows + "OK\r\n"
            if not name:
                return f"KO: missing snapshot name\r\n"
            if op == "save":
                named[name] = self.phone.state
                return "OK\r\n"
            if op == "load":
                if name in named:
                    self.phone.state = named[name]
                elif name in all_configs():
                    self.phone.state = initial_state(all_configs()[name])
                else:
                    return f"KO: snapshot '{name}' does not exist\r\n"
                return "OK\r\n"
            if op == "delete":
                if named.pop(name, None) is None:
                    return f"KO: snapshot '{name}' does not exist\r\n"
                return "OK\r\n"
        return f"KO: unknown snapshot operation '{op}'\r\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Serve the simulated phone over the adb host protocol.")
    ap.add_argument("--config", default="test_env_100", help="device configuration id (default test_env_100)")
    ap.add_argument("--port", type=int, default=0, help="adb server port (default: a free port)")
    ap.add_argument("--console-port", type=int, default=0, help="emulator console port (default: a free port)")
    args = ap.parse_args(argv)
    srv = FakeAdbServer(SimPhone(args.config), port=args.port, console_port=args.console_port).start()
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
