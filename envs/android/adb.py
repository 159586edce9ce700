"""``AdbBackend``: a real Android device or emulator behind the :class:`DeviceBackend` interface.

It drives the unmodified ``adb`` command-line client (Debian's ``adb`` package;
``adb=`` to use another binary) and, for snapshots, the emulator console
through ``adb emu``:

* UI: ``shell uiautomator dump /sdcard/window_dump.xml`` + ``pull`` (as B-MoCA v1),
  retried on "could not get idle state"; screenshots ``exec-out screencap -p``.
* Input: ``input tap X Y`` / ``input swipe X1 Y1 X2 Y2 300`` / ``input keyevent KEYCODE_*`` / ``input text``.
* Logcat: ``logcat -b all -c`` at reset, then a reader thread on ``logcat -v epoch``.
  ``logcat_read`` first writes a marker line (``log -t TreegymSync <n>``) and waits
  until the stream has delivered it, so every line caused by the last action is in.
* Snapshots (``snapshot_kind = "external"``): ``emu avd snapshot save treegym_<uuid>``;
  ``load`` and ``delete`` likewise (the env drops a handle when it is garbage-collected).
  ``reset_device(config_id)`` loads the emulator snapshot named after the
  configuration (``test_env_100``, as B-MoCA's ``set_up.py`` names them), then applies
  the task presets. Physical devices have no console: set ``snapshots=False``;
  reset then only applies the presets, and restore is unavailable.

Server selection: ``server="tcp:HOST:PORT"`` sets ``ADB_SERVER_SOCKET`` for every
call (default: the ``adb`` default, 127.0.0.1:5037); ``serial`` is passed as ``-s``.
"""
from __future__ import annotations

import io
import os
import re
import shlex
import subprocess
import tempfile
import threading
import time
import uuid
from typing import Any, Sequence

import numpy as np

from .backend import key_name

DUMP_PATH = "/sdcard/window_dump.xml"
SWIPE_MS = 300


class AdbError(RuntimeError):
    """An adb call failed; the message has the command and adb's own error."""


