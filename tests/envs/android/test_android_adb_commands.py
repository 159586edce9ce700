"""Every adb command B-MoCA issues, through Debian's ``adb`` client against the fake adb server, judged by its effect.

The commands are B-MoCA's own (``asset/environments/set_up.py`` and ``script/*.sh``,
``bmoca/environment/{environment,coordinator}.py``, the v2.5 clock evaluators) and
those of the AndroidEnv fork it runs on (logcat stream, reset step, UI dump), with
``emulator-$port`` replaced by the fake emulator's serial. The phone is the Android 10
emulator of B-MoCA's test configuration ``test_env_100`` (Pixel 3, 1080x2160, 440 dpi,
API 29). The rows run in order on one server, as a setup script would, and each
asserts what the command did on the phone (state, files, output), not only its exit status.
"""
from __future__ import annotations

import re
import shutil
import sqlite3
import subprocess
import time
from pathlib import Path
from typing import Any, Callable

import pytest

from treegym.envs.android.logcat import parse_line
from treegym.envs.android.sim.phone import SimPhone
from treegym.servers.android.fake_adb import FakeAdbServer

pytestmark = pytest.mark.skipif(shutil.which("adb") is None,
                                reason="Debian's adb client is not installed (apt-get install adb)")

ALARM_DB = "/data/user_de/0/com.google.android.deskclock/databases/alarms.db"
THREADTIME = re.compile(r"^\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} +\d+ +\d+ [VDIWEF] \S.*?: ")
# android_env's logcat line pattern (components/logcat_thread.py), rewritten from its documented form: the
# seconds are right-aligned in a wide field, so a line starts with spaces. B-MoCA reads rewards through it.
ANDROID_ENV_LINE = re.compile(r"^ +(?P<timestamp>[0-9]+\.[0-9]+) +(?P<pid>[0-9]+) +(?P<tid>[0-9]+)"
                              r" +(?P<priority>.) +(?P<tag>[^:]*): (?P<message>.*)$")
EPOCH = re.compile(r"^ {9}\d{10}\.\d{3} +\d+ +\d+ [VDIWEF] \S.*?: ")


class Device:
    """The server, a scratch directory and the last result, shared by the rows."""

    def __init__(self, srv: FakeAdbServer, tmp: Path):
        self.srv, self.tmp = srv, tmp
        self.phone = srv.phone

    def adb(self, *args: str, stdin: bytes | None = None, timeout: float = 60) -> subprocess.CompletedProcess:
        return subprocess.run(["adb", *args], env=self.srv.client_env(), input=stdin, capture_output=True,
                              timeout=timeout, stdin=None if stdin is not None else subprocess.DEVNULL)

    def s(self, *args: str, **kw: Any) -> subprocess.CompletedProcess:
        """``adb -s emulator-$port ...`` as B-MoCA's scripts write it."""
        return self.adb("-s", self.srv.serial, *args, **kw)


@pytest.fixture(scope="module")
def dev(tmp_path_factory):
    srv = FakeAdbServer(SimPhone("test_env_100"), boot_seconds=0.3).start()
    yield Device(srv, tmp_path_factory.mktemp("adb"))
    srv.stop()


def upstream_alarm_db(path: Path, rows: list[tuple[int, int, int, int, int]]) -> Path:
    """A deskclock ``alarms.db`` shaped like B-MoCA's ``resource/alarm_db/alarms.db``: (_id, hour, minutes, days, enabled)."""
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE android_metadata (locale TEXT)")
    con.execute("CREATE TABLE alarm_templates (_id INTEGER PRIMARY KEY, hour INTEGER NOT NULL, minutes INTEGER NOT "
                "NULL, daysofweek INTEGER NOT NULL, enabled INTEGER NOT NULL, vibrate INTEGER NOT NULL, label TEXT NOT "
                "NULL, ringtone TEXT, delete_after_use INTEGER NOT NULL DEFAULT 0, workflow_label TEXT, workflow_data "
                "TEXT)")
    for i, h, m, d, e in rows:
        con.execute("INSERT INTO alarm_templates VALUES (?, ?, ?, ?, ?, 1, '', NULL, 0, NULL, NULL)", (i, h, m, d, e))
    con.commit()
    con.close()
    return path


