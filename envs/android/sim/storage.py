"""The simulated phone's files: a byte-bounded store, Android's permissions and the Clock's alarm database.

* :class:`FileStore`: path -> bytes, holding at most ``max_bytes`` in all; a
  write past the bound raises ``OSError(ENOSPC)`` ("No space left on device")
  and changes nothing.
* Permissions as for adb's ``shell`` user: under ``/data`` only
  ``/data/local/tmp`` is readable and writable without root; ``/system``,
  ``/vendor`` and ``/product`` are read-only for everyone (``EROFS``).
* ``ALARM_DB`` (deskclock's ``alarms.db``) is not stored: reading it exports the
  phone's alarms as a SQLite database with deskclock's tables
  (``alarm_templates``: hour, minutes, daysofweek (Mon=1 .. Sun=64), enabled, ...;
  ``alarm_instances``), which is what B-MoCA's clock evaluators copy out and query.
  A database pushed there replaces the alarms at the next boot, as deskclock
  reads it when it starts.
"""
from __future__ import annotations

import errno
import os
import sqlite3
import tempfile
from collections.abc import Iterator, MutableMapping
from datetime import timedelta

from .state import Alarm, PhoneState

ALARM_DB = "/data/user_de/0/com.google.android.deskclock/databases/alarms.db"
DEFAULT_MAX_BYTES = 64 * 1024 * 1024
READ_ONLY = ("/system/", "/vendor/", "/product/", "/apex/")

_SCHEMA = (
    "CREATE TABLE android_metadata (locale TEXT)",
    "CREATE TABLE alarm_templates (_id INTEGER PRIMARY KEY, hour INTEGER NOT NULL, minutes INTEGER NOT NULL, "
    "daysofweek INTEGER NOT NULL, enabled INTEGER NOT NULL, vibrate INTEGER NOT NULL, label TEXT NOT NULL, "
    "ringtone TEXT, delete_after_use INTEGER NOT NULL DEFAULT 0, workflow_label TEXT, workflow_data TEXT)",
    "CREATE TABLE alarm_instances (_id INTEGER PRIMARY KEY,year INTEGER NOT NULL, month INTEGER NOT NULL, "
    "day INTEGER NOT NULL, hour INTEGER NOT NULL, minutes INTEGER NOT NULL, vibrate INTEGER NOT NULL, "
    "label TEXT NOT NULL, ringtone TEXT, alarm_state INTEGER NOT NULL, "
    "alarm_id INTEGER REFERENCES alarm_templates (_id) ON DELETE CASCADE)",
)
DB_VERSION = 9


class FileStore(MutableMapping):
    """Files by absolute path, at most ``max_bytes`` of contents in all (see the module docstring)."""

    def __init__(self, max_bytes: int = DEFAULT_MAX_BYTES):
        self.max_bytes = int(max_bytes)
        self.used = 0
        self._data: dict[str, bytes] = {}

    def __getitem__(self, path: str) -> bytes:
        return self._data[path]

    def __setitem__(self, path: str, data: bytes) -> None:
        data = bytes(data)
        used = self.used - len(self._data.get(path, b"")) + len(data)
        if used > self.max_bytes:
            raise OSError(errno.ENOSPC, "No space left on device", path)
        self._data[path] = data
        self.used = used

    def __delitem__(self, path: str) -> None:
        self.used -= len(self._data.pop(path))

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def room(self, path: str = "") -> int:
        """Bytes a write to ``path`` may still hold."""
        return self.max_bytes - self.used + len(self._data.get(path, b""))


def check_access(path: str, root: bool, write: bool) -> None:
    """Raise PermissionError / OSError(EROFS) when the ``shell`` user (or root) may not touch ``path``."""
    if write and path.startswith(READ_ONLY):
        raise OSError(errno.EROFS, "Read-only file system", path)
    if root:
        return
    if path.startswith("/data/") and not path.startswith("/data/local/tmp"):
        raise PermissionError(errno.EACCES, "Permission denied", path)


