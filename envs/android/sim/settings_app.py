"""The Settings app (com.android.settings, Android 10 layout).

Pages are data: each is a title and rows ``(key, title, summary, kind, target)``
where ``kind`` is ``page`` (open another page), ``switch`` (a SwitchPreference:
the row toggles), ``master`` (row opens ``target``, the switch toggles),
``slider`` (a volume seek bar) or ``dialog`` (the brightness dialog).
Opening a page logs what Settings logs for it (fragment switches, preference
controllers); changing a value goes through :mod:`system` (settings provider,
radios, display power controller, volume events).
"""
from __future__ import annotations

from dataclasses import replace

from ..ui import Node
from . import system
from .layout import EDIT, LINEAR, RECYCLER, SEEKBAR, TEXT, Ctx, pref_row, scroll_list, toolbar, window
from .state import VOLUME_MAX, PhoneState, Screen

P = "com.android.settings"
ID = f"{P}:id/"

PAGES: dict[str, tuple[str, tuple]] = {
    "settings.main": ("Settings", (
        ("network", "Network & internet", "Wi-Fi, mobile, data usage, and hotspot", "page", "settings.network"),
        ("connected", "Connected devices", "Bluetooth, pairing", "page", "settings.connected"),
        ("apps", "Apps & notifications", "Recent apps, default apps", "page", "settings.apps"),
        ("battery", "Battery", "100%", "page", "settings.battery"),
        ("display", "Display", "Wallpaper, sleep, font size", "page", "settings.display"),
        ("sound", "Sound", "Volume, vibration, Do Not Disturb", "page", "settings.sound"),
        ("storage", "Storage", "31% used - 5.5 GB free", "page", "settings.storage"),
        ("privacy", "Privacy", "Permissions, account activity, personal data", "page", "settings.privacy"),
        ("location", "Location", "On - 8 apps have access to location", "page", "settings.location"),
        ("security", "Security", "Screen lock, fingerprint", "page", "settings.security"),
        ("accounts", "Accounts", "No accounts added", "page", "settings.accounts"),
        ("accessibility", "Accessibility", "Screen readers, display, interaction controls", "page",
         "settings.accessibility"),
        ("wellbeing", "Digital Wellbeing & parental controls", "Screen time, app timers, bedtime schedules", "page",
         "settings.wellbeing"),
        ("google", "Google", "Services & preferences", "page", "settings.google"),
        ("system", "System", "Languages, gestures, time, backup", "page", "settings.system"),
        ("about", "About emulated device", "Android SDK built for x86_64", "page", "settings.about"),
    )),
    "settings.network": ("Network & internet", (
        ("wifi", "Wi-Fi", "", "master", "settings.wifi"),
        ("mobile", "Mobile network", "T-Mobile", "page", "settings.mobile"),
        ("data_usage", "Data usage", "0 B of data used", "page", "settings.data_usage"),
        ("hotspot", "Hotspot & tethering", "Off", "page", "settings.hotspot"),
        ("airplane", "Airplane mode", "", "switch", "global/airplane_mode_on"),
        ("advanced", "Advanced", "Private DNS", "page", "settings.net_advanced"),
    )),
    "settings.wifi": ("Wi-Fi", (
        ("use_wifi", "Use Wi-Fi", "", "switch", "global/wifi_on"),
        ("androidwifi", "AndroidWifi", "Connected", "page", "settings.wifi_detail"),
        ("add_network", "Add network", "", "page", "settings.add_network"),
        ("wifi_prefs", "Wi-Fi preferences", "Wi-Fi turns back on automatically", "page", "settings.wifi_prefs"),
    )),
    "settings.connected": ("Connected devices", (
        ("pair", "Pair new device", "", "page", "settings.bt_pair"),
        ("previous", "Previously connected devices", "", "page", "settings.previous"),
        ("conn_prefs", "Connection preferences", "Bluetooth, NFC, Android Auto", "page", "settings.conn_prefs"),
    )),
    "settings.conn_prefs": ("Connection preferences", (
        ("bluetooth", "Bluetooth", "", "page", "settings.bluetooth"),
        ("cast", "Cast", "Not connected", "page", "settings.cast"),
        ("printing", "Printing", "1 print service on", "page", "settings.printing"),
        ("received", "Files received via Bluetooth", "", "page", "settings.received"),
        ("auto", "Android Auto", "Use apps on your car screen", "page", "settings.auto"),
    )),
    "settings.bluetooth": ("Bluetooth", (
        ("use_bt", "Use Bluetooth", "", "switch", "global/bluetooth_on"),
        ("device_name", "Device name", "Android SDK built for x86_64", "page", "settings.bt_rename"),
        ("pair2", "Pair new device", "", "page", "settings.bt_pair"),
    )),
    "settings.bt_pair": ("Pair new device", (
        ("device_name2", "Device name", "Android SDK built for x86_64", "page", "settings.bt_rename"),
        ("available", "Available devices", "Searching...", "none", ""),
    )),
    "settings.apps": ("Apps & notifications", (
        ("recent", "Recently opened apps", "Clock, Settings, Chrome", "none", ""),
        ("see_all", "See all 37 apps", "", "page", "settings.all_apps"),
        ("notifications", "Notifications", "On for all apps", "page", "settings.notifications"),
        ("default_apps", "Default apps", "Chrome, Phone, and Messages", "page", "settings.default_apps"),
        ("permissions", "Permission manager", "Apps using location, microphone, camera", "page", "settings.permissions"),
        ("special", "Special app access", "2 apps can use unrestricted data", "page", "settings.special"),
    )),
    "settings.display": ("Display", (
        ("brightness", "Brightness level", "40%", "dialog", "brightness"),
        ("dark", "Dark theme", "", "switch", "secure/ui_night_mode"),
        ("night_light", "Night Light", "Off / Will never turn on automatically", "page", "settings.night_light"),
        ("adaptive", "Adaptive brightness", "", "switch", "system/screen_brightness_mode"),
        ("wallpaper", "Wallpaper", "", "page", "settings.wallpaper"),
        ("timeout", "Screen timeout", "After 30 minutes of inactivity", "page", "settings.timeout"),
        ("font", "Font size", "Default", "page", "settings.font"),
    )),
    "settings.sound": ("Sound", (
        ("vol_music", "Media volume", "", "slider", "music"),
        ("vol_voice", "Call volume", "", "slider", "voice"),
        ("vol_ring", "Ring volume", "", "slider", "ring"),
        ("vol_alarm", "Alarm volume", "", "slider", "alarm"),
        ("vibrate", "Vibrate for calls", "", "switch", "system/vibrate_when_ringing"),
        ("dnd", "Do Not Disturb", "Off", "page", "settings.dnd"),
        ("ringtone", "Phone ringtone", "The Big Adventure", "page", "settings.ringtone"),
    )),
    "settings.system": ("System", (
        ("languages_input", "Languages & input", "Gboard", "page", "settings.languages_input"),
        ("gestures", "Gestures", "", "page", "settings.gestures"),
        ("date_time", "Date & time", "GMT+00:00 Greenwich Mean Time", "page", "settings.date_time"),
        ("backup", "Backup", "Off", "page", "settings.backup"),
        ("reset", "Reset options", "Network, apps, or device can be reset", "page", "settings.reset"),
        ("users", "Multiple users", "Signed in as Owner", "page", "settings.users"),
        ("update", "System update", "Updated to Android 10", "page", "settings.update"),
    )),
    "settings.languages_input": ("Languages & input", (
        ("languages", "Languages", "English (United States)", "page", "settings.languages"),
        ("virtual_kb", "Virtual keyboard", "Gboard", "page", "settings.virtual_kb"),
        ("physical_kb", "Physical keyboard", "", "page", "settings.physical_kb"),
        ("spell", "Spell checker", "Gboard", "page", "settings.spell"),
        ("autofill", "Autofill service", "", "page", "settings.autofill"),
    )),
    "settings.date_time": ("Date & time", (
        ("auto_time", "Use network-provided time", "", "switch", "global/auto_time"),
        ("auto_zone", "Use network-provided time zone", "", "switch", "global/auto_time_zone"),
        ("set_date", "Date", "", "none", ""),
        ("set_time", "Time", "", "none", ""),
        ("zone", "Time zone", "GMT+00:00 Greenwich Mean Time", "page", "settings.zone"),
        ("use_24", "Use 24-hour format", "", "switch", "system/time_12_24"),
    )),
}

