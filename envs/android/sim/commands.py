"""Device commands of the simulated phone's shell (``shell.ShellSession`` runs them).

Each takes ``(session, args)`` and returns text / bytes (exit status 0) or a
:class:`ShellResult` (errors on stderr with a non-zero status, as on Android 10):
``settings get|put|delete|list``, ``input [source] tap|swipe|keyevent|text``,
``uiautomator dump [FILE|/dev/tty]``, ``cat``, ``cp``, ``rm``, ``ls``, ``echo``,
``screencap [-p] [FILE]``, ``am start|force-stop|stack list|broadcast``,
``dumpsys activity|window|telephony.registry|alarm``, ``date`` (read or set
``MMDDhhmm[[CC]YY][.ss]``), ``getprop``, ``setprop`` (``ctl.restart zygote``
restarts the framework), ``wm size|density [VALUE|reset]``, ``cmd uimode night``,
``log``, ``content query``; and from ``packages.py``: ``pm``, ``monkey``,
``media volume``; from ``logcat_cmd.py``: ``logcat``.
"""
from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import Callable

from ..device import get_config
from . import system
from .am import am
from .logcat_cmd import logcat
from .packages import media, monkey, pm
from .command_api import Shell, ShellResult, fail


def _settings(sh: Shell, args: list[str]) -> str | ShellResult:
    phone = sh.phone
    if args[:1] == ["--user"] and len(args) > 1:
        args = args[2:]
    if len(args) < 2 or args[1] not in ("system", "secure", "global"):
        return fail("usage: settings [--user <USER_ID> | current] get|put|delete|list|reset NAMESPACE [KEY [VALUE]]",
                    255)
    op, ns = args[0], args[1]
    if op == "get" and len(args) >= 3:
        return phone.state.setting(f"{ns}/{args[2]}") + "\n"
    if op == "put" and len(args) >= 4:
        key = f"{ns}/{args[2]}"
        phone.state = system.notify_setting(phone.state.with_setting(key, args[3]), key)
        return ""
    if op == "delete" and len(args) >= 3:
        key = f"{ns}/{args[2]}"
        kept = tuple(kv for kv in phone.state.settings if kv[0] != key)
        phone.state = replace(phone.state, settings=kept)
        return f"Deleted {int(len(kept) != len(phone.state.settings))} rows\n"
    if op == "list":
        return "".join(f"{k.split('/', 1)[1]}={v}\n" for k, v in phone.state.settings if k.startswith(ns + "/"))
    return fail(f"Invalid command: {op}", 255)


def _input(sh: Shell, args: list[str]) -> str | ShellResult:
    phone = sh.phone
    if args and args[0] in ("touchscreen", "keyboard", "mouse", "stylus", "dpad", "gamepad", "touchpad"):
        args = args[1:]
    usage = "Usage: input [<source>] <command> [<arg>...]"
    if not args:
        return fail(usage, 1)
    sub, a = args[0], args[1:]
    if sub == "tap" and len(a) == 2:
        x, y = float(a[0]), float(a[1])
        phone.gesture(x, y, x, y)
    elif sub == "swipe" and len(a) in (4, 5):
        phone.gesture(float(a[0]), float(a[1]), float(a[2]), float(a[3]))
    elif sub == "keyevent" and a:
        for k in a:
            if k.startswith("--"):
                continue
            try:
                phone.keyevent(k)
            except ValueError:
                return fail(f"Error: Unknown keycode: {k}", 1)
    elif sub == "text" and a:
        phone.text(" ".join(a).replace("%s", " "))
    else:
        return fail(f"Error: Unknown command: {sub}\n{usage}" if sub not in ("tap", "swipe", "keyevent", "text")
                    else f"Error: Invalid arguments for command: {sub}\n{usage}", 1)
    return ""


def _uiautomator(sh: Shell, args: list[str]) -> str | ShellResult:
    if not args or args[0] != "dump":
        return fail("Usage: uiautomator <subcommand> [options]", 1)
    path = next((a for a in args[1:] if a.startswith("/")), "/sdcard/window_dump.xml")
    xml = sh.phone.dump_ui()
    if path in ("/dev/tty", "/dev/stdout", "/proc/self/fd/1"):
        return f"{xml}UI hierchary dumped to: {path}\n"  # the XML goes to the terminal, then the notice
    try:
        sh.phone.write_file(path, xml.encode(), root=sh.root)
    except OSError as exc:
        return fail(f"ERROR: could not write {path}: {exc.strerror}", 1)
    return f"UI hierchary dumped to: {path}\n"


def _read(sh: Shell, name: str, path: str) -> bytes | ShellResult:
    try:
        data = sh.phone.read_file(path, root=sh.root)
    except PermissionError:
        return fail(f"{name}: {path}: Permission denied", 1)
    if data is None:
        return fail(f"{name}: {path}: No such file or directory", 1)
    return data


