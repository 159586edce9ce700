"""Running a Flask app (a session server, the WebShop site): in a background thread (tests,
benchmarks) or in the foreground (``treegym serve``). On 127.0.0.1 unless told otherwise.

A connection that sends nothing for :data:`READ_TIMEOUT` seconds (a slow or idle
client, or one that opened a socket and walked away) is closed, so idle clients
cannot hold threads forever; the listen backlog is :data:`LISTEN_BACKLOG`, so a
burst of connections waits instead of being reset. A WebSocket route that needs
longer silences sets its own socket timeout (``servers/openenv/app.py``)."""
from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Iterator

from flask import Flask
from werkzeug.serving import WSGIRequestHandler, make_server

LOOPBACK = "127.0.0.1"
READ_TIMEOUT = 30.0  # seconds a connection may send nothing (request line, headers, body, keep-alive)
LISTEN_BACKLOG = 1024  # connections the kernel queues before accept (werkzeug's default: 128)


class _TimedHandler(WSGIRequestHandler):
    timeout = READ_TIMEOUT  # socketserver sets it on the connection; a silent client gets closed


class _QuietHandler(_TimedHandler):
    def log_request(self, *args, **kwargs) -> None:  # one line per request drowns test output
        pass

    def log_error(self, format: str, *args) -> None:
        if not format.startswith("Request timed out"):  # an idle client closed by READ_TIMEOUT is no error
            super().log_error(format, *args)


class BackgroundServer:
    """``app`` served by werkzeug's threaded server on ``host:port`` (port 0 = a free port) in a thread.

    ``quiet`` (default) drops werkzeug's per-request access log lines; ``read_timeout``: seconds a
    connection may send nothing before it is closed.
    """

    def __init__(self, app: Flask, host: str = LOOPBACK, port: int = 0, quiet: bool = True,
                 read_timeout: float = READ_TIMEOUT):
        base = _QuietHandler if quiet else _TimedHandler
        handler = base if read_timeout == base.timeout else type(base.__name__, (base,), {"timeout": read_timeout})
        self.server = make_server(host, port, app, threaded=True, request_handler=handler)
        self.server.socket.listen(LISTEN_BACKLOG)
        self.host, self.port = host, self.server.server_port
        self.url = f"http://{host}:{self.port}"
        # a short poll interval so stop() returns promptly (tests start and stop many servers)
        self._thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05},
                                        name=f"treegym-server-{self.port}", daemon=True)

    def start(self) -> "BackgroundServer":
        self._thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self._thread.join()


@contextmanager
def serve_in_thread(app: Flask, host: str = LOOPBACK, port: int = 0,
                    read_timeout: float = READ_TIMEOUT) -> Iterator[BackgroundServer]:
    """``with serve_in_thread(create_app()) as srv: ... srv.url ...`` - stopped on exit."""
    srv = BackgroundServer(app, host, port, read_timeout=read_timeout).start()
    try:
        yield srv
    finally:
        srv.stop()
