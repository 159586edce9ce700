"""An example of ``external`` snapshots: handles to images the env keeps, until released.

Emulators and devices (the Android phone) snapshot by writing an image and
handing back a name for it: the snapshot costs seconds and holds storage until
someone frees it. :class:`HandleSnapshots` gives any :class:`ForkableEnv` that
shape, for tests, benchmarks and as a template for such envs:

* ``snapshot()`` stores the env's own snapshot as an *image* in a host store
  shared by all envs of the class (as an emulator host shares its disk) and
  returns a :class:`Snapshot` of kind ``external`` whose payload is the handle;
  it sleeps ``snapshot_delay`` seconds first (the simulated cost; 0 by default).
* ``restore(snap)`` restores from the image; a released handle raises
  :class:`SnapshotError`.
* ``release(snap)`` frees the image (``treegym.envs.release(env, snap)`` calls it).
* Counters per env: ``taken``, ``released``, ``live`` (handles it made and
  has not released) and ``peak`` (the most handles live at once).

Usage: ``class DeviceGame24(HandleSnapshots, Game24Env): snapshot_delay = 0.05``.
"""
from __future__ import annotations

import itertools
import threading
import time
from typing import Any, ClassVar

from treegym.envs.core.snapshot import Snapshot, SnapshotError


class HandleSnapshots:
    """Mixin: ``external`` snapshots as handles to images in a host store (see the module docstring)."""

    snapshot_kind: ClassVar[str] = "external"
    snapshot_delay: ClassVar[float] = 0.0  # seconds one snapshot takes (simulated)
    _images: ClassVar[dict[int, Snapshot]] = {}
    _ids: ClassVar[Any] = itertools.count()
    _lock: ClassVar[threading.Lock] = threading.Lock()

    def _counters(self) -> dict[str, Any]:
        return self.__dict__.setdefault("_handle_counters", {"taken": 0, "released": 0, "live": set(), "peak": 0})

    @property
    def taken(self) -> int:
        return self._counters()["taken"]

    @property
    def released(self) -> int:
        return self._counters()["released"]

    @property
    def live(self) -> set[int]:
        return self._counters()["live"]

    @property
    def peak(self) -> int:
        return self._counters()["peak"]

    def snapshot(self) -> Snapshot:
        if self.snapshot_delay:
            time.sleep(self.snapshot_delay)
        image = super().snapshot()  # type: ignore[misc]
        with self._lock:
            handle = next(self._ids)
            self._images[handle] = image
        counters = self._counters()
        counters["taken"] += 1
        counters["live"].add(handle)
        counters["peak"] = max(counters["peak"], len(counters["live"]))
        return Snapshot(kind="external", env_class=image.env_class, payload=handle, steps=image.steps,
                        max_steps=image.max_steps, rng_state=None, task=image.task)

    def restore(self, snapshot: Snapshot) -> tuple[dict, dict]:
        self._check_snapshot(snapshot)  # type: ignore[attr-defined]
        with self._lock:
            image = self._images.get(snapshot.payload)
        if image is None:
            raise SnapshotError(f"snapshot handle {snapshot.payload!r} was released; take a new snapshot")
        return super().restore(image)  # type: ignore[misc]

    def release(self, snapshot: Snapshot) -> None:
        with self._lock:
            freed = self._images.pop(snapshot.payload, None) is not None
        if freed:
            counters = self._counters()
            counters["released"] += 1
            counters["live"].discard(snapshot.payload)
