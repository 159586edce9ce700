"""The other simulated apps: Clock, Phone, Contacts, Messages, Chrome, Files, Photos, YouTube, Maps and open-only apps.

Each ``render_*`` takes ``(state, ctx, screen)`` and returns the window's node
tree; clickable nodes carry the transition they trigger. Log lines are those
B-MoCA's detectors match (``AlarmClock`` events, ``Telecom`` call records,
``DirectoryFragment`` directory changes, ``BugleUsageStatistics``, START lines
of the activities the tasks name).
"""
from __future__ import annotations

import math
from dataclasses import replace
from datetime import timedelta

from ..ui import Node
from . import system
from .layout import (BUTTON, EDIT, FRAME, IMAGE, IMAGE_BUTTON, LINEAR, TEXT, VIEW_GROUP, Ctx, scroll_list, toolbar,
                     window)
from .state import CONTACTS, CONVERSATIONS, Alarm, PhoneState, Screen

CLOCK = "com.google.android.deskclock"
CID = f"{CLOCK}:id/"


def _fab(ctx: Ctx, rid: str, desc: str, key: str, action, text: str = "") -> Node:
    s = ctx.dp(56)
    x2, y2 = ctx.W - ctx.dp(16), ctx.cb - ctx.dp(16)
    return Node(IMAGE_BUTTON if not text else BUTTON, (x2 - (s * 3 if text else s), y2 - s, x2, y2), rid=rid,
                desc=desc, text=text, clickable=True, key=key, action=action, style="fab")


