"""Running a Flask app (a session server, the WebShop site): in a background thread (tests,
benchmarks) or in the foreground (``treegym serve``). On 127.0.0.1 unless told otherwise."""
from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Iterator

from flask import Flask
from werkzeug.serving import WSGIRequestHandler, make_server

LOOPBACK = "127.0.0.1"


class _QuietHandler(WSGIRequestHandler):
    def log_request(self, *args, **kwargs) -> None:  # one line per request drowns test output
        pass


class BackgroundServer:
    """``app`` served by werkzeug's threaded server on ``host:port`` (port 0 = a free port) in a thread.

    ``quiet`` (default) drops werkzeug's per-request access log lines.
    """

    def __init__(self, app: Flask, host: str = LOOPBACK, port: int = 0, quiet: bool = True):
        handler = _QuietHandler if quiet else WSGIRequestHandler
        self.server = make_server(host, port, app, threaded=True, request_handler=handler)
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
def serve_in_thread(app: Flask, host: str = LOOPBACK, port: int = 0) -> Iterator[BackgroundServer]:
    """``with serve_in_thread(create_app()) as srv: ... srv.url ...`` - stopped on exit."""
    srv = BackgroundServer(app, host, port).start()
    try:
        yield srv
    finally:
        srv.stop()
