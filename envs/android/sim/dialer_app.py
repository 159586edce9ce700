"""The simulated Phone (dialer: favourites, recents, contacts, keypad, call screen) and Contacts apps.

Each ``render_*`` takes ``(state, ctx, screen)`` and returns the window's node
tree; clickable nodes carry the transition they trigger. Placing and ending a
call writes the ``Telecom`` and ``PhoneGlobals`` lines B-MoCA's detectors match.
"""
from __future__ import annotations

from dataclasses import replace

from ..ui import Node
from . import system
from .layout import EDIT, FRAME, IMAGE_BUTTON, LINEAR, TEXT, Ctx, center_fab, fab, scroll_list, toolbar, window
from .state import CONTACTS, PhoneState, Screen


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
        kids.append(center_fab(ctx, ctx.cb - ctx.dp(48), f"{DID}incall_end_call", "End call", "end_call", end_call))
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
        call = center_fab(ctx, ctx.cb - ctx.dp(24), f"{DID}dialpad_floating_action_button", "dial", "call",
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
    kids.append(fab(ctx, f"{DID}fab", "key pad", "keypad", lambda s: s.push(Screen("dialer.keypad"))))
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
    kids.append(fab(ctx, f"{KID}floating_action_button", "Create new contact", "create_contact", _insert))
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