def _cat(sh: Shell, args: list[str]) -> bytes | ShellResult:
    if not args:
        return sh.cmd_stdin
    out = bytearray()
    for p in args:
        data = _read(sh, "cat", p)
        if isinstance(data, ShellResult):
            return ShellResult(bytes(out), data.stderr, 1)
        out += data
    return bytes(out)


def _cp(sh: Shell, args: list[str]) -> str | ShellResult:
    paths = [a for a in args if not a.startswith("-")]
    if len(paths) != 2:
        return fail("cp: Needs 2 arguments", 1)
    src, dst = paths
    data = _read(sh, "cp", src)
    if isinstance(data, ShellResult):
        return data
    if dst.endswith("/") or dst in ("/sdcard", "/data/local/tmp"):
        dst = dst.rstrip("/") + "/" + src.rsplit("/", 1)[-1]
    try:
        sh.phone.write_file(dst, data, root=sh.root)
    except OSError as exc:
        return fail(f"cp: {dst}: {exc.strerror}", 1)
    return ""


def _rm(sh: Shell, args: list[str]) -> str | ShellResult:
    force = any(a.startswith("-") and "f" in a for a in args)
    for p in (a for a in args if not a.startswith("-")):
        try:
            gone = sh.phone.remove_file(p, root=sh.root)
        except OSError as exc:
            return fail(f"rm: {p}: {exc.strerror}", 1)
        if not gone and not force:
            return fail(f"rm: {p}: No such file or directory", 1)
    return ""


def _ls(sh: Shell, args: list[str]) -> str | ShellResult:
    paths = [a for a in args if not a.startswith("-")] or ["/sdcard"]
    out = []
    for p in paths:
        base = p.rstrip("/")
        try:
            if sh.phone.read_file(base, root=sh.root) is not None:
                out.append(base)
                continue
        except PermissionError:
            return fail(f"ls: {base}: Permission denied", 1)
        names = sorted(k[len(base) + 1:].split("/")[0] for k in sh.phone.files if k.startswith(base + "/"))
        if not names and not base.startswith(("/sdcard", "/data/local/tmp", "/storage")):
            return fail(f"ls: {p}: No such file or directory", 1)
        out.extend(dict.fromkeys(names))
    return "".join(n + "\n" for n in out)


def _screencap(sh: Shell, args: list[str]) -> bytes | ShellResult:
    png = sh.phone.screenshot_png()
    path = next((a for a in args if a.startswith("/")), None)
    if path:
        try:
            sh.phone.write_file(path, png, root=sh.root)
        except OSError as exc:
            return fail(f"Error opening file: {path} ({exc.strerror})", 1)
        return b""
    return png


def _dumpsys(sh: Shell, args: list[str]) -> str | ShellResult:
    phone = sh.phone
    what = args[0] if args else ""
    focus = (system.APPS[phone.state.foreground].component if phone.state.foreground
             else "com.google.android.apps.nexuslauncher/.NexusLauncherActivity")
    if what == "activity":
        return f"  mResumedActivity: ActivityRecord{{a1b2c3 u0 {focus} t100}}\n"
    if what == "window":  # Android 10 prints the focused app's token after the focused window
        return (f"  mCurrentFocus=Window{{d4e5f6 u0 {focus}}}\n"
                f"  mFocusedApp=AppWindowToken{{7a8b9c token=Token{{1f2e3d ActivityRecord{{a1b2c3 u0 {focus} t100}}}}}}\n")
    if what == "telephony.registry":
        return f"  mCallState={2 if phone.state.call else 0}\n  mCallIncomingNumber=\n"
    if what == "alarm":
        return "".join(f"  Alarm id={a.alarm_id} {a.hour:02d}:{a.minute:02d} enabled={str(a.enabled).lower()} "
                       f"daysOfWeek={a.days}\n" for a in phone.state.alarms)
    return fail(f"Can't find service: {what}", 0)


def _date(sh: Shell, args: list[str]) -> str | ShellResult:
    phone = sh.phone
    args = [a for a in args if not a.startswith("-")]
    if args and args[0][:1].isdigit():
        if not sh.root:
            return fail("date: cannot set date: Operation not permitted", 1)
        spec = args[0]
        main, _, sec = spec.partition(".")
        if len(main) not in (8, 10, 12) or not main.isdigit() or (sec and not sec.isdigit()):
            return fail(f"date: bad date '{spec}'", 1)
        mo, d, h, mi = int(main[0:2]), int(main[2:4]), int(main[4:6]), int(main[6:8])
        rest = main[8:]
        year = phone.state.now.year if not rest else (int(rest) if len(rest) == 4 else 2000 + int(rest))
        try:
            phone.set_clock(datetime(year, mo, d, h, mi, int(sec or 0)))
        except ValueError:
            return fail(f"date: bad date '{spec}'", 1)
    return phone.state.now.strftime("%a %b %d %H:%M:%S GMT %Y") + "\n"


