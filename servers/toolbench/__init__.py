"""The ToolBench-compatible tool server (``treegym serve tools``): see ``app.py``."""
from .app import create_app

__all__ = ["create_app"]
