"""``DeviceBackend``: the only thing the Android env talks to.

Two implementations: :class:`treegym.envs.android.sim.phone.SimPhone` (pure
Python, default) and :class:`treegym.envs.android.adb.AdbBackend` (a real
device or emulator through the ``adb`` client). Coordinates are screen pixels.

* ``screen_size() -> (width, height)``
* ``dump_ui() -> str``: the uiautomator XML of the focused window.
* optional ``tree() -> Node``: the focused window as a :class:`~treegym.envs.android.ui.Node`
  tree (the simulator has one); the env then reads the element list from the tree
  and writes the dump with ``ui.to_xml`` instead of parsing ``dump_ui()``.
* ``screenshot() -> np.ndarray``: ``(height, width, 3)`` uint8 RGB.
* ``gesture(x1, y1, x2, y2)``: touch at (x1, y1), lift at (x2, y2); equal points are a tap.
* ``keyevent(name)``: ``HOME``, ``BACK``, ``APP_SWITCH``, ``ENTER``, ... (``KEYCODE_`` prefix optional).
* ``text(s)``: type into the focused field.
* ``shell(cmd) -> str``: a device shell command's output.
* ``logcat_clear()``; ``logcat_read(cursor) -> (lines, new_cursor)``: ``-v epoch`` lines
  written since ``cursor`` (an int the backend hands out; 0 after a clear).
* ``save_snapshot() -> ref``; ``load_snapshot(ref)``; ``drop_snapshot(ref)``. ``snapshot_kind``
  says what a ref is: ``native`` (an immutable in-memory state) or ``external``
  (a named emulator snapshot that must be dropped to free it).
* ``reset_device(config_id, presets)``: go to a configuration's base state (the
  simulator builds it; an emulator loads the snapshot named after the configuration)
  and apply task presets (``"global/airplane_mode_on=1"``, ``"date=MMDDhhmmYYYY.ss"``).
"""
from __future__ import annotations

from typing import Any, Protocol, Sequence, runtime_checkable

import numpy as np

KEYCODES = {"HOME": 3, "BACK": 4, "CALL": 5, "ENDCALL": 6, "ENTER": 66, "DEL": 67, "APP_SWITCH": 187,
            "VOLUME_UP": 24, "VOLUME_DOWN": 25, "POWER": 26, "MENU": 82}


def key_name(code: str | int) -> str:
    """Normalize ``KEYCODE_HOME``, ``HOME`` or ``3`` to ``HOME``; raises ValueError for unknown keys."""
    s = str(code).strip().upper()
    if s.startswith("KEYCODE_"):
        s = s[len("KEYCODE_"):]
    if s.isdigit():
        for k, v in KEYCODES.items():
            if v == int(s):
                return k
    if s in KEYCODES:
        return s
    raise ValueError(f"unknown key {code!r}; use one of {', '.join(KEYCODES)}")


@runtime_checkable
class DeviceBackend(Protocol):
    snapshot_kind: str

    def screen_size(self) -> tuple[int, int]: ...

    def dump_ui(self) -> str: ...

    def screenshot(self) -> np.ndarray: ...

    def gesture(self, x1: float, y1: float, x2: float, y2: float) -> None: ...

    def keyevent(self, name: str) -> None: ...

    def text(self, s: str) -> None: ...

    def shell(self, cmd: str) -> str: ...

    def logcat_clear(self) -> None: ...

    def logcat_read(self, cursor: int) -> tuple[list[str], int]: ...

    def save_snapshot(self) -> Any: ...

    def load_snapshot(self, ref: Any) -> None: ...

    def drop_snapshot(self, ref: Any) -> None: ...

    def reset_device(self, config_id: str, presets: Sequence[str]) -> None: ...

    def close(self) -> None: ...