# what Settings logs when a page opens (SettingsActivity fragment switches, preference controllers)
PAGE_LOGS: dict[str, tuple[str, str, str]] = {
    "settings.all_apps": ("D", "SettingsActivity", "Switching to fragment "
                          "com.android.settings.applications.manageapplications.ManageApplications"),
    "settings.bluetooth": ("D", "PrefCtrlListHelper", "Could not find Context-only controller for pref: "
                           "com.android.settings.bluetooth.BluetoothDeviceRenamePreferenceController"),
    "settings.bt_pair": ("D", "PrefCtrlListHelper", "Could not find Context-only controller for pref: "
                         "com.android.settings.bluetooth.BluetoothDeviceRenamePreferenceController"),
}


def _switch_on(state: PhoneState, key: str) -> bool:
    v = state.setting(key)
    if key == "secure/ui_night_mode":
        return v == "2"
    if key == "system/time_12_24":
        return v == "24"
    return v not in ("0", "null")


def toggle(state: PhoneState, key: str) -> PhoneState:
    on = not _switch_on(state, key)
    if key == "global/airplane_mode_on":
        return system.set_airplane(state, on)
    if key == "global/wifi_on":
        return system.set_wifi(state, on, P)
    if key == "global/bluetooth_on":
        return system.set_bluetooth(state, on)
    if key == "secure/ui_night_mode":
        return system.set_dark(state, on)
    if key == "system/vibrate_when_ringing":
        return system.toggle_vibrate(state)
    if key == "system/time_12_24":
        return system.notify_setting(state.with_setting(key, "24" if on else "12"), key)
    return system.notify_setting(state.with_setting(key, "1" if on else "0"), key)


