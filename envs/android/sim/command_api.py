"""What the simulated shell hands a device command and takes back.

A command (``commands.py``, ``am.py``, ``packages.py``, ``logcat_cmd.py``) is a
function ``(sh: Shell, args) -> str | bytes | ShellResult``: text or bytes mean
exit status 0; :func:`fail` writes an error on stderr with a non-zero status.
:class:`Shell` is the part of ``shell.ShellSession`` a command reads, so the
commands depend on this module and not on the interpreter that runs them.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from .handset import Handset


@dataclass
class ShellResult:
    """What one command (or line) printed and its exit status."""

    stdout: bytes = b""
    stderr: bytes = b""
    status: int = 0

    @property
    def merged(self) -> bytes:
        """stdout then stderr, as shell protocol v1 (one stream) delivers them."""
        return self.stdout + self.stderr


def ok(out: str | bytes = b"") -> ShellResult:
    return ShellResult(out.encode() if isinstance(out, str) else out, b"", 0)


def fail(message: str, status: int = 1, stdout: str | bytes = b"") -> ShellResult:
    """An error: ``message`` (a newline added) on stderr and a non-zero status."""
    out = stdout.encode() if isinstance(stdout, str) else stdout
    return ShellResult(out, (message.rstrip("\n") + "\n").encode(), status)


class Shell(Protocol):
    """The session a command runs in (``shell.ShellSession`` is one)."""

    phone: Handset
    root: bool               # the command runs as root (``su``, ``adb root``)
    env: dict[str, str]      # the session's environment (``export``)
    cmd_stdin: bytes         # what the command reads on stdin (a pipe's input)
    can_follow: bool         # a server streams: a following ``logcat`` may leave its request in ``follow``
    follow: object