def wait_booted(d: Device) -> None:
    """emulator_on.sh / set_alarm.sh: until `getprop sys.boot_completed` says 1 (at most 100 tries)."""
    for _ in range(100):
        r = d.s("shell", "getprop", "sys.boot_completed")
        if r.stdout.strip() == b"1":
            return
        time.sleep(0.1)
    raise AssertionError("the device did not come back")


# ---------------------------------------------------------------- the rows: (name, run-and-check)
def r_wait_for_device(d):
    r = d.s("wait-for-device")
    assert r.returncode == 0 and f"{d.srv.serial}\tdevice" in d.adb("devices").stdout.decode()


def r_boot_completed(d):
    r = d.s("shell", "getprop", "sys.boot_completed")
    assert (r.returncode, r.stdout) == (0, b"1\n")


def r_wm_size(d):
    assert d.s("shell", "wm", "size", "1080x2160").returncode == 0
    assert (d.phone.config.width, d.phone.config.height) == (1080, 2160)
    assert d.s("shell", "wm", "size").stdout.decode().startswith("Physical size: 1080x2160")


def r_wm_density(d):
    assert d.s("shell", "wm", "density", "440").returncode == 0 and d.phone.config.density == 440
    assert d.s("shell", "wm", "density").stdout == b"Physical density: 440\n"


def r_attach_data(d):
    r = d.s("shell", "am", "start", "-a", "android.intent.action.ATTACH_DATA", "-c",
            "android.intent.category.DEFAULT", "-t", "image/*", "-e", "mimeType", "image/*")
    assert r.returncode == 0 and r.stdout.startswith(b"Starting: Intent { act=android.intent.action.ATTACH_DATA")
    assert d.phone.state.foreground == "com.google.android.apps.photos"
    assert "act=android.intent.action.ATTACH_DATA" in d.phone.state.log_lines()[-2]


def r_input_touchscreen_tap(d):
    before = d.phone.state.clock_ms
    assert d.s("shell", "input", "touchscreen", "tap", "558", "1785").returncode == 0
    assert d.phone.state.clock_ms == before + 1000  # one input event reached the phone


def r_force_stop(d):
    assert d.s("shell", "am", "force-stop", "com.google.android.apps.photos").returncode == 0
    st = d.phone.state
    assert st.foreground == "" and "com.google.android.apps.photos" not in st.alive
    assert all(t.package != "com.google.android.apps.photos" for t in st.tasks)


def r_wm_reset(d):
    assert d.s("shell", "wm", "size", "reset").returncode == 0
    assert d.s("shell", "wm", "density", "reset").returncode == 0
    assert (d.phone.config.width, d.phone.config.height, d.phone.config.density) == (1080, 2160, 440)


def r_pm_disable_user(d):
    for pkg in ("com.google.android.apps.docs", "com.google.android.videos", "com.google.android.music"):
        r = d.s("shell", "pm", "disable-user", "--user", "0", pkg)
        assert (r.returncode, r.stdout.decode()) == (0, f"Package {pkg} new state: disabled-user\n")
    listed = d.s("shell", "pm", "list", "packages", "-d").stdout.decode().split()
    assert sorted(listed) == ["package:com.google.android.apps.docs", "package:com.google.android.music",
                              "package:com.google.android.videos"]
    assert "Play Music" not in d.phone.shell("input swipe 540 1700 540 400; uiautomator dump /dev/tty")
    d.phone.shell("input keyevent KEYCODE_HOME")


def r_install_not_apk(d):
    apk = d.tmp / "broken.apk"
    apk.write_bytes(b"this is not a zip archive")
    r = d.s("install", "-r", str(apk))
    assert r.returncode == 1 and b"Failure [INSTALL_PARSE_FAILED_NOT_APK:" in r.stdout + r.stderr
    assert "/data/local/tmp/broken.apk" not in d.phone.files  # the client removed its pushed copy


def r_push_image(d):
    img = d.tmp / "99_Colosseum.jpg"
    img.write_bytes(b"\xff\xd8\xff\xe0" + bytes(range(256)) * 40)
    assert d.adb("push", str(img), "/sdcard/Pictures").returncode == 0
    assert d.phone.files["/sdcard/Pictures/99_Colosseum.jpg"] == img.read_bytes()
    assert d.s("push", str(img), "/sdcard/Download/").returncode == 0  # import_image.sh
    assert "99_Colosseum.jpg" in d.s("shell", "ls", "/sdcard/Download").stdout.decode()


