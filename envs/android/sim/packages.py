"""``pm``, ``monkey`` and ``media volume`` on the simulated phone (Android 10 wording and exit statuses).

* ``pm list packages [-d|-e|-s|-3] [FILTER]``, ``pm disable-user [--user 0] PKG`` /
  ``pm enable PKG`` (a disabled app leaves the launcher and cannot be started),
  ``pm clear PKG``, ``pm grant PKG PERMISSION``, ``pm path PKG`` and
  ``pm install [-r -t -g ...] FILE``: the phone runs only its built-in apps, so a
  file that is not an APK (no zip header) fails with ``INSTALL_PARSE_FAILED_NOT_APK``
  as on a device, and any other APK with ``INSTALL_FAILED_INVALID_APK`` (status 1).
  Unknown packages raise as ``pm`` does (status 255).
* ``monkey -p PKG [-c CATEGORY] N``: launches PKG's launcher activity, as
  ``monkey ... 1`` is used to open an app; without a launchable PKG it aborts.
* ``media volume [--show] --stream N --get | --set V``: AudioManager streams
  0 voice, 1 system, 2 ring, 3 music, 4 alarm, 5 notification; ``--set`` clamps to
  the stream's range as AudioService does.
"""
from __future__ import annotations

from dataclasses import replace

from . import system
from .command_api import Shell, ShellResult, fail

OTHER_PACKAGES = ("android", "com.android.shell", "com.android.systemui", "com.android.phone",
                  "com.google.android.apps.nexuslauncher", "com.google.android.inputmethod.latin",
                  "com.google.android.gms", "com.google.android.apps.docs", "com.google.android.videos")
MIN_VOLUME = {"voice": 1}


def installed() -> tuple[str, ...]:
    return tuple(sorted(set(system.APPS) | set(OTHER_PACKAGES)))


def _unknown(pkg: str) -> ShellResult:
    return fail(f"Exception occurred while executing:\njava.lang.IllegalArgumentException: Unknown package: {pkg}",
                255)


def _install(sh: Shell, args: list[str]) -> str | ShellResult:
    files = [a for a in args if not a.startswith("-")]
    if not files:
        return fail("Error: must either specify a package size or an APK file", 1)
    path = files[-1]
    try:
        data = sh.phone.read_file(path, root=True)  # the package manager reads it as system
    except OSError:
        data = None
    if data is None:
        return fail(f"Error: Can't open file: {path}\nException occurred while executing:\n"
                    f"java.lang.IllegalArgumentException: Error: Can't open file: {path}", 255)
    session = 1000000 + len(data) % 900000
    where = f"/data/app/vmdl{session}.tmp/base.apk"
    if not data.startswith(b"PK\x03\x04"):
        why = (f"INSTALL_PARSE_FAILED_NOT_APK: Failed parse during installPackageLI: {where} "
               f"(at Binary XML file line #-1): Failed to read manifest from {where}")
    else:
        why = "INSTALL_FAILED_INVALID_APK: the simulated phone runs only its built-in apps; it cannot install one"
    return ShellResult(f"Failure [{why}]\n".encode(), b"", 1)  # pm prints the failure on stdout


