"""The other simulated apps: Messages, Chrome, Files, Photos, YouTube, Maps and open-only apps.

Each ``render_*`` takes ``(state, ctx, screen)`` and returns the window's node
tree; clickable nodes carry the transition they trigger. Log lines are those
B-MoCA's detectors match (``DirectoryFragment`` directory changes,
``BugleUsageStatistics``, START lines of the activities the tasks name). Clock is
in ``clock_app.py``, Phone and Contacts in ``dialer_app.py``, Settings in ``settings_app.py``.
"""
from __future__ import annotations

from ..ui import Node
from . import system
from .layout import (BUTTON, EDIT, FRAME, IMAGE, IMAGE_BUTTON, LINEAR, TEXT, VIEW_GROUP, Ctx, center_fab, fab,
                     scroll_list, toolbar, window)
from .state import CONTACTS, CONVERSATIONS, PhoneState, Screen


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
    kids.append(fab(ctx, f"{MID}start_chat_fab", "", "start_chat", lambda s: s.push(Screen("messages.new")),
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
                center_fab(ctx, ctx.cb - ctx.dp(32), f"{pkg}:id/shutter_button", "Shutter", "shutter", lambda s: s)]
        return window(ctx, pkg, *kids)
    kids = [toolbar(ctx, pkg, title, rid=f"{pkg}:id/toolbar")]
    for i, line in enumerate(lines):
        y1 = ctx.sb + ctx.dp(72) + i * ctx.dp(64)
        kids.append(Node(TEXT, (ctx.dp(16), y1, ctx.W - ctx.dp(16), y1 + ctx.dp(48)), text=line, clickable=True,
                         key=f"item:{i}", action=lambda s: s, style="text"))
    return window(ctx, pkg, *kids)
