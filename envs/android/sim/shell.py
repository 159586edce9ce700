"""The device shell subset the simulator answers (what detectors, resets and adb clients send).

``settings get|put|list``, ``input tap|swipe|keyevent|text``, ``uiautomator dump``,
``cat``, ``rm``, ``echo``, ``screencap [-p]``, ``am start -n|-a``, ``am force-stop``,
``am stack list``, ``dumpsys activity activities|window|telephony.registry``,
``date`` / ``toybox date`` (read or set ``MMDDhhmm[[CC]YY][.ss]``), ``su 0 ...``,
``getprop``, ``wm size|density``, ``cmd uimode night``, ``logcat -c|-d``;
commands joined with ``;`` or ``&&``. Anything else answers like Android's
``sh``: ``/system/bin/sh: NAME: not found``.
"""
from __future__ import annotations

import shlex
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING

from . import system
from .state import Screen

if TYPE_CHECKING:
    from .phone import SimPhone


def run(phone: "SimPhone", cmdline: str) -> str | bytes:
    outs: list[str | bytes] = []
    for part in _split(cmdline):
        out = _one(phone, part)
        outs.append(out)
    if any(isinstance(o, bytes) for o in outs):
        return b"".join(o if isinstance(o, bytes) else o.encode() for o in outs)
    return "".join(outs)


def _split(cmdline: str) -> list[str]:
    parts: list[str] = []
    for chunk in cmdline.replace("&&", ";").split(";"):
        if chunk.strip():
            parts.append(chunk.strip())
    return parts


def _one(phone: "SimPhone", cmd: str) -> str | bytes:
    try:
        argv = shlex.split(cmd)
    except ValueError as exc:
        return f"/system/bin/sh: syntax error: {exc}\n"
    if not argv:
        return ""
    while argv and argv[0] in ("su", "toybox"):
        argv = argv[2:] if argv[0] == "su" and len(argv) > 1 and argv[1].isdigit() else argv[1:]
    if not argv:
        return ""
    name, args = argv[0], argv[1:]
    fn = _COMMANDS.get(name)
    if fn is None:
        return f"/system/bin/sh: {name}: not found\n"
    try:
        return fn(phone, args)
    except (ValueError, IndexError) as exc:
        return f"{name}: {exc}\n"


def _settings(phone: "SimPhone", args: list[str]) -> str:
    if len(args) < 2 or args[1] not in ("system", "secure", "global"):
        return "usage: settings [--user <USER_ID>] get|put|delete|list NAMESPACE [KEY [VALUE]]\n"
    op, ns = args[0], args[1]
    if op == "get" and len(args) >= 3:
        return phone.state.setting(f"{ns}/{args[2]}") + "\n"
    if op == "put" and len(args) >= 4:
        key = f"{ns}/{args[2]}"
        st = phone.state.with_setting(key, args[3])
        phone.state = system.notify_setting(st, key)
        return ""
    if op == "list":
        return "".join(f"{k.split('/', 1)[1]}={v}\n" for k, v in phone.state.settings if k.startswith(ns + "/"))
    return f"settings: unknown operation {op!r}\n"


def _input(phone: "SimPhone", args: list[str]) -> str:
    if args and args[0] in ("touchscreen", "keyboard"):
        args = args[1:]
    if not args:
        return "usage: input [<source>] <command> [<arg>...]\n"
    sub, a = args[0], args[1:]
    if sub == "tap" and len(a) >= 2:
        x, y = float(a[0]), float(a[1])
        phone.gesture(x, y, x, y)
    elif sub == "swipe" and len(a) >= 4:
        phone.gesture(float(a[0]), float(a[1]), float(a[2]), float(a[3]))
    elif sub == "keyevent" and a:
        for k in a:
            phone.keyevent(k)
    elif sub == "text" and a:
        phone.text(" ".join(a).replace("%s", " "))
    else:
        return f"Error: Unknown command: {sub}\n"
    return ""


