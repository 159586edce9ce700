"""``logcat`` in the simulated phone's shell: ``-c`` clears, ``-d`` (or ``-t N``) dumps and exits.

Without ``-d`` / ``-c`` a device's logcat keeps following the log; a one-shot
shell (this module) prints what is there and returns, while the fake adb server
streams new lines (``servers/android/fake_adb.py`` uses the same
:func:`~treegym.envs.android.logcat.parse_args` and
:func:`~treegym.envs.android.logcat.render`). Options and formats: see
``envs/android/logcat.py``.
"""
from __future__ import annotations


from ..logcat import LogcatUsage, parse_args, render
from .command_api import Shell, ShellResult, fail


def logcat(sh: Shell, args: list[str]) -> str | ShellResult:
    try:
        req = parse_args(args, sh.env.get("ANDROID_LOG_TAGS", ""))
    except LogcatUsage as exc:
        return fail(str(exc), 1)
    if req.clear:
        sh.phone.logcat_clear()
        return ""
    lines = sh.phone.state.log_lines(0)
    if req.tail is not None:
        lines = lines[-req.tail:] if req.tail else []
    printed: set[str] = set()
    out = render(lines, req, printed)
    if not req.dump and sh.can_follow:
        sh.follow = (req, printed)  # the server keeps streaming new lines after these
    if req.max_count is not None:
        out = "".join(out.splitlines(keepends=True)[:req.max_count])
    return out
