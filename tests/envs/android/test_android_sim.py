"""The simulated phone, B-MoCA's parser/actions/detectors and treegym/BMoCA-v0 (simulator backend)."""
from __future__ import annotations

import pickle
import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from treegym.envs.android import actions as act
from treegym.envs.android.device import all_configs, config_ids, get_config
from treegym.envs.android.env import BMoCAEnv
from treegym.envs.android.logcat import filter_lines, matching_messages, parse_line
from treegym.envs.android.observation import BBOX_KEY, parse
from treegym.envs.android.sim.phone import SimPhone
from treegym.envs.android.tasks import PAPER_TASKS, all_tasks, episode_ids

ATTRS = ["index", "text", "resource-id", "class", "package", "content-desc", "checkable", "checked", "clickable",
         "enabled", "focusable", "focused", "scrollable", "long-clickable", "password", "selected", "bounds"]


def play_oracle(env: BMoCAEnv, task_id: str) -> tuple[bool, list[float], int]:
    env.reset(options={"task_id": task_id})
    rewards = []
    while True:
        a = env.expert_action()
        assert a is not None, f"{task_id}: the expert has no action"
        _o, r, term, trunc, info = env.step(a)
        rewards.append(r)
        if term or trunc:
            return bool(term and info["success"]), rewards, env.steps


# ---------------------------------------------------------------- data
def test_configs_and_tasks_match_upstream_tables():
    assert len(all_configs()) == 45
    assert len(config_ids("train")) == 35 and len(config_ids("test")) == 10
    assert config_ids("test")[0] == "test_env_100" and config_ids("train")[-1] == "train_env_034"
    c = get_config("test_env_108")
    assert (c.device, c.locale, c.density, c.dark, c.rtl) == ("pixel_6", "ur_PK", 700, True, True)
    t = get_config("test_env_109")
    assert (t.width, t.height, t.density, t.rtl) == (1200, 800, 160, True)
    assert [h.title for h in get_config("test_env_109").home] == ["YouTube"]
    tasks = all_tasks()
    assert len(tasks) == 60 and set(PAPER_TASKS) <= set(tasks)
    assert tasks["call_911"].instruction == "Goal: call 911" and tasks["call_911"].max_steps == 9
    assert len(episode_ids("test")) == 600 and len(episode_ids("train")) == 2100
    with pytest.raises(ValueError, match="unknown device configuration"):
        get_config("test_env_999")


