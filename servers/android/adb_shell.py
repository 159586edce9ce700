"""The shell service of the fake adb server: ``shell:`` / ``shell,v2,...:`` / ``exec:``.

A command line runs in a fresh :class:`ShellSession` (root after ``adb root``)
under the server's lock; protocol v2 sends stdout, stderr and the exit status as
separate packets, v1 (and ``exec:``) one raw stream. An empty command is an
interactive session (lines from the client's stdin until it closes or ``exit``),
and a ``logcat`` that keeps running streams new lines until the client hangs up.
"""
from __future__ import annotations

import socket
import threading
from typing import Any, Protocol

from treegym.envs.android.logcat import render
from treegym.envs.android.sim.phone import SimPhone
from treegym.envs.android.sim.shell import ShellSession

from .adb_wire import ID_CLOSE_STDIN, ID_EXIT, ID_STDERR, ID_STDIN, ID_STDOUT, MAX_LINE, read_packets, send_v2


class ShellHost(Protocol):
    """What the shell service reads of its server (``fake_adb.FakeAdbServer`` is one)."""

    phone: SimPhone
    lock: Any               # held while a command runs on the phone
    stopped: threading.Event

    def online(self) -> bool: ...


def run_shell(server: ShellHost, sock: socket.socket, cmd: str, v2: bool) -> None:
    """One ``shell:`` / ``exec:`` service: a command line, or an interactive session when it is empty."""
    sh = ShellSession(server.phone, root=server.phone.adb_root, can_follow=True)
    if not cmd.strip():
        return _interactive(server, sock, sh, v2)
    with server.lock:
        res = sh.run(cmd)
    if v2:
        send_v2(sock, ID_STDOUT, res.stdout)
        send_v2(sock, ID_STDERR, res.stderr)
    else:
        sock.sendall(res.merged)
    if sh.follow is not None:
        return _follow_logcat(server, sock, sh, v2)
    if v2:
        send_v2(sock, ID_EXIT, bytes([res.status & 0xFF]))

def _interactive(server: ShellHost, sock: socket.socket, sh: ShellSession, v2: bool) -> None:
    """Lines from the client's stdin run one by one until stdin closes or ``exit``.

    A line longer than ``MAX_LINE`` (or a v2 packet over ``MAX_PACKET``) ends the session with a message;
    only the bytes after the last newline are searched again, so a long stream costs linear time."""
    buf, pending = bytearray(), bytearray()
    while not sh.exited:
        data = sock.recv(65536)
        if not data:
            break
        closed = False
        scanned = len(pending)
        if v2:
            buf += data
            try:
                for kind, payload in read_packets(buf):
                    if kind == ID_STDIN:
                        pending += payload
                    elif kind == ID_CLOSE_STDIN:
                        closed = True
            except ValueError as exc:
                return _refuse(sock, f"{exc}; closing", v2)
        else:
            pending += data
        while not sh.exited:
            cut = pending.find(b"\n", scanned)
            if cut < 0:
                break
            line = bytes(pending[:cut])
            del pending[:cut + 1]
            scanned = 0
            with server.lock:
                res = sh.run(line.decode("utf-8", "replace"))
            if v2:
                send_v2(sock, ID_STDOUT, res.stdout)
                send_v2(sock, ID_STDERR, res.stderr)
            else:
                sock.sendall(res.merged)
        if len(pending) > MAX_LINE:
            return _refuse(sock, f"a line longer than {MAX_LINE} bytes; closing", v2)
        if closed:
            break
    if v2:
        send_v2(sock, ID_EXIT, bytes([sh.status & 0xFF]))


def _refuse(sock: socket.socket, message: str, v2: bool) -> None:
    """End an interactive session: ``message`` on stderr (v2: then exit status 1)."""
    text = f"/system/bin/sh: {message}\n".encode()
    if v2:
        send_v2(sock, ID_STDERR, text)
        send_v2(sock, ID_EXIT, bytes([1]))
    else:
        sock.sendall(text)

def _follow_logcat(server: ShellHost, sock: socket.socket, sh: ShellSession, v2: bool) -> None:
    """A logcat that keeps running: new lines (its format and filters) until the client hangs up."""
    req, printed = sh.follow
    with server.lock:
        cursor = server.phone.state.log_count
    sock.settimeout(0.02)
    while not server.stopped.is_set() and server.online():
        with server.lock:
            lines, cursor = server.phone.logcat_read(cursor)
        text = render(lines, req, printed) if lines else ""
        if text:
            data = text.encode()
            send_v2(sock, ID_STDOUT, data) if v2 else sock.sendall(data)
        try:
            if sock.recv(4096) == b"":
                return  # the client hung up
        except socket.timeout:
            continue
