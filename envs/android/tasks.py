"""The 60 B-MoCA v1 tasks (``data/tasks_v1.json``) and the task x configuration ids.

Each task: ``name`` (upstream's file name), instruction ``"Goal: " + name with
'_' -> ' '``, ``max_steps``, one logcat filter (``Tag:P``) and one success regex
(``re.match`` on the log message), reset = press HOME, as upstream. ``presets``
are **our** choices where upstream's snapshot state is unknown (v1 has no setup
steps): the "turn X off" tasks start with X on (airplane), "turn on wifi"
starts with Wi-Fi off, and the "create alarm" tasks pin the clock like
upstream's ``set_device`` (2016-01-01 05:00, so the new alarm is the next one).

Episode ids are ``"<configuration>/<task>"``, e.g. ``test_env_100/turn_on_airplane_mode``.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache

from treegym.envs.core.snapshot_bytes import reduce_by_key

from .device import DATA, config_ids, get_config

PAPER_TASKS = ("turn_on_airplane_mode", "turn_on_alarm_at_9_am", "create_alarm_at_10:30_am",
               "decrease_the_screen_brightness_in_setting", "call_911", "go_to_the_'add_a_language'_page_in_setting")


@dataclass(frozen=True)
class AndroidTask:
    name: str
    instruction: str
    max_steps: int
    logcat_filter: str
    success_regex: str
    presets: tuple[str, ...] = ()


@dataclass(frozen=True)
class EpisodeSpec:
    """One episode: a task on a configuration (immutable; what a snapshot's ``task`` holds)."""

    task_id: str
    config_id: str
    task: AndroidTask

    def __reduce__(self):  # static data: a snapshot refers to a shipped episode by its id
        return reduce_by_key(self, episode, self.task_id)


def _presets(name: str) -> tuple[str, ...]:
    if name == "turn_off_airplane_mode":
        return ("global/airplane_mode_on=1",)
    if name == "turn_on_wifi":
        return ("global/wifi_on=0",)
    if name.startswith("create_alarm_at_"):
        return ("date=0101050016.00",)
    return ()


@lru_cache(maxsize=1)
def all_tasks() -> dict[str, AndroidTask]:
    with open(DATA / "tasks_v1.json") as f:
        rows = json.load(f)
    out = {}
    for r in rows:
        out[r["name"]] = AndroidTask(r["name"], "Goal: " + r["name"].replace("_", " "), int(r["max_steps"]),
                                     r["logcat_filter"], r["success_regex"], _presets(r["name"]))
    return out


def task_names() -> list[str]:
    return list(all_tasks())


def episode_ids(split: str, tasks: list[str] | None = None) -> list[str]:
    names = tasks or task_names()
    return [f"{c}/{t}" for c in config_ids(split) for t in names]


def episode(task_id: str) -> EpisodeSpec:
    if not isinstance(task_id, str) or "/" not in task_id:
        raise ValueError(f"task id {task_id!r} must be '<configuration>/<task>', e.g. "
                         "'test_env_100/turn_on_airplane_mode'")
    config_id, name = task_id.split("/", 1)
    get_config(config_id)
    if name not in all_tasks():
        raise ValueError(f"unknown B-MoCA task {name!r}; see envs/android/data/tasks_v1.json for the 60 names")
    return EpisodeSpec(task_id, config_id, all_tasks()[name])
