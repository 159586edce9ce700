"""The scripted expert: a demonstration of each of the 60 tasks from any simulator state.

``next_intent(task, state, tree)`` looks at the phone's true state and the
rendered screen and returns what a person would do next: ``("tap", key)``,
``("drag", key, fraction)``, ``("swipe", dir)`` or ``("press", button)``.
``to_action`` turns it into B-MoCA's text action on the current numbering.
The route: leave any other app or overlay (HOME/BACK), open the task's app
from the home screen or the drawer (swipe up), then follow the task's in-app
route, swiping up when the next target is below the fold.
"""
from __future__ import annotations

from typing import Callable

from .sim.state import PhoneState
from .ui import Node

Intent = tuple

ALARM_TIMES = {"06:30": (6, 30), "10:30": (10, 30), "13:30": (13, 30), "17:30": (17, 30), "20:30": (20, 30),
               "23:30": (23, 30)}

APP_OF = {
    "contact": "com.android.contacts", "chrome": "com.android.chrome", "google": "com.google.android.googlequicksearchbox",
    "map": "com.google.android.apps.maps", "message": "com.google.android.apps.messaging",
    "youtube": "com.google.android.youtube", "setting": "com.android.settings", "clock": "com.google.android.deskclock",
    "dial": "com.android.dialer", "phone": "com.android.dialer", "photo": "com.google.android.apps.photos", "photos": "com.google.android.apps.photos",
    "file": "com.android.documentsui", "calendar": "com.google.android.calendar", "camera": "com.android.camera2",
    "gmail": "com.google.android.gm", "music": "com.google.android.music",
}

SETTINGS_ROUTES: dict[str, dict[str, str]] = {
    "turn_on_airplane_mode": {"settings.main": "network", "settings.network": "airplane"},
    "turn_off_airplane_mode": {"settings.main": "network", "settings.network": "airplane"},
    "turn_on_wifi": {"settings.main": "network", "settings.network": "wifi.switch"},
    "turn_off_wifi": {"settings.main": "network", "settings.network": "wifi.switch"},
    "go_to_app_list_in_setting": {"settings.main": "apps", "settings.apps": "see_all"},
    "go_to_bluetooth_setting": {"settings.main": "connected", "settings.connected": "pair"},
    "go_to_the_'add_a_language'_page_in_setting": {
        "settings.main": "system", "settings.system": "languages_input", "settings.languages_input": "languages",
        "settings.languages": "add_language"},
    "toggle_dark_theme_in_setting": {"settings.main": "display", "settings.display": "dark"},
    "toggle_vibrate_for_calls_in_setting": {"settings.main": "sound", "settings.sound": "vibrate"},
    "decrease_the_screen_brightness_in_setting": {"settings.main": "display", "settings.display": "brightness"},
    "increase_media_volume_in_setting": {"settings.main": "sound"},
    "increase_call_volume_in_setting": {"settings.main": "sound"},
    "increase_ring_volume_in_setting": {"settings.main": "sound"},
    "increase_alarm_volume_in_setting": {"settings.main": "sound"},
}
VOLUME_KEYS = {"media": "vol_music", "call": "vol_voice", "ring": "vol_ring", "alarm": "vol_alarm"}