def pm(sh: Shell, args: list[str]) -> str | ShellResult:
    phone = sh.phone
    if not args:
        return fail("usage: pm path|list|install|clear|enable|disable-user|grant ...", 1)
    sub, rest = args[0], list(args[1:])
    if "--user" in rest:
        i = rest.index("--user")
        del rest[i:i + 2]
    pkgs = [a for a in rest if not a.startswith("-")]
    if sub == "list" and pkgs[:1] == ["packages"]:
        chosen = [p for p in installed() if ("-d" not in rest or p in phone.state.disabled)
                  and ("-e" not in rest or p not in phone.state.disabled)]
        needle = pkgs[1] if len(pkgs) > 1 else ""
        return "".join(f"package:{p}\n" for p in chosen if needle in p)
    if sub == "install":
        return _install(sh, rest)
    if sub in ("disable-user", "disable", "enable", "clear", "path", "grant", "revoke") and not pkgs:
        return fail("Error: no package specified", 1)
    pkg = pkgs[0] if pkgs else ""
    if sub in ("disable-user", "disable", "enable", "clear", "path", "grant", "revoke") and pkg not in installed():
        return _unknown(pkg)
    if sub in ("disable-user", "disable", "enable"):
        if sub == "disable" and not sh.root:
            return fail(f"Exception occurred while executing:\njava.lang.SecurityException: Shell cannot change "
                        f"component state for {pkg} to 2", 255)
        off = sub != "enable"
        st = phone.state
        disabled = st.disabled | {pkg} if off else st.disabled - {pkg}
        tasks = tuple(t for t in st.tasks if t.package != pkg) if off else st.tasks
        fg = "" if off and st.foreground == pkg else st.foreground
        phone.state = replace(st, disabled=frozenset(disabled), tasks=tasks, foreground=fg,
                              alive=st.alive - {pkg} if off else st.alive)
        state = "disabled-user" if sub == "disable-user" else ("disabled" if off else "enabled")
        return f"Package {pkg} new state: {state}\n"
    if sub == "clear":
        st = phone.state
        phone.state = replace(st, tasks=tuple(t for t in st.tasks if t.package != pkg),
                              foreground="" if st.foreground == pkg else st.foreground, alive=st.alive - {pkg})
        return "Success\n"
    if sub == "path":
        return f"package:/system/app/{pkg.rsplit('.', 1)[-1]}/{pkg.rsplit('.', 1)[-1]}.apk\n"
    if sub in ("grant", "revoke"):
        return "" if len(pkgs) > 1 else fail("Error: no permission specified", 1)
    return fail(f"Unknown command: {sub}", 1)


def monkey(sh: Shell, args: list[str]) -> str | ShellResult:
    pkg = args[args.index("-p") + 1] if "-p" in args and args.index("-p") + 1 < len(args) else ""
    echo = "".join(f"  bash arg: {a}\n" for a in args) + f"args: [{', '.join(args)}]\n"
    echo += "".join(f' arg: "{a}"\n' for a in args)
    echo += "".join(f'data="{a}"\n' for a in (pkg, *[args[i + 1] for i, a in enumerate(args[:-1]) if a == "-c"]) if a)
    if pkg not in system.APPS or pkg in sh.phone.state.disabled:
        return fail("** No activities found to run, monkey aborted.", 251, stdout=echo)
    sh.phone.state = system.launch(sh.phone.state.tick(), pkg)
    return echo + "Events injected: 1\n## Network stats: elapsed time=12ms (0ms mobile, 0ms wifi, 12ms not connected)\n"


def media(sh: Shell, args: list[str]) -> str | ShellResult:
    usage = ("usage: media volume [--show] --stream STREAM_TYPE --get|--set INDEX|--adj "
             "<raise|same|lower>")
    if args[:1] != ["volume"] or "--stream" not in args:
        return fail(usage, 1)
    try:
        number = int(args[args.index("--stream") + 1])
    except (IndexError, ValueError):
        return fail(f"Error: invalid stream type\n{usage}", 1)
    name = system.STREAM_NUMBERS.get(number)
    if name is None:
        return fail(f"Error: invalid stream type {number}\n{usage}", 1)
    label = system.STREAMS[name]
    out = f"[v] will control stream={number} ({label})\n"
    lo, hi = MIN_VOLUME.get(name, 0), system.VOLUME_MAX[name]
    if "--set" in args:
        try:
            level = int(args[args.index("--set") + 1])
        except (IndexError, ValueError):
            return fail(f"Error: invalid volume index\n{usage}", 1)
        out += f"[v] will set volume to index={level}\n[v] Connecting to AudioService\n"
        sh.phone.state = system.set_volume(sh.phone.state, name, max(lo, min(hi, level)))
        return out
    if "--get" in args:
        level = sh.phone.state.setting(f"system/volume_{name}", "5")
        return out + f"[v] will get volume\n[v] Connecting to AudioService\n[v] volume is {level} in range [{lo}..{hi}]\n"
    return fail(usage, 1)
