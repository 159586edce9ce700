"""The simulated phone's state: one immutable value, so a snapshot is a reference.

Every field is a frozen dataclass, tuple, frozenset or int/str. Transitions build
a new ``PhoneState`` with ``dataclasses.replace``; nothing is mutated in place.
The logcat buffer is a persistent linked list (``(line, previous)`` pairs), so
appending a line is O(1) and old states keep their own history.

Units: ``clock_ms`` is device time in epoch milliseconds (advances 1 s per input
event); ``scroll`` offsets are pixels; settings values are strings, keyed
``"<namespace>/<name>"`` (namespaces ``system``, ``secure``, ``global``).
"""
from __future__ import annotations

import zlib
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from typing import Iterator

from ..device import DeviceConfig


@dataclass(frozen=True)
class Screen:
    """One activity/page of an app: its name, scroll offset (px) and parameters."""

    name: str
    scroll: int = 0
    arg: tuple = ()


@dataclass(frozen=True)
class AppTask:
    """A task in recents: its package and its back stack (root first)."""

    package: str
    screens: tuple[Screen, ...]


@dataclass(frozen=True)
class Alarm:
    """A Clock alarm; ``days`` is deskclock's bitmask (Mon=1 .. Sun=64), 0 = once."""

    alarm_id: int
    hour: int
    minute: int
    enabled: bool = False
    days: int = 0
    expanded: bool = False


DEFAULT_SETTINGS: tuple[tuple[str, str], ...] = (
    ("global/airplane_mode_on", "0"), ("global/wifi_on", "1"), ("global/bluetooth_on", "1"),
    ("global/auto_time", "1"), ("global/auto_time_zone", "1"), ("global/mobile_data", "1"),
    ("system/screen_brightness", "102"), ("system/screen_brightness_mode", "0"),
    ("system/vibrate_when_ringing", "0"), ("system/time_12_24", "12"), ("system/accelerometer_rotation", "0"),
    ("system/volume_music", "5"), ("system/volume_voice", "4"), ("system/volume_ring", "5"),
    ("system/volume_alarm", "6"), ("system/volume_system", "5"), ("system/volume_notification", "5"),
    ("secure/ui_night_mode", "1"), ("secure/location_mode", "3"),
)
VOLUME_MAX = {"music": 25, "voice": 5, "ring": 7, "alarm": 7, "system": 7, "notification": 7}

CONTACTS: tuple[tuple[str, str], ...] = (
    ("Alice Brown", "(650) 555-0101"), ("Bob Chen", "(650) 555-0123"), ("Carol Diaz", "(415) 555-0142"),
    ("David Evans", "(212) 555-0175"), ("Emma Fischer", "(312) 555-0199"),
)
CONVERSATIONS: tuple[tuple[str, str], ...] = (
    ("Bob Chen", "See you at 6?"), ("Carol Diaz", "Thanks for the photos!"), ("Google", "G-482913 is your code"),
)


def pid_of(package: str) -> int:
    """A stable fake pid per process name."""
    return 1000 + zlib.crc32(package.encode()) % 28000