# ---------------------------------------------------------------- XML, parser
def test_dump_is_uiautomator_xml_with_android_attributes():
    phone = SimPhone("test_env_100")
    xml = phone.dump_ui()
    assert xml.startswith("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">")
    root = ET.fromstring(xml)
    nodes = list(root.iter("node"))
    assert nodes and all(list(n.attrib) == ATTRS for n in nodes)
    for n in nodes:
        x1, y1, x2, y2 = map(int, re.findall(r"-?\d+", n.attrib["bounds"]))
        assert 0 <= x1 <= x2 <= 1080 and 0 <= y1 <= y2 <= 2160
    settings = [n for n in nodes if n.attrib["content-desc"] == "Settings"]
    assert settings and settings[0].attrib["clickable"] == "true"
    assert settings[0].attrib["package"] == "com.google.android.apps.nexuslauncher"


def test_parser_numbers_in_post_order_and_builds_upstream_ids():
    xml = ("<?xml version='1.0' ?><hierarchy rotation=\"0\">"
           '<node index="0" text="" resource-id="" class="android.widget.FrameLayout" content-desc="" bounds="[0,0][100,200]">'
           '<node index="0" text="Wi-Fi, mobile: data/usage" resource-id="android:id/title" class="android.widget.TextView" '
           'content-desc="" bounds="[0,0][50,20]" />'
           '<node index="1" text="40" resource-id="com.android.systemui:id/slider" class="android.widget.SeekBar" '
           'content-desc="Display brightness" bounds="[10,100][90,120]" />'
           '<node index="2" text="x" class="android.widget.TextView" content-desc="a very long content description here" />'
           "</node></hierarchy>")
    p = parse(xml, 100, 200)
    ids = [e["description"] for e in p.elements]
    assert ids == ["android.id_title_wi-fi_mobile__data_usage", "com.android.systemui.id_slider_Displaybrightness",
                   "android.widget.FrameLayout"]
    assert [e["numeric_tag"] for e in p.elements] == [0, 1, 2]
    assert p.elements[1][BBOX_KEY] == "((0.10, 0.50), (0.90, 0.60))"
    assert BBOX_KEY not in p.elements[0]
    assert p.bboxes[2] == (0, 0, 100, 200)
    assert p.text == str(list(p.elements))
    with pytest.raises(ValueError, match="not valid XML"):
        parse("<hierarchy><node", 10, 10)


# ---------------------------------------------------------------- actions
def test_action_parser_and_dual_gesture_conversion():
    boxes = ((0, 0, 100, 100), (200, 400, 400, 600))
    c, g = act.to_gesture("Thought: go\nAction: tap(1)", boxes, 1000, 2000)
    assert c == "tap(1)" and g == act.DualGesture(0.25, 0.3, 0.25, 0.3) and g.is_tap
    assert g.pixels(1000, 2000) == (300.0, 500.0, 300.0, 500.0)
    c, g = act.to_gesture("swipe('UP')", boxes, 1000, 2000)
    assert c == 'swipe("up")' and not g.is_tap and g.pixels(1000, 2000) == (500.0, 1600.0, 500.0, 400.0)
    _c, g = act.to_gesture('press("HOME")', boxes, 1000, 2000)
    assert (g.touch_y, g.touch_x) == (252 / 256, 0.5)
    _c, back = act.to_gesture('press("BACK")', boxes, 1000, 2000)
    _c, back_rtl = act.to_gesture('press("BACK")', boxes, 1000, 2000, rtl=True)
    assert back.touch_x == 43 / 128 and back_rtl.touch_x == 85 / 128
    # upstream's tap criterion: y doubled, threshold 0.14
    assert act.DualGesture(0.5, 0.5, 0.56, 0.5).is_tap and not act.DualGesture(0.5, 0.5, 0.58, 0.5).is_tap
    assert act.DualGesture(0.5, 0.5, 0.5, 0.63).is_tap and not act.DualGesture(0.5, 0.5, 0.5, 0.65).is_tap
    for bad, why in (("tap(7)", "no element numbered 7"), ("swipe(\"sideways\")", "not one of up"),
                     ("press(\"MENU\")", "not one of HOME"), ("dual-gesture(1,2)", "needs 4 numbers"),
                     ("dual-gesture(0.1,0.2,0.3,1.5)", r"in \[0, 1\]"), ("click the button", "cannot parse"),
                     ("", "empty action")):
        with pytest.raises(act.ActionError, match=why):
            act.to_gesture(bad, boxes, 1000, 2000)


# ---------------------------------------------------------------- logcat
def test_logcat_filter_semantics_and_message_match():
    lines = ["1451624400.000  1234  1251 I ActivityTaskManager: START u0 {cmp=com.android.settings/.Settings}",
             "1451624400.000  1234  1251 D ActivityTaskManager: START u0 {cmp=com.android.chrome/x}",
             "1451624400.000  1234  1251 I Other: START u0 {cmp=com.android.settings/.Settings}",
             "garbage line"]
    assert parse_line(lines[0]) == ("I", "ActivityTaskManager", "START u0 {cmp=com.android.settings/.Settings}")
    assert parse_line(lines[3]) is None
    assert filter_lines(lines, ["ActivityTaskManager:I"]) == lines[:1]
    assert filter_lines(lines, ["ActivityTaskManager:D"]) == lines[:2]
    # re.match on the message only: a regex anchored at the tag does not match
    assert matching_messages(lines, ["ActivityTaskManager:I"], r"^(.*?)START(.*?)settings") == [parse_line(lines[0])[2]]
    assert matching_messages(lines, ["ActivityTaskManager:I"], r"^ActivityTaskManager") == []
    with pytest.raises(ValueError, match="bad logcat filter"):
        filter_lines(lines, ["ActivityTaskManager"])


# ---------------------------------------------------------------- the phone
def test_shell_answers_detector_and_reset_commands():
    phone = SimPhone("test_env_100")
    assert phone.shell("settings get global airplane_mode_on") == "0\n"
    phone.shell("settings put global airplane_mode_on 1")
    assert phone.shell("settings get global airplane_mode_on") == "1\n"
    assert "content://settings/global/airplane_mode_on" in phone.shell("logcat -d -v epoch SettingsProvider:V *:S")
    assert phone.shell("date 0101050016.00") == "date: cannot set date: Operation not permitted\n"  # not root
    assert phone.shell("su 0 date 0101050016.00").startswith("Fri Jan 01 05:00:00")
    assert phone.shell("su 0 toybox date").startswith("Fri Jan 01 05:00")
    out = phone.shell("am start -n com.android.settings/.Settings")
    assert out.startswith("Starting: Intent") and phone.state.foreground == "com.android.settings"
    assert "com.android.settings/.Settings" in phone.shell("dumpsys window windows")
    assert phone.shell("dumpsys telephony.registry").startswith("  mCallState=0")
    assert phone.shell("uiautomator dump /sdcard/window_dump.xml") == "UI hierchary dumped to: /sdcard/window_dump.xml\n"
    assert phone.shell("cat /sdcard/window_dump.xml") == phone.dump_ui()
    assert phone.shell("wm size && wm density") == "Physical size: 1080x2160\nPhysical density: 440\n"
    assert phone.shell("frobnicate now") == "/system/bin/sh: frobnicate: not found\n"
    assert phone.shell("input keyevent KEYCODE_HOME; getprop sys.boot_completed") == "1\n"
    assert phone.state.foreground == ""
    png = phone.shell_bytes("screencap -p")
    assert png[:8] == b"\x89PNG\r\n\x1a\n"


def test_inputs_drive_settings_and_emit_the_detector_lines():
    phone = SimPhone("test_env_100")
    phone.shell("am start -n com.android.settings/.Settings")
    tree_xml = phone.dump_ui()
    p = parse(tree_xml, 1080, 2160)
    n = next(i for i, e in enumerate(p.elements) if e["description"].startswith("android.id_title_network"))
    x1, y1, x2, y2 = p.bboxes[n]
    phone.shell(f"input tap {(x1 + x2) // 2} {(y1 + y2) // 2}")
    assert phone.state.screen.name == "settings.network"
    p = parse(phone.dump_ui(), 1080, 2160)
    n = next(i for i, e in enumerate(p.elements) if e["description"] == "android.id_title_airplane_mode")
    x1, y1, x2, y2 = p.bboxes[n]
    cursor = phone.logcat_read(0)[1]
    phone.gesture((x1 + x2) / 2, (y1 + y2) / 2, (x1 + x2) / 2, (y1 + y2) / 2)
    lines, _ = phone.logcat_read(cursor)
    t = all_tasks()["turn_on_airplane_mode"]
    assert matching_messages(lines, [t.logcat_filter], t.success_regex)
    assert phone.shell("settings get global airplane_mode_on") == "1\n"
    # the nav bar is outside the dump; a tap there is BACK/HOME/OVERVIEW
    phone.gesture(540, 2126, 540, 2126)
    assert phone.state.foreground == "" and phone.state.launcher.name == "home"


def test_screenshot_matches_screen_and_shows_dark_mode():
    light = SimPhone("test_env_100")
    dark = SimPhone("test_env_102")
    for p in (light, dark):
        p.shell("am start -n com.android.settings/.Settings")
    a, b = light.screenshot(), dark.screenshot()
    assert a.shape == (2160, 1080, 3) and a.dtype == np.uint8
    assert a[1000, 900].tolist() == [255, 255, 255] and b[1000, 900].sum() < 200
    tablet = SimPhone("test_env_109")
    assert tablet.screenshot().shape == (800, 1200, 3)


def test_rtl_configuration_mirrors_the_layout():
    from dataclasses import replace

    rtl = SimPhone("test_env_108")
    ltr = SimPhone(replace(get_config("test_env_108"), locale="en-US"))
    for p in (rtl, ltr):
        p.shell("am start -n com.android.settings/.Settings")
    def title_box(p):
        row = next(n for n in p.tree().walk() if n.key == "network")
        return next(n for n in row.walk() if n.rid == "android:id/title").bounds
    r, l = title_box(rtl), title_box(ltr)
    assert r[2] == 1080 - l[0] and r[0] == 1080 - l[2] and r[1] == l[1]


def test_labels_follow_the_configuration_language():
    fr, ko, ak = SimPhone("test_env_104"), SimPhone("test_env_105"), SimPhone("train_env_032")
    for p in (fr, ko, ak):
        p.shell("am start -n com.android.settings/.Settings")
    assert 'text="Réseau et Internet"' in fr.dump_ui() and 'text="네트워크 및 인터넷"' in ko.dump_ui()
    assert 'text="Network &amp; internet"' in ak.dump_ui()  # no Akan table: English, as a fallback
    fr.keyevent("HOME")
    fr.gesture(540, 1700, 540, 400)  # the drawer lists every app by its French name
    assert 'text="Paramètres"' in fr.dump_ui() and 'text="Horloge"' in fr.dump_ui()


# ---------------------------------------------------------------- env
def test_env_malformed_actions_count_and_explain():
    env = BMoCAEnv(split="test")
    obs, info = env.reset(options={"task_id": "test_env_100/turn_on_airplane_mode"})
    assert obs["instruction"] == "Goal: turn on airplane mode" and info["success"] is False
    assert obs["text"].startswith("[{'numeric_tag': 0, 'description': ")
    assert info["xml"].startswith("<?xml") and len(info["bboxes"]) == len(obs["valid_actions"]) - 7
    before = info["xml"]
    obs, r, term, trunc, info = env.step("tap(999)")
    assert (r, term, trunc, env.steps) == (0.0, False, False, 1)
    assert info["invalid_action"] and "no element numbered 999" in info["message"] and info["xml"] == before
    for _ in range(4):
        obs, r, term, trunc, info = env.step("jump")
    assert trunc and not term and env.steps == 5 and "cannot parse" in info["message"]
    _o, r, term, trunc, info = env.step("tap(0)")
    assert r == 0.0 and info["invalid_action"] and "step limit (5)" in info["message"]


def test_env_options_select_task_and_configuration():
    env = BMoCAEnv(split="train")
    _o, info = env.reset(options={"task": "call_911", "config": "test_env_109"})
    assert info["task_id"] == "test_env_109/call_911" and env.max_steps == 9
    _o, info = env.reset(seed=3)
    assert info["task_id"] == episode_ids("train")[3]
    with pytest.raises(ValueError, match="unknown B-MoCA task"):
        env.reset(options={"task_id": "test_env_100/fly_to_the_moon"})


def test_paper_tasks_succeed_on_every_test_configuration_once_at_the_end():
    env = BMoCAEnv(split="test")
    for cfg in config_ids("test"):
        for name in PAPER_TASKS:
            ok, rewards, steps = play_oracle(env, f"{cfg}/{name}")
            assert ok, f"{cfg}/{name}"
            assert rewards[-1] == 1.0 and sum(rewards) == 1.0 and steps <= all_tasks()[name].max_steps


def test_all_60_tasks_on_one_configuration_with_expert_plans():
    env = BMoCAEnv(split="test")
    for name in all_tasks():
        tid = f"test_env_100/{name}"
        env.reset(options={"task_id": tid})
        plan = env.expert().plan
        assert 0 < len(plan) <= all_tasks()[name].max_steps, tid
        for i, a in enumerate(plan):
            _o, r, term, trunc, info = env.step(a)
            assert (r == 1.0) == (i == len(plan) - 1), f"{tid}: reward at step {i}"
        assert term and info["success"] and info["detector_match"]


@pytest.mark.slow
def test_oracle_solves_every_task_on_every_configuration():
    env = BMoCAEnv(split="train")
    failed = [tid for split in ("train", "test") for tid in episode_ids(split) if not play_oracle(env, tid)[0]]
    assert failed == []


def test_snapshot_restores_state_logcat_cursor_and_detector_latch():
    env = BMoCAEnv(split="test")
    env.reset(options={"task_id": "test_env_104/turn_on_airplane_mode"})
    env.step(env.expert_action())
    snap = env.snapshot()
    obs_at_snap = env._observe()[0]
    plan = env.expert().plan
    for a in plan:
        _o, r, term, _t, _i = env.step(a)
    assert term and r == 1.0
    won = env.snapshot()
    # a sibling branch from the earlier snapshot: press BACK instead, no success leaks in
    obs, info = env.restore(snap)
    assert obs == obs_at_snap and info["success"] is False and env.steps == 1
    _o, r, term, _t, info = env.step('press("HOME")')
    assert r == 0.0 and not term and not info["success"]
    assert env.backend.shell("settings get global airplane_mode_on") == "0\n"
    # the same actions from the restored snapshot reproduce the win
    env.restore(snap)
    rewards = [env.step(a)[1] for a in plan]
    assert rewards[-1] == 1.0
    # a restored winning state stays won (the latch is in the snapshot)
    _o, info = env.restore(pickle.loads(pickle.dumps(won)))
    assert info["success"] is True and env.backend.shell("settings get global airplane_mode_on") == "1\n"


def test_screenshot_observation_and_rgb_render():
    env = BMoCAEnv(split="test", screenshot=True, render_mode="rgb_array")
    obs, _ = env.reset(options={"task_id": "test_env_109/open_the_youtube_app"})
    assert obs["screenshot"].shape == (800, 1200, 3) and env.observation_space.contains(obs)
    obs, *_ = env.step('swipe("up")')
    assert env.observation_space.contains(obs)
    assert np.array_equal(env.render(), obs["screenshot"])
    assert env.canonical_action("Action: swipe('UP')") == 'swipe("up")' and env.canonical_action("tap(x)") is None
    assert env.task_fields() == {"instruction": "Goal: open the youtube app", "config": "test_env_109",
                                 "task": "open_the_youtube_app"}


def test_long_logs_pickle_and_devices_are_not_shared():
    phone = SimPhone("test_env_100")
    for i in range(3000):
        phone.shell(f"log -t X line{i}")
    back = pickle.loads(pickle.dumps(phone.state))
    assert back == phone.state and back.log_lines(2990) == phone.state.log_lines(2990)
    env = BMoCAEnv(split="test", backend=phone)
    with pytest.raises(ValueError, match="already drives another BMoCAEnv"):
        BMoCAEnv(split="test", backend=phone)
    env.close()
    BMoCAEnv(split="test", backend=phone).close()
    sim_env = BMoCAEnv(split="test")
    sim_env.reset(options={"task_id": "test_env_100/call_911"})
    twin = sim_env.clone()
    assert twin.backend is not sim_env.backend and twin.backend.state is sim_env.backend.state
