"""``treegym/BMoCA-v0``: B-MoCA's 60 Android tasks on its 45 device configurations, forkable.

* **Episode ids**: ``"<configuration>/<task>"`` (``test_env_104/call_911``);
  ``split="train"`` (35 configurations x 60 tasks), ``"test"`` (10 x 60), ``"all"``
  (both), or ``task_ids=``. ``reset(options={"task_id": ...})``, or
  ``options={"task": name, "config": "test_env_104"}`` (either part alone keeps
  the other from the episode ``reset(seed=...)`` would choose).
* **Observation** (dict): ``text`` = B-MoCA's numbered element list
  (``str(list_of_dicts)``, post-order), ``instruction`` = ``"Goal: ..."``,
  ``valid_actions`` = every ``tap(n)`` plus the swipes and presses, and with
  ``screenshot=True`` an ``(H, W, 3)`` uint8 ``screenshot``. ``info`` carries
  ``xml`` (the raw dump), ``bboxes`` (pixel boxes by number), ``success``,
  ``config``, ``task``, ``message`` and ``invalid_action``.
* **Actions**: ``tap(n)``, ``swipe("up|down|left|right")``, ``press("HOME|BACK|OVERVIEW")``,
  ``dual-gesture(ty, tx, ly, lx)`` (see ``actions.py``). A malformed action
  counts a step, changes nothing and says what was wrong.
* **Reward**: 1.0 and ``terminated`` on the first logcat line (task filter,
  ``re.match`` of the task regex on the message) since reset; ``truncated`` at
  the task's ``max_steps`` (upstream's per-task limit unless ``max_steps=`` is given).
* **Backends**: ``backend="sim"`` (default, :class:`SimPhone`, native
  snapshots) or a :class:`DeviceBackend` instance (``AdbBackend``: external snapshots).
* **Snapshot** payload: ``(device ref, cursor, success, message, invalid)``: the
  phone state (sim: an immutable value), the logcat cursor and the detector latch.
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
from gymnasium import spaces

from treegym.envs.core import ForkableEnv, TaskPool, text_observation_space
from treegym.envs.core.contract import ExpertAdvice
from treegym.envs.core.snapshot import SnapshotError

from . import actions as act
from .device import get_config
from .logcat import matching_messages
from .observation import ParsedScreen, from_tree, parse
from .screens import SCREENS
from .tasks import EpisodeSpec, episode, episode_ids
from .ui import to_xml
from treegym.envs.core import action_space
from .expert import next_intent, to_action
from .sim.phone import SimPhone
from .sim.window import render

_LIVE_ENVS: "weakref.WeakSet[BMoCAEnv]" = weakref.WeakSet()

SPLITS = ("train", "test")


def _episode_id(task_id: Any) -> str:
    """A B-MoCA episode id, checked ('<configuration>/<task>')."""
    if not isinstance(task_id, str):
        raise ValueError(f"task_id {task_id!r} is not a B-MoCA episode id; ids are '<configuration>/<task>' "
                         "strings such as 'test_env_100/call_911' (see split_task_ids())")
    episode(task_id)
    return task_id


# train, test, and all (train then test)
_EPISODES = TaskPool.lazy(SPLITS + ("all",),
                          lambda s: [t for x in SPLITS for t in episode_ids(x)] if s == "all" else episode_ids(s),
                          check=_episode_id, default="train", source="B-MoCA")
FIXED_ACTIONS = ('swipe("up")', 'swipe("down")', 'swipe("left")', 'swipe("right")', 'press("HOME")',
                 'press("BACK")', 'press("OVERVIEW")')


@dataclass(frozen=True)
class AndroidState:
    """Env-side state of an episode: device snapshot ref, logcat cursor, detector latch, last message."""

    device: Any
    cursor: int
    success: bool
    message: str = ""
    invalid: bool = False

    def __reduce__(self):
        # The screen of a native device state travels with it (SCREENS caches it by identity, in this process
        # only): a snapshot restored in another process is observed without rendering it again.
        screen = None if isinstance(self.device, _ExternalRef) else SCREENS.get(self.device)
        return _android_state, (self.device, self.cursor, self.success, self.message, self.invalid, screen)


def _android_state(device: Any, cursor: int, success: bool, message: str, invalid: bool,
                   screen: tuple | None = None) -> AndroidState:
    if screen is not None and SCREENS.get(device) is None:
        SCREENS.put(device, *screen)
    return AndroidState(device, cursor, success, message, invalid)


class BMoCAEnv(ForkableEnv):
    """B-MoCA Android control on a simulated phone or a device (see the module docstring)."""

    # screenshot= decides whether a restored state's observation carries the screen image; split and
    # task_ids pick the next reset's episode, and a device backend's snapshots are refused by its handles.
    restore_settings = ("screenshot",)

    metadata = {"render_modes": ["ansi", "rgb_array"]}
    snapshot_kind = "native"
    reset_options = ("task_id", "split", "task", "config")  # task/config: B-MoCA's own

    def __init__(self, split: str = "train", task_ids: Sequence[str] | None = None, backend: Any = "sim",
                 screenshot: bool = False, max_steps: int | None = None, render_mode: str | None = None):
        _EPISODES.ids(split)  # an unknown split is refused first
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None, 'ansi' or 'rgb_array', got {render_mode!r}")
        if max_steps is not None and (isinstance(max_steps, bool) or int(max_steps) < 1):
            raise ValueError(f"max_steps must be a positive integer or None, got {max_steps!r}")
        super().__init__(max_steps=None, render_mode=render_mode)
        if backend == "sim":
            backend = SimPhone()
        elif any(other.backend is backend for other in list(_LIVE_ENVS)):
            raise ValueError("this device backend already drives another BMoCAEnv; one device (or SimPhone) per env "
                             "(clone() of an env on a real device is not possible: make a second device)")
        self.backend = backend
        _LIVE_ENVS.add(self)
        self.snapshot_kind = getattr(backend, "snapshot_kind", "native")
        self.split = split
        # task_ids are not confined to split (split only picks the default pool)
        self.pool = _EPISODES.select(split if task_ids is None else None, task_ids)
        self.screenshot = bool(screenshot)
        self.step_limit_override = None if max_steps is None else int(max_steps)
        extra = {}
        if self.screenshot:
            w, h = backend.screen_size()
            extra["screenshot"] = spaces.Box(0, 255, (h, w, 3), np.uint8)
        self.observation_space = text_observation_space(**extra)

        self.action_space = action_space()
        self.task: EpisodeSpec | None = None
        self.state: AndroidState | None = None
        self._parsed: ParsedScreen | None = None
        self._xml = ""

    # ------------------------------------------------------------------ tasks
    @classmethod
    def default_task_pool(cls) -> TaskPool:
        """The episodes of ``train`` and ``test`` (``treegym list`` shows these two) and ``all`` (train then
        test), which :meth:`split_task_ids` also takes."""
        return _EPISODES

    @classmethod
    def task_counts(cls) -> dict[str, int]:
        return {s: n for s, n in _EPISODES.counts().items() if s in SPLITS}

    def _choose(self, seed: int | None, options: dict) -> str:
        if options.get("task_id") is not None:
            return _EPISODES.check(options["task_id"])  # (task/config options below are B-MoCA's own)
        if options.get("task") or options.get("config"):
            base = self.pool[(seed or 0) % len(self.pool)] if (seed is not None or self.task is None) else self.task.task_id
            cfg, name = base.split("/", 1)
            return f"{options.get('config') or cfg}/{options.get('task') or name}"
        return _EPISODES.choose(self.pool, self.task.task_id if self.task is not None else None, seed, options)

    # ------------------------------------------------------------------ hooks
    def _get_state(self) -> AndroidState:
        st = self.state
        if self.snapshot_kind == "native":
            return AndroidState(self.backend.save_snapshot(), st.cursor, st.success, st.message, st.invalid)
        return AndroidState(_ExternalRef(self.backend, self.backend.save_snapshot()), st.cursor, st.success,
                            st.message, st.invalid)

    def _set_state(self, state: AndroidState) -> None:
        if not isinstance(state, AndroidState):
            raise SnapshotError("not a BMoCA snapshot payload")
        ref = state.device
        if isinstance(ref, ForeignDeviceRef):
            raise SnapshotError(ref.refusal())
        if isinstance(ref, _ExternalRef):
            if ref.released:
                raise SnapshotError("this emulator snapshot was released; take a new snapshot")
            self.backend.load_snapshot(ref.ref)
            # the emulator restarts logcat after a load: new lines start from a fresh cursor
            self.state = AndroidState(None, self.backend.logcat_read(0)[1], state.success, state.message, state.invalid)
        else:
            self.backend.load_snapshot(ref)
            self.state = state

    def _screen(self) -> tuple[str, ParsedScreen]:
        """The dump and its element list; on a native backend cached by the (immutable) device state."""
        w, h = self.backend.screen_size()
        if self.snapshot_kind != "native":
            xml = self.backend.dump_ui()
            return xml, parse(xml, w, h)
        ref = self.backend.save_snapshot()
        hit = SCREENS.get(ref)
        if hit is not None:
            return hit
        tree = getattr(self.backend, "tree", None)  # the simulator: elements straight from its node tree
        if tree is not None:
            root = tree()
            xml, parsed = to_xml(root), from_tree(root, w, h)
        else:
            xml = self.backend.dump_ui()
            parsed = parse(xml, w, h)
        SCREENS.put(ref, xml, parsed)
        return xml, parsed

    def _observe(self) -> tuple[dict, dict]:
        self._xml, self._parsed = self._screen()
        st = self.state
        n = len(self._parsed.elements)
        over = self.task is not None and self.steps >= self.max_steps
        valid = () if (st.success or over) else tuple(f"tap({i})" for i in range(n)) + FIXED_ACTIONS
        obs = {"text": self._parsed.text, "instruction": self.task.task.instruction, "valid_actions": valid}
        if self.screenshot:
            obs["screenshot"] = self.backend.screenshot()
        info = {"success": bool(st.success), "xml": self._xml, "bboxes": list(self._parsed.bboxes),
                "config": self.task.config_id, "task": self.task.task.name, "task_id": self.task.task_id,
                "steps": self.steps, "message": st.message, "invalid_action": st.invalid}
        self._last_text = obs["text"]
        return obs, info

    # ------------------------------------------------------------------ Gymnasium API
    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        super().reset(seed=seed, options=options)
        spec = episode(self._choose(seed, self.reset_option_values(options)))
        self.task = spec
        self.steps = 0
        self.max_steps = self.step_limit_override or spec.task.max_steps
        if self.screenshot:
            cfg = get_config(spec.config_id)
            self.observation_space = text_observation_space(
                screenshot=spaces.Box(0, 255, (cfg.height, cfg.width, 3), np.uint8))
        self.backend.reset_device(spec.config_id, spec.task.presets)
        self.backend.keyevent("HOME")
        self.backend.logcat_clear()
        _lines, cursor = self.backend.logcat_read(0)
        self.state = AndroidState(None, cursor, False)
        return self._observe()

    def step(self, action: Any) -> tuple[dict, float, bool, bool, dict]:
        if self.state is None or self.task is None:
            raise RuntimeError("call reset() before step()")
        st = self.state
        if st.success or self.steps >= self.max_steps:
            obs, info = self._observe()
            why = "the task is already accomplished" if st.success else f"the step limit ({self.max_steps}) is reached"
            info["message"] = f"Invalid action: {why}; call reset() to play again."
            info["invalid_action"] = True
            return obs, 0.0, st.success, (not st.success), info
        w, h = self.backend.screen_size()
        cfg = get_config(self.task.config_id)
        try:
            canonical, gesture = act.to_gesture(str(action), self._parsed.bboxes, w, h, rtl=cfg.rtl)
        except act.ActionError as exc:
            self.state = AndroidState(None, st.cursor, False, f"Invalid action: {exc}", True)
            truncated = self._count_step()
            obs, info = self._observe()
            return obs, 0.0, False, truncated, info
        self.backend.gesture(*gesture.pixels(w, h))
        lines, cursor = self.backend.logcat_read(st.cursor)
        t = self.task.task
        hit = matching_messages(lines, [t.logcat_filter], t.success_regex)
        success = bool(hit)
        self.state = AndroidState(None, cursor, success, f"Executed {canonical}", False)
        truncated = self._count_step()
        obs, info = self._observe()
        if success:
            info["detector_match"] = hit[0]
        return obs, 1.0 if success else 0.0, success, truncated and not success, info

    def close(self) -> None:
        _LIVE_ENVS.discard(self)
        super().close()

    def render(self) -> Any:
        if self.render_mode == "rgb_array":
            return self.backend.screenshot()
        return super().render()

    # ------------------------------------------------------------------ contract
    def task_fields(self) -> dict[str, Any]:
        if self.task is None:
            return {}
        return {"instruction": self.task.task.instruction, "config": self.task.config_id, "task": self.task.task.name}

    def action_templates(self) -> tuple[str, ...]:
        return ("tap(<n>)", 'swipe("<up|down|left|right>")', 'press("<HOME|BACK|OVERVIEW>")',
                "dual-gesture(<touch_y>, <touch_x>, <lift_y>, <lift_x>)")

    def canonical_action(self, action: str) -> str | None:
        n = len(self._parsed.elements) if self._parsed is not None else None
        try:
            return act.canonical(str(action), n)
        except act.ActionError:
            return None

    def expert(self) -> ExpertAdvice | None:
        """The scripted demonstration from the current state (simulator backend only)."""
        if not isinstance(self.backend, SimPhone) or self.state is None or self.task is None:
            return None
        if self.state.success:
            return ExpertAdvice(plan=(), value=1.0)
        plan = plan_from(self.backend.state, self.task, self.max_steps - self.steps, self.state.cursor)
        if plan is None:
            return ExpertAdvice(plan=(), value=0.0, solvable=False)
        return ExpertAdvice(plan=tuple(plan), value=1.0)

    def expert_action(self) -> str | None:
        """The expert's next action only (cheaper than ``expert().plan``)."""
        if not isinstance(self.backend, SimPhone) or self.state is None or self.state.success:
            return None
        st = self.backend.state
        tree = render(st)
        cfg = st.config
        return to_action(next_intent(self.task.task.name, st, tree), tree, cfg.width, cfg.height, cfg.rtl)


