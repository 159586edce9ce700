"""The Pixel launcher (home screen, hotseat, app drawer) and the System UI windows (shade, quick settings, recents).

Home layouts come from the configuration's upstream launcher rows: a single
page with a 5x5 desktop grid and a hotseat of 5; every app is in the
alphabetical drawer (5 columns), opened with a swipe up.
"""
from __future__ import annotations

from dataclasses import replace

from ..ui import Node
from . import system
from .layout import FRAME, IMAGE, TEXT, VIEW_GROUP, Ctx, scroll_list
from .state import PhoneState, Screen
from .locale import translate

L = system.LAUNCHER
LID = f"{L}:id/"


def _icon(ctx: Ctx, bounds: tuple[int, int, int, int], label: str, package: str, show_label: bool) -> Node:
    return Node(TEXT, bounds, text=label if show_label else "", desc=label, clickable=True, long_clickable=True,
                key=f"app:{package}", action=lambda s, p=package: system.launch(s, p), style="icon")


def _package_of(component: str) -> str:
    return component.split("/")[0]


def _shown(state: PhoneState, component: str) -> bool:
    """An app icon shows when the app is simulated and not disabled (pm disable-user)."""
    pkg = _package_of(component)
    return pkg in system.APPS and pkg not in state.disabled


def render_home(state: PhoneState, ctx: Ctx) -> Node:
    c = state.config
    W, top, bottom = ctx.W, ctx.sb, ctx.cb
    search_h, hot_h, glance_h = ctx.dp(72), ctx.dp(96), ctx.dp(88)
    root = Node(FRAME, (0, 0, W, ctx.H), rid=f"{LID}launcher", package=L)
    drag = Node(FRAME, (0, 0, W, ctx.H), rid=f"{LID}drag_layer", package=L)
    root.add(drag)
    glance = Node(VIEW_GROUP, (0, top, W, top + glance_h), rid=f"{LID}smartspace_content", package=L,
                  style="glance")
    glance.add(Node(TEXT, (ctx.dp(24), top + ctx.dp(16), W - ctx.dp(24), top + ctx.dp(56)),
                    rid=f"{LID}clock", text=state.now.strftime("%a, %b %-d"), clickable=True,
                    key="glance", action=lambda s: system.launch(s, "com.google.android.calendar"),
                    style="big"))
    ws_top, ws_bottom = top + glance_h, bottom - search_h - hot_h
    workspace = Node(VIEW_GROUP, (0, ws_top, W, ws_bottom), rid=f"{LID}workspace", package=L, scrollable=True)
    cw, ch = W / 5, (ws_bottom - ws_top) / 5
    page = Node(VIEW_GROUP, (0, ws_top, W, ws_bottom), package=L)
    for it in c.home:
        if it.hotseat or not _shown(state, it.component):
            continue
        x1, y1 = int(it.cell_x * cw), int(ws_top + it.cell_y * ch)
        pkg = _package_of(it.component)
        page.add(_icon(ctx, (x1, y1, int(x1 + cw), int(y1 + ch)), system.APPS[pkg].label, pkg, True))
    workspace.add(page)
    hot_top = ws_bottom
    hotseat = Node(VIEW_GROUP, (0, hot_top, W, hot_top + hot_h), rid=f"{LID}hotseat", package=L)
    for it in c.home:
        if it.hotseat and _shown(state, it.component):
            x1 = int(it.cell_x * cw)
            pkg = _package_of(it.component)
            hotseat.add(_icon(ctx, (x1, hot_top, int(x1 + cw), hot_top + hot_h), system.APPS[pkg].label, pkg, False))
    search = Node(FRAME, (ctx.dp(16), bottom - search_h + ctx.dp(8), W - ctx.dp(16), bottom - ctx.dp(8)),
                  rid=f"{LID}search_container_hotseat", desc="Search", clickable=True, key="home_search",
                  action=lambda s: system.launch(s, "com.google.android.googlequicksearchbox"), style="searchbar")
    search.add(Node(IMAGE, (ctx.dp(24), bottom - search_h + ctx.dp(20), ctx.dp(56), bottom - ctx.dp(20)),
                    rid=f"{LID}g_icon", style="dot"))
    drag.add(glance, workspace, hotseat, search)
    return root


