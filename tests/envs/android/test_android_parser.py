"""B-MoCA's observation parser against upstream's rules, on device-shaped dumps and on simulated screens.

Upstream (B-MoCA v1, ``bmoca/agent/llm_agent/gpt.py``: ``get_id_from_element`` and
``parse_obs``): elements with ``bounds``, in ``iterparse`` end order; the id is the
resource id (':' -> '.', '/' -> '_') or the class, plus ``_<content-desc>`` (under
20 characters; spaces removed, '/' and ':' -> '_') or else ``_<text>`` (lower case;
'/' -> '_', ',' removed, ' ' and ':' -> '_'); "slider" / "settings.id_label" ids
carry ``"location bounding box ((x1, y1), (x2, y2))"`` with two decimals.

The two dumps below are written by hand in the shape ``uiautomator dump`` gives
on an Android 10 Pixel 3 (1080x2160): the header, the 17 attributes in their
order, nested FrameLayouts. The expected lists are worked out by hand from the
rules above, so they check our parser, not a copy of it.
"""
from __future__ import annotations

import random
import xml.etree.ElementTree as ET

import pytest

from treegym.envs.android.env import BMoCAEnv
from treegym.envs.android.observation import BBOX_KEY, parse
from treegym.envs.android.tasks import task_names

HEAD = "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"
FLAGS = ('checkable="false" checked="false" clickable="{c}" enabled="true" focusable="{c}" focused="false" '
         'scrollable="false" long-clickable="false" password="false" selected="false"')


def node(index: int, cls: str, bounds: str, *, text: str = "", rid: str = "", pkg: str, desc: str = "",
         clickable: bool = False, children: str = "") -> str:
    flags = FLAGS.format(c=str(clickable).lower())
    attrs = (f'index="{index}" text="{text}" resource-id="{rid}" class="{cls}" package="{pkg}" '
             f'content-desc="{desc}" {flags} bounds="{bounds}"')
    return f"<node {attrs}>{children}</node>" if children else f"<node {attrs} />"


SYSUI = "com.android.systemui"
QS_DUMP = (HEAD + node(0, "android.widget.FrameLayout", "[0,0][1080,2160]", pkg=SYSUI, children=(
    node(0, "android.widget.LinearLayout", "[0,0][1080,897]", rid=f"{SYSUI}:id/quick_settings_panel", pkg=SYSUI,
         children=(
             node(0, "android.widget.Switch", "[58,224][262,428]", pkg=SYSUI, desc="Wi-Fi,AndroidWifi", clickable=True)
             + node(1, "android.widget.Switch", "[326,224][530,428]", pkg=SYSUI, desc="Bluetooth.", clickable=True)
             + node(2, "android.widget.Switch", "[594,224][798,428]", pkg=SYSUI, desc="Airplane mode",
                    clickable=True)
             + node(3, "android.widget.SeekBar", "[150,760][930,847]", rid=f"{SYSUI}:id/slider", pkg=SYSUI,
                    desc="Display brightness", clickable=True)))
    + node(1, "android.widget.TextView", "[40,60][300,120]", rid=f"{SYSUI}:id/clock", text="5:00", pkg=SYSUI)
    + node(2, "android.widget.TextView", "[40,120][700,180]", rid=f"{SYSUI}:id/date", text="Fri, Jan 1", pkg=SYSUI)
    + node(3, "android.widget.ImageView", "[900,60][1040,120]", rid=f"{SYSUI}:id/settings_button", pkg=SYSUI,
           desc="Open settings.", clickable=True)))
    + "</hierarchy>")
QS_IDS = [
    "android.widget.Switch_Wi-Fi,AndroidWifi",
    "android.widget.Switch_Bluetooth.",
    "android.widget.Switch_Airplanemode",
    "com.android.systemui.id_slider_Displaybrightness",
    "com.android.systemui.id_quick_settings_panel",
    "com.android.systemui.id_clock_5_00",
    "com.android.systemui.id_date_fri_jan_1",
    "com.android.systemui.id_settings_button_Opensettings.",
    "android.widget.FrameLayout",
]

CLOCK = "com.google.android.deskclock"
CLOCK_DUMP = (HEAD + node(0, "android.widget.FrameLayout", "[0,0][1080,2160]", pkg=CLOCK, children=(
    node(0, "android.widget.ImageButton", "[0,66][154,220]", pkg=CLOCK, desc="Navigate up", clickable=True)
    + node(1, "androidx.recyclerview.widget.RecyclerView", "[0,220][1080,1900]", rid=f"{CLOCK}:id/alarm_recycler_view",
           pkg=CLOCK, children=(
               node(0, "android.widget.TextView", "[44,260][600,400]", rid=f"{CLOCK}:id/digital_clock",
                    text="9:00 AM", pkg=CLOCK, clickable=True)
               + node(1, "android.widget.Switch", "[880,290][1036,370]", rid=f"{CLOCK}:id/onoff", text="OFF",
                      pkg=CLOCK, desc="Alarm 9:00 AM off", clickable=True)
               + node(2, "android.widget.TextView", "[44,420][900,480]", rid=f"{CLOCK}:id/days_of_week",
                      text="Sat, Sun", pkg=CLOCK)
               + node(3, "android.widget.TextView", "[44,480][900,540]", rid=f"{CLOCK}:id/label",
                      text="Wake up / stretch", pkg=CLOCK)
               + node(4, "android.widget.ImageButton", "[900,420][1036,540]", rid=f"{CLOCK}:id/arrow", pkg=CLOCK,
                      desc="Expand alarm", clickable=True)))
    + node(2, "android.widget.TextView", "[0,1950][270,2100]", pkg=CLOCK, desc="Alarm: 1/2/3", clickable=True)
    + '<node index="3" text="no bounds" resource-id="" class="android.view.View" package="x" content-desc="" />'))
    + "</hierarchy>")
