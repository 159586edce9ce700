"""The WebShop website (Flask): pages people can shop on and a JSON API for agents."""
from .app import create_app
from .store import SessionStore

__all__ = ["create_app", "SessionStore"]
