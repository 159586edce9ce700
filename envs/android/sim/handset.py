"""``Handset``: the simulated phone's screen, input, files, logcat and snapshots (everything but its shell).

Holds one immutable :class:`PhoneState` (``self.state``); every input builds a
new state, so ``save_snapshot()`` returns the state itself (a reference, no
copy) and ``load_snapshot`` puts it back. Rendering is a pure function of the
state (``window.render``): ``tree`` gives the node tree, ``dump_ui`` its
uiautomator XML, ``screenshot`` a Pillow drawing of the same bounds. ``tap``,
``swipe`` and ``press`` are what a touch or a key does to a state.
:class:`~treegym.envs.android.sim.phone.SimPhone` adds the shell on top; the shell
and its commands drive a ``Handset``, so neither imports the other back.
"""
from __future__ import annotations

import calendar
from dataclasses import replace
from datetime import datetime
from typing import Any

import numpy as np

from ..backend import key_name
from ..device import DeviceConfig, get_config
from ..ui import Node, find_scrollable, hit_test, to_xml
from . import dialer_app, launcher, system
from .state import PhoneState, Screen
from .storage import ALARM_DB, FileStore, check_access, export_alarms, import_alarms
from .window import render

# 2016-01-01 (a Friday) 05:00:00 UTC: B-MoCA pins the device clock to a 2015/2016 date.
BASE_CLOCK_MS = calendar.timegm((2016, 1, 1, 5, 0, 0)) * 1000
FLING = 2.0  # an instantaneous swipe flings a list twice the finger's travel


def initial_state(config: DeviceConfig) -> PhoneState:
    state = PhoneState(config=config, clock_ms=BASE_CLOCK_MS)
    if config.dark:
        state = state.with_setting("secure/ui_night_mode", "2")
    state = state.with_setting("system/font_scale", str(config.font_scale))
    return state


def _slider_fraction(node: Node, x: float, rtl: bool) -> float:
    x1, _, x2, _ = node.bounds
    f = (x - x1) / max(1, (x2 - x1))
    f = 1.0 - f if rtl else f
    return max(0.0, min(1.0, f))


def nav_button(state: PhoneState, x: float) -> str:
    f = x / state.config.width
    if state.config.rtl:
        f = 1.0 - f
    return "BACK" if f < 0.418 else ("HOME" if f < 0.582 else "APP_SWITCH")


def press(state: PhoneState, name: str) -> PhoneState:
    state = state.tick()
    if name == "HOME":
        return system.go_home(state)
    if name == "BACK":
        return system.go_back(state)
    if name == "APP_SWITCH":
        return system.open_recents(state)
    if name == "ENDCALL":
        return dialer_app.end_call(state)
    if name == "DEL":
        return replace(state, field_text=state.field_text[:-1]) if state.ime else state
    return state


def tap(state: PhoneState, x: float, y: float) -> PhoneState:
    c = state.config
    if y >= c.content_bottom:
        return press(state, nav_button(state, x))
    state = state.tick()
    root = render(state)
    node = hit_test(root, x, y)
    if node is None:
        if state.overlay is not None and state.overlay.name in ("shade", "qs", "brightness", "recents"):
            return replace(state, overlay=None)
        return state
    act = node.action
    if isinstance(act, tuple) and act and act[0] == "slider":
        return act[1](state, _slider_fraction(node, x, c.rtl))
    if callable(act):
        return act(state)
    return state


def swipe(state: PhoneState, x1: float, y1: float, x2: float, y2: float) -> PhoneState:
    state = state.tick()
    root = render(state)
    grabbed = hit_test(root, x1, y1)
    if grabbed is not None and isinstance(grabbed.action, tuple) and grabbed.action[0] == "slider":
        return grabbed.action[1](state, _slider_fraction(grabbed, x2, state.config.rtl))
    dx, dy = x2 - x1, y2 - y1
    vertical = abs(dy) >= abs(dx)
    direction = ("down" if dy > 0 else "up") if vertical else ("right" if dx > 0 else "left")
    ov = state.overlay
    if ov is not None:
        if ov.name == "shade" and direction == "down":
            return replace(state, overlay=Screen("qs"))
        if ov.name in ("shade", "qs") and direction == "up":
            return replace(state, overlay=None)
        return state
    if not state.foreground:
        handled = launcher.swipe_launcher(state, direction)
        if handled is not None:
            return handled
    if not vertical:
        return state
    lst = find_scrollable(root, x1, y1)
    if lst is None or not (isinstance(lst.action, tuple) and lst.action[0] == "scroll"):
        return state
    max_scroll = lst.action[1]
    screen = state.screen
    new = int(max(0, min(max_scroll, screen.scroll - FLING * dy)))
    return state.with_screen(replace(screen, scroll=new)) if new != screen.scroll else state


