"""The ToolBench-compatible tool server (``treegym serve tools``): see ``app.py``."""
from .app import create_app
from .run import BackgroundToolServer

__all__ = ["create_app", "BackgroundToolServer"]
