"""UI trees as uiautomator renders them.

A :class:`Node` is one view of the window hierarchy: class, resource id, text,
content description, flags and ``bounds`` in **screen pixels**
``(x1, y1, x2, y2)`` (right/bottom exclusive, like Android's ``Rect``).
``to_xml`` writes the attribute set and order ``uiautomator dump`` writes on
Android 10; ``key`` and ``action`` are simulator-only (never written): the
expert finds targets by ``key`` and the simulator runs ``action`` on a tap.
"""
from __future__ import annotations

import re
from typing import Any, Iterator
from xml.sax.saxutils import quoteattr

XML_HEADER = "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>"


class Node:
    """One view; children in drawing order. Built fresh on every render."""

    __slots__ = ("cls", "rid", "text", "desc", "bounds", "clickable", "checkable", "checked", "scrollable",
                 "focusable", "focused", "selected", "enabled", "long_clickable", "password", "package",
                 "children", "key", "action", "style")

    def __init__(self, cls: str, bounds: tuple[int, int, int, int], *, rid: str = "", text: str = "",
                 desc: str = "", clickable: bool = False, checkable: bool = False, checked: bool = False,
                 scrollable: bool = False, focusable: bool | None = None, focused: bool = False,
                 selected: bool = False, enabled: bool = True, long_clickable: bool = False,
                 package: str = "", children: list["Node"] | None = None, key: str = "",
                 action: Any = None, style: str = ""):
        self.cls = cls
        self.rid = rid
        self.text = text
        self.desc = desc
        self.bounds = tuple(int(v) for v in bounds)
        # flags are stored as bools (callers pass truthy values) so to_xml can index "false"/"true" by them
        self.clickable = bool(clickable)
        self.checkable = bool(checkable)
        self.checked = bool(checked)
        self.scrollable = bool(scrollable)
        self.focusable = self.clickable if focusable is None else bool(focusable)
        self.focused = bool(focused)
        self.selected = bool(selected)
        self.enabled = bool(enabled)
        self.long_clickable = bool(long_clickable)
        self.password = False
        self.package = package
        self.children = children if children is not None else []
        self.key = key
        self.action = action
        self.style = style  # renderer hint: "icon", "switch", "slider", "fab", "button", "card", ...

    def add(self, *nodes: "Node") -> "Node":
        self.children.extend(n for n in nodes if n is not None)
        return self

    def walk(self) -> Iterator["Node"]:
        """Pre-order traversal."""
        yield self
        for c in self.children:
            yield from c.walk()

    def postorder(self) -> Iterator["Node"]:
        """Children before parents: the order B-MoCA numbers elements in."""
        for c in self.children:
            yield from c.postorder()
        yield self

    def contains(self, x: float, y: float) -> bool:
        x1, y1, x2, y2 = self.bounds
        return x1 <= x < x2 and y1 <= y < y2


def set_package(node: Node, package: str) -> None:
    for n in node.walk():
        if not n.package:
            n.package = package


def mirror(node: Node, width: int) -> None:
    """Mirror every bound horizontally (right-to-left locales)."""
    for n in node.walk():
        x1, y1, x2, y2 = n.bounds
        n.bounds = (width - x2, y1, width - x1, y2)


_BOOL = ("false", "true")
_NEEDS_QUOTING = re.compile(r'[&<>"\n\r\t]')


def _attr(value: str) -> str:
    """``quoteattr(value)``, without its cost for the usual value that needs no escaping."""
    if not value:
        return '""'
    if _NEEDS_QUOTING.search(value) is None:
        return f'"{value}"'
    return quoteattr(value)


def to_xml(root: Node, rotation: int = 0) -> str:
    """The document ``uiautomator dump`` writes for the window rooted at ``root``."""
    out: list[str] = [XML_HEADER, f'<hierarchy rotation="{rotation}">']
    b = _BOOL

    def emit(n: Node, index: int) -> None:
        x1, y1, x2, y2 = n.bounds
        attrs = (
            f'<node index="{index}" text={_attr(n.text)} resource-id={_attr(n.rid)} '
            f'class={_attr(n.cls)} package={_attr(n.package)} content-desc={_attr(n.desc)} '
            f'checkable="{b[n.checkable]}" checked="{b[n.checked]}" clickable="{b[n.clickable]}" '
            f'enabled="{b[n.enabled]}" focusable="{b[n.focusable]}" focused="{b[n.focused]}" '
            f'scrollable="{b[n.scrollable]}" long-clickable="{b[n.long_clickable]}" password="{b[n.password]}" '
            f'selected="{b[n.selected]}" bounds="[{x1},{y1}][{x2},{y2}]"'
        )
        if n.children:
            out.append(attrs + ">")
            for i, c in enumerate(n.children):
                emit(c, i)
            out.append("</node>")
        else:
            out.append(attrs + " />")

    emit(root, 0)
    out.append("</hierarchy>")
    return "".join(out)


def hit_test(root: Node, x: float, y: float) -> Node | None:
    """The deepest, last-drawn clickable node containing (x, y), as Android dispatches a tap."""
    found: Node | None = None

    def visit(n: Node) -> None:
        nonlocal found
        if not n.contains(x, y):
            return
        if n.clickable and n.enabled:
            found = n
        for c in n.children:
            visit(c)

    visit(root)
    return found


def find_scrollable(root: Node, x: float, y: float) -> Node | None:
    """The deepest scrollable node containing (x, y)."""
    found: Node | None = None
    for n in root.walk():
        if n.scrollable and n.contains(x, y):
            found = n
    return found
