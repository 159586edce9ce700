"""Serving the tool app in a background thread (tests, benchmarks) or in the foreground (``treegym serve tools``)."""
from __future__ import annotations

import threading

from flask import Flask
from werkzeug.serving import WSGIRequestHandler, make_server

LOOPBACK = "127.0.0.1"


class _QuietHandler(WSGIRequestHandler):
    def log_request(self, *args, **kwargs) -> None:
        pass


class BackgroundToolServer:
    """``app`` on werkzeug's threaded server at ``host:port`` (0 = a free port); ``start()`` runs it in a thread."""

    def __init__(self, app: Flask, host: str = LOOPBACK, port: int = 0, quiet: bool = True):
        self.server = make_server(host, port, app, threaded=True, request_handler=_QuietHandler if quiet else WSGIRequestHandler)
        self.host, self.port = host, self.server.server_port
        self.url = f"http://{host}:{self.port}"
        self._thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05},
                                        name=f"tools-{self.port}", daemon=True)

    def start(self) -> "BackgroundToolServer":
        self._thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self._thread.join()
