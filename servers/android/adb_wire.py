"""adb wire formats for the fake adb server: host-protocol replies, shell protocol v2 packets, the sync service.

* Host protocol: a request is 4 hex digits of length + payload; replies are
  ``OKAY`` or ``FAIL`` + 4-hex length + message.
* Shell protocol v2 (``shell,v2,...:``): packets of 1 id byte + 4-byte
  little-endian length + payload; ids 0 stdin, 1 stdout, 2 stderr, 3 exit
  (one byte: the status), 4 close-stdin, 5 window-size change.
* Sync (``sync:``): 8-byte headers (4-byte id + little-endian uint32) for
  ``STAT``, ``LIST``/``DENT``, ``RECV``/``DATA``/``DONE``, ``SEND``, ``QUIT``,
  ``OKAY``/``FAIL``; files go through the phone's ``read_file``/``write_file``
  (permissions as the adbd user, the byte-bounded store), pushes are received
  into memory only up to the room the store has left.
"""
from __future__ import annotations

import socket
import struct
import threading
import time
from collections import deque
from typing import Any, Callable, Iterator

from treegym.envs.android.sim.storage import check_access

ID_STDIN, ID_STDOUT, ID_STDERR, ID_EXIT, ID_CLOSE_STDIN, ID_WINDOW = 0, 1, 2, 3, 4, 5
PACKET_MAX = 32 * 1024
SYNC_DATA_MAX = 64 * 1024
DIRS = ("/", "/sdcard", "/sdcard/Pictures", "/sdcard/Download", "/sdcard/DCIM", "/sdcard/Music", "/storage",
        "/storage/emulated/0", "/data", "/data/local", "/data/local/tmp", "/system")


def recv_exact(sock: socket.socket, n: int) -> bytes:
    buf = bytearray()
    while len(buf) < n:
        chunk = sock.recv(min(n - len(buf), 1 << 20))
        if not chunk:
            raise ConnectionError("client closed the connection")
        buf += chunk
    return bytes(buf)


def okay(sock: socket.socket, payload: bytes | None = None) -> None:
    if payload is None:
        sock.sendall(b"OKAY")
    else:
        sock.sendall(b"OKAY" + f"{len(payload):04x}".encode() + payload)


def fail(sock: socket.socket, message: str) -> None:
    data = message.encode()[:0xFFFF]
    sock.sendall(b"FAIL" + f"{len(data):04x}".encode() + data)


def packet(kind: int, data: bytes) -> bytes:
    return struct.pack("<BI", kind, len(data)) + data


def send_v2(sock: socket.socket, kind: int, data: bytes) -> None:
    for i in range(0, len(data), PACKET_MAX):
        sock.sendall(packet(kind, data[i:i + PACKET_MAX]))


MAX_LINE = 64 * 1024  # bytes in one console or interactive-shell line (a command line is far shorter)
MAX_PACKET = 1 << 20  # payload bytes in one shell v2 packet (adb sends at most 256 KiB)


def read_packets(buf: bytearray) -> Iterator[tuple[int, bytes]]:
    """Complete v2 packets at the front of ``buf`` (consumed from it); ``ValueError`` for one over MAX_PACKET."""
    while len(buf) >= 5:
        kind, n = struct.unpack("<BI", bytes(buf[:5]))
        if n > MAX_PACKET:
            raise ValueError(f"a shell packet of {n} bytes (at most {MAX_PACKET})")
        if len(buf) < 5 + n:
            return
        data = bytes(buf[5:5 + n])
        del buf[:5 + n]
        yield kind, data


class BoundedLog:
    """The most recent request strings, at most ``max_bytes`` in all (each entry cut to 256 characters)."""

    def __init__(self, max_bytes: int = 256 * 1024):
        self.max_bytes = max_bytes
        self.bytes = 0
        self._items: deque[str] = deque()
        self._lock = threading.Lock()

    def append(self, item: str) -> None:
        item = item[:256]
        with self._lock:
            self._items.append(item)
            self.bytes += len(item)
            while self.bytes > self.max_bytes and self._items:
                self.bytes -= len(self._items.popleft())

    def __contains__(self, item: object) -> bool:
        return item in list(self._items)

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._items))

    def __len__(self) -> int:
        return len(self._items)