def _uiautomator(phone: "SimPhone", args: list[str]) -> str:
    if not args or args[0] != "dump":
        return "Usage: uiautomator <subcommand> [options]\n"
    path = next((a for a in args[1:] if a.startswith("/")), "/sdcard/window_dump.xml")
    phone.files[path] = phone.dump_ui().encode()
    return f"UI hierchary dumped to: {path}\n"


def _cat(phone: "SimPhone", args: list[str]) -> str | bytes:
    out: list[bytes] = []
    for p in args:
        if p not in phone.files:
            return f"cat: {p}: No such file or directory\n"
        out.append(phone.files[p])
    return b"".join(out)


def _rm(phone: "SimPhone", args: list[str]) -> str:
    for p in args:
        if not p.startswith("-"):
            phone.files.pop(p, None)
    return ""


def _screencap(phone: "SimPhone", args: list[str]) -> str | bytes:
    png = phone.screenshot_png()
    path = next((a for a in args if a.startswith("/")), None)
    if path:
        phone.files[path] = png
        return ""
    return png


def _am(phone: "SimPhone", args: list[str]) -> str:
    if not args:
        return "usage: am [subcommand] [options]\n"
    sub = args[0]
    if sub == "start":
        comp, action = "", ""
        i = 1
        while i < len(args):
            if args[i] == "-n" and i + 1 < len(args):
                comp = args[i + 1]
                i += 2
            elif args[i] == "-a" and i + 1 < len(args):
                action = args[i + 1]
                i += 2
            else:
                i += 1
        pkg = comp.split("/")[0] if comp else ""
        if action and not comp:
            if "SETTINGS" in action:
                pkg = "com.android.settings"
            elif action == "android.intent.action.DIAL":
                pkg = "com.android.dialer"
        if pkg not in system.APPS:
            return f"Error: Activity not started, unable to resolve Intent {{ cmp={comp} act={action} }}\n"
        phone.state = system.launch(phone.state.tick(), pkg)
        return f"Starting: Intent {{ cmp={system.APPS[pkg].component} }}\n"
    if sub == "force-stop" and len(args) > 1:
        st = phone.state
        pkg = args[1]
        tasks = tuple(t for t in st.tasks if t.package != pkg)
        fg = "" if st.foreground == pkg else st.foreground
        phone.state = replace(st, tasks=tasks, foreground=fg, alive=st.alive - {pkg})
        return ""
    if sub == "stack" and args[1:2] == ["list"]:
        lines = []
        for i, t in enumerate(phone.state.tasks):
            comp = system.APPS[t.package].component
            vis = "true" if t.package == phone.state.foreground else "false"
            lines.append(f"  taskId={100 + i}: {comp} bounds=[0,0][{phone.config.width},{phone.config.height}] "
                         f"userId=0 visible={vis} topActivity=ComponentInfo{{{comp}}}")
        return "Stack id=0 bounds=[0,0][0,0] displayId=0 userId=0\n" + "\n".join(lines) + "\n"
    if sub == "broadcast":
        return "Broadcasting: Intent { }\nBroadcast completed: result=0\n"
    return f"Error: unknown am command {sub!r}\n"


def _focus(phone: "SimPhone") -> str:
    st = phone.state
    if st.foreground:
        comp = system.APPS[st.foreground].component
        return comp
    return "com.google.android.apps.nexuslauncher/.NexusLauncherActivity"


def _dumpsys(phone: "SimPhone", args: list[str]) -> str:
    what = args[0] if args else ""
    if what == "activity":
        return f"  mResumedActivity: ActivityRecord{{a1b2c3 u0 {_focus(phone)} t100}}\n"
    if what == "window":
        return f"  mCurrentFocus=Window{{d4e5f6 u0 {_focus(phone)}}}\n"
    if what == "telephony.registry":
        call = phone.state.call
        return f"  mCallState={2 if call else 0}\n  mCallIncomingNumber=\n"
    if what == "alarm":
        return "".join(f"  Alarm id={a.alarm_id} {a.hour:02d}:{a.minute:02d} enabled={str(a.enabled).lower()} "
                       f"daysOfWeek={a.days}\n" for a in phone.state.alarms)
    return f"Can't find service: {what}\n"