CLOCK_IDS = [
    "android.widget.ImageButton_Navigateup",
    "com.google.android.deskclock.id_digital_clock_9_00_am",
    "com.google.android.deskclock.id_onoff_Alarm9_00AMoff",
    "com.google.android.deskclock.id_days_of_week_sat_sun",
    "com.google.android.deskclock.id_label_wake_up___stretch",
    "com.google.android.deskclock.id_arrow_Expandalarm",
    "com.google.android.deskclock.id_alarm_recycler_view",
    "android.widget.TextView_Alarm_1_2_3",
    "android.widget.FrameLayout",
]


@pytest.mark.parametrize("xml, ids", [(QS_DUMP, QS_IDS), (CLOCK_DUMP, CLOCK_IDS)], ids=["quick_settings", "clock"])
def test_device_shaped_dumps_parse_as_upstream(xml, ids):
    p = parse(xml, 1080, 2160)
    assert [e["description"] for e in p.elements] == ids
    assert [e["numeric_tag"] for e in p.elements] == list(range(len(ids)))
    boxed = {e["description"]: e[BBOX_KEY] for e in p.elements if BBOX_KEY in e}
    if xml is QS_DUMP:
        # 150/1080 = 0.139, 760/2160 = 0.352, 930/1080 = 0.861, 847/2160 = 0.392
        assert boxed == {"com.android.systemui.id_slider_Displaybrightness": "((0.14, 0.35), (0.86, 0.39))"}
        assert p.bboxes[3] == (150, 760, 930, 847)
    else:
        assert boxed == {}
    assert p.text == str(list(p.elements))


def upstream_id(attrib: dict) -> str:
    """Upstream's id rule, restated from its definition (see the module docstring) for the screen sweep."""
    rid = attrib.get("resource-id") or ""
    out = rid.replace(":", ".").replace("/", "_") if rid else attrib["class"]
    desc, text = attrib.get("content-desc") or "", attrib.get("text") or ""
    if desc and len(desc) < 20:
        return out + "_" + "".join("_" if ch in "/:" else ch for ch in desc if ch != " ")
    if text:
        return out + "_" + "".join({"/": "_", " ": "_", ":": "_"}.get(ch, ch) for ch in text.lower() if ch != ",")
    return out


def upstream_elements(xml: str, width: int, height: int) -> list[dict]:
    out = []
    for _ev, el in ET.iterparse(__import__("io").BytesIO(xml.encode()), events=("end",)):
        if "bounds" not in el.attrib:
            continue
        (x1, y1), (x2, y2) = (map(int, p.split(",")) for p in el.attrib["bounds"][1:-1].split("]["))
        item = {"numeric_tag": len(out), "description": upstream_id(el.attrib)}
        if "slider" in item["description"] or "settings.id_label" in item["description"]:
            item[BBOX_KEY] = "((%.2f, %.2f), (%.2f, %.2f))" % (x1 / width, y1 / height, x2 / width, y2 / height)
        out.append(item)
    return out


def sweep_screens(config: str, random_steps: int = 10, seed: int = 0) -> tuple[int, int, int, int]:
    """Every distinct screen the scripted expert and a seeded random walk reach on all 60 tasks of one configuration.

    Returns (screens, screens matching upstream's parse, element ids, ids matching).
    """
    rng = random.Random(seed)
    env = BMoCAEnv(split="test" if config.startswith("test") else "train", max_steps=10 ** 6)
    seen: set[str] = set()
    counts = [0, 0, 0, 0]

    def look() -> None:
        xml = env._xml
        if xml in seen:
            return
        seen.add(xml)
        w, h = env.backend.screen_size()
        ours, ref = list(parse(xml, w, h).elements), upstream_elements(xml, w, h)
        counts[0] += 1
        counts[1] += ours == ref
        counts[2] += len(ref)
        counts[3] += sum(a == b for a, b in zip(ours, ref)) if len(ours) == len(ref) else 0

    for name in task_names():
        env.reset(options={"task_id": f"{config}/{name}"})
        look()
        for _ in range(30):  # the expert's path
            a = env.expert_action()
            if a is None or env.step(a)[2]:
                break
            look()
        look()
        obs, _info = env.reset(options={"task_id": f"{config}/{name}"})
        for _ in range(random_steps):  # and a random walk
            obs = env.step(rng.choice(obs["valid_actions"]))[0]
            look()
            if not obs["valid_actions"]:
                break
    env.close()
    return tuple(counts)


@pytest.mark.slow
@pytest.mark.parametrize("config", ["test_env_100", "test_env_108"])  # a Pixel in English, an RTL tablet in Arabic
def test_every_simulated_screen_parses_as_upstream(config):
    screens, same_screens, ids, same_ids = sweep_screens(config)
    assert screens > 100 and ids > 1000
    assert (same_screens, same_ids) == (screens, ids)
