"""Layout helpers shared by the simulated apps: window, toolbar, scrolling lists, settings rows.

Everything is in screen pixels computed from dp through the configuration's
density (``Ctx.dp``); text sizes follow the font scale. Lists are laid out in
full and clipped to their viewport the way RecyclerView leaves off-screen rows
out of the dump: a row is present only when it intersects the viewport, with
its bounds clipped to it.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

from ..device import DeviceConfig
from ..ui import Node

FRAME = "android.widget.FrameLayout"
LINEAR = "android.widget.LinearLayout"
RELATIVE = "android.widget.RelativeLayout"
TEXT = "android.widget.TextView"
IMAGE = "android.widget.ImageView"
IMAGE_BUTTON = "android.widget.ImageButton"
BUTTON = "android.widget.Button"
SWITCH = "android.widget.Switch"
EDIT = "android.widget.EditText"
RECYCLER = "androidx.recyclerview.widget.RecyclerView"
VIEW_GROUP = "android.view.ViewGroup"
SEEKBAR = "android.widget.SeekBar"


class Ctx:
    """Screen geometry for one render (pixels; see the module docstring)."""

    def __init__(self, config: DeviceConfig):
        self.config = config
        self.W = config.width
        self.H = config.height
        self.sb = config.status_bar
        self.cb = config.content_bottom
        self.scale = config.scale

    def dp(self, v: float) -> int:
        return int(round(v * self.scale))

    def sp(self, v: float) -> int:
        return int(round(v * self.scale * self.config.font_scale))


def window(ctx: Ctx, package: str, *children: Node, top: int | None = None) -> Node:
    """An activity window: DecorView-like FrameLayout > LinearLayout > content FrameLayout."""
    content = Node(FRAME, (0, ctx.sb if top is None else top, ctx.W, ctx.cb), rid="android:id/content",
                   package=package, children=[c for c in children if c is not None])
    inner = Node(LINEAR, (0, 0, ctx.W, ctx.cb), package=package, children=[content])
    return Node(FRAME, (0, 0, ctx.W, ctx.cb), package=package, children=[inner])


def toolbar(ctx: Ctx, package: str, title: str, *, rid: str = "", up: Any = None,
            actions: Sequence[tuple[str, str, str, Any]] = (), key: str = "toolbar") -> Node:
    """A 56 dp action bar: optional "Navigate up" button, title, action buttons (rid, desc, key, action)."""
    y1, y2 = ctx.sb, ctx.sb + ctx.dp(56)
    bar = Node(VIEW_GROUP, (0, y1, ctx.W, y2), rid=rid or f"{package}:id/action_bar", package=package,
               key=key, style="toolbar")
    x = 0
    if up is not None:
        bar.add(Node(IMAGE_BUTTON, (0, y1, ctx.dp(56), y2), desc="Navigate up", clickable=True, key="up",
                     action=up, style="icon"))
        x = ctx.dp(72)
    else:
        x = ctx.dp(16)
    right = ctx.W - ctx.dp(48) * len(actions)
    bar.add(Node(TEXT, (x, y1 + ctx.dp(14), max(x + 1, right - ctx.dp(8)), y2 - ctx.dp(14)), text=title,
                 style="title"))
    for i, (arid, desc, akey, act) in enumerate(actions):
        bx = right + i * ctx.dp(48)
        bar.add(Node(IMAGE_BUTTON, (bx, y1 + ctx.dp(4), bx + ctx.dp(48), y2 - ctx.dp(4)), rid=arid, desc=desc,
                     clickable=True, key=akey, action=act, style="icon"))
    return bar


Row = tuple[str, float, Callable[[int, int, int, int], Node]]  # key, height in dp, builder(x1, y1, x2, y2)


def scroll_list(ctx: Ctx, rid: str, box: tuple[int, int, int, int], rows: Sequence[Row], scroll: int,
                cls: str = RECYCLER) -> tuple[Node, int]:
    """Lay ``rows`` out from ``box``'s top, shifted up by ``scroll`` px; returns (list node, max scroll).

    The node is scrollable only when the content is taller than the viewport; its
    ``action`` is ``("scroll", max_scroll)`` for the simulator's swipe handling.
    """
    x1, top, x2, bottom = box
    total = sum(ctx.dp(h) for _, h, _ in rows)
    max_scroll = max(0, total - (bottom - top))
    scroll = max(0, min(scroll, max_scroll))
    lst = Node(cls, box, rid=rid, scrollable=max_scroll > 0, focusable=True, action=("scroll", max_scroll),
               key="list", style="list")
    y = top - scroll
    for key, h, build in rows:
        hh = ctx.dp(h)
        if y + hh > top and y < bottom:
            node = build(x1, y, x2, y + hh)
            if node is not None:
                _clip(node, top, bottom)
                node.key = node.key or key
                lst.add(node)
        y += hh
    return lst, max_scroll


def _clip(node: Node, top: int, bottom: int) -> None:
    for n in node.walk():
        x1, y1, x2, y2 = n.bounds
        n.bounds = (x1, max(y1, top), x2, max(min(y2, bottom), max(y1, top)))


def pref_row(ctx: Ctx, bounds: tuple[int, int, int, int], title: str, summary: str = "", *,
             action: Any = None, switch: bool | None = None, switch_action: Any = None, icon: bool = False,
             key: str = "") -> Node:
    """A Settings preference row (icon, title, summary, optional switch in widget_frame)."""
    x1, y1, x2, y2 = bounds
    row = Node(LINEAR, bounds, clickable=action is not None, action=action, key=key, style="row")
    tx = x1 + ctx.dp(16)
    if icon:
        row.add(Node(IMAGE, (x1 + ctx.dp(16), y1 + ctx.dp(20), x1 + ctx.dp(40), y1 + ctx.dp(44)),
                     rid="android:id/icon", style="dot"))
        tx = x1 + ctx.dp(72)
    right = x2 - (ctx.dp(72) if switch is not None else ctx.dp(16))
    mid = (y1 + y2) // 2
    texts = Node(RELATIVE, (tx, y1 + ctx.dp(12), right, y2 - ctx.dp(12)))
    if summary:
        texts.add(Node(TEXT, (tx, y1 + ctx.dp(12), right, mid + ctx.dp(2)), rid="android:id/title", text=title,
                       style="text"),
                  Node(TEXT, (tx, mid + ctx.dp(2), right, y2 - ctx.dp(12)), rid="android:id/summary", text=summary,
                       style="summary"))
    else:
        texts.add(Node(TEXT, (tx, mid - ctx.dp(12), right, mid + ctx.dp(12)), rid="android:id/title", text=title,
                       style="text"))
    row.add(texts)
    if switch is not None:
        frame = Node(LINEAR, (x2 - ctx.dp(72), y1, x2, y2), rid="android:id/widget_frame")
        frame.add(Node(SWITCH, (x2 - ctx.dp(64), mid - ctx.dp(16), x2 - ctx.dp(16), mid + ctx.dp(16)),
                       rid="android:id/switch_widget", text="ON" if switch else "OFF", checkable=True,
                       checked=switch, clickable=switch_action is not None, action=switch_action,
                       key=(key + ".switch") if key else "", style="switch"))
        row.add(frame)
    return row


def text_node(bounds: tuple[int, int, int, int], text: str, rid: str = "", style: str = "text", **kw: Any) -> Node:
    return Node(TEXT, bounds, rid=rid, text=text, style=style, **kw)


def fab(ctx: Ctx, rid: str, desc: str, key: str, action, text: str = "") -> Node:
    """A floating action button at the bottom end of the content (wide with a label when ``text`` is given)."""
    s = ctx.dp(56)
    x2, y2 = ctx.W - ctx.dp(16), ctx.cb - ctx.dp(16)
    return Node(IMAGE_BUTTON if not text else BUTTON, (x2 - (s * 3 if text else s), y2 - s, x2, y2), rid=rid,
                desc=desc, text=text, clickable=True, key=key, action=action, style="fab")


def center_fab(ctx: Ctx, y2: int, rid: str, desc: str, key: str, action) -> Node:
    """A round floating action button centred horizontally, its bottom at ``y2``."""
    s = ctx.dp(64)
    x = ctx.W // 2
    return Node(IMAGE_BUTTON, (x - s // 2, y2 - s, x + s // 2, y2), rid=rid, desc=desc, clickable=True, key=key,
                action=action, style="fab")