def _sync_fail(sock: socket.socket, message: str) -> None:
    data = message.encode()
    sock.sendall(b"FAIL" + struct.pack("<I", len(data)) + data)


def serve_sync(sock: socket.socket, phone: Any, lock: Any, root: Callable[[], bool]) -> None:
    """The ``sync:`` service until ``QUIT`` (see the module docstring)."""
    while True:
        head = recv_exact(sock, 8)
        cmd, n = head[:4], struct.unpack("<I", head[4:])[0]
        if cmd == b"QUIT":
            return
        if n > 1024:
            _sync_fail(sock, f"path too long ({n} bytes)")
            return
        arg = recv_exact(sock, n).decode("utf-8", "replace")
        if cmd == b"STAT":
            sock.sendall(b"STAT" + struct.pack("<III", *_stat(phone, lock, arg, root())))
        elif cmd == b"LIST":
            with lock:
                base = arg.rstrip("/")
                names = sorted({p[len(base) + 1:].split("/")[0] for p in phone.files if p.startswith(base + "/")})
                for name in names:
                    mode, size, mtime = _stat(phone, lock, f"{base}/{name}", root())
                    raw = name.encode()
                    sock.sendall(b"DENT" + struct.pack("<IIII", mode, size, mtime, len(raw)) + raw)
            sock.sendall(b"DONE" + struct.pack("<IIII", 0, 0, 0, 0))
        elif cmd == b"RECV":
            try:
                with lock:
                    data = phone.read_file(arg, root=root())
            except OSError as exc:
                _sync_fail(sock, f"open failed: {exc.strerror}")
                continue
            if data is None:
                _sync_fail(sock, f"remote object '{arg}' does not exist")
                continue
            for i in range(0, len(data), SYNC_DATA_MAX):
                chunk = data[i:i + SYNC_DATA_MAX]
                sock.sendall(b"DATA" + struct.pack("<I", len(chunk)) + chunk)
            sock.sendall(b"DONE" + struct.pack("<I", 0))
        elif cmd == b"SEND":
            _receive(sock, phone, lock, arg.rsplit(",", 1)[0], root())
        else:
            _sync_fail(sock, f"unknown sync command {cmd!r}")
            return


def _stat(phone: Any, lock: Any, path: str, is_root: bool) -> tuple[int, int, int]:
    path = path.rstrip("/") or "/"
    with lock:
        try:
            data = phone.read_file(path, root=is_root)
        except OSError:
            return 0, 0, 0
        if data is not None:
            return 0o100660, len(data), int(time.time())
        if path in DIRS or any(p.startswith(path + "/") for p in phone.files):
            return 0o40771, 4096, int(time.time())
    return 0, 0, 0


def _receive(sock: socket.socket, phone: Any, lock: Any, path: str, is_root: bool) -> None:
    """One ``SEND``: the file's DATA chunks until DONE, kept only while they fit the store."""
    problem = ""
    try:
        check_access(path, is_root, write=True)
    except OSError as exc:
        problem = f"couldn't create file: {exc.strerror}"
    with lock:
        room = phone.files.room(path)
    buf = bytearray()
    while True:
        h = recv_exact(sock, 8)
        kind, m = h[:4], struct.unpack("<I", h[4:])[0]
        if kind == b"DATA":
            if m > SYNC_DATA_MAX:
                raise ConnectionError(f"sync DATA chunk of {m} bytes exceeds {SYNC_DATA_MAX}")
            chunk = recv_exact(sock, m)
            if not problem and len(buf) + m > room:
                problem, buf = "write failed: No space left on device", bytearray()
            if not problem:
                buf += chunk
        elif kind == b"DONE":
            break
        else:
            raise ConnectionError(f"unexpected sync chunk {kind!r}")
    if not problem:
        with lock:
            try:
                phone.write_file(path, bytes(buf), root=is_root)
            except OSError as exc:
                problem = f"write failed: {exc.strerror}"
    if problem:
        _sync_fail(sock, problem)
    else:
        sock.sendall(b"OKAY" + struct.pack("<I", 0))