def plan_from(phone_state: Any, spec: EpisodeSpec, budget: int, cursor: int) -> list[str] | None:
    """Roll the scripted expert forward on a copy of the simulator; its actions up to success, or None."""
    sim = SimPhone(spec.config_id)
    sim.state = phone_state
    cfg = phone_state.config
    t = spec.task
    plan: list[str] = []
    for _ in range(max(0, budget)):
        tree = render(sim.state)
        action = to_action(next_intent(t.name, sim.state, tree), tree, cfg.width, cfg.height, cfg.rtl)
        plan.append(action)
        parsed = from_tree(tree, cfg.width, cfg.height)
        _c, gesture = act.to_gesture(action, parsed.bboxes, cfg.width, cfg.height, rtl=cfg.rtl)
        sim.gesture(*gesture.pixels(cfg.width, cfg.height))
        lines, cursor = sim.logcat_read(cursor)
        if matching_messages(lines, [t.logcat_filter], t.success_regex):
            return plan
    return None


class _ExternalRef:
    """A device snapshot handle (emulator snapshot name); dropped on the device when garbage-collected.

    It pickles as a reference to this process's handle: unpickled in the process that holds it, it is
    that handle again; anywhere else it is a :class:`ForeignDeviceRef`, which restores nowhere (the
    snapshot lives on one device, driven by one process) and says where it lives."""

    def __init__(self, backend: Any, ref: Any):
        import os
        import socket
        import uuid

        self.ref = ref
        self.released = False
        self.where = (f"the device {getattr(backend, 'serial', None) or type(backend).__name__} "
                      f"driven by process {os.getpid()} on host {socket.gethostname()}")
        self.token = uuid.uuid4().hex
        _HELD_REFS[self.token] = self
        self._finalizer = weakref.finalize(self, backend.drop_snapshot, ref)

    def release(self) -> None:
        self.released = True
        self._finalizer()

    def __reduce__(self):
        return _external_ref, (self.token, self.where)


@dataclass(frozen=True)
class ForeignDeviceRef:
    """A device snapshot handle unpickled away from the process that holds it: it restores nowhere."""

    token: str
    where: str

    def refusal(self) -> str:
        return (f"this B-MoCA snapshot is an emulator snapshot on {self.where}: a device snapshot cannot travel "
                "to another process or machine; restore it in that process (snapshots of backend='sim' travel)")


_HELD_REFS: "weakref.WeakValueDictionary[str, _ExternalRef]" = weakref.WeakValueDictionary()


def _external_ref(token: str, where: str) -> Any:
    held = _HELD_REFS.get(token)
    return held if held is not None else ForeignDeviceRef(token, where)
