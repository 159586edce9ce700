"""The simulator's observation, read from its node tree, equals the one parsed from its uiautomator XML.

``BMoCAEnv`` on the simulator builds ``obs["text"]`` and ``info["bboxes"]`` with
``observation.from_tree`` (no XML written and parsed back) and writes
``info["xml"]`` with ``ui.to_xml``. These tests walk every task (the scripted
expert's path and a seeded random walk) and check, on every state reached, that
the tree path gives exactly what ``observation.parse`` gives on the dump, and
that ``to_xml`` quotes attributes exactly as ``xml.sax.saxutils.quoteattr``.
"""
from __future__ import annotations

import random
import xml.etree.ElementTree as ET
from xml.sax.saxutils import quoteattr

import pytest

from treegym.envs.android.device import all_configs
from treegym.envs.android.env import BMoCAEnv
from treegym.envs.android.observation import from_tree, parse
from treegym.envs.android.tasks import task_names
from treegym.envs.android.ui import Node, to_xml


def walk_states(config: str, random_steps: int = 8, seed: int = 0, tasks: list[str] | None = None) -> int:
    """Play the expert and a random walk on ``tasks`` (all 60) of ``config``; check every state; states checked."""
    rng = random.Random(seed)
    env = BMoCAEnv(split="all", max_steps=10 ** 6)
    checked = 0

    def check(obs: dict, info: dict) -> None:
        nonlocal checked
        w, h = env.backend.screen_size()
        root = env.backend.tree()
        xml = to_xml(root)
        via_xml, via_tree = parse(xml, w, h), from_tree(root, w, h)
        assert via_tree == via_xml, f"{env.task.task_id}: tree and XML observations differ"
        assert info["xml"] == xml and obs["text"] == via_xml.text and info["bboxes"] == list(via_xml.bboxes)
        checked += 1

    for name in task_names() if tasks is None else tasks:
        obs, info = env.reset(options={"task_id": f"{config}/{name}"})
        check(obs, info)
        for _ in range(30):
            action = env.expert_action()
            if action is None:
                break
            obs, _r, term, _t, info = env.step(action)
            check(obs, info)
            if term:
                break
        obs, info = env.reset(options={"task_id": f"{config}/{name}"})
        for _ in range(random_steps):
            if not obs["valid_actions"]:
                break
            obs, _r, _term, _t, info = env.step(rng.choice(obs["valid_actions"]))
            check(obs, info)
    env.close()
    return checked


@pytest.mark.parametrize("config", ["test_env_100", "test_env_108"])  # a Pixel in English, an RTL tablet in Arabic
def test_tree_observation_equals_the_xml_path(config):
    assert walk_states(config) > 500


@pytest.mark.slow
def test_tree_observation_equals_the_xml_path_on_every_configuration():
    names = task_names()  # every configuration plays a fifth of the tasks; every task runs on 9 configurations
    checked = sum(walk_states(c, random_steps=4, seed=i, tasks=names[i % 5::5]) for i, c in enumerate(all_configs()))
    assert checked > 4000


def reference_xml(root: Node) -> str:
    """uiautomator's document with every attribute through ``quoteattr`` (the serializer before the fast path)."""
    def b(v: object) -> str:
        return "true" if v else "false"

    def emit(n: Node, index: int) -> str:
        x1, y1, x2, y2 = n.bounds
        head = (f'<node index="{index}" text={quoteattr(n.text)} resource-id={quoteattr(n.rid)} '
                f'class={quoteattr(n.cls)} package={quoteattr(n.package)} content-desc={quoteattr(n.desc)} '
                f'checkable="{b(n.checkable)}" checked="{b(n.checked)}" clickable="{b(n.clickable)}" '
                f'enabled="{b(n.enabled)}" focusable="{b(n.focusable)}" focused="{b(n.focused)}" '
                f'scrollable="{b(n.scrollable)}" long-clickable="{b(n.long_clickable)}" '
                f'password="{b(n.password)}" selected="{b(n.selected)}" bounds="[{x1},{y1}][{x2},{y2}]"')
        if not n.children:
            return head + " />"
        return head + ">" + "".join(emit(c, i) for i, c in enumerate(n.children)) + "</node>"

    return ("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"
            + emit(root, 0) + "</hierarchy>")


TRICKY = ["", "plain", 'say "hi"', "it's \"both\"", "a & b < c > d", "tab\there", "two\nlines\r\n", "/:,  x",
          "日本語 العربية", "Wi-Fi,AndroidWifi"]


def test_to_xml_quotes_attributes_as_quoteattr_and_round_trips():
    root = Node("android.widget.FrameLayout", (0, 0, 100, 200), package="p")
    for i, s in enumerate(TRICKY):
        root.add(Node("android.widget.TextView", (0, i, 50, i + 1), text=s, desc=s[::-1], rid=s and f"p:id/{i}",
                      clickable=i % 2, checked="yes" if i % 3 else "", selected=i == 4))
    root.children[3].add(Node("android.view.View", (1, 2, 3, 4), text='"', desc="'"))
    xml = to_xml(root)
    assert xml == reference_xml(root)
    parsed = parse(xml, 100, 200)
    assert parsed == from_tree(root, 100, 200)
    texts = [el.attrib["text"] for el in ET.fromstring(xml).iter("node")]
    assert texts == [""] + TRICKY[:4] + ['"'] + TRICKY[4:]  # the parser gives every value back unchanged


def test_screen_cache_is_bounded_keyed_by_identity_and_shared_between_envs():
    from treegym.envs.android.device import get_config
    from treegym.envs.android.screens import ScreenCache
    from treegym.envs.android.sim.handset import initial_state

    cache = ScreenCache(max_entries=2)
    states = [initial_state(get_config("test_env_100")) for _ in range(3)]
    assert states[0] == states[1] and states[0] is not states[1]
    screen = parse("<hierarchy />", 1, 1)
    for i, st in enumerate(states):
        cache.put(st, f"xml{i}", screen)
    assert len(cache) == 2 and cache.get(states[0]) is None  # least recently used out first
    assert cache.get(states[2]) == ("xml2", screen)
    assert cache.get(initial_state(get_config("test_env_100"))) is None  # equal is not enough: the same object

    a, b = BMoCAEnv(split="test"), BMoCAEnv(split="test")
    a.reset(options={"task_id": "test_env_104/call_911"})
    obs_a, _r, _t, _u, info_a = a.step('swipe("up")')
    b.reset(options={"task_id": "test_env_101/turn_on_wifi"})
    obs_b, info_b = b.restore(a.snapshot())
    assert obs_b == obs_a and info_b["xml"] is info_a["xml"]  # the other env's screen, not rendered again
