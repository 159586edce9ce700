"""The 45 B-MoCA device configurations and their screen geometry.

Data (``data/``, from B-MoCA v1, MIT, see the README's attribution):
``device_property.json`` (six device types: pixels and dpi, density choices),
``environments_{train,test}.csv`` (35 + 10 rows: device, locale, wallpaper,
density index, dark mode) and ``home_screens.json`` (each upstream snapshot's
launcher ``favorites`` rows: title, intent, container -100 desktop / -101
hotseat, cellX/cellY on a 5x5 grid, hotseat position in ``screen``).

Geometry: ``width``/``height`` in pixels; ``scale`` = density / 160 (pixels per
dp, density from ``wm density``); ``font_scale`` is B-MoCA's
``[1.0, 1.15, 0.85][density index]``. The status bar is 24 dp, the 3-button
navigation bar 48 dp at the bottom.
"""
from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from treegym.envs.core.snapshot_bytes import reduce_by_key

DATA = Path(__file__).parent / "data"
FONT_SCALES = (1.0, 1.15, 0.85)
RTL_LANGUAGES = ("ar", "ur", "fa", "iw", "he")


@dataclass(frozen=True)
class HomeItem:
    """One launcher favorite: an app icon on the desktop (5x5) or in the hotseat."""

    title: str
    component: str  # "pkg/activity" as in the launcher intent
    hotseat: bool
    cell_x: int
    cell_y: int

    @property
    def package(self) -> str:
        return self.component.split("/")[0]


@dataclass(frozen=True)
class DeviceConfig:
    """One environment configuration (``train_env_000`` .. ``test_env_109``)."""

    env_id: str
    split: str
    device: str
    width: int
    height: int
    density: int
    density_index: int
    locale: str
    wallpaper: str
    dark: bool
    home: tuple[HomeItem, ...]

    def __reduce__(self):  # static data: a snapshot refers to a shipped configuration by its id
        return reduce_by_key(self, get_config, self.env_id)

    @property
    def scale(self) -> float:
        return self.density / 160.0

    @property
    def font_scale(self) -> float:
        return FONT_SCALES[self.density_index]

    @property
    def rtl(self) -> bool:
        return self.locale.replace("_", "-").split("-")[0].lower() in RTL_LANGUAGES

    @property
    def tablet(self) -> bool:
        return self.device == "WXGA_Tablet"

    def dp(self, v: float) -> int:
        return int(round(v * self.scale))

    @property
    def status_bar(self) -> int:
        return self.dp(24)

    @property
    def nav_bar(self) -> int:
        return self.dp(48)

    @property
    def content_bottom(self) -> int:
        return self.height - self.nav_bar


@lru_cache(maxsize=1)
def _devices() -> dict[str, dict]:
    with open(DATA / "device_property.json") as f:
        return {d["device_id"]: d for d in json.load(f)["device_info"]}


@lru_cache(maxsize=1)
def _home_screens() -> dict[str, list[dict]]:
    with open(DATA / "home_screens.json") as f:
        return json.load(f)


def _home_items(env_id: str) -> tuple[HomeItem, ...]:
    items = []
    for row in _home_screens().get(env_id, []):
        intent = row["intent"]
        comp = intent.split("component=", 1)[1].split(";", 1)[0].replace("%24", "$") if "component=" in intent else ""
        hot = row["container"] == -101
        items.append(HomeItem(row["title"], comp, hot, int(row["screen"] if hot else row["cellX"]),
                              0 if hot else int(row["cellY"])))
    return tuple(items)


@lru_cache(maxsize=1)
def all_configs() -> dict[str, DeviceConfig]:
    """Every configuration by id, train rows first, in upstream's order."""
    out: dict[str, DeviceConfig] = {}
    for split in ("train", "test"):
        with open(DATA / f"environments_{split}.csv", newline="") as f:
            for row in csv.DictReader(f):
                env_id = f"{split}_env_{row['idx']}"
                dev = _devices()[row["device_id"]]
                w, h, _dpi = dev["physical_setting"]
                di = int(row["dpi"])
                out[env_id] = DeviceConfig(
                    env_id=env_id, split=split, device=row["device_id"], width=int(w), height=int(h),
                    density=int(dev["icon_size"][di]), density_index=di, locale=row["locale"],
                    wallpaper=row["wallpaper"], dark=row["darkmode"].strip().lower() == "true",
                    home=_home_items(env_id))
    return out


def config_ids(split: str) -> list[str]:
    if split not in ("train", "test"):
        raise ValueError(f"unknown split {split!r}; choose 'train' or 'test'")
    return [k for k, c in all_configs().items() if c.split == split]


def get_config(env_id: str) -> DeviceConfig:
    try:
        return all_configs()[env_id]
    except KeyError:
        raise ValueError(f"unknown device configuration {env_id!r}; use one of train_env_000..034, "
                         "test_env_100..109") from None
