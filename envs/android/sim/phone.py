"""``SimPhone``: the simulated phone as a :class:`DeviceBackend`: a :class:`Handset` with its shell.

The screen, input, files, logcat and snapshots are the :class:`~.handset.Handset`'s;
this class adds ``shell`` (``sim/shell.py``, an ``sh`` subset with the device
commands) and ``reset_device`` (a configuration's base state plus the task's
presets, which may need the shell: ``date``).
"""
from __future__ import annotations

from typing import Sequence

from ..device import get_config
from .handset import Handset, initial_state
from .shell import run


class SimPhone(Handset):
    """The simulated phone behind the :class:`DeviceBackend` interface (see the module docstring)."""

    def shell(self, cmd: str) -> str:
        """Run a command line; stdout and stderr as one text (as ``adb shell`` over protocol v1)."""
        return run(self, cmd).merged.decode("utf-8", "replace")

    def shell_bytes(self, cmd: str) -> bytes:
        return run(self, cmd).merged

    def reset_device(self, config_id: str, presets: Sequence[str] = ()) -> None:
        self.state = initial_state(get_config(config_id))
        for p in presets:
            self.apply_preset(p)

    def apply_preset(self, preset: str) -> None:
        key, _, value = preset.partition("=")
        if key == "date":
            self.shell(f"su 0 date {value}")
        else:
            self.state = self.state.with_setting(key, value)