def r_set_wallpaper_intent(d):
    r = d.s("shell", "am", "start", "-a", "android.intent.action.ATTACH_DATA", "-c", "android.intent.category.DEFAULT",
            "-d", "file:///sdcard/Download/99_Colosseum.jpg", "-t", "image/*", "-e", "mimeType", "image/*")
    assert r.returncode == 0 and d.phone.state.foreground == "com.google.android.apps.photos"
    assert "dat=file:///sdcard/Download/99_Colosseum.jpg" in d.phone.state.log_lines()[-2]
    assert d.s("shell", "input", "touchscreen", "tap", "800", "2181").returncode == 0


def r_keyevent_home_back(d):
    d.adb("shell", "input", "keyevent", "4")  # snapseed_init.py: back
    assert d.adb("shell", "input", "keyevent", "3").returncode == 0  # chrome_init.py: home
    assert d.phone.state.foreground == "" and d.phone.state.launcher.name == "home"


def r_media_volume_set(d):
    for stream, value, key in (("1", "3", "system"), ("3", "3", "music"), ("4", "4", "alarm")):  # set_sound.sh
        r = d.s("shell", "media", "volume", "--show", "--stream", stream, "--set", value)
        assert r.returncode == 0 and f"will set volume to index={value}" in r.stdout.decode()
        assert d.phone.state.setting(f"system/volume_{key}") == value


def r_media_volume_get(d):
    r = d.adb("shell", "media volume --show --stream 4 --get")  # the clock evaluators
    assert r.returncode == 0 and int(re.search(r"volume is (\d+)", r.stdout.decode()).group(1)) == 4


def r_brightness_font_scale(d):
    assert d.s("shell", "settings", "put", "system", "screen_brightness", "255").returncode == 0
    assert d.s("shell", "settings", "put", "system", "font_scale", "1.15").returncode == 0
    assert d.s("shell", "settings", "get", "system", "screen_brightness").stdout == b"255\n"
    assert d.phone.state.setting("system/font_scale") == "1.15"


def r_dark_mode(d):
    assert d.s("shell", "su 0 cmd uimode night yes").returncode == 0
    assert d.phone.state.setting("secure/ui_night_mode") == "2"


def r_rotation_and_touch_settings(d):
    for ns, key in (("system", "accelerometer_rotation"), ("system", "user_rotation"), ("system", "show_touches"),
                    ("system", "pointer_location")):
        assert d.s("shell", f"settings put {ns} {key} 0").returncode == 0
        assert d.phone.state.setting(f"{ns}/{key}") == "0"
    assert d.s("shell", "settings", "put", "global", "policy_control", "null*").returncode == 0
    assert d.phone.state.setting("global/policy_control") == "null*"


def r_set_date(d):
    r = d.s("shell", "su 0 toybox date 123106272015.00")
    assert r.returncode == 0 and r.stdout.startswith(b"Thu Dec 31 06:27:00 GMT 2015")
    assert d.phone.state.now.strftime("%Y-%m-%d %H:%M") == "2015-12-31 06:27"


def r_screencap(d):
    png = d.s("exec-out", "screencap", "-p").stdout
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and int.from_bytes(png[16:20], "big") == 1080


def r_snapshot_save_load(d):
    r = d.s("emu", "avd", "snapshot", "save", "init")  # the client prints the console's replies other than "OK"
    assert (r.returncode, r.stdout) == (0, b"") and "init" in d.phone.named
    d.phone.shell("input keyevent KEYCODE_APP_SWITCH")
    assert d.phone.state.overlay is not None
    assert d.s("emu", "avd", "snapshot", "load", "init").stdout == b""
    assert d.phone.state.overlay is None
    assert b"KO: snapshot 'nope' does not exist" in d.s("emu", "avd", "snapshot", "load", "nope").stdout