SIMPLE_ROUTES: dict[str, tuple[str, dict[str, str]]] = {
    "activate_the_edit_page_in_contact": ("com.android.contacts", {"contacts.list": "contact:0",
                                                                   "contacts.detail": "edit_contact"}),
    "activate_the_insert_page_in_contact": ("com.android.contacts", {"contacts.list": "create_contact"}),
    "activate_the_search_bar_in_chrome": ("com.android.chrome", {"chrome.ntp": "search_box"}),
    "activate_the_search_bar_in_map": ("com.google.android.apps.maps", {"maps.main": "maps_search"}),
    "activate_the_search_bar_in_message": ("com.google.android.apps.messaging", {"messages.list": "search"}),
    "activate_the_search_bar_in_youtube": ("com.google.android.youtube", {"youtube.main": "search"}),
    "activate_the_search_bar_in_google": ("com.google.android.googlequicksearchbox", {"google.main": "google_search"}),
    "go_to_search_history_in_chrome": ("com.android.chrome", {"chrome.ntp": "chrome_menu", "chrome.menu": "menu:History"}),
    "go_to_the_smart_pairing_page_in_youtube": ("com.google.android.youtube", {"youtube.main": "cast",
                                                                               "youtube.cast": "link_tv"}),
    "list_audio_files_in_file_manager": ("com.android.documentsui", {"files.main": "show_roots", "files.roots": "root:Audio"}),
    "list_download_files_in_file_manager": ("com.android.documentsui", {"files.main": "show_roots",
                                                                        "files.roots": "root:Downloads"}),
    "list_image_files_in_file_manager": ("com.android.documentsui", {"files.main": "show_roots", "files.roots": "root:Images"}),
    "list_video_files_in_file_manager": ("com.android.documentsui", {"files.main": "show_roots", "files.roots": "root:Videos"}),
    "start_chatting_in_message": ("com.google.android.apps.messaging", {"messages.list": "start_chat", "messages.new": "pick:0"}),
    "go_to_the_alarm_page_in_clock": ("com.google.android.deskclock", {"*": "tab:alarm"}),
    "go_to_the_stopwatch_page_in_clock": ("com.google.android.deskclock", {"*": "tab:stopwatch"}),
    "go_to_the_timer_page_in_clock": ("com.google.android.deskclock", {"*": "tab:timer"}),
}


def task_package(name: str) -> str:
    if name in SETTINGS_ROUTES:
        return "com.android.settings"
    if name in SIMPLE_ROUTES:
        return SIMPLE_ROUTES[name][0]
    if "alarm" in name or "stopwatch" in name:
        return "com.google.android.deskclock"
    if name in ("call_911", "press_the_call_button_in_dial", "turn_off_the_call_in_process"):
        return "com.android.dialer"
    if name == "go_to_the_trash_page_in_photo":
        return "com.google.android.apps.photos"
    if name.startswith("open_the_"):
        words = name[len("open_the_"):-len("_app")].split("_")
        return APP_OF["file" if words[0] == "file" else words[-1]]
    raise KeyError(f"no expert route for task {name!r}")


def _keys(tree: Node) -> dict[str, Node]:
    return {n.key: n for n in tree.walk() if n.key}


def _visible(node: Node) -> bool:
    x1, y1, x2, y2 = node.bounds
    return x2 - x1 > 4 and y2 - y1 > 4


def _want(key: str, tree: Node, state: PhoneState) -> Intent:
    """Tap ``key`` when visible; otherwise scroll towards it, or go back from an unexpected screen."""
    keys = _keys(tree)
    node = keys.get(key)
    if node is not None and _visible(node) and node.clickable:
        return ("tap", key)
    lst = keys.get("list")
    if lst is not None and lst.scrollable:
        max_scroll = lst.action[1] if isinstance(lst.action, tuple) else 0
        return ("swipe", "down") if state.screen.scroll >= max_scroll else ("swipe", "up")
    return ("press", "BACK")


def _open_app(package: str, state: PhoneState, tree: Node) -> Intent:
    if state.overlay is not None:
        return ("press", "BACK")
    if state.foreground:
        return ("press", "HOME")
    keys = _keys(tree)
    node = keys.get(f"app:{package}")
    if node is not None and _visible(node):
        return ("tap", f"app:{package}")
    if state.launcher.name == "home":
        return ("swipe", "up")
    return _want(f"app:{package}", tree, state)


