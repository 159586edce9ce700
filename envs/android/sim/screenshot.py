"""A Pillow screenshot of the simulated phone drawn from the same node tree as the XML dump.

Every node is drawn at its dump ``bounds`` (so a tap on a drawn control hits
that control), styled by its ``style`` hint; then the status bar (time, Wi-Fi,
airplane) and the 3-button navigation bar. Dark theme and the configuration's
wallpaper (a colour per upstream wallpaper name) change only the picture.
Needs Pillow (part of treegym's default install).
"""
from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

from PIL import Image, ImageDraw, ImageFont

from ..ui import Node
from .state import PhoneState
from .window import render

WALLPAPERS = {"00_default": (36, 52, 71), "01_red": (150, 40, 40), "02_blue": (30, 70, 160), "03_paper": (200, 190, 170),
              "04_sky": (110, 170, 225), "05_doughnut": (220, 150, 170), "06_flower": (170, 90, 140),
              "07_food": (190, 120, 60), "08_colors": (120, 60, 170), "09_rainbow": (90, 160, 120),
              "10_galaxy": (25, 20, 60), "11_pyramid": (200, 160, 90), "12_ocean": (20, 110, 140),
              "13_canyon": (170, 90, 50)}
APP_COLORS = [(66, 133, 244), (219, 68, 55), (244, 180, 0), (15, 157, 88), (171, 71, 188), (0, 172, 193),
              (255, 112, 67), (92, 107, 192)]


@lru_cache(maxsize=32)
def _font(size: int) -> ImageFont.ImageFont:
    for name in ("DejaVuSans.ttf", "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"):
        try:
            return ImageFont.truetype(name, max(8, size))
        except OSError:
            continue
    return ImageFont.load_default()


def _text(d: ImageDraw.ImageDraw, box, text: str, color, size: int, center: bool = False) -> None:
    if not text:
        return
    x1, y1, x2, y2 = box
    f = _font(size)
    tw = d.textlength(text, font=f)
    while tw > (x2 - x1) and len(text) > 2:
        text = text[:-2] + "…"
        tw = d.textlength(text, font=f)
    x = x1 + ((x2 - x1) - tw) / 2 if center else x1
    y = y1 + ((y2 - y1) - size) / 2
    d.text((x, y), text, fill=color, font=f)