def open_page(state: PhoneState, name: str) -> PhoneState:
    short = name.split(".", 1)[1]
    frag = "".join(w.capitalize() for w in short.split("_")) + "Settings"
    state = state.emit(P, "D", "SettingsActivity", f"Switching to fragment com.android.settings.{frag}")
    if name in PAGE_LOGS:
        pr, tag, msg = PAGE_LOGS[name]
        state = state.emit(P, pr, tag, msg)
    return state.push(Screen(name))


def open_language_picker(state: PhoneState) -> PhoneState:
    return system.start_activity(state, P, "com.android.settings/.localepicker.LocalePickerWithRegionActivity",
                                 Screen("settings.locale_picker"))


def render(state: PhoneState, ctx: Ctx, screen: Screen) -> Node:
    name = screen.name
    if name == "settings.languages":
        return _render_languages(state, ctx, screen)
    if name == "settings.locale_picker":
        return _render_locale_picker(state, ctx, screen)
    title, rows = PAGES.get(name, (name.split(".", 1)[1].replace("_", " ").capitalize(), ()))
    is_main = name == "settings.main"
    body_top = ctx.sb + ctx.dp(56)
    children: list[Node] = []
    if is_main:
        bar = Node(LINEAR, (0, ctx.sb, ctx.W, body_top), rid=f"{ID}search_action_bar", package=P)
        bar.add(Node(TEXT, (ctx.dp(16), ctx.sb + ctx.dp(8), ctx.W - ctx.dp(16), body_top - ctx.dp(8)),
                     rid=f"{ID}search_action_bar_title", text="Search settings", clickable=True, key="search",
                     action=lambda s: system.activate_ime(s, P, "search_src_text", "Search settings"),
                     style="searchbar"))
        children.append(bar)
    else:
        children.append(toolbar(ctx, P, title, up=system.go_back,
                                actions=((f"{ID}search", "Search settings", "search", None),)))
        children[-1].children[-1].action = lambda s: system.activate_ime(s, P, "search_src_text", "Search settings")
    built = []
    for key, rtitle, summary, kind, target in rows:
        built.append((key, 72 if summary or kind == "slider" else 56, _row_builder(state, ctx, key, rtitle, summary,
                                                                                   kind, target, is_main)))
    lst, _ = scroll_list(ctx, f"{ID}recycler_view", (0, body_top, ctx.W, ctx.cb), built, screen.scroll)
    children.append(lst)
    return window(ctx, P, *children)


