"""The focused window of the simulated phone: ``render(state)``, its node tree.

A pure function of the (immutable) :class:`PhoneState`: the System UI overlay
(notification shade, quick settings, recents, the brightness dialog) when one is
open, else the front app's current screen, else the launcher; labels are then
translated into the configuration's language and, for right-to-left locales,
every bound is mirrored. The XML dump, the element list, the screenshot and the
hit test of a tap all read this tree.
"""
from __future__ import annotations

from ..ui import Node, mirror, set_package
from . import apps, clock_app, dialer_app, launcher, settings_app, system
from .layout import Ctx
from .locale import TABLES
from .state import PhoneState

_APP_RENDER = {
    "settings": settings_app.render, "clock": clock_app.render_clock, "dialer": dialer_app.render_dialer,
    "contacts": dialer_app.render_contacts, "messages": apps.render_messages, "chrome": apps.render_chrome,
    "files": apps.render_files, "photos": apps.render_photos, "youtube": apps.render_youtube,
    "maps": apps.render_maps, "google": apps.render_google,
}


def render(state: PhoneState) -> Node:
    """The node tree of the focused window (pixels; labels in the locale's language; mirrored for RTL)."""
    ctx = Ctx(state.config)
    ov = state.overlay
    if ov is not None:
        if ov.name in ("shade", "qs"):
            root = launcher.render_shade(state, ctx, ov.name == "qs")
        elif ov.name == "recents":
            root = launcher.render_recents(state, ctx)
        else:
            root = settings_app.render_brightness_dialog(state, ctx)
        set_package(root, system.SYSTEM_UI if ov.name != "recents" else system.LAUNCHER)
    elif state.foreground and state.top_task is not None:  # a front app without a task (snapshots taken
        screen = state.screen                                # before "Clear all" went home) shows the launcher
        prefix = screen.name.split(".")[0]
        fn = _APP_RENDER.get(prefix, apps.render_simple)
        root = fn(state, ctx, screen)
        set_package(root, state.foreground)
    else:
        root = launcher.render_home(state, ctx) if state.launcher.name == "home" else launcher.render_drawer(state, ctx)
        set_package(root, system.LAUNCHER)
    table = TABLES.get(state.config.locale.replace("_", "-").split("-")[0].lower())
    if table:
        for n in root.walk():
            if n.text in table:
                n.text = table[n.text]
            if n.desc in table:
                n.desc = table[n.desc]
    if state.config.rtl:
        mirror(root, ctx.W)
    return root
