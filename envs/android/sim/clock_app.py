"""The simulated Clock (deskclock): Alarm, Clock, Timer and Stopwatch tabs and the Material time picker.

``render_clock(state, ctx, screen)`` returns the window's node tree; clickable
nodes carry the transition they trigger. Log lines are those B-MoCA's detectors
match (``AlarmClock`` events, ``ConditionProviders.SCP nextUserAlarmTime``).
"""
from __future__ import annotations

import math
from dataclasses import replace
from datetime import timedelta

from ..ui import Node
from . import system
from .layout import BUTTON, FRAME, IMAGE_BUTTON, LINEAR, TEXT, VIEW_GROUP, Ctx, center_fab, scroll_list, toolbar, window
from .state import Alarm, PhoneState, Screen

CLOCK = "com.google.android.deskclock"
CID = f"{CLOCK}:id/"


# ====================================================================== Clock
CLOCK_TABS = (("alarm", "Alarm"), ("clock", "Clock"), ("timer", "Timer"), ("stopwatch", "Stopwatch"))


def _clock_event(state: PhoneState, category: str, action: str) -> PhoneState:
    return state.emit(CLOCK, "D", "AlarmClock", f"Events: [{category}] [{action}] [Tap]")


def _show_tab(state: PhoneState, tab: str, label: str) -> PhoneState:
    state = _clock_event(state, label, "Show Tab")
    return state.with_screen(Screen(f"clock.{tab}"))


def next_alarm(state: PhoneState):
    """The next enabled alarm's datetime after the device clock, or None."""
    now = state.now
    best = None
    for a in state.alarms:
        if not a.enabled:
            continue
        for d in range(8):
            day = now + timedelta(days=d)
            t = day.replace(hour=a.hour, minute=a.minute, second=0, microsecond=0)
            if t <= now:
                continue
            if a.days and not (a.days >> t.weekday()) & 1:
                continue
            best = t if best is None or t < best else best
            break
    return best


def _alarms_changed(state: PhoneState) -> PhoneState:
    nxt = next_alarm(state)
    text = nxt.strftime("%a %b %d %H:%M:%S GMT %Y") if nxt else "null"
    return state.emit("system_server", "D", "ConditionProviders.SCP",
                      f"onReceive android.app.action.NEXT_ALARM_CLOCK_CHANGED nextUserAlarmTime={text}")


def _set_alarm_enabled(state: PhoneState, alarm_id: int, on: bool) -> PhoneState:
    alarms = tuple(replace(a, enabled=on) if a.alarm_id == alarm_id else a for a in state.alarms)
    state = replace(state, alarms=alarms)
    if on:
        state = state.emit(CLOCK, "I", "AlarmClock", f"Created new alarm instance: AlarmInstance{{id={alarm_id}}}")
    else:
        state = state.emit(CLOCK, "I", "AlarmClock", f"Removed alarm instance: AlarmInstance{{id={alarm_id}}}")
    return _alarms_changed(state)


def _delete_alarm(state: PhoneState, alarm_id: int) -> PhoneState:
    state = replace(state, alarms=tuple(a for a in state.alarms if a.alarm_id != alarm_id))
    state = state.emit(CLOCK, "I", "AlarmClock", f"Removed alarm: Alarm{{id={alarm_id}}}")
    return _alarms_changed(state)


def _expand(state: PhoneState, alarm_id: int) -> PhoneState:
    return replace(state, alarms=tuple(replace(a, expanded=(a.alarm_id == alarm_id and not a.expanded))
                                       for a in state.alarms))


def _open_picker(state: PhoneState) -> PhoneState:
    now = state.now
    return state.push(Screen("clock.picker", arg=(now.hour, now.minute, "hour")))


def _picker_ok(state: PhoneState) -> PhoneState:
    h, m, _mode = state.screen.arg
    new_id = max((a.alarm_id for a in state.alarms), default=0) + 1
    state = system.go_back(state)
    state = replace(state, alarms=state.alarms + (Alarm(new_id, h, m, True, 0),))
    state = _clock_event(state, "Alarm", "Create")
    state = state.emit(CLOCK, "I", "AlarmClock", f"Created new alarm instance: AlarmInstance{{id={new_id}}}")
    return _alarms_changed(state)