def render_drawer(state: PhoneState, ctx: Ctx) -> Node:
    W, top, bottom = ctx.W, ctx.sb, ctx.cb
    root = Node(FRAME, (0, 0, W, ctx.H), rid=f"{LID}launcher", package=L)
    apps_view = Node(FRAME, (0, top, W, bottom), rid=f"{LID}apps_view", package=L, style="drawer")
    box_h = ctx.dp(64)
    apps_view.add(Node("android.widget.EditText", (ctx.dp(16), top + ctx.dp(8), W - ctx.dp(16), top + box_h - ctx.dp(8)),
                       rid=f"{LID}search_container_all_apps", text="Search apps", clickable=True,
                       key="drawer_search", action=lambda s: system.activate_ime(s, L, "search_box", "Search apps"),
                       style="searchbar"))

    pkgs = sorted((p for p in system.DRAWER_ORDER if p not in state.disabled),
                  key=lambda p: translate(state.config.locale, system.APPS[p].label).lower())
    rows = []
    cw = W // 5
    for r in range(0, len(pkgs), 5):
        chunk = pkgs[r:r + 5]

        def build(x1: int, y1: int, x2: int, y2: int, chunk: list[str] = chunk) -> Node:
            row = Node(VIEW_GROUP, (x1, y1, x2, y2), package=L)
            for i, p in enumerate(chunk):
                row.add(_icon(ctx, (i * cw, y1, (i + 1) * cw, y2), system.APPS[p].label, p, True))
            return row
        rows.append((f"drawer_row{r // 5}", 100, build))
    lst, _ = scroll_list(ctx, f"{LID}apps_list_view", (0, top + box_h, W, bottom), rows, state.launcher.scroll)
    apps_view.add(lst)
    root.add(apps_view)
    return root


# ---------------------------------------------------------------- System UI
QS_TILES = (
    ("Wi-Fi", "global/wifi_on"), ("Bluetooth", "global/bluetooth_on"), ("Do Not Disturb", ""),
    ("Flashlight", ""), ("Auto-rotate", "system/accelerometer_rotation"), ("Battery Saver", ""),
    ("Airplane mode", "global/airplane_mode_on"), ("Location", "secure/location_mode"), ("Dark theme", "secure/ui_night_mode"),
)


def _tile_on(state: PhoneState, key: str) -> bool:
    if not key:
        return False
    v = state.setting(key)
    return v == "2" if key == "secure/ui_night_mode" else v not in ("0", "null")


def _toggle_tile(state: PhoneState, label: str, key: str) -> PhoneState:
    on = not _tile_on(state, key)
    if label == "Wi-Fi":
        return system.set_wifi(state, on, system.SYSTEM_UI)
    if label == "Airplane mode":
        return system.set_airplane(state, on)
    if label == "Bluetooth":
        return system.set_bluetooth(state, on)
    if label == "Dark theme":
        return system.set_dark(state, on)
    if key:
        return system.notify_setting(state.with_setting(key, "1" if on else "0"), key)
    return state