@dataclass(frozen=True)
class PhoneState:
    """Everything that changes on the simulated phone (see the module docstring)."""

    config: DeviceConfig
    clock_ms: int
    launcher: Screen = Screen("home")           # "home" or "drawer" (with scroll)
    foreground: str = ""                         # package of the front task; "" = launcher
    tasks: tuple[AppTask, ...] = ()              # recents, most recent first
    overlay: Screen | None = None                # systemui: shade, qs, recents, brightness dialog
    settings: tuple[tuple[str, str], ...] = DEFAULT_SETTINGS
    alarms: tuple[Alarm, ...] = (Alarm(1, 9, 0, False, 96),)
    stopwatch: tuple[str, int] = ("reset", 0)     # (reset|running|paused, elapsed ms)
    dial: str = ""
    call: tuple[str, str] | None = None          # (number, dialing|active)
    ime: str = ""                                # package whose text field holds the keyboard
    field_text: str = ""
    alive: frozenset[str] = frozenset({"com.android.systemui", "com.google.android.apps.nexuslauncher",
                                       "com.android.phone"})
    # (line, previous) linked list, newest first; left out of ==/repr (both would recurse once per line);
    # equal states have equal log_count, compare log_lines() for the text
    log: tuple | None = field(default=None, compare=False, repr=False)
    log_count: int = 0                           # lines ever written (absolute sequence)
    log_cleared: int = 0                         # lines below this sequence were cleared (logcat -c)
    files: tuple[str, ...] = field(default=())   # paths written by uiautomator dump / screencap
    disabled: frozenset[str] = frozenset()       # packages off for user 0 (pm disable-user)
    props: tuple[tuple[str, str], ...] = ()      # system properties set with setprop (sorted)

    # ----------------------------------------------------------------- pickling
    # The log is a linked list as deep as it is long; pickle it flat (pickling
    # recurses per nesting level and would overflow the stack after ~1,000 lines).
    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        lines: list[str] = []
        node = self.log
        while node is not None:
            lines.append(node[0])
            node = node[1]
        state["log"] = tuple(lines)  # newest first
        return state

    def __setstate__(self, state: dict) -> None:
        node = None
        for line in reversed(state["log"]):
            node = (line, node)
        self.__dict__.update(state)
        self.__dict__["log"] = node

    # ----------------------------------------------------------------- settings
    def setting(self, key: str, default: str = "null") -> str:
        for k, v in self.settings:
            if k == key:
                return v
        return default

    def with_setting(self, key: str, value: str) -> "PhoneState":
        items = [(k, v) for k, v in self.settings if k != key]
        items.append((key, str(value)))
        return replace(self, settings=tuple(sorted(items)))

    # ----------------------------------------------------------------- apps
    @property
    def top_task(self) -> AppTask | None:
        if not self.foreground:
            return None
        for t in self.tasks:
            if t.package == self.foreground:
                return t
        return None

    @property
    def screen(self) -> Screen:
        """The screen on top (an app's top activity, or the launcher page)."""
        t = self.top_task
        return t.screens[-1] if t is not None else self.launcher

    def with_screen(self, screen: Screen) -> "PhoneState":
        """Replace the top screen of the front task (or the launcher page)."""
        t = self.top_task
        if t is None:
            return replace(self, launcher=screen)
        new = AppTask(t.package, t.screens[:-1] + (screen,))
        return replace(self, tasks=tuple(new if x is t else x for x in self.tasks))

    def push(self, screen: Screen) -> "PhoneState":
        t = self.top_task
        if t is None:
            raise RuntimeError("push() needs a foreground app")
        new = AppTask(t.package, t.screens + (screen,))
        return replace(self, tasks=tuple(new if x is t else x for x in self.tasks), ime="", field_text="")

    # ----------------------------------------------------------------- logcat
    def emit(self, package: str, priority: str, tag: str, message: str) -> "PhoneState":
        sec, ms = divmod(self.clock_ms, 1000)
        pid = pid_of(package)
        line = f"{sec}.{ms:03d} {pid:5d} {pid + 17:5d} {priority} {tag}: {message}"
        return replace(self, log=(line, self.log), log_count=self.log_count + 1)

    def log_lines(self, since: int = 0) -> list[str]:
        """Lines with sequence >= max(since, cleared), oldest first."""
        start = max(since, self.log_cleared)
        n = self.log_count - start
        out: list[str] = []
        node = self.log
        while n > 0 and node is not None:
            out.append(node[0])
            node = node[1]
            n -= 1
        out.reverse()
        return out

    def tick(self, ms: int = 1000) -> "PhoneState":
        return replace(self, clock_ms=self.clock_ms + ms)

    @property
    def now(self) -> datetime:
        return datetime.fromtimestamp(self.clock_ms / 1000, tz=timezone.utc)


def iter_packages(state: PhoneState) -> Iterator[str]:
    for t in state.tasks:
        yield t.package
