"""Running the WebShop site: the generic runner (``treegym.servers.run``), importable from here too."""
from treegym.servers.run import LOOPBACK, BackgroundServer, serve_in_thread

__all__ = ["LOOPBACK", "BackgroundServer", "serve_in_thread"]