class AdbBackend:
    snapshot_kind = "external"

    def __init__(self, serial: str | None = None, server: str | None = None, adb: str = "adb",
                 snapshots: bool = True, timeout: float = 30.0, sync_timeout: float = 5.0):
        self.serial = serial
        self.adb = adb
        self.timeout = timeout
        self.sync_timeout = sync_timeout
        self.snapshots = snapshots
        self.snapshot_kind = "external" if snapshots else "replay"
        self.env = dict(os.environ)
        if server:
            self.env["ADB_SERVER_SOCKET"] = server
        self._size: tuple[int, int] | None = None
        self._lines: list[str] = []
        self._cond = threading.Condition()
        self._proc: subprocess.Popen | None = None
        self._reader: threading.Thread | None = None
        self._marker = 0
        self._tmp = tempfile.mkdtemp(prefix="treegym-adb-")

    # ------------------------------------------------------------------ plumbing
    def _argv(self, *args: str) -> list[str]:
        argv = [self.adb]
        if self.serial:
            argv += ["-s", self.serial]
        return argv + list(args)

    def run(self, *args: str, binary: bool = False) -> Any:
        try:
            r = subprocess.run(self._argv(*args), env=self.env, capture_output=True, timeout=self.timeout)
        except FileNotFoundError:
            raise AdbError(f"the adb client {self.adb!r} is not installed; on Debian/Ubuntu: apt-get install adb") from None
        except subprocess.TimeoutExpired:
            raise AdbError(f"adb {' '.join(args)} did not answer within {self.timeout} s") from None
        if r.returncode != 0:
            raise AdbError(f"adb {' '.join(args)} failed ({r.returncode}): "
                           f"{(r.stderr or r.stdout).decode(errors='replace').strip()}")
        return r.stdout if binary else r.stdout.decode("utf-8", "replace")

    # ------------------------------------------------------------------ DeviceBackend
    def screen_size(self) -> tuple[int, int]:
        if self._size is None:
            out = self.shell("wm size")
            m = re.findall(r"(\d+)x(\d+)", out)
            if not m:
                raise AdbError(f"cannot read the screen size from 'wm size': {out!r}")
            w, h = m[-1]  # an "Override size" line comes last
            self._size = (int(w), int(h))
        return self._size

    def dump_ui(self) -> str:
        for attempt in range(3):
            out = self.shell(f"uiautomator dump {DUMP_PATH}")
            if "could not get idle state" not in out:
                break
            time.sleep(0.5 * (attempt + 1))
        local = os.path.join(self._tmp, "window_dump.xml")
        self.run("pull", DUMP_PATH, local)
        with open(local, encoding="utf-8") as f:
            return f.read()

    def screenshot(self) -> np.ndarray:
        from PIL import Image

        png = self.run("exec-out", "screencap", "-p", binary=True)
        return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))

    def gesture(self, x1: float, y1: float, x2: float, y2: float) -> None:
        if (x1, y1) == (x2, y2):
            self.shell(f"input tap {int(x1)} {int(y1)}")
        else:
            self.shell(f"input swipe {int(x1)} {int(y1)} {int(x2)} {int(y2)} {SWIPE_MS}")

    def keyevent(self, name: str) -> None:
        self.shell(f"input keyevent KEYCODE_{key_name(name)}")

    def text(self, s: str) -> None:
        self.shell("input text " + shlex.quote(s.replace(" ", "%s")))

    def shell(self, cmd: str) -> str:
        return self.run("shell", cmd)

    # ------------------------------------------------------------------ logcat
    def logcat_clear(self) -> None:
        self._stop_reader()
        self.shell("logcat -b all -c")
        with self._cond:
            self._lines = []
        self._start_reader()

    def _start_reader(self) -> None:
        self._proc = subprocess.Popen(self._argv("logcat", "-v", "epoch"), env=self.env, stdout=subprocess.PIPE,
                                      stderr=subprocess.DEVNULL)
        proc = self._proc

        def pump() -> None:
            for raw in proc.stdout:
                with self._cond:
                    self._lines.append(raw.decode("utf-8", "replace").rstrip("\r\n"))
                    self._cond.notify_all()
        self._reader = threading.Thread(target=pump, daemon=True)
        self._reader.start()

    def _stop_reader(self) -> None:
        if self._proc is not None:
            self._proc.terminate()
            try:
                self._proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._proc.kill()
            self._proc = None
        if self._reader is not None:
            self._reader.join(timeout=5)
            self._reader = None

    def logcat_read(self, cursor: int) -> tuple[list[str], int]:
        if self._proc is None:
            self._start_reader()
        self._marker += 1
        token = f"treegym-sync-{self._marker}"
        self.shell(f"log -t TreegymSync {token}")
        deadline = time.monotonic() + self.sync_timeout
        with self._cond:
            while not any(token in line for line in self._lines[cursor:]):
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AdbError(f"logcat did not deliver the sync marker within {self.sync_timeout} s; "
                                   "is the logcat stream running?")
                self._cond.wait(left)
            end = next(i for i in range(cursor, len(self._lines)) if token in self._lines[i]) + 1
            lines = [ln for ln in self._lines[cursor:end] if "TreegymSync" not in ln]
        return lines, end

    # ------------------------------------------------------------------ snapshots
    def _console(self, *args: str) -> str:
        if not self.snapshots:
            raise AdbError("this AdbBackend has snapshots=False (a physical device has no emulator console)")
        out = self.run("emu", *args)
        if "KO" in out:
            raise AdbError(f"emulator console: {' '.join(args)}: {out.strip()}")
        return out

    def save_snapshot(self) -> str:
        name = f"treegym_{uuid.uuid4().hex[:12]}"
        self._console("avd", "snapshot", "save", name)
        return name

    def load_snapshot(self, ref: Any) -> None:
        self._stop_reader()
        self._console("avd", "snapshot", "load", str(ref))
        self._wait_ready()
        self._size = None
        self.logcat_clear()

    def drop_snapshot(self, ref: Any) -> None:
        try:
            self._console("avd", "snapshot", "delete", str(ref))
        except AdbError:
            pass  # the device may be gone already; nothing else holds the snapshot

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            try:
                if self.shell("getprop sys.boot_completed").strip() == "1":
                    return
            except AdbError:
                pass
            time.sleep(0.2)
        raise AdbError("the device did not report sys.boot_completed=1 after loading a snapshot")

    def reset_device(self, config_id: str, presets: Sequence[str] = ()) -> None:
        if self.snapshots:
            self.load_snapshot(config_id)
        for p in presets:
            key, _, value = p.partition("=")
            if key == "date":
                self.shell(f"su 0 toybox date {value}")
            else:
                ns, name = key.split("/", 1)
                self.shell(f"settings put {ns} {name} {value}")

    def close(self) -> None:
        self._stop_reader()

    def __del__(self) -> None:
        try:
            self._stop_reader()
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass
