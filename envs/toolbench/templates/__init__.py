"""Task templates: seeded slot sampling from fixtures -> query text + reference plan + gold specs.

``base.py`` has the contract and the registry; ``g1.py``, ``g2.py`` and
``g3.py`` register ToolBench's three groups, in this order (the order the
builder draws tasks in, so the shipped files stay byte for byte the same).
"""
from . import g1, g2, g3  # noqa: F401 - importing registers the templates, in this order
from .base import TEMPLATES, Template

__all__ = ["TEMPLATES", "Template"]