def _center_fab(ctx: Ctx, y2: int, rid: str, desc: str, key: str, action) -> Node:
    s = ctx.dp(64)
    x = ctx.W // 2
    return Node(IMAGE_BUTTON, (x - s // 2, y2 - s, x + s // 2, y2), rid=rid, desc=desc, clickable=True, key=key,
                action=action, style="fab")


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
        kids.append(_center_fab(ctx, ctx.cb - tab_h - ctx.dp(16), f"{CID}fab", "Add alarm", "add_alarm", _open_picker))
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
        kids.append(_center_fab(ctx, y2, f"{CID}fab", "Pause" if st == "running" else "Start", "stopwatch_fab",
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
        label = str(v) if mode == "hour" else f"{v:02d}" if v else "00"
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


# ====================================================================== Phone
DIALER = "com.android.dialer"
DID = f"{DIALER}:id/"
KEYS = (("1", "one"), ("2", "two"), ("3", "three"), ("4", "four"), ("5", "five"), ("6", "six"), ("7", "seven"),
        ("8", "eight"), ("9", "nine"), ("*", "star"), ("0", "zero"), ("#", "pound"))
EMERGENCY = ("911", "112", "999", "000", "08", "110", "118", "119")


def place_call(state: PhoneState, number: str) -> PhoneState:
    if not number:
        return state
    T = "com.android.server.telecom"
    state = state.emit(T, "I", "Telecom", f"CallsManager: startOutgoingCall: tel:{number}: TSI.pC@AAA")
    if number in EMERGENCY:
        state = state.emit(T, "I", "Telecom", f"NewOutgoingCallIntentBroadcaster: Emergency number detected: {number}")
    state = state.emit(T, "I", "Telecom", f"LogUtils$EventTimer: EventRecord added as Call TC@1: tel:{number}")
    state = state.emit(T, "I", "Telecom", "InCallController: onCallAdded: [TC@1, DIALING]")
    state = replace(state, call=(number, "dialing"), dial="")
    return state.push(Screen("dialer.incall"))


def end_call(state: PhoneState) -> PhoneState:
    if state.call is None:
        return state
    T = "com.android.server.telecom"
    state = state.emit(T, "I", "Telecom", "Call: setState DISCONNECTED, TC@1")
    state = state.emit(T, "I", "Telecom", "InCallController: onCallRemoved: [TC@1, DISCONNECTED]")
    state = replace(state, call=None)
    task = state.top_task
    if task is not None and task.package == DIALER and task.screens[-1].name == "dialer.incall":
        state = system.go_back(state)
    return state


def render_dialer(state: PhoneState, ctx: Ctx, screen: Screen) -> Node:
    if screen.name == "dialer.incall":
        number = state.call[0] if state.call else ""
        kids = [Node(TEXT, (0, ctx.sb + ctx.dp(80), ctx.W, ctx.sb + ctx.dp(140)), rid=f"{DID}contactgrid_contact_name",
                     text=number, style="huge"),
                Node(TEXT, (0, ctx.sb + ctx.dp(140), ctx.W, ctx.sb + ctx.dp(170)),
                     rid=f"{DID}contactgrid_status_text", text="Calling…" if state.call else "Call ended",
                     style="summary")]
        bw = ctx.W // 3
        by = ctx.cb - ctx.dp(300)
        for i, (rid, desc) in enumerate((("incall_first_button", "Mute"), ("incall_second_button", "Keypad"),
                                         ("incall_third_button", "Speaker"))):
            kids.append(Node(IMAGE_BUTTON, (i * bw, by, (i + 1) * bw, by + ctx.dp(72)), rid=f"{DID}{rid}", desc=desc,
                             clickable=True, checkable=True, key=f"incall:{desc}", action=lambda s: s, style="icon"))
        kids.append(_center_fab(ctx, ctx.cb - ctx.dp(48), f"{DID}incall_end_call", "End call", "end_call", end_call))
        kids[-1].style = "endcall"
        return window(ctx, DIALER, *kids)
    if screen.name == "dialer.keypad":
        kids = [toolbar(ctx, DIALER, "", up=system.go_back)]
        digits = Node(EDIT, (ctx.dp(16), ctx.sb + ctx.dp(64), ctx.W - ctx.dp(72), ctx.sb + ctx.dp(128)),
                      rid=f"{DID}digits", text=state.dial, focusable=True, style="huge")
        kids.append(digits)
        kids.append(Node(IMAGE_BUTTON, (ctx.W - ctx.dp(64), ctx.sb + ctx.dp(72), ctx.W - ctx.dp(16), ctx.sb + ctx.dp(120)),
                         rid=f"{DID}deleteButton", desc="backspace", clickable=True, key="backspace",
                         action=lambda s: replace(s, dial=s.dial[:-1]), style="icon"))
        top = ctx.sb + ctx.dp(144)
        bottom = ctx.cb - ctx.dp(104)
        kh = (bottom - top) // 4
        kw = ctx.W // 3
        pad = Node(LINEAR, (0, top, ctx.W, bottom), rid=f"{DID}dialpad_view")
        for i, (ch, name) in enumerate(KEYS):
            r, c = divmod(i, 3)
            key = Node(FRAME, (c * kw, top + r * kh, (c + 1) * kw, top + (r + 1) * kh), rid=f"{DID}{name}", desc=ch,
                       clickable=True, key=f"digit:{ch}", action=lambda s, ch=ch: replace(s, dial=s.dial + ch),
                       style="key")
            key.add(Node(TEXT, (c * kw, top + r * kh, (c + 1) * kw, top + (r + 1) * kh), rid=f"{DID}dialpad_key_number",
                         text=ch, style="big"))
            pad.add(key)
        kids.append(pad)
        call = _center_fab(ctx, ctx.cb - ctx.dp(24), f"{DID}dialpad_floating_action_button", "dial", "call",
                           lambda s: place_call(s, s.dial))
        call.style = "callfab"
        kids.append(call)
        return window(ctx, DIALER, *kids)
    # main: favorites/recents/contacts
    tab = screen.arg[0] if screen.arg else "favorites"
    kids = [Node(FRAME, (ctx.dp(16), ctx.sb + ctx.dp(8), ctx.W - ctx.dp(16), ctx.sb + ctx.dp(56)),
                 rid=f"{DID}search_view_container", package=DIALER)]
    kids[0].add(Node(TEXT, kids[0].bounds, rid=f"{DID}open_search_bar_text_view", text="Search contacts & places",
                     clickable=True, key="dialer_search", action=lambda s: system.activate_ime(s, DIALER, "search_view"),
                     style="searchbar"))
    body = (0, ctx.sb + ctx.dp(64), ctx.W, ctx.cb - ctx.dp(56))
    rows = []
    entries = CONTACTS[:3] if tab != "contacts" else CONTACTS
    for i, (name, number) in enumerate(entries):
        rows.append((f"dialer_row{i}", 72, lambda x1, y1, x2, y2, name=name, number=number: _call_row(
            ctx, (x1, y1, x2, y2), name, number, tab)))
    lst, _ = scroll_list(ctx, f"{DID}list", body, rows, screen.scroll)
    kids.append(lst)
    kids.append(_fab(ctx, f"{DID}fab", "key pad", "keypad", lambda s: s.push(Screen("dialer.keypad"))))
    x = kids[-1].bounds
    kids[-1].bounds = (x[0], x[1] - ctx.dp(56), x[2], x[3] - ctx.dp(56))
    nav = Node(LINEAR, (0, ctx.cb - ctx.dp(56), ctx.W, ctx.cb), rid=f"{DID}bottom_navigation", style="tabs")
    tw = ctx.W // 3
    for i, (t, label) in enumerate((("favorites", "Favorites"), ("recents", "Recents"), ("contacts", "Contacts"))):
        nav.add(Node(FRAME, (i * tw, ctx.cb - ctx.dp(56), (i + 1) * tw, ctx.cb), rid=f"{DID}{t}_tab", desc=label,
                     text="", clickable=True, selected=t == tab, key=f"dialer_tab:{t}",
                     action=lambda s, t=t: s.with_screen(Screen("dialer.main", arg=(t,))), style="tab"))
    kids.append(nav)
    return window(ctx, DIALER, *kids)


def _call_row(ctx: Ctx, b, name: str, number: str, tab: str) -> Node:
    row = Node(LINEAR, b, rid=f"{DIALER}:id/call_log_row" if tab == "recents" else f"{DIALER}:id/contact_row",
               clickable=True, key=f"callrow:{name}", action=lambda s: s, style="row")
    row.add(Node(TEXT, (b[0] + ctx.dp(72), b[1] + ctx.dp(12), b[2] - ctx.dp(72), b[1] + ctx.dp(40)),
                 rid=f"{DIALER}:id/primary_text", text=name, style="text"))
    row.add(Node(TEXT, (b[0] + ctx.dp(72), b[1] + ctx.dp(40), b[2] - ctx.dp(72), b[3] - ctx.dp(8)),
                 rid=f"{DIALER}:id/secondary_text", text=number, style="summary"))
    row.add(Node(IMAGE_BUTTON, (b[2] - ctx.dp(64), b[1] + ctx.dp(12), b[2] - ctx.dp(16), b[3] - ctx.dp(12)),
                 rid=f"{DIALER}:id/call_button", desc=f"Call {name}", clickable=True, key=f"callback:{name}",
                 action=lambda s, n=number: place_call(s, "".join(ch for ch in n if ch.isdigit())), style="icon"))
    return row


# ====================================================================== Contacts
CONTACTS_PKG = "com.android.contacts"
KID = f"{CONTACTS_PKG}:id/"


def render_contacts(state: PhoneState, ctx: Ctx, screen: Screen) -> Node:
    if screen.name == "contacts.detail":
        name, number = CONTACTS[screen.arg[0]]
        kids = [toolbar(ctx, CONTACTS_PKG, "", up=system.go_back,
                        actions=((f"{KID}menu_star", "Add to favorites", "star", lambda s: s),
                                 (f"{KID}menu_edit", "Edit contact", "edit_contact", lambda s, i=screen.arg[0]: _edit(s, i)),
                                 (f"{KID}more", "More options", "more", None)))]
        kids.append(Node(TEXT, (ctx.dp(24), ctx.sb + ctx.dp(180), ctx.W - ctx.dp(24), ctx.sb + ctx.dp(230)),
                         rid=f"{KID}large_title", text=name, style="huge"))
        kids.append(Node(TEXT, (ctx.dp(72), ctx.sb + ctx.dp(260), ctx.W - ctx.dp(24), ctx.sb + ctx.dp(300)),
                         rid=f"{KID}header", text=number, clickable=True, key="number",
                         action=lambda s, n=number: place_call(s, "".join(c for c in n if c.isdigit())),
                         style="text"))
        return window(ctx, CONTACTS_PKG, *kids)
    if screen.name == "contacts.editor":
        title = "Edit contact" if screen.arg[0] == "edit" else "Create new contact"
        kids = [toolbar(ctx, CONTACTS_PKG, title, up=system.go_back,
                        actions=((f"{KID}editor_menu_save_button", "Save", "save", system.go_back),))]
        y = ctx.sb + ctx.dp(80)
        prefill = CONTACTS[screen.arg[1]] if screen.arg[0] == "edit" else ("", "")
        for i, (hint, val) in enumerate((("First name", prefill[0].split(" ")[0] if prefill[0] else ""),
                                         ("Last name", prefill[0].split(" ")[-1] if prefill[0] else ""),
                                         ("Phone", prefill[1]))):
            kids.append(Node(EDIT, (ctx.dp(72), y, ctx.W - ctx.dp(24), y + ctx.dp(48)), text=val or hint,
                             clickable=True, key=f"field:{hint}",
                             action=lambda s, h=hint: system.activate_ime(s, CONTACTS_PKG, h.lower().replace(" ", "_"), h),
                             style="field"))
            y += ctx.dp(64)
        return window(ctx, CONTACTS_PKG, *kids)
    kids = [toolbar(ctx, CONTACTS_PKG, "Contacts", rid=f"{KID}toolbar",
                    actions=((f"{KID}menu_search", "Search contacts", "search",
                              lambda s: system.activate_ime(s, CONTACTS_PKG, "search_view")),
                             (f"{KID}more", "More options", "more", None)))]
    rows = []
    for i, (name, _n) in enumerate(CONTACTS):
        rows.append((f"contact:{i}", 64, lambda x1, y1, x2, y2, i=i, name=name: Node(
            TEXT, (x1, y1, x2, y2), rid=f"{KID}cliv_name_textview", text=name, clickable=True, key=f"contact:{i}",
            action=lambda s, i=i: _detail(s, i), style="row")))
    lst, _ = scroll_list(ctx, "android:id/list", (0, ctx.sb + ctx.dp(56), ctx.W, ctx.cb), rows, screen.scroll,
                         cls="android.widget.ListView")
    kids.append(lst)
    kids.append(_fab(ctx, f"{KID}floating_action_button", "Create new contact", "create_contact", _insert))
    return window(ctx, CONTACTS_PKG, *kids)


def _detail(state: PhoneState, i: int) -> PhoneState:
    return system.start_activity(state, CONTACTS_PKG, "com.android.contacts/.quickcontact.QuickContactActivity",
                                 Screen("contacts.detail", arg=(i,)), action="android.provider.action.QUICK_CONTACT",
                                 data=f"content://com.android.contacts/contacts/lookup/0r{i + 1}/{i + 1}")


def _edit(state: PhoneState, i: int) -> PhoneState:
    return system.start_activity(state, CONTACTS_PKG, "com.android.contacts/.activities.ContactEditorActivity",
                                 Screen("contacts.editor", arg=("edit", i)), action="android.intent.action.EDIT",
                                 data=f"content://com.android.contacts/contacts/lookup/0r{i + 1}/{i + 1}")


def _insert(state: PhoneState) -> PhoneState:
    return system.start_activity(state, CONTACTS_PKG, "com.android.contacts/.activities.ContactEditorActivity",
                                 Screen("contacts.editor", arg=("insert", -1)), action="android.intent.action.INSERT",
                                 data="content://com.android.contacts/contacts")


# ====================================================================== Messages
MSG = "com.google.android.apps.messaging"
MID = f"{MSG}:id/"


def render_messages(state: PhoneState, ctx: Ctx, screen: Screen) -> Node:
    if screen.name == "messages.new":
        kids = [toolbar(ctx, MSG, "New conversation", up=system.go_back)]
        kids.append(Node(EDIT, (ctx.dp(16), ctx.sb + ctx.dp(56), ctx.W - ctx.dp(16), ctx.sb + ctx.dp(104)),
                         rid=f"{MID}recipient_text_view", text="Type a name, phone number, or email", clickable=True,
                         key="recipient", action=lambda s: system.activate_ime(s, MSG, "recipient_text_view"),
                         style="field"))
        rows = [(f"pick:{i}", 64, lambda x1, y1, x2, y2, i=i, n=n: Node(
            TEXT, (x1, y1, x2, y2), rid=f"{MID}contact_name", text=n, clickable=True, key=f"pick:{i}",
            action=lambda s, n=n: _create_conversation(s, n), style="row")) for i, (n, _x) in enumerate(CONTACTS)]
        lst, _ = scroll_list(ctx, f"{MID}contact_list", (0, ctx.sb + ctx.dp(112), ctx.W, ctx.cb), rows, screen.scroll)
        kids.append(lst)
        return window(ctx, MSG, *kids)
    if screen.name == "messages.conversation":
        kids = [toolbar(ctx, MSG, screen.arg[0], up=system.go_back)]
        kids.append(Node(EDIT, (ctx.dp(16), ctx.cb - ctx.dp(64), ctx.W - ctx.dp(72), ctx.cb - ctx.dp(8)),
                         rid=f"{MID}compose_message_text", text=state.field_text if state.ime == MSG else "Text message",
                         clickable=True, key="compose", action=lambda s: system.activate_ime(s, MSG, "compose_message_text"),
                         style="field"))
        return window(ctx, MSG, *kids)
    if screen.name == "messages.search":
        kids = [toolbar(ctx, MSG, "", up=system.go_back)]
        kids.append(Node(EDIT, (ctx.dp(72), ctx.sb + ctx.dp(4), ctx.W - ctx.dp(16), ctx.sb + ctx.dp(52)),
                         rid=f"{MID}zero_state_search_box_auto_complete", text=state.field_text or "Search messages",
                         focused=state.ime == MSG, style="field"))
        return window(ctx, MSG, *kids)
    kids = [toolbar(ctx, MSG, "Messages", rid=f"{MID}toolbar",
                    actions=((f"{MID}action_zero_state_search", "Search", "search", _msg_search),
                             (f"{MID}more", "More options", "more", None)))]
    rows = [(f"conv:{i}", 72, lambda x1, y1, x2, y2, n=n, t=t: _conv_row(ctx, (x1, y1, x2, y2), n, t))
            for i, (n, t) in enumerate(CONVERSATIONS)]
    lst, _ = scroll_list(ctx, f"{MID}list", (0, ctx.sb + ctx.dp(56), ctx.W, ctx.cb), rows, screen.scroll)
    kids.append(lst)
    kids.append(_fab(ctx, f"{MID}start_chat_fab", "", "start_chat", lambda s: s.push(Screen("messages.new")),
                     text="Start chat"))
    return window(ctx, MSG, *kids)


def _conv_row(ctx: Ctx, b, name: str, snippet: str) -> Node:
    row = Node(LINEAR, b, rid=f"{MID}swipeableContainer", clickable=True, key=f"conv:{name}",
               action=lambda s: s.push(Screen("messages.conversation", arg=(name,))), style="row")
    row.add(Node(TEXT, (b[0] + ctx.dp(72), b[1] + ctx.dp(12), b[2] - ctx.dp(16), b[1] + ctx.dp(40)),
                 rid=f"{MID}conversation_name", text=name, style="text"))
    row.add(Node(TEXT, (b[0] + ctx.dp(72), b[1] + ctx.dp(40), b[2] - ctx.dp(16), b[3] - ctx.dp(8)),
                 rid=f"{MID}conversation_snippet", text=snippet, style="summary"))
    return row


def _msg_search(state: PhoneState) -> PhoneState:
    state = state.push(Screen("messages.search"))
    return system.activate_ime(state, MSG, "zero_state_search_box_auto_complete", "Search messages")


def _create_conversation(state: PhoneState, name: str) -> PhoneState:
    state = state.emit(MSG, "I", "BugleUsageStatistics", "logEvent: BUGLE CREATE CONVERSATION VIA_DEFAULT")
    state = system.go_back(state)
    return state.push(Screen("messages.conversation", arg=(name,)))


# ====================================================================== Chrome
CHROME = "com.android.chrome"
HID = f"{CHROME}:id/"


def _chrome_bar(state: PhoneState, ctx: Ctx, url: str) -> Node:
    bar = Node(FRAME, (0, ctx.sb, ctx.W, ctx.sb + ctx.dp(56)), rid=f"{HID}toolbar", style="toolbar")
    bar.add(Node(EDIT, (ctx.dp(8), ctx.sb + ctx.dp(8), ctx.W - ctx.dp(104), ctx.sb + ctx.dp(48)), rid=f"{HID}url_bar",
                 text=(state.field_text if state.ime == CHROME else "") or url, clickable=True, focused=state.ime == CHROME,
                 key="url_bar", action=lambda s: system.activate_ime(s, CHROME, "url_bar", "Search or type web address"),
                 style="field"))
    bar.add(Node(IMAGE_BUTTON, (ctx.W - ctx.dp(96), ctx.sb + ctx.dp(4), ctx.W - ctx.dp(48), ctx.sb + ctx.dp(52)),
                 rid=f"{HID}tab_switcher_button", desc="Switch or close tabs", clickable=True, key="tabs",
                 action=lambda s: s, style="icon"))
    bar.add(Node(IMAGE_BUTTON, (ctx.W - ctx.dp(48), ctx.sb + ctx.dp(4), ctx.W, ctx.sb + ctx.dp(52)),
                 rid=f"{HID}menu_button", desc="More options", clickable=True, key="chrome_menu",
                 action=lambda s: s.push(Screen("chrome.menu")), style="icon"))
    return bar


CHROME_MENU = ("New tab", "New incognito tab", "Bookmarks", "Recent tabs", "History", "Downloads", "Share…",
               "Find in page", "Settings", "Help & feedback")


def render_chrome(state: PhoneState, ctx: Ctx, screen: Screen) -> Node:
    if screen.name == "chrome.history":
        kids = [toolbar(ctx, CHROME, "History", up=system.go_back,
                        actions=((f"{HID}search_menu_id", "Search your history", "search", None),))]
        kids.append(Node(TEXT, (ctx.dp(16), ctx.sb + ctx.dp(72), ctx.W - ctx.dp(16), ctx.sb + ctx.dp(112)),
                         rid=f"{HID}privacy_disclaimer", text="Your search history is empty", style="summary"))
        return window(ctx, CHROME, *kids)
    kids = [_chrome_bar(state, ctx, "")]
    logo_y = ctx.sb + ctx.dp(120)
    kids.append(Node(IMAGE, (ctx.W // 2 - ctx.dp(100), logo_y, ctx.W // 2 + ctx.dp(100), logo_y + ctx.dp(64)),
                     rid=f"{HID}search_provider_logo", desc="Google", style="logo"))
    kids.append(Node(EDIT, (ctx.dp(24), logo_y + ctx.dp(88), ctx.W - ctx.dp(24), logo_y + ctx.dp(136)),
                     rid=f"{HID}search_box_text", text="Search or type web address", clickable=True, key="search_box",
                     action=lambda s: system.activate_ime(s, CHROME, "url_bar", "Search or type web address"),
                     style="searchbar"))
    if screen.name == "chrome.menu":
        w = ctx.dp(240)
        menu = Node("android.widget.ListView", (ctx.W - w, ctx.sb, ctx.W, ctx.sb + ctx.dp(48) * len(CHROME_MENU)),
                    rid=f"{HID}app_menu_list", style="menu")
        for i, label in enumerate(CHROME_MENU):
            y1 = ctx.sb + ctx.dp(48) * i
            act = _chrome_history if label == "History" else system.go_back
            menu.add(Node(TEXT, (ctx.W - w, y1, ctx.W, y1 + ctx.dp(48)), rid=f"{HID}menu_item_text", text=label,
                          desc=label, clickable=True, key=f"menu:{label}", action=act, style="text"))
        kids.append(menu)
    return window(ctx, CHROME, *kids)


def _chrome_history(state: PhoneState) -> PhoneState:
    state = system.go_back(state)
    return system.start_activity(state, CHROME, "com.android.chrome/org.chromium.chrome.browser.history.HistoryActivity",
                                 Screen("chrome.history"))


# ====================================================================== Files
FILES = "com.android.documentsui"
FID = f"{FILES}:id/"
ROOTS = (("Recent", "com.android.providers.media.documents/root/recent"),
         ("Images", "com.android.providers.media.documents/document/images_root"),
         ("Videos", "com.android.providers.media.documents/document/videos_root"),
         ("Audio", "com.android.providers.media.documents/document/audio_root"),
         ("Downloads", "com.android.providers.downloads.documents/document/downloads"))


def _show_root(state: PhoneState, label: str, uri: str) -> PhoneState:
    state = state.emit(FILES, "D", "DirectoryFragment", f"Showing directory: content://{uri}")
    return state.with_screen(Screen("files.main", arg=(label,)))


def render_files(state: PhoneState, ctx: Ctx, screen: Screen) -> Node:
    current = screen.arg[0] if screen.arg else "Recent"
    kids = [Node(FRAME, (0, ctx.sb, ctx.W, ctx.sb + ctx.dp(56)), rid=f"{FID}toolbar", style="toolbar")]
    kids[0].add(Node(IMAGE_BUTTON, (0, ctx.sb, ctx.dp(56), ctx.sb + ctx.dp(56)), desc="Show roots", clickable=True,
                     key="show_roots", action=lambda s: s.with_screen(Screen("files.roots", arg=(current,))),
                     style="icon"))
    kids[0].add(Node(TEXT, (ctx.dp(72), ctx.sb + ctx.dp(14), ctx.W - ctx.dp(112), ctx.sb + ctx.dp(42)), text=current,
                     style="title"))
    kids[0].add(Node(TEXT, (ctx.W - ctx.dp(104), ctx.sb + ctx.dp(4), ctx.W - ctx.dp(56), ctx.sb + ctx.dp(52)),
                     rid=f"{FID}option_menu_search", desc="Search", clickable=True, key="search",
                     action=lambda s: system.activate_ime(s, FILES, "search_src_text"), style="icon"))
    kids.append(Node(TEXT, (ctx.dp(16), ctx.sb + ctx.dp(80), ctx.W - ctx.dp(16), ctx.sb + ctx.dp(120)),
                     rid=f"{FID}message", text="No items" if current != "Recent" else "No recent files", style="summary"))
    if screen.name == "files.roots":
        w = min(ctx.W - ctx.dp(56), ctx.dp(304))
        drawer = Node(FRAME, (0, ctx.sb, w, ctx.cb), rid=f"{FID}drawer_roots", style="drawerpanel")
        lst = Node("android.widget.ListView", (0, ctx.sb + ctx.dp(8), w, ctx.sb + ctx.dp(8) + ctx.dp(48) * len(ROOTS)),
                   rid=f"{FID}roots_list")
        for i, (label, uri) in enumerate(ROOTS):
            y1 = ctx.sb + ctx.dp(8) + ctx.dp(48) * i
            item = Node(LINEAR, (0, y1, w, y1 + ctx.dp(48)), clickable=True, key=f"root:{label}",
                        action=lambda s, lb=label, u=uri: _show_root(s, lb, u), style="row")
            item.add(Node(TEXT, (ctx.dp(72), y1 + ctx.dp(12), w - ctx.dp(16), y1 + ctx.dp(36)), rid="android:id/title",
                          text=label, style="text"))
            lst.add(item)
        drawer.add(lst)
        kids.append(drawer)
    return window(ctx, FILES, *kids)


# ====================================================================== Photos, YouTube, Maps, Google, simple apps
PHOTOS = "com.google.android.apps.photos"


def render_photos(state: PhoneState, ctx: Ctx, screen: Screen) -> Node:
    P = f"{PHOTOS}:id/"
    if screen.name == "photos.trash":
        return window(ctx, PHOTOS, toolbar(ctx, PHOTOS, "Trash", up=system.go_back),
                      Node(TEXT, (ctx.dp(16), ctx.sb + ctx.dp(80), ctx.W - ctx.dp(16), ctx.sb + ctx.dp(120)),
                           text="No items in trash", style="summary"))
    tab = screen.arg[0] if screen.arg else "photos"
    kids = [toolbar(ctx, PHOTOS, "Google Photos", rid=f"{P}toolbar")]
    if tab == "library":
        for i, label in enumerate(("Favorites", "Utilities", "Archive", "Trash")):
            x1 = ctx.dp(16) + i * (ctx.W - ctx.dp(32)) // 4
            x2 = ctx.dp(16) + (i + 1) * (ctx.W - ctx.dp(32)) // 4
            act = (lambda s: system.start_activity(s, PHOTOS, "com.google.android.apps.photos/.trash.ui.TrashPhotosActivity",
                                                   Screen("photos.trash"))) if label == "Trash" else (lambda s: s)
            kids.append(Node(BUTTON, (x1, ctx.sb + ctx.dp(72), x2 - ctx.dp(8), ctx.sb + ctx.dp(120)), text=label,
                             clickable=True, key=f"library:{label}", action=act, style="button"))
    else:
        kids.append(Node(TEXT, (ctx.dp(16), ctx.sb + ctx.dp(72), ctx.W - ctx.dp(16), ctx.sb + ctx.dp(112)), text="Today",
                         style="text"))
    nav = Node(LINEAR, (0, ctx.cb - ctx.dp(56), ctx.W, ctx.cb), rid=f"{P}tabs", style="tabs")
    tw = ctx.W // 3
    for i, (t, label) in enumerate((("photos", "Photos"), ("search", "Search"), ("library", "Library"))):
        nav.add(Node(FRAME, (i * tw, ctx.cb - ctx.dp(56), (i + 1) * tw, ctx.cb), rid=f"{P}tab_{t}", desc=label,
                     clickable=True, selected=tab == t, key=f"photos_tab:{t}",
                     action=lambda s, t=t: s.with_screen(Screen("photos.main", arg=(t,))), style="tab"))
    kids.append(nav)
    return window(ctx, PHOTOS, *kids)


YT = "com.google.android.youtube"


def render_youtube(state: PhoneState, ctx: Ctx, screen: Screen) -> Node:
    Y = f"{YT}:id/"
    if screen.name == "youtube.pair":
        return window(ctx, YT, toolbar(ctx, YT, "Link with TV code", up=system.go_back),
                      Node(EDIT, (ctx.dp(16), ctx.sb + ctx.dp(100), ctx.W - ctx.dp(16), ctx.sb + ctx.dp(148)),
                           rid=f"{Y}pairing_code", text="Enter TV code", clickable=True, key="pair_code",
                           action=lambda s: system.activate_ime(s, YT, "pairing_code"), style="field"))
    if screen.name == "youtube.search":
        return window(ctx, YT, toolbar(ctx, YT, "", up=system.go_back),
                      Node(EDIT, (ctx.dp(72), ctx.sb + ctx.dp(4), ctx.W - ctx.dp(16), ctx.sb + ctx.dp(52)),
                           rid=f"{Y}search_edit_text", text=state.field_text or "Search YouTube", focused=state.ime == YT,
                           style="field"))
    kids = [toolbar(ctx, YT, "YouTube", rid=f"{Y}toolbar",
                    actions=((f"{Y}media_route_button", "Cast. Disconnected", "cast",
                              lambda s: s.push(Screen("youtube.cast"))),
                             (f"{Y}menu_item_1", "Search", "search", _yt_search),
                             (f"{Y}mobile_topbar_avatar", "Account", "account", None)))]
    for i in range(3):
        y1 = ctx.sb + ctx.dp(64) + i * ctx.dp(240)
        if y1 + ctx.dp(220) < ctx.cb:
            kids.append(Node(VIEW_GROUP, (0, y1, ctx.W, y1 + ctx.dp(220)), desc=f"Video {i + 1}", clickable=True,
                             key=f"video:{i}", action=lambda s: s, style="card"))
    if screen.name == "youtube.cast":
        y1 = ctx.cb // 2 - ctx.dp(80)
        dlg = Node(FRAME, (ctx.dp(32), y1, ctx.W - ctx.dp(32), y1 + ctx.dp(160)), style="dialog")
        dlg.add(Node(TEXT, (ctx.dp(56), y1 + ctx.dp(16), ctx.W - ctx.dp(56), y1 + ctx.dp(48)), text="Select a device",
                     style="title"))
        dlg.add(Node(TEXT, (ctx.dp(56), y1 + ctx.dp(72), ctx.W - ctx.dp(56), y1 + ctx.dp(120)),
                     rid=f"{Y}link_with_tv_code", text="Link with TV code", clickable=True, key="link_tv",
                     action=_yt_pair, style="text"))
        kids.append(dlg)
    return window(ctx, YT, *kids)


def _yt_search(state: PhoneState) -> PhoneState:
    return system.activate_ime(state.push(Screen("youtube.search")), YT, "search_edit_text", "Search YouTube")


def _yt_pair(state: PhoneState) -> PhoneState:
    state = system.go_back(state)
    return system.start_activity(state, YT, "com.google.android.youtube/com.google.android.libraries.youtube.mdx."
                                 "smartpairing.PairWithTvActivity", Screen("youtube.pair"))


MAPS = "com.google.android.apps.maps"
GOOGLE = "com.google.android.googlequicksearchbox"


def render_maps(state: PhoneState, ctx: Ctx, screen: Screen) -> Node:
    M = f"{MAPS}:id/"
    box = Node(TEXT, (ctx.dp(16), ctx.sb + ctx.dp(8), ctx.W - ctx.dp(16), ctx.sb + ctx.dp(56)),
               rid=f"{M}search_omnibox_text_box", text=state.field_text if state.ime == MAPS else "Search here",
               clickable=True, focused=state.ime == MAPS, key="maps_search",
               action=lambda s: system.activate_ime(s, MAPS, "search_omnibox_edit_text", "Search here"), style="searchbar")
    mapv = Node(VIEW_GROUP, (0, ctx.sb, ctx.W, ctx.cb), rid=f"{M}mainmap_container", desc="Map", style="map")
    return window(ctx, MAPS, mapv, box)


def render_google(state: PhoneState, ctx: Ctx, screen: Screen) -> Node:
    G = f"{GOOGLE}:id/"
    box = Node(EDIT, (ctx.dp(16), ctx.sb + ctx.dp(8), ctx.W - ctx.dp(16), ctx.sb + ctx.dp(56)),
               rid=f"{G}search_box", text=state.field_text if state.ime == GOOGLE else "Search…", clickable=True,
               focused=state.ime == GOOGLE, key="google_search",
               action=lambda s: system.activate_ime(s, GOOGLE, "search_box"), style="searchbar")
    return window(ctx, GOOGLE, box)


SIMPLE = {
    "gmail.main": ("com.google.android.gm", "Primary", ("Welcome to Gmail", "Your Google Account security")),
    "calendar.main": ("com.google.android.calendar", "November", ("No events today",)),
    "camera.main": ("com.android.camera2", "", ()),
    "music.main": ("com.google.android.music", "Listen Now", ("Recent activity",)),
    "store.main": ("com.android.vending", "Google Play", ("Recommended for you",)),
}


def render_simple(state: PhoneState, ctx: Ctx, screen: Screen) -> Node:
    pkg, title, lines = SIMPLE[screen.name]
    if screen.name == "camera.main":
        kids = [Node(VIEW_GROUP, (0, ctx.sb, ctx.W, ctx.cb), rid=f"{pkg}:id/preview_overlay", style="camera"),
                _center_fab(ctx, ctx.cb - ctx.dp(32), f"{pkg}:id/shutter_button", "Shutter", "shutter", lambda s: s)]
        return window(ctx, pkg, *kids)
    kids = [toolbar(ctx, pkg, title, rid=f"{pkg}:id/toolbar")]
    for i, line in enumerate(lines):
        y1 = ctx.sb + ctx.dp(72) + i * ctx.dp(64)
        kids.append(Node(TEXT, (ctx.dp(16), y1, ctx.W - ctx.dp(16), y1 + ctx.dp(48)), text=line, clickable=True,
                         key=f"item:{i}", action=lambda s: s, style="text"))
    return window(ctx, pkg, *kids)