def r_logcat_clear_and_dump(d):
    assert d.adb("logcat", "-b", "all", "-c").returncode == 0  # AndroidEnv's log stream
    assert d.adb("logcat", "-c").returncode == 0 and d.adb("logcat", "-d").stdout == b""
    d.adb("shell", "monkey", "-p", "com.android.settings", "-c", "android.intent.category.LAUNCHER", "1")
    lines = d.adb("logcat", "-d").stdout.decode().splitlines()
    assert lines[0] == "--------- beginning of system" and all(THREADTIME.match(ln) for ln in lines[1:])
    assert any("cmp=com.android.settings/.Settings" in ln for ln in lines)
    epoch = d.adb("logcat", "-d", "-v", "epoch").stdout.decode().splitlines()[1:]
    assert epoch and all(EPOCH.match(ln) for ln in epoch) and len(epoch) == len(lines) - 1
    assert all(ANDROID_ENV_LINE.match(ln) for ln in epoch), [ln for ln in epoch if not ANDROID_ENV_LINE.match(ln)]
    assert all(parse_line(ln) is not None for ln in epoch)  # our own reader takes the real format too
    assert "mFocusedApp=AppWindowToken{" in d.adb("shell", "dumpsys", "window", "windows").stdout.decode()
    brief = d.adb("logcat", "-d", "-v", "brief", "-b", "system", "ActivityTaskManager:I", "*:S").stdout.decode()
    assert brief.startswith("I/ActivityTaskManager(") and "ActivityManager" not in brief.replace("ActivityTaskManager", "")
    assert d.adb("logcat", "-d", "-v", "bogus").returncode != 0


def r_monkey(d):
    r = d.adb("shell", "monkey", "-p", "com.android.chrome", "-c", "android.intent.category.LAUNCHER", "1")
    assert r.returncode == 0 and b"Events injected: 1" in r.stdout
    assert d.phone.state.foreground == "com.android.chrome"
    r = d.adb("shell", "monkey", "-p", "com.google.android.music", "-c", "android.intent.category.LAUNCHER", "1")
    assert r.returncode != 0 and b"No activities found to run" in r.stderr  # disabled above


