"""``am`` on the simulated phone: start, force-stop, kill, stack list, broadcast (Android 10 output).

``am start`` takes the intent options B-MoCA and android_env send: ``-a ACTION``,
``-c CATEGORY``, ``-t TYPE``, ``-d URI``, ``-n COMPONENT``, extras
(``-e/--es/--ez/--ei/--el KEY VALUE``), ``-W``, ``-S``, ``--user N``, ``-f FLAGS``.
An intent resolves to an installed, enabled app: by component, by action
(``*SETTINGS*`` -> Settings, ``DIAL``/``CALL`` -> Phone, ``ATTACH_DATA`` with an
image type -> Photos, whose "Set as" activity handles it on B-MoCA's emulators)
or by package + LAUNCHER category. An intent nothing handles answers
``Error: Activity not started, unable to resolve Intent { ... }`` (status 1).
"""
from __future__ import annotations

from dataclasses import replace

from . import system
from .command_api import Shell, ShellResult, fail
from .state import AppTask, Screen

PHOTOS = "com.google.android.apps.photos"
ATTACH_ACTIVITY = "com.google.android.apps.photos/.photoeditor.intents.AttachDataActivity"
_EXTRA_OPTS = ("-e", "--es", "--ez", "--ei", "--el", "--ef", "--eu", "--ecn", "--esa", "--eia")


def _intent(args: list[str]) -> tuple[dict, list[str]] | str:
    """Intent fields from ``am start`` options, or an error message."""
    it: dict = {"cat": [], "extras": {}}
    rest: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        need = 3 if a in _EXTRA_OPTS else 2
        if a in ("-a", "-c", "-t", "-d", "-n", "-f", "--user", "-p") or a in _EXTRA_OPTS:
            if i + need > len(args):
                return f"Error: No argument supplied for '{a}' option"
            if a in _EXTRA_OPTS:
                it["extras"][args[i + 1]] = args[i + 2]
            elif a == "-c":
                it["cat"].append(args[i + 1])
            else:
                it[a.lstrip("-")] = args[i + 1]
            i += need
        elif a in ("-W", "-S", "-R", "--activity-clear-top", "--activity-new-task", "--activity-single-top",
                   "--activity-clear-task", "--activity-no-history", "--track-allocation", "--stop-option"):
            i += 1
        elif a.startswith("-"):
            return f"Error: Unknown option: {a}"
        else:
            rest.append(a)
            i += 1
    if rest and "n" not in it and "/" in rest[0]:
        it["n"] = rest[0]
    return it, rest


def _describe(it: dict) -> str:
    parts = []
    if it.get("a"):
        parts.append(f"act={it['a']}")
    if it["cat"]:
        parts.append(f"cat=[{','.join(it['cat'])}]")
    if it.get("d"):
        parts.append(f"dat={it['d']}")
    if it.get("t"):
        parts.append(f"typ={it['t']}")
    if it.get("n"):
        parts.append(f"cmp={it['n']}")
    if it["extras"]:
        parts.append("(has extras)")
    return "Intent { " + " ".join(parts) + " }"


def _resolve(sh: Shell, it: dict) -> str:
    """The package that handles the intent, or ""."""
    state = sh.phone.state
    pkg = ""
    if it.get("n"):
        pkg = it["n"].split("/")[0]
    elif it.get("a"):
        action = it["a"]
        if "SETTINGS" in action:
            pkg = "com.android.settings"
        elif action in ("android.intent.action.DIAL", "android.intent.action.CALL") or (
                action == "android.intent.action.VIEW" and str(it.get("d", "")).startswith("tel:")):
            pkg = "com.android.dialer"
        elif action == "android.intent.action.ATTACH_DATA" and str(it.get("t", "image/*")).startswith("image/"):
            pkg = PHOTOS
        elif action == "android.intent.action.MAIN" and it.get("p"):
            pkg = it["p"]
    if pkg not in system.APPS or pkg in state.disabled:
        return ""
    return pkg


def _start(sh: Shell, args: list[str]) -> str | ShellResult:
    parsed = _intent(args)
    if isinstance(parsed, str):
        return fail(parsed, 255)
    it, _rest = parsed
    desc = _describe(it)
    pkg = _resolve(sh, it)
    if not pkg:
        return fail(f"Error: Activity not started, unable to resolve {desc}", 1, stdout=f"Starting: {desc}\n")
    state = sh.phone.state.tick()
    if it.get("a") == "android.intent.action.ATTACH_DATA":
        state = system.start_line(state, ATTACH_ACTIVITY, action=it["a"], launcher=False, data=it.get("d", ""),
                                  caller="com.android.shell")
        state = system.ensure_process(state, PHOTOS, ATTACH_ACTIVITY)
        existing = next((t for t in state.tasks if t.package == PHOTOS), None)
        task = existing or AppTask(PHOTOS, (Screen(system.APPS[PHOTOS].root),))
        state = replace(state, tasks=(task,) + tuple(t for t in state.tasks if t is not existing),
                        foreground=PHOTOS, overlay=None, ime="", field_text="")
    else:
        state = system.launch(state, pkg)
    sh.phone.state = state
    out = f"Starting: {desc}\n"
    if "-W" in args:
        out += (f"Status: ok\nActivity: {system.APPS[pkg].full_component}\nThisTime: 412\nTotalTime: 412\n"
                "WaitTime: 430\nComplete\n")
    return out


def am(sh: Shell, args: list[str]) -> str | ShellResult:
    phone = sh.phone
    if not args:
        return fail("usage: am [subcommand] [options]", 255)
    sub = args[0]
    if sub in ("start", "start-activity"):
        return _start(sh, args[1:])
    if sub in ("force-stop", "kill") and len(args) > 1:
        st, pkg = phone.state, args[-1]
        tasks = st.tasks if sub == "kill" else tuple(t for t in st.tasks if t.package != pkg)
        fg = "" if (st.foreground == pkg and sub == "force-stop") else st.foreground
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
        parsed = _intent(args[1:])
        if isinstance(parsed, str):
            return fail(parsed, 255)
        return f"Broadcasting: {_describe(parsed[0])}\nBroadcast completed: result=0\n"
    return fail(f"Error: Unknown command: {sub}", 255)