def device_props(sh: Shell) -> dict[str, str]:
    """The properties ``getprop`` lists: the device's, then what ``setprop`` changed."""
    c = sh.phone.config
    props = {"ro.build.version.sdk": "29", "ro.build.version.release": "10", "ro.product.model": c.device,
             "ro.sf.lcd_density": str(get_config(c.env_id).density), "persist.sys.locale": c.locale,
             "sys.boot_completed": "1", "ro.debuggable": "1", "ro.build.type": "userdebug",
             "ro.kernel.qemu": "1", "service.adb.root": "1" if sh.phone.adb_root else "0"}
    props.update(dict(sh.phone.state.props))
    return props


def _getprop(sh: Shell, args: list[str]) -> str:
    props = device_props(sh)
    if args:
        return props.get(args[0], args[1] if len(args) > 1 else "") + "\n"
    return "".join(f"[{k}]: [{v}]\n" for k, v in sorted(props.items()))


def _setprop(sh: Shell, args: list[str]) -> str | ShellResult:
    if len(args) != 2:
        return fail("usage: setprop NAME VALUE\n\nSets an Android system property.", 1)
    name, value = args
    if name.startswith("ctl."):
        if not sh.root and name != "ctl.restart":
            return fail(f"setprop: failed to set property '{name}' to '{value}'", 1)
        if name == "ctl.restart" and value == "zygote":
            sh.phone.reboot(soft=True)
        return ""
    if name.startswith("ro.") and name in device_props(sh):
        return fail(f"setprop: failed to set property '{name}' to '{value}'", 1)
    props = dict(sh.phone.state.props)
    props[name] = value
    sh.phone.state = replace(sh.phone.state, props=tuple(sorted(props.items())))
    return ""


def _wm(sh: Shell, args: list[str]) -> str | ShellResult:
    phone = sh.phone
    c, base = phone.config, get_config(phone.config.env_id)
    if args[:1] == ["size"]:
        if len(args) == 1:
            over = f"Override size: {c.width}x{c.height}\n" if (c.width, c.height) != (base.width, base.height) else ""
            return f"Physical size: {base.width}x{base.height}\n" + over
        if args[1] == "reset":
            w, h = base.width, base.height
        else:
            try:
                w, h = (int(v) for v in args[1].lower().split("x"))
            except ValueError:
                return fail(f"Error: bad size {args[1]}", 255)
        phone.state = replace(phone.state, config=replace(c, width=w, height=h))
        return ""
    if args[:1] == ["density"]:
        if len(args) == 1:
            over = f"Override density: {c.density}\n" if c.density != base.density else ""
            return f"Physical density: {base.density}\n" + over
        if args[1] != "reset" and not args[1].isdigit():
            return fail(f"Error: bad number {args[1]}", 255)
        d = base.density if args[1] == "reset" else int(args[1])
        phone.state = replace(phone.state, config=replace(c, density=d))
        return ""
    return fail("usage: wm [size|density] [reset|VALUE]", 255)


def _cmd(sh: Shell, args: list[str]) -> str | ShellResult:
    if args[:2] == ["uimode", "night"]:
        if len(args) > 2:
            sh.phone.state = system.set_dark(sh.phone.state, args[2] == "yes")
        return f"Night mode: {'yes' if sh.phone.state.setting('secure/ui_night_mode') == '2' else 'no'}\n"
    if args[:1] == ["package"]:
        return pm(sh, args[1:])
    return fail(f"cmd: Can't find service: {args[0] if args else ''}", 20)


def _log(sh: Shell, args: list[str]) -> str:
    """Android's ``log [-p PRIORITY] [-t TAG] MESSAGE``: write one logcat line."""
    pri, tag, rest, i = "I", "log", [], 0
    while i < len(args):
        if args[i] == "-p" and i + 1 < len(args):
            pri = args[i + 1][:1].upper()
            i += 2
        elif args[i] == "-t" and i + 1 < len(args):
            tag = args[i + 1]
            i += 2
        else:
            rest.append(args[i])
            i += 1
    sh.phone.state = sh.phone.state.emit("shell", pri if pri in "VDIWEF" else "I", tag, " ".join(rest))
    return ""


def _content(sh: Shell, args: list[str]) -> str | ShellResult:
    if args[:1] == ["query"] and "--uri" in args:
        uri = args[args.index("--uri") + 1]
        if uri.startswith("content://settings/"):
            ns = uri.split("/")[3]
            rows = [kv for kv in sh.phone.state.settings if kv[0].startswith(ns + "/")]
            return "".join(f"Row: {i} name={k.split('/', 1)[1]}, value={v}\n" for i, (k, v) in enumerate(rows))
    return fail("Error while accessing provider", 1)


COMMANDS: dict[str, Callable] = {
    "settings": _settings, "input": _input, "uiautomator": _uiautomator, "cat": _cat, "cp": _cp, "rm": _rm,
    "ls": _ls, "screencap": _screencap, "am": am, "dumpsys": _dumpsys, "date": _date, "getprop": _getprop,
    "setprop": _setprop, "wm": _wm, "cmd": _cmd, "logcat": logcat, "log": _log, "content": _content,
    "echo": lambda sh, a: " ".join(a) + "\n", "mkdir": lambda sh, a: "", "pm": pm, "monkey": monkey, "media": media,
}