def render_shade(state: PhoneState, ctx: Ctx, expanded: bool) -> Node:
    S = system.SYSTEM_UI
    W = ctx.W
    n_tiles = 9 if expanded else 6
    cols = 3 if expanded else 6
    tile_h = ctx.dp(88) if expanded else ctx.dp(56)
    rows = (n_tiles + cols - 1) // cols
    panel_h = ctx.sb + ctx.dp(48) + rows * tile_h + (ctx.dp(64) if expanded else ctx.dp(16))
    root = Node(FRAME, (0, 0, W, ctx.H), rid=f"{S}:id/notification_panel", package=S, style="shade")
    qs = Node(FRAME, (0, 0, W, panel_h), rid=f"{S}:id/quick_settings_panel", package=S, style="qs")
    qs.add(Node(TEXT, (ctx.dp(16), ctx.sb, ctx.dp(120), ctx.sb + ctx.dp(40)), rid=f"{S}:id/clock",
                text=state.now.strftime("%-I:%M"), style="text"))
    tw = W // cols
    for i, (label, key) in enumerate(QS_TILES[:n_tiles]):
        r, col = divmod(i, cols)
        y1 = ctx.sb + ctx.dp(48) + r * tile_h
        on = _tile_on(state, key)
        tile = Node(SWITCH_TILE, (col * tw, y1, (col + 1) * tw, y1 + tile_h), desc=label, clickable=True,
                    checkable=True, checked=on, text="", key=f"tile:{label}",
                    action=lambda s, lb=label, k=key: _toggle_tile(s, lb, k), style="tile")
        if expanded:
            tile.add(Node(TEXT, (col * tw, y1 + tile_h - ctx.dp(28), (col + 1) * tw, y1 + tile_h - ctx.dp(8)),
                          rid=f"{S}:id/tile_label", text=label, style="small"))
        qs.add(tile)
    if expanded:
        y1 = panel_h - ctx.dp(56)
        qs.add(Node("android.widget.SeekBar", (ctx.dp(48), y1, W - ctx.dp(48), y1 + ctx.dp(40)),
                    rid=f"{S}:id/slider", desc="Display brightness", clickable=True, focusable=True, key="qs_slider",
                    action=("slider", lambda s, f: system.set_brightness(s, 1 + round(f * 254)),
                            int(state.setting("system/screen_brightness", "102")) / 255), style="slider"))
    root.add(qs)
    return root


SWITCH_TILE = "android.widget.Switch"


def render_recents(state: PhoneState, ctx: Ctx) -> Node:
    L_ = system.LAUNCHER
    W = ctx.W
    root = Node(FRAME, (0, 0, W, ctx.H), rid=f"{LID}overview_panel", package=L_, style="recents")
    if not state.tasks:
        root.add(Node(TEXT, (0, ctx.H // 2 - ctx.dp(20), W, ctx.H // 2 + ctx.dp(20)), text="No recent items",
                      style="text"))
        return root
    card_w = int(W * 0.6)
    x = (W - card_w) // 2
    for i, t in enumerate(state.tasks[:3]):
        cx = x + i * (card_w + ctx.dp(16))
        if cx >= W:
            break
        card = Node(FRAME, (cx, ctx.sb + ctx.dp(80), min(W, cx + card_w), ctx.cb - ctx.dp(80)), rid=f"{LID}snapshot",
                    desc=system.APPS[t.package].label, clickable=True, key=f"recent:{t.package}",
                    action=lambda s, p=t.package: system.resume_task(s, p), style="card")
        root.add(card)
    root.add(Node("android.widget.Button", (W // 2 - ctx.dp(60), ctx.cb - ctx.dp(64), W // 2 + ctx.dp(60),
                                            ctx.cb - ctx.dp(24)), rid=f"{LID}clear_all", text="Clear all",
                  clickable=True, key="clear_all", action=clear_all,
                  style="button"))
    return root


def clear_all(state: PhoneState) -> PhoneState:
    """Recents' "Clear all": every task is removed and the home screen shows (no app stays in front)."""
    return replace(system.go_home(state), tasks=())


def swipe_launcher(state: PhoneState, direction: str) -> PhoneState | None:
    """Launcher gestures: up opens the drawer, down opens the shade; None = let the list scroll."""
    if state.launcher.name == "home":
        if direction == "up":
            return replace(state, launcher=Screen("drawer"))
        if direction == "down":
            return replace(state, overlay=Screen("shade"))
        return state
    if state.launcher.name == "drawer" and direction == "down" and state.launcher.scroll == 0:
        return replace(state, launcher=Screen("home"))
    return None
