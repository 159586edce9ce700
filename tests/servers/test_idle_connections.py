"""Silent clients cannot hold a server: HTTP connections that send nothing are closed after the read
timeout, a burst of connections is queued rather than reset, and an idle OpenEnv WebSocket session expires."""
from __future__ import annotations

import socket
import threading
import time

import pytest

from treegym.servers.run import serve_in_thread


def test_a_silent_http_connection_is_closed_and_the_server_keeps_answering():
    from support.line_engine import LineEngine

    from treegym.servers.sessions import create_session_app

    with serve_in_thread(create_session_app(LineEngine()), read_timeout=0.5) as srv:
        idle = [socket.create_connection((srv.host, srv.port)) for _ in range(20)]
        half = socket.create_connection((srv.host, srv.port))
        half.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # headers never finished
        for s in (*idle, half):
            s.settimeout(120)
            assert s.recv(100) in (b"",) or s.recv(100) == b"", "the server closed the silent connection"
            s.close()
        alive = threading.active_count()
        burst = [socket.create_connection((srv.host, srv.port)) for _ in range(300)]
        for s in burst:
            s.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        answers = []
        for s in burst:
            s.settimeout(120)
            answers.append(s.recv(12))
            s.close()
        assert all(a.startswith(b"HTTP/1.1 200") for a in answers), {a for a in answers}
        time.sleep(1.0)
        assert threading.active_count() <= alive + 5, "handler threads ended"


def test_an_idle_openenv_websocket_session_expires_and_frees_its_place():
    pytest.importorskip("flask_sock")
    openenv_core = pytest.importorskip("openenv.core")
    from treegym.servers.openenv import create_openenv_app

    app = create_openenv_app("treegym/Game24-v0", max_sessions=1, ws_idle_timeout=0.5)
    with serve_in_thread(app) as srv:
        with openenv_core.GenericEnvClient(base_url=srv.url).sync() as env:
            env.reset()
            time.sleep(1.5)  # longer than the idle timeout
            with pytest.raises(Exception) as info:
                env.step({"action": "1 + 2"})
            assert "session expired" in str(info.value), info.value
        with openenv_core.GenericEnvClient(base_url=srv.url).sync() as env:  # the one place is free again
            assert env.reset() is not None
