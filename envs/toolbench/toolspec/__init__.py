"""The declarative definition of the mock tool catalog (input of the builder, ``build.py``).

Five categories, each a list of tools; each tool has APIs with ToolBench
parameters and an ``x-mock`` block naming the handler (``handlers/``) and,
for the generic handlers, the fixture table, key and match rules. ``build.py``
writes one ToolBench tool JSON per tool from this and adds ``template_response``
from a real call.

``base.py`` has the vocabulary; one module per category lists its tools.
"""
from __future__ import annotations

from typing import Any

from . import commerce, finance, media, productivity, travel

CATALOG: dict[str, list[dict[str, Any]]] = {
    "Travel": travel.TOOLS,
    "Commerce": commerce.TOOLS,
    "Finance": finance.TOOLS,
    "Productivity": productivity.TOOLS,
    "Media": media.TOOLS,
}
