"""B-MoCA's observation parser: uiautomator XML -> numbered elements (post-order) and a text description.

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

BBOX_KEY = "location bounding box ((x1, y1), (x2, y2))"
BOUNDS_RE = re.compile(r"\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]")


@dataclass(frozen=True)
class ParsedScreen:
    """``elements``: dicts as the prompt shows them; ``bboxes``: pixel (x1, y1, x2, y2) per number."""

    elements: tuple[dict, ...]
    bboxes: tuple[tuple[int, int, int, int], ...]
    text: str


def element_id(attrib: dict) -> str:
    rid = attrib.get("resource-id", "")
    ident = rid.replace(":", ".").replace("/", "_") if rid else attrib.get("class", "")
    desc = attrib.get("content-desc", "")
    text = attrib.get("text", "")
    if desc and len(desc) < 20:
        ident += "_" + desc.replace("/", "_").replace(" ", "").replace(":", "_")
    elif text:
        ident += "_" + text.lower().replace("/", "_").replace(",", "").replace(" ", "_").replace(":", "_")
    return ident


def parse(xml: str, width: int, height: int) -> ParsedScreen:
    """Parse a uiautomator dump (see the module docstring); raises ValueError on a broken document."""
    elements: list[dict] = []
    bboxes: list[tuple[int, int, int, int]] = []
    try:
        for _event, el in ET.iterparse(io.BytesIO(xml.encode("utf-8")), events=("end",)):
            b = el.attrib.get("bounds")
            if not b:
                continue
            m = BOUNDS_RE.fullmatch(b)
            if m is None:
                continue
            x1, y1, x2, y2 = (int(v) for v in m.groups())
            ident = element_id(el.attrib)
            item = {"numeric_tag": len(elements), "description": ident}
            if "slider" in ident or "settings.id_label" in ident:
                item[BBOX_KEY] = f"(({x1 / width:.2f}, {y1 / height:.2f}), ({x2 / width:.2f}, {y2 / height:.2f}))"
            elements.append(item)
            bboxes.append((x1, y1, x2, y2))
    except ET.ParseError as exc:
        raise ValueError(f"the UI dump is not valid XML: {exc}") from exc
    return ParsedScreen(tuple(elements), tuple(bboxes), str(elements))