def draw(state: PhoneState, tree: Node) -> Image.Image:
    c = state.config
    dark = state.setting("secure/ui_night_mode") == "2"
    bg = (32, 33, 36) if dark else (255, 255, 255)
    fg = (232, 234, 237) if dark else (32, 33, 36)
    sub = (154, 160, 166) if dark else (95, 99, 104)
    accent = (138, 180, 248) if dark else (26, 115, 232)
    s = c.scale * c.font_scale
    if state.overlay is not None:
        # System UI windows sit over the dimmed app or launcher below them
        below = replace(state, overlay=None)
        img = Image.blend(draw(below, render(below)), Image.new("RGB", (c.width, c.height), (0, 0, 0)), 0.55)
    else:
        img = Image.new("RGB", (c.width, c.height), WALLPAPERS.get(c.wallpaper, (40, 40, 40)))
    d = ImageDraw.Draw(img)
    pkg = tree.package
    on_launcher = pkg == "com.google.android.apps.nexuslauncher" and state.overlay is None
    if not on_launcher and state.overlay is None:
        d.rectangle((0, 0, c.width, c.height), fill=bg)
    for n in tree.walk():
        x1, y1, x2, y2 = n.bounds
        if x2 <= x1 or y2 <= y1:
            continue
        st = n.style
        if st in ("shade", "scrim"):
            if state.overlay is None:  # an in-app dialog (time picker) dims its own window
                d.rectangle(n.bounds, fill=(60, 60, 60))
        elif st == "qs":
            d.rectangle(n.bounds, fill=(48, 49, 52) if dark else (241, 243, 244))
        elif st in ("dialog", "menu", "drawerpanel"):
            d.rounded_rectangle(n.bounds, radius=int(8 * c.scale), fill=(48, 49, 52) if dark else (250, 250, 250),
                                outline=sub)
        elif st == "drawer":
            d.rectangle(n.bounds, fill=(30, 30, 30) if dark else (245, 245, 245))
        elif st == "toolbar":
            d.rectangle(n.bounds, fill=bg)
            d.line((x1, y2 - 1, x2, y2 - 1), fill=sub)
        elif st in ("searchbar", "field"):
            d.rounded_rectangle(n.bounds, radius=(y2 - y1) // 2 if st == "searchbar" else 4,
                                fill=(60, 64, 67) if dark else (241, 243, 244))
            inset = int((56 if n.key == "home_search" else 16) * c.scale)
            _text(d, (x1 + inset, y1, x2, y2), n.text or n.desc, sub, int(14 * s))
        elif st == "icon" and on_launcher and n.key.startswith("app:"):
            r = min(x2 - x1, y2 - y1) * 0.28
            cx, cy = (x1 + x2) / 2, y1 + (y2 - y1) * 0.38
            col = APP_COLORS[sum(n.desc.encode()) % len(APP_COLORS)]
            d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=col)
            _text(d, (cx - r, cy - r, cx + r, cy + r), n.desc[:1], (255, 255, 255), int(r), center=True)
            if n.text:
                _text(d, (x1, cy + r + 4, x2, cy + r + 4 + int(13 * s)), n.text, (255, 255, 255), int(12 * s), True)
        elif st == "icon":
            cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
            r = min(x2 - x1, y2 - y1) * 0.25
            d.ellipse((cx - r, cy - r, cx + r, cy + r), outline=fg, width=max(1, int(2 * c.scale)))
        elif st == "switch":
            on = n.checked
            h4 = (y2 - y1) // 4
            d.rounded_rectangle((x1, y1 + h4, x2, y2 - h4), radius=h4, fill=accent if on else sub)
            k = y2 - y1
            kx = x2 - k if on else x1
            d.ellipse((kx, y1, kx + k, y2), fill=accent if on else (241, 241, 241), outline=sub)
        elif st == "slider":
            cy = (y1 + y2) // 2
            d.line((x1, cy, x2, cy), fill=sub, width=max(2, int(3 * c.scale)))
            a = n.action
            f = a[2] if isinstance(a, tuple) and len(a) > 2 else 0.5
            kx = x1 + (x2 - x1) * (1 - f if c.rtl else f)
            d.line((x1 if not c.rtl else kx, cy, kx if not c.rtl else x2, cy), fill=accent, width=max(2, int(3 * c.scale)))
            r = (y2 - y1) * 0.3
            d.ellipse((kx - r, cy - r, kx + r, cy + r), fill=accent)
        elif st in ("fab", "callfab", "endcall"):
            col = (15, 157, 88) if st == "callfab" else (217, 48, 37) if st == "endcall" else accent
            d.rounded_rectangle(n.bounds, radius=min(x2 - x1, y2 - y1) // 2, fill=col)
            _text(d, n.bounds, n.text or n.desc[:12], (255, 255, 255), int(13 * s), center=True)
        elif st == "tile":
            d.rounded_rectangle((x1 + 8, y1 + 8, x2 - 8, y2 - 8), radius=int(16 * c.scale),
                                fill=accent if n.checked else ((95, 99, 104) if dark else (218, 220, 224)))
            if not n.children:  # the expanded panel labels tiles with a child TextView
                _text(d, (x1 + 8, y1 + 8, x2 - 8, y2 - 8), n.desc[:10], (255, 255, 255) if n.checked else fg,
                      int(11 * s), center=True)
        elif st in ("card", "recents"):
            if st == "card":
                d.rounded_rectangle(n.bounds, radius=int(8 * c.scale), fill=(48, 49, 52) if dark else (241, 243, 244))
                if n.desc:
                    _text(d, (x1 + 16, y1 + 16, x2, y1 + int(40 * c.scale)), n.desc, fg, int(14 * s))
            else:
                d.rectangle(n.bounds, fill=(20, 20, 20))
        elif st == "tabs":
            d.rectangle(n.bounds, fill=(41, 42, 45) if dark else (248, 249, 250))
        elif st == "tab":
            if n.selected:
                d.rectangle((x1, y1, x2, y1 + max(2, int(3 * c.scale))), fill=accent)
            _text(d, n.bounds, n.text or n.desc, accent if n.selected else sub, int(12 * s), center=True)
        elif st == "key":
            pass
        elif st == "dial":
            d.ellipse(n.bounds, fill=(60, 64, 67) if dark else (232, 234, 237))
        elif st == "dialnum":
            if n.selected:
                d.ellipse(n.bounds, fill=accent)
            _text(d, n.bounds, n.desc, fg, int(14 * s), center=True)
        elif st == "button":
            _text(d, n.bounds, n.text, accent, int(14 * s), center=True)
        elif st == "map":
            d.rectangle(n.bounds, fill=(170, 218, 255) if not dark else (36, 52, 71))
            for i in range(0, c.width, max(1, int(60 * c.scale))):
                d.line((i, y1, i + int(40 * c.scale), y2), fill=(255, 255, 255), width=max(1, int(3 * c.scale)))
        elif st == "camera":
            d.rectangle(n.bounds, fill=(10, 10, 10))
        elif st == "glance":
            pass
        elif st == "dot":
            d.ellipse(n.bounds, fill=accent)
        elif st == "row" and n.text:
            _text(d, (x1 + int(16 * c.scale), y1, x2, y2), n.text, fg, int(16 * s))
        if n.text and st in ("text", "title", "big", "huge", "summary", "small"):
            size = {"title": 20, "big": 22, "huge": 40, "summary": 14, "small": 11}.get(st, 16)
            col = sub if st == "summary" else ((255, 255, 255) if on_launcher else fg)
            if (n.checkable and n.checked) or (n.selected and st == "huge"):
                col = accent
            _text(d, n.bounds, n.text, col, int(size * s), center=st in ("huge",))
    # status bar and navigation bar
    sb, nb = c.status_bar, c.nav_bar
    bar_fg = (255, 255, 255) if (on_launcher or dark or state.overlay is not None) else (60, 64, 67)
    if not on_launcher and state.overlay is None:
        d.rectangle((0, 0, c.width, sb), fill=bg)
    _text(d, (int(16 * c.scale), 0, int(100 * c.scale), sb), state.now.strftime("%-I:%M"), bar_fg, int(13 * c.scale))
    icons = "✈" if state.setting("global/airplane_mode_on") == "1" else ("WiFi" if state.setting("global/wifi_on") == "1" else "")
    _text(d, (c.width - int(120 * c.scale), 0, c.width - int(16 * c.scale), sb), icons + " 100%", bar_fg, int(12 * c.scale))
    y1 = c.height - nb
    d.rectangle((0, y1, c.width, c.height), fill=(0, 0, 0))
    cy = y1 + nb // 2
    r = int(9 * c.scale)
    xs = {"BACK": 43 / 128, "HOME": 64 / 128, "OVERVIEW": 85 / 128}
    if c.rtl:
        xs["BACK"], xs["OVERVIEW"] = xs["OVERVIEW"], xs["BACK"]
    bx = xs["BACK"] * c.width
    d.polygon([(bx + r, cy - r), (bx + r, cy + r), (bx - r, cy)], outline=(255, 255, 255))
    hx = xs["HOME"] * c.width
    d.ellipse((hx - r, cy - r, hx + r, cy + r), outline=(255, 255, 255), width=max(1, int(2 * c.scale)))
    ox = xs["OVERVIEW"] * c.width
    d.rectangle((ox - r, cy - r, ox + r, cy + r), outline=(255, 255, 255), width=max(1, int(2 * c.scale)))
    return img