def _fmt12(h: int, m: int) -> str:
    return f"{(h % 12) or 12}:{m:02d}"


def render_clock(state: PhoneState, ctx: Ctx, screen: Screen) -> Node:
    if screen.name == "clock.picker":
        return _render_picker(state, ctx, screen)
    tab = screen.name.split(".")[1]
    tab_h = ctx.dp(64)
    body = (0, ctx.sb + ctx.dp(56), ctx.W, ctx.cb - tab_h)
    kids: list[Node] = [toolbar(ctx, CLOCK, dict(CLOCK_TABS)[tab], rid=f"{CID}toolbar",
                                actions=((f"{CID}menu", "More options", "more", None),))]
    if tab == "alarm":
        rows = []
        for a in state.alarms:
            def build(x1, y1, x2, y2, a=a):
                card = Node(VIEW_GROUP, (x1 + ctx.dp(8), y1 + ctx.dp(4), x2 - ctx.dp(8), y2 - ctx.dp(4)),
                            rid=f"{CID}alarm_item", clickable=True, key=f"alarm:{a.alarm_id}",
                            action=lambda s, i=a.alarm_id: _expand(s, i), style="card")
                card.add(Node(TEXT, (x1 + ctx.dp(24), y1 + ctx.dp(16), x1 + ctx.dp(200), y1 + ctx.dp(64)),
                              rid=f"{CID}digital_clock", text=f"{_fmt12(a.hour, a.minute)} {'AM' if a.hour < 12 else 'PM'}",
                              clickable=True, key=f"alarm_time:{a.alarm_id}", style="big"))
                card.add(Node("android.widget.Switch", (x2 - ctx.dp(80), y1 + ctx.dp(24), x2 - ctx.dp(24),
                                                        y1 + ctx.dp(56)), rid=f"{CID}onoff",
                              text="ON" if a.enabled else "OFF", checkable=True, checked=a.enabled, clickable=True,
                              key=f"alarm_switch:{a.alarm_id}",
                              action=lambda s, i=a.alarm_id, on=a.enabled: _set_alarm_enabled(s, i, not on),
                              style="switch"))
                days = "Sat, Sun" if a.days == 96 else ("Not scheduled" if not a.enabled else "Tomorrow")
                card.add(Node(TEXT, (x1 + ctx.dp(24), y1 + ctx.dp(68), x2 - ctx.dp(64), y1 + ctx.dp(92)),
                              rid=f"{CID}upcoming_instance_label", text=days, style="summary"))
                card.add(Node(IMAGE_BUTTON, (x2 - ctx.dp(64), y1 + ctx.dp(64), x2 - ctx.dp(16), y1 + ctx.dp(100)),
                              rid=f"{CID}arrow", desc="Collapse alarm" if a.expanded else "Expand alarm",
                              clickable=True, key=f"alarm_arrow:{a.alarm_id}",
                              action=lambda s, i=a.alarm_id: _expand(s, i), style="icon"))
                if a.expanded:
                    card.add(Node(BUTTON, (x1 + ctx.dp(24), y2 - ctx.dp(56), x1 + ctx.dp(140), y2 - ctx.dp(12)),
                                  rid=f"{CID}delete", text="Delete", clickable=True, key=f"alarm_delete:{a.alarm_id}",
                                  action=lambda s, i=a.alarm_id: _delete_alarm(s, i), style="button"))
                return card
            rows.append((f"alarm:{a.alarm_id}", 180 if a.expanded else 112, build))
        lst, _ = scroll_list(ctx, f"{CID}alarm_recycler_view", body, rows, screen.scroll)
        kids.append(lst)
        kids.append(center_fab(ctx, ctx.cb - tab_h - ctx.dp(16), f"{CID}fab", "Add alarm", "add_alarm", _open_picker))
    elif tab == "clock":
        kids.append(Node(TEXT, (0, body[1] + ctx.dp(40), ctx.W, body[1] + ctx.dp(140)), rid=f"{CID}digital_clock",
                         text=state.now.strftime("%-I:%M"), style="huge"))
    elif tab == "timer":
        kids.append(Node(TEXT, (0, body[1] + ctx.dp(40), ctx.W, body[1] + ctx.dp(120)), rid=f"{CID}timer_setup_time",
                         text="00h 00m 00s", style="huge"))
    else:
        st, elapsed = state.stopwatch
        kids.append(Node(TEXT, (0, body[1] + ctx.dp(60), ctx.W, body[1] + ctx.dp(160)), rid=f"{CID}stopwatch_time_text",
                         text=f"{elapsed // 60000:02d}:{elapsed // 1000 % 60:02d}.{elapsed // 10 % 100:02d}",
                         style="huge"))
        y2 = ctx.cb - tab_h - ctx.dp(16)
        kids.append(center_fab(ctx, y2, f"{CID}fab", "Pause" if st == "running" else "Start", "stopwatch_fab",
                                _stopwatch_fab))
        if st != "reset":
            kids.append(Node(BUTTON, (ctx.dp(16), y2 - ctx.dp(48), ctx.W // 2 - ctx.dp(56), y2), rid=f"{CID}left_button",
                             text="Reset", clickable=True, key="stopwatch_reset", action=_stopwatch_reset,
                             style="button"))
            kids.append(Node(BUTTON, (ctx.W // 2 + ctx.dp(56), y2 - ctx.dp(48), ctx.W - ctx.dp(16), y2),
                             rid=f"{CID}right_button", text="Lap" if st == "running" else "Share", clickable=True,
                             key="stopwatch_right", action=lambda s: s, style="button"))
    tabs = Node(LINEAR, (0, ctx.cb - tab_h, ctx.W, ctx.cb), rid=f"{CID}tabs", style="tabs")
    tw = ctx.W // len(CLOCK_TABS)
    for i, (t, label) in enumerate(CLOCK_TABS):
        tabs.add(Node(TEXT, (i * tw, ctx.cb - tab_h, (i + 1) * tw, ctx.cb), rid=f"{CID}tab_menu_{t}", text=label,
                      desc=label, clickable=True, selected=(t == tab), key=f"tab:{t}",
                      action=lambda s, t=t, lb=label: _show_tab(s, t, lb), style="tab"))
    kids.append(tabs)
    return window(ctx, CLOCK, *kids)


def _stopwatch_fab(state: PhoneState) -> PhoneState:
    st, elapsed = state.stopwatch
    if st == "running":
        state = _clock_event(state, "Stopwatch", "Pause")
        return replace(state, stopwatch=("paused", elapsed + 1000))
    state = _clock_event(state, "Stopwatch", "Start")
    return replace(state, stopwatch=("running", elapsed))


def _stopwatch_reset(state: PhoneState) -> PhoneState:
    state = _clock_event(state, "Stopwatch", "Reset")
    return replace(state, stopwatch=("reset", 0))


def _picker_set(state: PhoneState, value: int) -> PhoneState:
    h, m, mode = state.screen.arg
    if mode == "hour":
        pm = h >= 12
        h = (value % 12) + (12 if pm else 0)
        return state.with_screen(Screen("clock.picker", arg=(h, m, "minute")))
    return state.with_screen(Screen("clock.picker", arg=(h, value % 60, "minute")))


def _picker_ampm(state: PhoneState, pm: bool) -> PhoneState:
    h, m, mode = state.screen.arg
    h = h % 12 + (12 if pm else 0)
    return state.with_screen(Screen("clock.picker", arg=(h, m, mode)))


def _render_picker(state: PhoneState, ctx: Ctx, screen: Screen) -> Node:
    h, m, mode = screen.arg
    A = "android:id/"
    w = min(ctx.W - ctx.dp(48), ctx.dp(320))
    x1 = (ctx.W - w) // 2
    head_h, dial = ctx.dp(96), min(w - ctx.dp(32), ctx.cb - ctx.sb - ctx.dp(240))
    total = head_h + dial + ctx.dp(112)
    y1 = max(ctx.sb, (ctx.sb + ctx.cb - total) // 2)
    root = Node(FRAME, (0, 0, ctx.W, ctx.cb), package=CLOCK, style="scrim")
    dlg = Node(FRAME, (x1, y1, x1 + w, y1 + total), rid=f"{A}content", package=CLOCK, style="dialog")
    head = Node(LINEAR, (x1, y1, x1 + w, y1 + head_h), rid=f"{A}time_header", style="pickerhead")
    head.add(Node(TEXT, (x1 + w * 6 // 100, y1 + ctx.dp(16), x1 + w * 30 // 100, y1 + ctx.dp(80)), rid=f"{A}hours",
                  text=str((h % 12) or 12), clickable=True, selected=mode == "hour", key="picker_hours",
                  action=lambda s: s.with_screen(Screen("clock.picker", arg=(s.screen.arg[0], s.screen.arg[1], "hour"))),
                  style="huge"))
    head.add(Node(TEXT, (x1 + w * 34 // 100, y1 + ctx.dp(16), x1 + w * 60 // 100, y1 + ctx.dp(80)), rid=f"{A}minutes",
                  text=f"{m:02d}", clickable=True, selected=mode == "minute", key="picker_minutes",
                  action=lambda s: s.with_screen(Screen("clock.picker", arg=(s.screen.arg[0], s.screen.arg[1], "minute"))),
                  style="huge"))
    ax1, ax2 = x1 + w * 70 // 100, x1 + w * 94 // 100
    ampm = Node(LINEAR, (ax1, y1 + ctx.dp(16), ax2, y1 + ctx.dp(80)),
                rid=f"{A}ampm_layout")
    ampm.add(Node("android.widget.RadioButton", (ax1, y1 + ctx.dp(16), ax2,
                                                 y1 + ctx.dp(48)), rid=f"{A}am_label", text="AM", checkable=True,
                  checked=h < 12, clickable=True, key="picker_am", action=lambda s: _picker_ampm(s, False),
                  style="text"))
    ampm.add(Node("android.widget.RadioButton", (ax1, y1 + ctx.dp(48), ax2,
                                                 y1 + ctx.dp(80)), rid=f"{A}pm_label", text="PM", checkable=True,
                  checked=h >= 12, clickable=True, key="picker_pm", action=lambda s: _picker_ampm(s, True),
                  style="text"))
    head.add(ampm)
    dlg.add(head)
    cx, cy = x1 + w // 2, y1 + head_h + ctx.dp(16) + dial // 2
    r = dial // 2
    radial = Node("android.view.View", (cx - r, cy - r, cx + r, cy + r), rid=f"{A}radial_picker", focusable=True,
                  style="dial")
    values = range(1, 13) if mode == "hour" else range(0, 60, 5)
    rr = r - ctx.dp(20)
    half = ctx.dp(20)
    for v in values:
        pos = v % 12 if mode == "hour" else v // 5
        ang = math.radians(pos * 30 - 90)
        px, py = int(cx + rr * math.cos(ang)), int(cy + rr * math.sin(ang))
        sel = ((h % 12) or 12) == v if mode == "hour" else m == v
        radial.add(Node("android.widget.RadialTimePickerView$RadialPickerTouchHelper",
                        (px - half, py - half, px + half, py + half), desc=str(v), text="", clickable=True,
                        selected=sel, key=f"dial:{mode}:{v}", action=lambda s, v=v: _picker_set(s, v),
                        style="dialnum"))
    dlg.add(radial)
    by = y1 + total - ctx.dp(56)
    dlg.add(Node(IMAGE_BUTTON, (x1 + ctx.dp(8), by, x1 + ctx.dp(56), by + ctx.dp(48)), rid=f"{A}toggle_mode",
                 desc="Switch to text input mode for the time input.", clickable=True, key="picker_toggle",
                 action=lambda s: s, style="icon"))
    dlg.add(Node(BUTTON, (x1 + w - ctx.dp(176), by, x1 + w - ctx.dp(96), by + ctx.dp(48)), rid=f"{A}button2",
                 text="CANCEL", clickable=True, key="picker_cancel", action=system.go_back, style="button"))
    dlg.add(Node(BUTTON, (x1 + w - ctx.dp(88), by, x1 + w - ctx.dp(16), by + ctx.dp(48)), rid=f"{A}button1",
                 text="OK", clickable=True, key="picker_ok", action=_picker_ok, style="button"))
    root.add(dlg)
    return root