def _row_builder(state: PhoneState, ctx: Ctx, key: str, title: str, summary: str, kind: str, target: str,
                 icon: bool):
    def build(x1: int, y1: int, x2: int, y2: int) -> Node:
        b = (x1, y1, x2, y2)
        if kind == "page":
            return pref_row(ctx, b, title, summary, action=lambda s, t=target: open_page(s, t), icon=icon, key=key)
        if kind == "switch":
            on = _switch_on(state, target)
            return pref_row(ctx, b, title, summary, action=lambda s, t=target: toggle(s, t), switch=on, key=key)
        if kind == "master":
            on = _switch_on(state, "global/wifi_on")
            return pref_row(ctx, b, title, "AndroidWifi" if on else "Off",
                            action=lambda s, t=target: open_page(s, t), switch=on,
                            switch_action=lambda s: toggle(s, "global/wifi_on"), key=key)
        if kind == "dialog":
            pct = round(int(state.setting("system/screen_brightness", "102")) * 100 / 255)
            return pref_row(ctx, b, title, f"{pct}%", action=lambda s: replace(s, overlay=Screen("brightness")),
                            key=key)
        if kind == "slider":
            level = int(state.setting(f"system/volume_{target}", "0"))
            mx = VOLUME_MAX[target]
            row = Node(LINEAR, b, key=key, style="row")
            row.add(Node(TEXT, (x1 + ctx.dp(72), y1 + ctx.dp(8), x2 - ctx.dp(16), y1 + ctx.dp(32)),
                         rid="android:id/title", text=title, style="text"))
            row.add(Node(SEEKBAR, (x1 + ctx.dp(56), y1 + ctx.dp(32), x2 - ctx.dp(16), y2 - ctx.dp(4)),
                         rid=f"{ID}seekbar", text=str(level), desc=title, clickable=True, focusable=True,
                         key=key + ".seekbar",
                         action=("slider", lambda s, f, t=target, m=mx: system.set_volume(s, t, round(f * m)),
                                 level / mx), style="slider"))
            return row
        return pref_row(ctx, b, title, summary, key=key)
    return build


def _render_languages(state: PhoneState, ctx: Ctx, screen: Screen) -> Node:
    body_top = ctx.sb + ctx.dp(56)
    bar = toolbar(ctx, P, "Languages", up=system.go_back, actions=((f"{ID}more", "More options", "more", None),))
    rows = [("lang_en", 72, lambda x1, y1, x2, y2: pref_row(ctx, (x1, y1, x2, y2), "English (United States)", "1",
                                                          key="lang_en"))]
    rows.append(("add_language", 56, lambda x1, y1, x2, y2: Node(
        TEXT, (x1, y1, x2, y2), rid=f"{ID}add_language", text="Add a language", clickable=True, key="add_language",
        action=open_language_picker, style="text")))
    lst, _ = scroll_list(ctx, f"{ID}dragList", (0, body_top, ctx.W, ctx.cb), rows, screen.scroll)
    return window(ctx, P, bar, lst)


LOCALES = ("Afrikaans", "Azərbaycan", "Bahasa Indonesia", "Bosanski", "Català", "Čeština", "Dansk", "Deutsch",
           "Eesti", "English", "Español", "Euskara", "Français", "Galego", "Hrvatski", "Italiano")


def _render_locale_picker(state: PhoneState, ctx: Ctx, screen: Screen) -> Node:
    body_top = ctx.sb + ctx.dp(56)
    bar = toolbar(ctx, P, "Add a language", up=system.go_back,
                  actions=((f"{ID}search", "Search", "search", lambda s: system.activate_ime(s, P, "search_src_text")),))
    rows = [(f"locale_{i}", 56, lambda x1, y1, x2, y2, n=n: Node(
        TEXT, (x1, y1, x2, y2), rid=f"{ID}locale", text=n, clickable=True, action=system.go_back, style="text"))
            for i, n in enumerate(LOCALES)]
    lst, _ = scroll_list(ctx, "android:id/list", (0, body_top, ctx.W, ctx.cb), rows, screen.scroll,
                         cls="android.widget.ListView")
    return window(ctx, P, bar, lst)


def render_brightness_dialog(state: PhoneState, ctx: Ctx) -> Node:
    S = system.SYSTEM_UI
    value = int(state.setting("system/screen_brightness", "102"))
    y1 = ctx.sb + ctx.dp(8)
    root = Node("android.widget.FrameLayout", (0, 0, ctx.W, ctx.H), package=S, style="scrim")
    dlg = Node(LINEAR, (ctx.dp(8), y1, ctx.W - ctx.dp(8), y1 + ctx.dp(64)), rid=f"{S}:id/brightness_mirror",
               package=S, style="dialog")
    dlg.add(Node(SEEKBAR, (ctx.dp(56), y1 + ctx.dp(12), ctx.W - ctx.dp(24), y1 + ctx.dp(52)), rid=f"{S}:id/slider",
                 desc="Display brightness", text=str(value), clickable=True, focusable=True, key="brightness_slider",
                 action=("slider", lambda s, f: system.set_brightness(s, 1 + round(f * 254)), value / 255),
                 style="slider", package=S))
    root.add(dlg)
    return root


__all__ = ["render", "render_brightness_dialog", "PAGES", "EDIT", "RECYCLER"]