def _date(phone: "SimPhone", args: list[str]) -> str:
    args = [a for a in args if not a.startswith("-")]
    if args and args[0][0].isdigit():
        spec = args[0]
        main, _, sec = spec.partition(".")
        mo, d, h, mi = int(main[0:2]), int(main[2:4]), int(main[4:6]), int(main[6:8])
        rest = main[8:]
        year = phone.state.now.year if not rest else (int(rest) if len(rest) == 4 else 2000 + int(rest))
        phone.set_clock(datetime(year, mo, d, h, mi, int(sec or 0)))
    return phone.state.now.strftime("%a %b %d %H:%M:%S GMT %Y") + "\n"


def _getprop(phone: "SimPhone", args: list[str]) -> str:
    c = phone.config
    props = {"sys.boot_completed": "1", "persist.sys.locale": c.locale.replace("_", "-"),
             "ro.build.version.sdk": "29", "ro.build.version.release": "10", "ro.product.model": c.device,
             "ro.sf.lcd_density": str(c.density)}
    if args:
        return props.get(args[0], "") + "\n"
    return "".join(f"[{k}]: [{v}]\n" for k, v in props.items())


def _wm(phone: "SimPhone", args: list[str]) -> str:
    c = phone.config
    if args[:1] == ["size"]:
        return f"Physical size: {c.width}x{c.height}\n"
    if args[:1] == ["density"]:
        return f"Physical density: {c.density}\n"
    return "usage: wm size|density\n"


def _cmd(phone: "SimPhone", args: list[str]) -> str:
    if args[:2] == ["uimode", "night"]:
        if len(args) > 2:
            on = args[2] == "yes"
            phone.state = system.set_dark(phone.state, on)
        return f"Night mode: {'yes' if phone.state.setting('secure/ui_night_mode') == '2' else 'no'}\n"
    return f"cmd: Can't find service: {args[0] if args else ''}\n"


def _logcat(phone: "SimPhone", args: list[str]) -> str:
    if "-c" in args:
        phone.logcat_clear()
        return ""
    from ..logcat import filter_lines

    filters = [a for a in args if ":" in a and not a.startswith("-")]
    lines = phone.state.log_lines(0)
    return "".join(line + "\n" for line in filter_lines(lines, filters))


def _log(phone: "SimPhone", args: list[str]) -> str:
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
    phone.state = phone.state.emit("shell", pri if pri in "VDIWEF" else "I", tag, " ".join(rest))
    return ""


def _echo(phone: "SimPhone", args: list[str]) -> str:
    return " ".join(args) + "\n"


def _content(phone: "SimPhone", args: list[str]) -> str:
    if args[:1] == ["query"] and "--uri" in args:
        uri = args[args.index("--uri") + 1]
        if uri.startswith("content://settings/"):
            ns = uri.split("/")[3]
            return "".join(f"Row: {i} name={k.split('/', 1)[1]}, value={v}\n"
                           for i, (k, v) in enumerate(kv for kv in phone.state.settings if kv[0].startswith(ns + "/")))
    return "Error while accessing provider\n"


_COMMANDS = {
    "settings": _settings, "input": _input, "uiautomator": _uiautomator, "cat": _cat, "rm": _rm,
    "screencap": _screencap, "am": _am, "dumpsys": _dumpsys, "date": _date, "getprop": _getprop, "wm": _wm,
    "cmd": _cmd, "logcat": _logcat, "echo": _echo, "log": _log, "content": _content, "true": lambda p, a: "",
}

__all__ = ["run", "Screen"]
