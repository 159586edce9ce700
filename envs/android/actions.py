"""B-MoCA's text actions and their conversion to dual gestures.

Actions (the text after ``Action:`` when present):

* ``tap(n)``: a tap at the centre of element ``n``'s box;
* ``swipe("up"|"down"|"left"|"right")``: upstream's fixed finger movements, as (y, x):
  up (0.8,0.5)->(0.2,0.5), down (0.2,0.5)->(0.8,0.5), left (0.5,0.2)->(0.5,0.8),
  right (0.5,0.8)->(0.5,0.2);
* ``press("HOME"|"BACK"|"OVERVIEW")``: a tap on the 3-button navigation bar at
  y = 252/256 and x = 64/128 (HOME), 43/128 (BACK), 85/128 (OVERVIEW); BACK and
  OVERVIEW swap on right-to-left configurations (upstream v1 swaps them on its
  RTL tablet; we apply it to every RTL locale, whose navigation bar is mirrored);
* ``dual-gesture(touch_y, touch_x, lift_y, lift_x)``: the raw action, each in [0, 1].

A dual gesture is a tap when ``hypot(2 * (touch_y - lift_y), touch_x - lift_x) <= 0.14``
(upstream's criterion, the y terms doubled for the 2:1 screen), else a swipe.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

TAP_THRESHOLD = 0.14
SWIPES = {"up": (0.8, 0.5, 0.2, 0.5), "down": (0.2, 0.5, 0.8, 0.5), "left": (0.5, 0.2, 0.5, 0.8),
          "right": (0.5, 0.8, 0.5, 0.2)}
MAX_TAG_DIGITS = 9  # longer numbers name no element (and int() refuses > 4,300 digits)
NAV_Y = 252 / 256
NAV_X = {"BACK": 43 / 128, "HOME": 64 / 128, "OVERVIEW": 85 / 128}

_TAP = re.compile(r"^tap\(\s*[\"']?(-?\d+)[\"']?\s*\)$", re.I)
_SWIPE = re.compile(r"^swipe\(\s*[\"']?([a-zA-Z]+)[\"']?\s*\)$", re.I)
_PRESS = re.compile(r"^press\(\s*[\"']?([a-zA-Z]+)[\"']?\s*\)$", re.I)
_DUAL = re.compile(r"^dual[-_]?gesture\(([^)]*)\)$", re.I)


class ActionError(ValueError):
    """A malformed action; the message says what was wrong."""


@dataclass(frozen=True)
class DualGesture:
    touch_y: float
    touch_x: float
    lift_y: float
    lift_x: float

    @property
    def is_tap(self) -> bool:
        return math.hypot(2 * (self.touch_y - self.lift_y), self.touch_x - self.lift_x) <= TAP_THRESHOLD

    def pixels(self, width: int, height: int) -> tuple[float, float, float, float]:
        """(x1, y1, x2, y2) in pixels; a tap lifts where it touched."""
        def px(v: float, n: int) -> float:
            return float(min(n - 1, max(0, round(v * n))))
        x1, y1 = px(self.touch_x, width), px(self.touch_y, height)
        if self.is_tap:
            return x1, y1, x1, y1
        return x1, y1, px(self.lift_x, width), px(self.lift_y, height)


def extract(action: str) -> str:
    """The action part of an LLM answer: the text after the last ``Action:``, first line, stripped."""
    text = str(action)
    idx = text.rfind("Action:")
    if idx >= 0:
        text = text[idx + len("Action:"):]
    text = text.strip().splitlines()[0].strip() if text.strip() else ""
    return text.strip("`").strip()


def canonical(action: str, n_elements: int | None = None) -> str:
    """The canonical form (``tap(3)``, ``swipe("up")``, ``press("HOME")``, ``dual-gesture(...)``); raises ActionError."""
    a = extract(action)
    if not a:
        raise ActionError("empty action; use tap(n), swipe(\"up|down|left|right\"), press(\"HOME|BACK|OVERVIEW\") "
                          "or dual-gesture(touch_y, touch_x, lift_y, lift_x)")
    m = _TAP.match(a)
    if m:
        digits = m.group(1)
        if len(digits.lstrip("-")) > MAX_TAG_DIGITS:
            raise ActionError(f"tap({digits[:12]}...): no element has a {len(digits)}-digit number; "
                              "use the numeric_tag of an element on this screen")
        n = int(digits)
        if n < 0 or (n_elements is not None and n >= n_elements):
            raise ActionError(f"tap({n}): no element numbered {n} on this screen (elements 0..{(n_elements or 1) - 1})")
        return f"tap({n})"
    m = _SWIPE.match(a)
    if m:
        d = m.group(1).lower()
        if d not in SWIPES:
            raise ActionError(f"swipe direction {m.group(1)!r} is not one of up, down, left, right")
        return f'swipe("{d}")'
    m = _PRESS.match(a)
    if m:
        b = m.group(1).upper()
        if b not in NAV_X:
            raise ActionError(f"press button {m.group(1)!r} is not one of HOME, BACK, OVERVIEW")
        return f'press("{b}")'
    m = _DUAL.match(a)
    if m:
        parts = [p.strip() for p in m.group(1).split(",")]
        if len(parts) != 4:
            raise ActionError(f"dual-gesture needs 4 numbers (touch_y, touch_x, lift_y, lift_x), got {len(parts)}")
        try:
            vals = [float(p) for p in parts]
        except ValueError:
            raise ActionError(f"dual-gesture arguments must be numbers in [0, 1], got {m.group(1)!r}") from None
        if not all(0.0 <= v <= 1.0 for v in vals):
            raise ActionError(f"dual-gesture arguments must be in [0, 1], got {m.group(1)!r}")
        return "dual-gesture(" + ", ".join(f"{v:.4g}" for v in vals) + ")"
    raise ActionError(f"cannot parse action {a[:80]!r}; use tap(n), swipe(\"up\"), press(\"HOME\") or "
                      "dual-gesture(touch_y, touch_x, lift_y, lift_x)")


def to_gesture(action: str, bboxes: tuple, width: int, height: int, rtl: bool = False) -> tuple[str, DualGesture]:
    """Parse and convert an action to ``(canonical, DualGesture)``; raises ActionError."""
    c = canonical(action, len(bboxes))
    if c.startswith("tap("):
        x1, y1, x2, y2 = bboxes[int(c[4:-1])]
        y, x = (y1 + y2) / 2 / height, (x1 + x2) / 2 / width
        return c, DualGesture(y, x, y, x)
    if c.startswith("swipe("):
        return c, DualGesture(*SWIPES[c[7:-2]])
    if c.startswith("press("):
        b = c[7:-2]
        if rtl and b in ("BACK", "OVERVIEW"):
            b = "OVERVIEW" if b == "BACK" else "BACK"
        return c, DualGesture(NAV_Y, NAV_X[b], NAV_Y, NAV_X[b])
    vals = [float(v) for v in c[len("dual-gesture("):-1].split(",")]
    return c, DualGesture(*vals)
