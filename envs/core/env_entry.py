"""``EnvEntry``: how an env family declares its Gymnasium ids, in its own package.

A family's ``envs/<family>/__init__.py`` holds a module-level ``ENV_SPECS`` tuple;
``import treegym.envs`` finds every sub-package that has one and registers its
ids (``envs/registration.py``), so adding a family touches only its own folder::

    from treegym.envs.core.env_entry import EnvEntry

    ENV_SPECS = (EnvEntry("treegym/MyGame-v0", "treegym.envs.mygame.env:MyGameEnv", name="mygame"),)

Keep that ``__init__.py`` light (no heavy imports): it is imported whenever
``treegym.envs`` is.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Mapping

_ID = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+-v\d+$")


@dataclass(frozen=True)
class EnvEntry:
    """One registered id.

    * ``id``: ``namespace/Name-vN``; ``entry_point``: ``"module:Class"`` (imported at ``gym.make``).
    * ``kwargs``: default make-kwargs; ``extra``: the pip extra the env needs (named in errors).
    * ``name``: a short name (``treegym serve game24``); ``order``: where ``treegym list`` shows it.
    """

    id: str
    entry_point: str
    kwargs: Mapping[str, Any] = field(default_factory=dict)
    extra: str | None = None
    name: str | None = None
    order: int = 100

    def __post_init__(self) -> None:
        if not _ID.match(self.id):
            raise ValueError(f"env id {self.id!r} is not 'namespace/Name-vN'")
        module, _, attr = self.entry_point.partition(":")
        if not module or not attr:
            raise ValueError(f"entry_point {self.entry_point!r} of {self.id} is not 'module:Class'")