def r_logcat_stream(d):
    proc = subprocess.Popen(["adb", "logcat", "-v", "epoch", "AlarmClock:I", "*:S"], env=d.srv.client_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    try:
        d.adb("shell", "log", "-t", "Other", "not-for-this-filter")
        d.adb("shell", "log", "-p", "i", "-t", "AlarmClock", "Created new alarm instance")
        first = proc.stdout.readline().decode()  # several buffers: logcat announces the first one
        line = proc.stdout.readline().decode()
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    assert first == "--------- beginning of main\n"
    assert EPOCH.match(line) and line.rstrip().endswith("I AlarmClock: Created new alarm instance")
    assert ANDROID_ENV_LINE.match(line.rstrip("\n")).group("message") == "Created new alarm instance"


def r_uiautomator_pull(d):
    assert d.adb("shell", "uiautomator", "dump").stdout == b"UI hierchary dumped to: /sdcard/window_dump.xml\n"
    out = d.tmp / "window_dump.xml"
    assert d.adb("pull", "/sdcard/window_dump.xml", str(out)).returncode == 0
    assert out.read_text() == d.phone.dump_ui()


def r_uiautomator_tty(d):
    r = d.adb("exec-out", "uiautomator", "dump", "/dev/tty")
    xml = d.phone.dump_ui()
    assert r.returncode == 0 and r.stdout.decode() == xml + "UI hierchary dumped to: /dev/tty\n"


def r_unknown_command(d):
    r = d.adb("shell", "frobnicate", "--now")
    assert (r.returncode, r.stdout, r.stderr) == (127, b"", b"/system/bin/sh: frobnicate: not found\n")
    assert d.adb("shell", "ls /nonexistent").returncode == 1


def r_root_and_push_alarm_db(d):
    db = upstream_alarm_db(d.tmp / "alarms.db", [(1, 9, 0, 96, 0), (2, 7, 15, 31, 1)])
    denied = d.s("push", str(db), ALARM_DB)
    assert denied.returncode == 1 and b"remote couldn't create file: Permission denied" in denied.stdout  # not root
    r = d.s("root")
    assert r.returncode == 0 and r.stdout == b"restarting adbd as root\n"
    assert d.s("shell", "id").stdout.startswith(b"uid=0(root)")
    assert d.s("push", str(db), ALARM_DB).returncode == 0  # set_alarm.sh
    assert d.s("reboot").returncode == 0
    wait_booted(d)
    alarms = [(a.hour, a.minute, a.days, a.enabled) for a in d.phone.state.alarms]
    assert alarms == [(9, 0, 96, False), (7, 15, 31, True)]
    assert d.s("shell", "id").stdout.startswith(b"uid=2000(shell)")  # a reboot drops root
    assert d.s("root").stdout == b"restarting adbd as root\n"  # set_up.py: root again after set_alarm


def r_locale(d):
    r = d.s("shell", "setprop persist.sys.locale fr-FR; setprop ctl.restart zygote")
    assert r.returncode == 0
    wait_booted(d)
    assert d.s("shell", "getprop", "persist.sys.locale").stdout == b"fr-FR\n"
    assert d.phone.config.locale == "fr-FR" and "Paramètres" in d.phone.dump_ui()


def r_clock_evaluator(d):
    d.phone.shell("am start -n com.google.android.deskclock/com.android.deskclock.DeskClock")
    proc = subprocess.Popen("adb shell", shell=True, env=d.srv.client_env(), stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    proc.stdin.write("su\n")
    proc.stdin.flush()
    proc.stdin.write(f"cp {ALARM_DB} /sdcard/alarms.db\n")
    proc.stdin.flush()
    for _ in range(100):  # the evaluator sleeps 0.5 s here
        if "/sdcard/alarms.db" in d.phone.files:
            break
        time.sleep(0.05)
    proc.stdin.close()
    proc.wait(timeout=20)
    out = d.tmp / "clock"
    out.mkdir()
    assert d.adb("pull", "/sdcard/alarms.db", str(out)).returncode == 0
    con = sqlite3.connect(out / "alarms.db")
    rows = con.execute("SELECT hour, minutes, daysofweek, enabled FROM alarm_templates ORDER BY _id").fetchall()
    con.close()
    assert rows == [(9, 0, 96, 0), (7, 15, 31, 1)]


def r_emu_kill(d):
    r = d.s("emu", "kill")
    assert r.returncode == 0 and b"OK: killing emulator, bye bye" in r.stdout
    assert d.adb("devices").stdout.decode().strip() == "List of devices attached"
    assert d.s("shell", "true").returncode != 0
    d.srv.power_on()  # emulator_on.sh starts the emulator again
    assert d.s("wait-for-device").returncode == 0
    wait_booted(d)


ROWS: list[tuple[str, Callable[[Device], None]]] = [
    ("wait-for-device", r_wait_for_device), ("getprop sys.boot_completed", r_boot_completed),
    ("wm size 1080x2160", r_wm_size), ("wm density 440", r_wm_density),
    ("am start ATTACH_DATA (permission_init)", r_attach_data), ("input touchscreen tap", r_input_touchscreen_tap),
    ("am force-stop", r_force_stop), ("wm size/density reset", r_wm_reset),
    ("pm disable-user --user 0 x3", r_pm_disable_user), ("install -r <not an APK>", r_install_not_apk),
    ("push image (set_up, import_image)", r_push_image), ("am start ATTACH_DATA -d (wallpaper)", r_set_wallpaper_intent),
    ("input keyevent 4 / 3", r_keyevent_home_back), ("media volume --set x3", r_media_volume_set),
    ("media volume --get", r_media_volume_get), ("settings put brightness / font_scale", r_brightness_font_scale),
    ("su 0 cmd uimode night yes", r_dark_mode), ("settings put rotation / touches / policy", r_rotation_and_touch_settings),
    ("su 0 toybox date", r_set_date), ("exec-out screencap -p", r_screencap),
    ("emu avd snapshot save/load", r_snapshot_save_load), ("logcat -c / -d / -v", r_logcat_clear_and_dump),
    ("monkey -p PKG -c LAUNCHER 1", r_monkey), ("logcat -v epoch TAG:I *:S (stream)", r_logcat_stream),
    ("uiautomator dump + pull", r_uiautomator_pull), ("exec-out uiautomator dump /dev/tty", r_uiautomator_tty),
    ("unknown command", r_unknown_command), ("root + push alarms.db + reboot", r_root_and_push_alarm_db),
    ("setprop locale; ctl.restart zygote", r_locale), ("clock evaluator: su + cp + pull", r_clock_evaluator),
    ("emu kill", r_emu_kill),
]


@pytest.mark.parametrize("name, row", ROWS, ids=[n for n, _ in ROWS])
def test_bmoca_adb_command(dev, name, row):
    row(dev)