class Handset:
    """The simulated phone without its shell (see the module docstring); :class:`SimPhone` adds the shell."""

    snapshot_kind = "native"

    def __init__(self, config: DeviceConfig | str = "train_env_000"):
        cfg = get_config(config) if isinstance(config, str) else config
        self.state: PhoneState = initial_state(cfg)
        self.files = FileStore()  # /sdcard and /data contents (pushes, dumps, screenshots), byte-bounded
        self.named: dict[str, PhoneState] = {}  # emulator-console snapshots (avd snapshot save NAME)
        self.adb_root = False  # adbd runs as root (`adb root`) until the next reboot

    # ------------------------------------------------------------------ screen
    @property
    def config(self) -> DeviceConfig:
        return self.state.config

    def screen_size(self) -> tuple[int, int]:
        return self.config.width, self.config.height

    def tree(self) -> Node:
        return render(self.state)

    def dump_ui(self) -> str:
        return to_xml(render(self.state))

    def screenshot(self) -> np.ndarray:
        from .screenshot import draw  # lazy: imports Pillow only when a screenshot is asked for

        return np.asarray(draw(self.state, render(self.state)))

    def screenshot_png(self) -> bytes:
        import io

        from .screenshot import draw  # lazy: Pillow, as above

        buf = io.BytesIO()
        draw(self.state, render(self.state)).save(buf, format="PNG")
        return buf.getvalue()

    # ------------------------------------------------------------------ input
    def gesture(self, x1: float, y1: float, x2: float, y2: float) -> None:
        if (x1, y1) == (x2, y2):
            self.state = tap(self.state, x1, y1)
        else:
            self.state = swipe(self.state, x1, y1, x2, y2)

    def keyevent(self, name: str) -> None:
        self.state = press(self.state, key_name(name))

    def text(self, s: str) -> None:
        st = self.state.tick()
        if st.ime:
            if st.foreground == "com.android.dialer" and st.screen.name == "dialer.keypad":
                st = replace(st, dial=st.dial + "".join(ch for ch in s if ch in "0123456789*#+"))
            else:
                st = replace(st, field_text=st.field_text + s)
        elif st.foreground == "com.android.dialer" and st.screen.name == "dialer.keypad":
            st = replace(st, dial=st.dial + "".join(ch for ch in s if ch in "0123456789*#+"))
        self.state = st

    # ------------------------------------------------------------------ files
    def read_file(self, path: str, root: bool = False) -> bytes | None:
        """A file's bytes, or None when there is none; PermissionError for ``shell`` under /data."""
        check_access(path, root, write=False)
        if path in self.files:
            return self.files[path]
        if path == ALARM_DB:
            return export_alarms(self.state)
        return None

    def write_file(self, path: str, data: bytes, root: bool = False) -> None:
        """Store ``data`` at ``path``; PermissionError / OSError (read-only, no space) change nothing."""
        check_access(path, root, write=True)
        self.files[path] = data

    def remove_file(self, path: str, root: bool = False) -> bool:
        check_access(path, root, write=True)
        return self.files.pop(path, None) is not None

    def reboot(self, soft: bool = False) -> None:
        """A boot (``soft``: only the framework restarts, as ``setprop ctl.restart zygote``).

        Apps and recents are gone, logcat is empty, the home screen shows; settings,
        alarms, files and properties stay. ``persist.sys.locale`` becomes the UI
        language, and an ``alarms.db`` pushed to deskclock's path replaces the alarms.
        """
        st = self.state
        locale = dict(st.props).get("persist.sys.locale")
        if locale and locale.replace("-", "_") != st.config.locale.replace("-", "_"):
            sep = "_" if "_" in st.config.locale else "-"
            st = replace(st, config=replace(st.config, locale=locale.replace("-", sep).replace("_", sep)))
        pushed = self.files.pop(ALARM_DB, None)
        problem = None
        if pushed is not None:
            try:
                st = replace(st, alarms=import_alarms(pushed))
            except ValueError as exc:  # deskclock starts with the alarms it had, and says why in the log
                problem = f"cannot read the pushed alarms.db, kept the alarms it had: {exc}"
        fresh = PhoneState(config=st.config, clock_ms=st.clock_ms)
        st = replace(st, launcher=fresh.launcher, foreground="", tasks=(), overlay=None, stopwatch=fresh.stopwatch,
                     dial="", call=None, ime="", field_text="", alive=fresh.alive, log_cleared=st.log_count)
        if problem:
            st = st.emit("com.google.android.deskclock", "E", "AlarmClock", problem)
        self.state = st
        if not soft:
            self.adb_root = False

    def logcat_clear(self) -> None:
        self.state = replace(self.state, log_cleared=self.state.log_count)

    def logcat_read(self, cursor: int) -> tuple[list[str], int]:
        return self.state.log_lines(cursor), self.state.log_count

    # ------------------------------------------------------------------ snapshots
    def save_snapshot(self) -> PhoneState:
        return self.state

    def load_snapshot(self, ref: Any) -> None:
        if not isinstance(ref, PhoneState):
            raise TypeError(f"SimPhone.load_snapshot needs a PhoneState, got {type(ref).__name__}")
        self.state = ref

    def drop_snapshot(self, ref: Any) -> None:
        return None

    def close(self) -> None:
        return None

    # ------------------------------------------------------------------ helpers for shell
    def set_clock(self, when: datetime) -> None:
        self.state = replace(self.state, clock_ms=int(calendar.timegm(when.timetuple()) * 1000))
