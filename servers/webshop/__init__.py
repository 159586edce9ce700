"""The WebShop website (Flask): the generic session server over WebShop's engine, plus pages people can shop on."""
from .app import create_app

__all__ = ["create_app"]
