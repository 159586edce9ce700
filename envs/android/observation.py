"""B-MoCA's observation: a UI window -> numbered elements (post-order) and a text description.

Two sources, one rule: :func:`parse` reads a uiautomator XML dump (a device, the
adb path), :func:`from_tree` reads the simulator's :class:`~treegym.envs.android.ui.Node`
tree directly (no XML written and parsed back); for a tree, ``from_tree(root)``
equals ``parse(to_xml(root))`` field for field (``tests/envs/android/test_android_observation.py``).

Elements are numbered in ``iterparse`` "end" order (children before parents);
elements without ``bounds`` are skipped. Each gets a description id: the
resource id with ':' -> '.' and '/' -> '_' (the class name when there is none),
then ``_<content-desc>`` when it is non-empty and shorter than 20 characters
(spaces removed, '/' and ':' -> '_'), otherwise ``_<text>`` lower-cased with
'/' -> '_', ',' removed, spaces and ':' -> '_'. Ids containing "slider" or
"settings.id_label" also carry their bounding box normalized by the screen
size under upstream's key ``BBOX_KEY``, two decimals:
``((0.10, 0.50), (0.90, 0.60))``, so an agent can drag them with a dual
gesture. These are the rules of B-MoCA v1's ``get_id_from_element`` and
``parse_obs`` (``bmoca/agent/llm_agent/gpt.py``). The text is
``str(list_of_dicts)``, as the upstream prompt embeds it.
"""
from __future__ import annotations

import io
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass

from .ui import Node

BBOX_KEY = "location bounding box ((x1, y1), (x2, y2))"
BOUNDS_RE = re.compile(r"\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]")


@dataclass(frozen=True)
class ParsedScreen:
    """``elements``: dicts as the prompt shows them; ``bboxes``: pixel (x1, y1, x2, y2) per number."""

    elements: tuple[dict, ...]
    bboxes: tuple[tuple[int, int, int, int], ...]
    text: str


def describe(rid: str, cls: str, desc: str, text: str) -> str:
    """Upstream's element id from a view's resource id, class, content-desc and text."""
    ident = rid.replace(":", ".").replace("/", "_") if rid else cls
    if desc and len(desc) < 20:
        ident += "_" + desc.replace("/", "_").replace(" ", "").replace(":", "_")
    elif text:
        ident += "_" + text.lower().replace("/", "_").replace(",", "").replace(" ", "_").replace(":", "_")
    return ident


def element_id(attrib: dict) -> str:
    """Upstream's element id from a dump node's attributes."""
    return describe(attrib.get("resource-id", ""), attrib.get("class", ""), attrib.get("content-desc", ""),
                    attrib.get("text", ""))


class _Builder:
    """Collects numbered elements and their pixel boxes in the order they are added."""

    def __init__(self, width: int, height: int):
        self.width, self.height = width, height
        self.elements: list[dict] = []
        self.bboxes: list[tuple[int, int, int, int]] = []

    def add(self, ident: str, x1: int, y1: int, x2: int, y2: int) -> None:
        item = {"numeric_tag": len(self.elements), "description": ident}
        if "slider" in ident or "settings.id_label" in ident:
            w, h = self.width, self.height
            item[BBOX_KEY] = f"(({x1 / w:.2f}, {y1 / h:.2f}), ({x2 / w:.2f}, {y2 / h:.2f}))"
        self.elements.append(item)
        self.bboxes.append((x1, y1, x2, y2))

    def screen(self) -> ParsedScreen:
        return ParsedScreen(tuple(self.elements), tuple(self.bboxes), str(self.elements))


def parse(xml: str, width: int, height: int) -> ParsedScreen:
    """Parse a uiautomator dump (see the module docstring); raises ValueError on a broken document."""
    out = _Builder(width, height)
    try:
        for _event, el in ET.iterparse(io.BytesIO(xml.encode("utf-8")), events=("end",)):
            b = el.attrib.get("bounds")
            if not b:
                continue
            m = BOUNDS_RE.fullmatch(b)
            if m is None:
                continue
            x1, y1, x2, y2 = (int(v) for v in m.groups())
            out.add(element_id(el.attrib), x1, y1, x2, y2)
    except ET.ParseError as exc:
        raise ValueError(f"the UI dump is not valid XML: {exc}") from exc
    return out.screen()


def from_tree(root: Node, width: int, height: int) -> ParsedScreen:
    """The observation of a simulated window, read from its node tree (every node has bounds)."""
    out = _Builder(width, height)

    def visit(n: Node) -> None:  # post-order, as Node.postorder() but without nested generators
        for c in n.children:
            visit(c)
        out.add(describe(n.rid, n.cls, n.desc, n.text), *n.bounds)

    visit(root)
    return out.screen()