def _route(name: str, state: PhoneState, tree: Node) -> Intent:
    screen = state.screen.name
    if name in SETTINGS_ROUTES:
        if state.overlay is not None and state.overlay.name == "brightness" and name.startswith("decrease"):
            return ("drag", "brightness_slider", 0.1)
        if state.overlay is not None:
            return ("press", "BACK")
        if name.startswith("increase_") and screen == "settings.sound":
            return ("drag", VOLUME_KEYS[name.split("_")[1]] + ".seekbar", 1.0)
        route = SETTINGS_ROUTES[name]
        return _want(route[screen], tree, state) if screen in route else ("press", "BACK")
    if state.overlay is not None:
        return ("press", "BACK")
    if name in SIMPLE_ROUTES:
        route = SIMPLE_ROUTES[name][1]
        key = route.get(screen, route.get("*"))
        return _want(key, tree, state) if key else ("press", "BACK")
    if name.startswith("create_alarm_at_"):
        hour, minute = ALARM_TIMES[name[len("create_alarm_at_"):len("create_alarm_at_") + 5]]
        if screen == "clock.picker":
            h, m, mode = state.screen.arg
            if mode == "hour" and (h % 12) != (hour % 12):
                return ("tap", f"dial:hour:{(hour % 12) or 12}")
            if mode == "hour":
                return ("tap", "picker_minutes")
            if m != minute:
                return ("tap", f"dial:minute:{minute}")
            if (h >= 12) != (hour >= 12):
                return ("tap", "picker_pm" if hour >= 12 else "picker_am")
            return ("tap", "picker_ok")
        if screen == "clock.alarm":
            return _want("add_alarm", tree, state)
        return _want("tab:alarm", tree, state)
    if name in ("turn_on_alarm_at_9_am", "delete_alarm_at_9_am"):
        if screen != "clock.alarm":
            return _want("tab:alarm", tree, state)
        alarm = next((a for a in state.alarms if a.hour == 9 and a.minute == 0), None)
        if alarm is None:
            return ("press", "BACK")
        if name.startswith("turn_on"):
            return _want(f"alarm_switch:{alarm.alarm_id}", tree, state)
        key = f"alarm_delete:{alarm.alarm_id}" if alarm.expanded else f"alarm_arrow:{alarm.alarm_id}"
        return _want(key, tree, state)
    if "stopwatch" in name:
        if screen != "clock.stopwatch":
            return _want("tab:stopwatch", tree, state)
        st = state.stopwatch[0]
        if name.startswith("start"):
            return _want("stopwatch_fab", tree, state) if st != "running" else ("press", "BACK")
        if name.startswith("pause"):
            return _want("stopwatch_fab", tree, state)
        return _want("stopwatch_reset", tree, state) if st != "reset" else _want("stopwatch_fab", tree, state)
    if name in ("call_911", "press_the_call_button_in_dial", "turn_off_the_call_in_process"):
        target = {"call_911": "911", "press_the_call_button_in_dial": "1"}.get(name, "123")
        if screen == "dialer.incall":
            return _want("end_call", tree, state) if state.call else ("press", "BACK")
        if screen == "dialer.keypad":
            if state.dial == target:
                return _want("call", tree, state)
            if target.startswith(state.dial):
                return _want(f"digit:{target[len(state.dial)]}", tree, state)
            return _want("backspace", tree, state)
        return _want("keypad", tree, state)
    if name == "go_to_the_trash_page_in_photo":
        if screen == "photos.main":
            tab = state.screen.arg[0] if state.screen.arg else "photos"
            return _want("library:Trash" if tab == "library" else "photos_tab:library", tree, state)
        return ("press", "BACK")
    if name.startswith("open_the_"):
        return ("press", "HOME")  # the launch itself is the success event
    raise KeyError(f"no expert route for task {name!r}")


def next_intent(name: str, state: PhoneState, tree: Node) -> Intent:
    package = task_package(name)
    if state.foreground != package or (state.overlay is not None and state.overlay.name in ("shade", "qs", "recents")):
        return _open_app(package, state, tree)
    return _route(name, state, tree)


def to_action(intent: Intent, tree: Node, width: int, height: int, rtl: bool) -> str:
    """B-MoCA's text action for ``intent`` on the current numbering (post-order over ``tree``)."""
    kind = intent[0]
    if kind == "swipe":
        return f'swipe("{intent[1]}")'
    if kind == "press":
        return f'press("{intent[1]}")'
    order = list(tree.postorder())
    node = next(n for n in order if n.key == intent[1])
    if kind == "tap":
        return f"tap({order.index(node)})"
    x1, y1, x2, y2 = node.bounds
    y = (y1 + y2) / 2 / height
    frac = intent[2]
    if rtl:
        frac = 1.0 - frac
    start = (x1 + x2) / 2 / width
    end = (x1 + (x2 - x1) * frac) / width
    end = min(0.999, max(0.0, end))
    return f"dual-gesture({y:.4f}, {start:.4f}, {y:.4f}, {end:.4f})"


Planner = Callable[[PhoneState], str]