def export_alarms(state: PhoneState) -> bytes:
    """The phone's alarms as deskclock's ``alarms.db`` (SQLite bytes)."""
    fd, tmp = tempfile.mkstemp(suffix=".db")
    os.close(fd)
    try:
        con = sqlite3.connect(tmp)
        for sql in _SCHEMA:
            con.execute(sql)
        con.execute("INSERT INTO android_metadata VALUES ('en_US')")
        now = state.now
        for a in state.alarms:
            con.execute("INSERT INTO alarm_templates (_id, hour, minutes, daysofweek, enabled, vibrate, label, "
                        "ringtone, delete_after_use) VALUES (?, ?, ?, ?, ?, 1, '', NULL, 0)",
                        (a.alarm_id, a.hour, a.minute, a.days, int(a.enabled)))
            if a.enabled:
                when = now.replace(hour=a.hour, minute=a.minute, second=0, microsecond=0)
                while when <= now or (a.days and not a.days & (1 << when.weekday())):
                    when += timedelta(days=1)
                con.execute("INSERT INTO alarm_instances (year, month, day, hour, minutes, vibrate, label, ringtone, "
                            "alarm_state, alarm_id) VALUES (?, ?, ?, ?, ?, 1, '', NULL, 1, ?)",
                            (when.year, when.month - 1, when.day, a.hour, a.minute, a.alarm_id))
        con.execute(f"PRAGMA user_version = {DB_VERSION}")
        con.commit()
        con.close()
        with open(tmp, "rb") as f:
            return f.read()
    finally:
        os.unlink(tmp)


#: SQLite virtual-machine steps an alarms.db import may take (a real one needs a few thousand);
#: a recursive view or a huge table is refused instead of holding the phone.
IMPORT_MAX_STEPS = 2_000_000
#: Alarms an import keeps at most (deskclock shows a few dozen).
IMPORT_MAX_ROWS = 1000


def import_alarms(data: bytes) -> tuple[Alarm, ...]:
    """The alarms of a deskclock ``alarms.db``; raises ValueError (one line, what was wrong) when it is not one.

    The database is opened read-only and read under a step budget (a progress
    handler, :data:`IMPORT_MAX_STEPS`), so a recursive view ends in a refusal,
    not a hang; every row must hold integers (no NULL, text or real hours), and
    more than :data:`IMPORT_MAX_ROWS` rows are refused.
    """
    fd, tmp = tempfile.mkstemp(suffix=".db")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        con = sqlite3.connect(f"file:{tmp}?mode=ro", uri=True)
        steps = [0]

        def budget() -> int:
            steps[0] += 1
            return 1 if steps[0] * 1000 > IMPORT_MAX_STEPS else 0

        con.set_progress_handler(budget, 1000)
        try:
            rows = con.execute("SELECT _id, hour, minutes, enabled, daysofweek FROM alarm_templates "
                               f"ORDER BY _id LIMIT {IMPORT_MAX_ROWS + 1}").fetchall()
        except sqlite3.OperationalError as exc:
            if "interrupted" in str(exc):
                raise ValueError(f"alarms.db: reading alarm_templates took more than {IMPORT_MAX_STEPS:,} SQLite "
                                 "steps (a recursive view?); push a plain deskclock database") from None
            raise ValueError(f"not a deskclock alarms database: {exc}") from None
        except sqlite3.DatabaseError as exc:
            raise ValueError(f"not a deskclock alarms database: {exc}") from None
        finally:
            con.close()
    finally:
        os.unlink(tmp)
    if len(rows) > IMPORT_MAX_ROWS:
        raise ValueError(f"alarms.db: more than {IMPORT_MAX_ROWS} alarms; push a deskclock database with fewer")
    names = ("_id", "hour", "minutes", "enabled", "daysofweek")
    for no, row in enumerate(rows, 1):
        for name, value in zip(names, row):
            if not isinstance(value, int):
                raise ValueError(f"alarms.db: alarm_templates row {no} has {name} = {value!r:.40}, not an integer; "
                                 "push a deskclock database whose alarms are whole numbers")
    return tuple(Alarm(i, h % 24, m % 60, bool(e), d & 127) for i, h, m, e, d in rows)
