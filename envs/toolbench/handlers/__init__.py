"""The API handlers of the mock tool services: pure functions of (fixtures, world, arguments).

``base.py`` holds the contract (``handler(ctx, args)``, :class:`Ctx`, the
:class:`Failed` / :class:`BadInput` errors), the registry :data:`HANDLERS` and
the generic handlers; one module per category registers the rest. Importing
this package imports every category, so :data:`HANDLERS` is complete.
"""
from . import commerce, finance, media, productivity, travel  # noqa: F401 - importing registers the handlers
from .base import HANDLERS, BadInput, Ctx, Failed, Handler, handler

__all__ = ["HANDLERS", "BadInput", "Ctx", "Failed", "Handler", "handler"]
