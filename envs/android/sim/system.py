"""System services of the simulated phone: app launch, back/home/recents, settings changes, logcat lines.

Log lines follow AOSP's phrasing (Android 10), because B-MoCA's detectors
``re.match`` them: ``ActivityTaskManager`` START lines carry the component as
``cmp=pkg/.Activity``, ``ActivityManager`` "Start proc" lines appear only on a
cold process start, and so on. Each function takes and returns a
:class:`PhoneState`.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from .state import VOLUME_MAX, AppTask, PhoneState, Screen

SYSTEM_UI = "com.android.systemui"
LAUNCHER = "com.google.android.apps.nexuslauncher"
SYSTEM = "system_server"


@dataclass(frozen=True)
class App:
    """An installed app: drawer label, launcher component and the screen its launch opens."""

    label: str
    component: str  # "pkg/.Activity" or "pkg/full.Activity", as in the launcher intent
    root: str

    @property
    def package(self) -> str:
        return self.component.split("/")[0]

    @property
    def full_component(self) -> str:
        pkg, act = self.component.split("/")
        return f"{pkg}/{pkg}{act}" if act.startswith(".") else self.component


APPS: dict[str, App] = {a.package: a for a in (
    App("Calendar", "com.google.android.calendar/com.android.calendar.AllInOneActivity", "calendar.main"),
    App("Camera", "com.android.camera2/com.android.camera.CameraLauncher", "camera.main"),
    App("Chrome", "com.android.chrome/com.google.android.apps.chrome.Main", "chrome.ntp"),
    App("Clock", "com.google.android.deskclock/com.android.deskclock.DeskClock", "clock.alarm"),
    App("Contacts", "com.android.contacts/.activities.PeopleActivity", "contacts.list"),
    App("Files", "com.android.documentsui/.LauncherActivity", "files.main"),
    App("Gmail", "com.google.android.gm/.ConversationListActivityGmail", "gmail.main"),
    App("Google", "com.google.android.googlequicksearchbox/com.google.android.googlequicksearchbox.SearchActivity",
        "google.main"),
    App("Maps", "com.google.android.apps.maps/com.google.android.maps.MapsActivity", "maps.main"),
    App("Messages", "com.google.android.apps.messaging/.ui.ConversationListActivity", "messages.list"),
    App("Phone", "com.android.dialer/.main.impl.MainActivity", "dialer.main"),
    App("Photos", "com.google.android.apps.photos/.home.HomeActivity", "photos.main"),
    App("Play Music", "com.google.android.music/com.android.music.activitymanagement.TopLevelActivity", "music.main"),
    App("Play Store", "com.android.vending/.AssetBrowserActivity", "store.main"),
    App("Settings", "com.android.settings/.Settings", "settings.main"),
    App("YouTube", "com.google.android.youtube/.app.honeycomb.Shell$HomeActivity", "youtube.main"),
)}

DRAWER_ORDER: tuple[str, ...] = tuple(sorted(APPS, key=lambda p: APPS[p].label.lower()))


def uid_of(package: str) -> int:
    return 10000 + sum(package.encode()) % 200


def start_line(state: PhoneState, component: str, *, action: str = "android.intent.action.MAIN",
               launcher: bool = True, data: str = "", caller: str = LAUNCHER) -> PhoneState:
    parts = [f"act={action}"]
    if launcher:
        parts.append("cat=[android.intent.category.LAUNCHER]")
    if data:
        parts.append(f"dat={data}")
    parts.append("flg=0x10200000" if launcher else "flg=0x10000000")
    parts.append(f"cmp={component}")
    return state.emit(SYSTEM, "I", "ActivityTaskManager",
                      f"START u0 {{{' '.join(parts)}}} from uid {uid_of(caller)}")


def start_activity(state: PhoneState, package: str, component: str, screen: Screen, **kw: object) -> PhoneState:
    """Start an activity inside the front app (a START line, then push the screen)."""
    state = start_line(state, component, launcher=False, caller=package, **kw)
    return state.push(screen)


def ensure_process(state: PhoneState, package: str, activity: str) -> PhoneState:
    if package in state.alive:
        return state
    pid = 1000 + sum(package.encode()) % 28000
    state = state.emit(SYSTEM, "I", "ActivityManager",
                       f"Start proc {pid}:{package}/u0a{uid_of(package) - 10000} for activity {{{activity}}}")
    return replace(state, alive=state.alive | {package})


def launch(state: PhoneState, package: str) -> PhoneState:
    """Launch an app the way the launcher does (START line, cold start, bring task to front)."""
    app = APPS[package]
    state = start_line(state, app.component)
    state = ensure_process(state, package, app.full_component)
    existing = next((t for t in state.tasks if t.package == package), None)
    if existing is None:
        task = AppTask(package, (Screen(app.root),))
        state = replace(state, tasks=(task,) + state.tasks)
        state = on_create(state, package)
    else:
        state = replace(state, tasks=(existing,) + tuple(t for t in state.tasks if t is not existing))
    return replace(state, foreground=package, overlay=None, ime="", field_text="", launcher=Screen("home"))


def on_create(state: PhoneState, package: str) -> PhoneState:
    """What an app logs when its launch activity is created."""
    if package == "com.android.dialer":
        state = state.emit(package, "I", "Dialer", "MainActivity.onCreate")
    elif package == "com.android.documentsui":
        state = start_line(state, "com.android.documentsui/.files.FilesActivity", launcher=False, caller=package)
    elif package == "com.google.android.googlequicksearchbox":
        state = activate_ime(state, package, "search_box")
    return state


def activate_ime(state: PhoneState, package: str, field: str, hint: str = "Search") -> PhoneState:
    """Focus a text field: the keyboard comes up (LatinIME logs the editor it serves)."""
    state = state.emit("com.google.android.inputmethod.latin", "I", "AndroidIME",
                       f"LatinIme.onActivate() : EditorInfo:, inputType=0x1, imeOptions=0x3, fieldName={field}, "
                       f"hintText={hint}, packageName={package}, initialSelStart=0")
    return replace(state, ime=package, field_text="")


def go_home(state: PhoneState) -> PhoneState:
    return replace(state, foreground="", overlay=None, ime="", field_text="", launcher=Screen("home"))


def go_back(state: PhoneState) -> PhoneState:
    if state.overlay is not None:
        return replace(state, overlay=None)
    if state.ime:
        return replace(state, ime="", field_text="")
    task = state.top_task
    if task is None:
        return replace(state, launcher=Screen("home"))
    if len(task.screens) > 1:
        new = AppTask(task.package, task.screens[:-1])
        return replace(state, tasks=tuple(new if t is task else t for t in state.tasks))
    # finishing the root activity removes the task; the process stays cached
    if task.package == "com.android.dialer" and state.call is not None:
        return replace(state, foreground="")
    return replace(state, tasks=tuple(t for t in state.tasks if t is not task), foreground="",
                   launcher=Screen("home"))


def open_recents(state: PhoneState) -> PhoneState:
    return replace(state, overlay=Screen("recents"), ime="")


def resume_task(state: PhoneState, package: str) -> PhoneState:
    task = next(t for t in state.tasks if t.package == package)
    return replace(state, tasks=(task,) + tuple(t for t in state.tasks if t is not task), foreground=package,
                   overlay=None)


# ---------------------------------------------------------------- settings with side effects
def notify_setting(state: PhoneState, key: str) -> PhoneState:
    ns, name = key.split("/")
    return state.emit(SYSTEM, "V", "SettingsProvider", f"Notifying for 0: content://settings/{ns}/{name}")


def set_airplane(state: PhoneState, on: bool) -> PhoneState:
    if (state.setting("global/airplane_mode_on") == "1") == on:
        return state
    state = state.with_setting("global/airplane_mode_on", "1" if on else "0")
    state = notify_setting(state, "global/airplane_mode_on")
    msg = "Turning radio off - airplane mode enabled" if on else "Turning radio on - airplane mode disabled"
    return state.emit("com.android.phone", "I", "PhoneGlobals", msg)


def set_wifi(state: PhoneState, on: bool, caller: str) -> PhoneState:
    state = state.emit(SYSTEM, "I", "WifiService",
                       f"setWifiEnabled package={caller} uid={1000 if caller == 'com.android.settings' else 10051} "
                       f"enable={'true' if on else 'false'}")
    state = state.with_setting("global/wifi_on", "1" if on else "0")
    return notify_setting(state, "global/wifi_on")


def set_bluetooth(state: PhoneState, on: bool) -> PhoneState:
    state = state.with_setting("global/bluetooth_on", "1" if on else "0")
    state = state.emit(SYSTEM, "D", "BluetoothManagerService", f"{'enable' if on else 'disable'}(): mBluetooth = null")
    return notify_setting(state, "global/bluetooth_on")


def set_brightness(state: PhoneState, value: int) -> PhoneState:
    value = max(1, min(255, int(value)))
    old = int(state.setting("system/screen_brightness", "102"))
    state = state.with_setting("system/screen_brightness", str(value))
    state = state.with_setting("system/screen_brightness_mode", "0")
    state = notify_setting(state, "system/screen_brightness")
    return state.emit(SYSTEM, "V", "DisplayPowerController",
                      f"Brightness [{value}] reason changing to: 'manual', previous reason: 'manual' [{old}].")


def set_dark(state: PhoneState, on: bool) -> PhoneState:
    state = state.with_setting("secure/ui_night_mode", "2" if on else "1")
    state = state.emit(SYSTEM, "V", "SettingsProvider", "Notifying for 0: content://settings/secure/dark_mode_override")
    return notify_setting(state, "secure/ui_night_mode")


STREAMS = {"music": "STREAM_MUSIC", "voice": "STREAM_VOICE_CALL", "ring": "STREAM_RING", "alarm": "STREAM_ALARM",
           "system": "STREAM_SYSTEM", "notification": "STREAM_NOTIFICATION"}
STREAM_NUMBERS = {0: "voice", 1: "system", 2: "ring", 3: "music", 4: "alarm", 5: "notification"}  # AudioManager


def set_volume(state: PhoneState, stream: str, level: int) -> PhoneState:
    level = max(0, min(VOLUME_MAX[stream], int(level)))
    state = state.with_setting(f"system/volume_{stream}", str(level))
    return state.emit(SYSTEM_UI, "I", "vol.Events", f"writeEvent level_changed {STREAMS[stream]} {level}")


def toggle_vibrate(state: PhoneState) -> PhoneState:
    on = state.setting("system/vibrate_when_ringing") != "1"
    state = state.with_setting("system/vibrate_when_ringing", "1" if on else "0")
    return notify_setting(state, "system/vibrate_when_ringing")
