"""``EnvEntry``: how an env family declares its Gymnasium ids, in its own package.

A family's ``envs/<family>/__init__.py`` holds a module-level ``ENV_SPECS`` tuple;
``import treegym.envs`` finds every sub-package that has one and registers its
ids (``envs/registration.py``), so adding a family touches only its own folder::

    from treegym.envs.core.env_entry import EnvEntry

    ENV_SPECS = (EnvEntry("treegym/MyGame-v0", "treegym.envs.mygame.env:MyGameEnv", name="mygame"),)

A family that also offers a server of its own (a site for people, mock APIs, a fake
adb) declares it there too, as ``SERVERS`` (:class:`ServerEntry`); ``treegym serve <name>``
looks it up. Keep that ``__init__.py`` light (no heavy imports): it is imported whenever
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


@dataclass(frozen=True)
class ServerEntry:
    """A server a family offers besides the generic session server: ``treegym serve <name>``.

    Declared in the family's ``envs/<family>/__init__.py`` as a module-level ``SERVERS`` tuple
    (found like ``ENV_SPECS``; ``treegym list`` and ``treegym serve --help`` show them)::

        SERVERS = (ServerEntry("webshop", "treegym.servers.webshop:create_app", env_id="treegym/WebShop-v0",
                               about="the shop's pages and JSON API", default_port=3000, extra="webshop"),)

    * ``factory``: ``"module:function"``, imported only when served (a string: ``envs`` never
      imports ``servers``). ``kind="http"``: it returns a WSGI app that ``treegym serve`` runs on
      ``--host``/``--port``; ``kind="tcp"``: it takes ``host=`` and ``port=`` and returns a
      server object with ``start() -> self`` (then ``.port``) and ``stop()``.
      It is called with the options it accepts among ``ttl``, ``max_sessions``, ``catalog`` and
      the user's ``--opt KEY=VALUE`` (an option it does not accept is refused).
    * ``banner``: printed once listening, formatted with ``url``, ``host`` and ``port``.
    * ``failure``: how an error while building the server starts (``cannot load the catalog``).
    """

    name: str
    factory: str
    env_id: str | None = None
    about: str = ""
    default_port: int = 8000
    kind: str = "http"
    extra: str | None = None
    banner: str = "{name} at {url} (Ctrl-C to stop)"
    failure: str = "cannot start the server"

    def __post_init__(self) -> None:
        if not re.fullmatch(r"[a-z][a-z0-9_-]*", self.name):
            raise ValueError(f"server name {self.name!r} is not a lowercase word")
        module, _, attr = self.factory.partition(":")
        if not module or not attr:
            raise ValueError(f"factory {self.factory!r} of server {self.name} is not 'module:function'")
        if self.kind not in ("http", "tcp"):
            raise ValueError(f"server {self.name}: kind must be 'http' or 'tcp', got {self.kind!r}")
